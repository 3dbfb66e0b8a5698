"""In-process checks through the ASGI interface (an extra to the HTTP tests): behaviour that a
running server cannot be made to show on purpose, such as a handler crashing."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import pytest
from fastapi import Depends

from cloudcompute_emulator import auth, projects
from cloudcompute_emulator.app import create_fastapi_app
from cloudcompute_emulator.auth import InferenceCaller, require_inference_key
from cloudcompute_emulator.faults import FaultSpec
from cloudcompute_emulator.middleware import ConnectionDropped, EmulatorMiddleware
from cloudcompute_emulator.state import EmulatorState


def _call(app, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b"") -> tuple[int, dict, Any]:
    messages: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        messages.append(message)

    scope = {
        "type": "http", "http_version": "1.1", "method": method, "path": path, "raw_path": path.encode(),
        "root_path": "", "scheme": "http", "query_string": b"", "server": ("testserver", 80), "client": ("127.0.0.1", 1),
        "headers": [(key.lower().encode(), value.encode()) for key, value in (headers or {}).items()],
    }
    asyncio.run(app(scope, receive, send))
    start = next(message for message in messages if message["type"] == "http.response.start")
    payload = b"".join(message.get("body", b"") for message in messages if message["type"] == "http.response.body")
    response_headers = {key.decode(): value.decode() for key, value in start["headers"]}
    return start["status"], response_headers, json.loads(payload) if payload else None


@pytest.fixture
def state() -> EmulatorState:
    emulator_state = EmulatorState({"profile": "test"})
    emulator_state.bootstrap()
    return emulator_state


def test_unexpected_exceptions_answer_500_json(state: EmulatorState, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: Any) -> float:
        raise RuntimeError("boom")

    monkeypatch.setattr(projects, "balance", broken)
    app = EmulatorMiddleware(create_fastapi_app(state), state)
    launch = state.launch_credential
    tokens, _credential = auth.exchange_client_credentials(state, launch["client_id"], launch["client_secret"])
    status, headers, body = _call(app, "GET", "/v1/balance", {"Authorization": f"Bearer {tokens['access_token']}"})
    assert status == 500 and body == {"code": "server_error", "message": "Internal server error"}
    assert headers["content-type"] == "application/json"
    assert state.request_log.query()["requests"][-1]["status"] == 500


def test_inference_key_dependency(state: EmulatorState) -> None:
    fastapi_app = create_fastapi_app(state)

    @fastapi_app.get("/echo")
    async def echo(caller: Annotated[InferenceCaller, Depends(require_inference_key)]) -> dict:
        return {"project_id": caller.project_id}

    app = EmulatorMiddleware(fastapi_app, state)
    key = state.launch_credential["inference_api_key"]
    assert _call(app, "GET", "/echo", {"Authorization": f"Bearer {key}"})[2] == {"project_id": state.default_project_id}
    status, _headers, body = _call(app, "GET", "/echo", {"Authorization": "Bearer wrong"})
    assert status == 401 and body["code"] == "unauthorized_request"
    assert _call(app, "GET", "/echo")[0] == 401


def test_dropped_connection_without_a_server_transport(state: EmulatorState) -> None:
    app = EmulatorMiddleware(create_fastapi_app(state), state)
    state.faults.add(FaultSpec(path="/v1/instance-types", drop_connection=True))
    with pytest.raises(ConnectionDropped):
        _call(app, "GET", "/v1/instance-types")
    assert state.request_log.query()["requests"][-1]["connection_dropped"] is True
