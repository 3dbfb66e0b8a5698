"""Shared fixtures: every test talks HTTP to a real emulator subprocess.

The session ``emulator`` fixture comes from the package's own pytest plugin; ``api`` resets it
and hands out a client logged in as the owner.

This suite runs the emulator with the ``realistic`` timing profile and moves its clock
explicitly (``settle``): no transition happens on its own while a test looks at an
intermediate status (``ordered``, ``attaching``, ...), however loaded the machine is. Tokens
live long for the same reason; tests of expiry set a short lifetime themselves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import requests

from cloudcompute_emulator.testing import RunningEmulator

ED25519_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq8cY1M5u5x0Yk0Zkq3s4Yq1m8i5m2o6b9x9p0QeJgC test@example"
CPU_TYPE = "CPU.4V.16G"
LOCATION = "FIN-01"


class ApiClient:
    """A thin requests wrapper: paths relative to /v1, optional bearer token."""

    def __init__(self, api_url: str, token: str | None = None) -> None:
        self.api_url = api_url
        self.session = requests.Session()
        self.session.headers["User-Agent"] = "cloudcompute-emulator-tests/1.0"
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        return self.session.request(method, self.api_url + path, timeout=30, **kwargs)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("PUT", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("DELETE", path, **kwargs)

    # -- shortcuts used across test modules ------------------------------------------------------

    def ok(self, method: str, path: str, expected: int = 200, **kwargs: Any) -> requests.Response:
        response = self.request(method, path, **kwargs)
        assert response.status_code == expected, f"{method} {path}: {response.status_code} {response.text}"
        return response

    def ssh_key(self, name: str = "key", key: str = ED25519_KEY) -> str:
        return self.ok("POST", "/ssh-keys", 201, json={"name": name, "key": key}).text

    def deploy(self, **overrides: Any) -> str:
        body = {"hostname": "web-1", "image": "ubuntu-24.04", "instance_type": CPU_TYPE, "location_code": LOCATION}
        body.update(overrides)
        return self.ok("POST", "/instances", 202, json=body).text

    def instance(self, instance_id: str) -> dict[str, Any]:
        return self.ok("GET", f"/instances/{instance_id}").json()

    def volume(self, volume_id: str) -> dict[str, Any]:
        return self.ok("GET", f"/volumes/{volume_id}").json()

    def create_volume(self, **overrides: Any) -> str:
        body = {"name": "data", "size": 10, "type": "NVMe", "location_code": LOCATION}
        body.update(overrides)
        return self.ok("POST", "/volumes", 202, json=body).text

    def action(self, instance_id: str | list[str], action: str, expected: int = 202, **extra: Any) -> requests.Response:
        return self.ok("PUT", "/instances", expected, json={"action": action, "id": instance_id, **extra})

    def volume_action(self, volume_id: str | list[str], action: str, expected: int = 202, **extra: Any) -> requests.Response:
        return self.ok("PUT", "/volumes", expected, json={"action": action, "id": volume_id, **extra})


def token_for(emulator: RunningEmulator, client_id: str, client_secret: str) -> str:
    return emulator.access_token(client_id, client_secret)


def wait_for(predicate: Callable[[], Any], timeout: float = 5.0, interval: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(interval)


def assert_error(response: requests.Response, status: int, code: str, contains: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, f"{response.status_code} {response.text}"
    body = response.json()
    assert set(body) == {"code", "message"}, body
    assert body["code"] == code, body
    if contains is not None:
        assert contains.lower() in body["message"].lower(), body
    return body


@pytest.fixture(scope="session")
def emulator_settings() -> dict[str, Any]:
    return {"profile": "realistic", "token_ttl": 100_000_000}


@pytest.fixture
def api(emulator_reset: RunningEmulator) -> ApiClient:
    """A client logged in as the project owner, on a freshly reset emulator."""
    return ApiClient(emulator_reset.api_url, emulator_reset.access_token())


@pytest.fixture
def login(emulator_reset: RunningEmulator) -> Callable[[], ApiClient]:
    """A fresh owner client (after advancing the clock past the token lifetime)."""
    return lambda: ApiClient(emulator_reset.api_url, emulator_reset.access_token())


@pytest.fixture
def anonymous(emulator_reset: RunningEmulator) -> ApiClient:
    return ApiClient(emulator_reset.api_url)


@pytest.fixture
def control(emulator_reset: RunningEmulator):
    return emulator_reset.control


@pytest.fixture
def settle(control) -> Callable[[float], None]:
    """Move the emulator clock so that pending transitions complete (the realistic profile's
    slowest step, a cross-datacenter clone, takes 900 s)."""

    def advance(seconds: float = 1000.0) -> None:
        control.advance_clock(seconds)

    return advance


@pytest.fixture
def running_instance(api: ApiClient, settle) -> str:
    api.ssh_key()
    instance_id = api.deploy()
    settle()
    assert api.instance(instance_id)["status"] == "running"
    return instance_id


@pytest.fixture
def offline_instance(api: ApiClient, running_instance: str, settle) -> str:
    api.action(running_instance, "shutdown")
    settle()
    assert api.instance(running_instance)["status"] == "offline"
    return running_instance


# The longest tests go first, so that with pytest-xdist (``-n 2`` in pyproject.toml) they run
# while the other worker gets through the many short ones.
SLOW_FIRST = ("test_schema_conformance.py", "test_random_walk.py", "test_state_file.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = item.path.name
        return SLOW_FIRST.index(name) if name in SLOW_FIRST else len(SLOW_FIRST)

    items.sort(key=rank)


# -- API coverage: which operations and (operation, status) pairs the suite exercised ---------------
#
# After each test the session emulator's request log (cleared by the next reset) is collected;
# workers hand their share to the controller, which prints a summary at the end: operations of
# the API hit, and the "named" (operation, status) pairs hit — each operation's success status,
# the statuses it declares, 401 for an authenticated one and 400 for one that takes input.
# Requests made to other emulators (schemathesis, durability tests) are not counted.

API_CALLS: set[tuple[str, str, int]] = set()


@pytest.fixture(autouse=True)
def _record_api_calls(emulator: RunningEmulator):
    yield
    for entry in emulator.control.requests()["requests"]:
        if entry["status"] is not None:
            API_CALLS.add((entry["method"], entry["path"], entry["status"]))


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["api_calls"] = sorted(API_CALLS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    API_CALLS.update(tuple(call) for call in getattr(node, "workeroutput", {}).get("api_calls", []))


def _constrained(schema: dict[str, Any]) -> bool:
    """Can a value of this query parameter be refused by its schema alone?"""
    options = schema.get("anyOf", [schema])
    return any(option.get("type") not in (None, "string", "null") or set(option) & {"enum", "pattern", "minLength", "maxLength"}
               for option in options)


def _named_pairs() -> dict[tuple[str, str], set[int]]:
    import re

    from fastapi.routing import APIRoute

    from cloudcompute_emulator import scopes
    from cloudcompute_emulator.app import create_fastapi_app
    from cloudcompute_emulator.routes import API_ROUTERS
    from cloudcompute_emulator.state import EmulatorState

    document = create_fastapi_app(EmulatorState({"profile": "test"})).openapi()
    operations: dict[tuple[str, str], set[int]] = {}
    for router in API_ROUTERS:
        for route in router.routes:
            if not isinstance(route, APIRoute):
                continue
            documented = document["paths"][route.path]
            takes_input = any(
                "requestBody" in documented[method.lower()]
                or any(parameter["in"] == "query" and _constrained(parameter["schema"])
                       for parameter in documented[method.lower()].get("parameters", []))
                for method in route.methods or ()
            )
            statuses = {route.status_code or 200} | {int(code) for code in route.responses if str(code).isdigit()}
            if not scopes.is_public(route.path):
                statuses.add(401)
            if takes_input:
                statuses.add(400)
            for method in route.methods or ():
                pattern = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(route.path)) + "$"
                operations[(method, pattern)] = statuses
    return operations


def pytest_terminal_summary(terminalreporter: Any) -> None:
    import re

    if not API_CALLS or getattr(terminalreporter.config, "workeroutput", None) is not None:
        return
    operations = _named_pairs()
    hit_operations: set[tuple[str, str]] = set()
    hit_pairs: set[tuple[tuple[str, str], int]] = set()
    # the most specific template wins (/v1/volumes/trash before /v1/volumes/{volume_id})
    ordered = sorted(operations, key=lambda op: (op[1].count("[^/]+"), -len(op[1])))
    for method, path, status in API_CALLS:
        operation = next((op for op in ordered if op[0] == method and re.match(op[1], path)), None)
        if operation is not None:
            hit_operations.add(operation)
            hit_pairs.add((operation, status))
    named = {(operation, status) for operation, statuses in operations.items() for status in statuses}
    missing = sorted(f"{op[0]} {op[1].strip('^$').replace('[^/]+', '{}')} {status}" for op, status in named - hit_pairs)
    terminalreporter.write_sep("-", "API coverage (session emulator)")
    terminalreporter.write_line(f"operations: {len(hit_operations)}/{len(operations)}")
    terminalreporter.write_line(f"named (operation, status) pairs: {len(named & hit_pairs)}/{len(named)}; "
                                f"other pairs seen: {len(hit_pairs - named)}")
    # the list only when it is short (a run of a few test files misses most pairs)
    if len(missing) <= 20 or terminalreporter.config.option.verbose > 0:
        for line in missing:
            terminalreporter.write_line(f"  not exercised: {line}")
