"""Modules against a hostile HTTP server on loopback (our own, below): redirects of the token
exchange and of reads, a body sent a byte every 2 seconds, huge bodies, absurd ``Retry-After``
values, answers of the wrong type, and an ``api_url`` carrying a password. Every case ends in a
clear failure (or, where the answer is acceptable, a result), quickly, with nothing sent where
it should not go and never a traceback.
"""

import http.server
import json
import socket
import struct
import threading
import time

import pytest
from conftest import report
from module_runner import run_module

CLIENT_SECRET = "hostile-test-secret"
KEY = {"id": "k1", "name": "key", "public_key": "ssh-ed25519 AAAA test", "fingerprint": "x"}
OUTCOMES = []


class Server:
    """A loopback HTTP server whose answers the test sets: ``routes[(method, path)]`` is a
    function of the handler that writes the answer. It records every request it gets."""

    def __init__(self):
        self.routes = {}
        self.requests = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                path = self.path.split("?")[0]
                server.requests.append((self.command, path, body))
                route = server.routes.get((self.command, path)) or server.routes.get((self.command, "*"))
                if route is None:
                    return answer(self, 404, {"code": "not_found", "message": "no such thing"})
                return route(self)

            do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = handle_one

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def answer(handler, status, body=None, headers=None, raw=None):
    data = raw if raw is not None else json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def token(handler):
    answer(handler, 200, {"access_token": "hostile-token", "expires_in": 3600, "token_type": "Bearer"})


@pytest.fixture
def servers():
    api, other = Server(), Server()
    api.routes[("POST", "/v1/oauth2/token")] = token
    yield api, other
    api.close()
    other.close()


def run(api, module="ssh_key_info", tmp_path=None, **args):
    started = time.monotonic()
    result = run_module(
        module,
        dict(
            {
                "api_url": api.url + "/v1",
                "client_id": "hostile",
                "client_secret": CLIENT_SECRET,
                "token_cache": False,
                "request_timeout": 2,
            },
            **args,
        ),
    )
    result["seconds"] = time.monotonic() - started
    assert "traceback" not in result, result["traceback"]
    assert CLIENT_SECRET not in json.dumps(result)
    return result


def outcome(case, result):
    OUTCOMES.append(
        "{} -> {} ({:.1f} s)".format(case, result["msg"] if result.get("failed") else "ok", result["seconds"])
    )


@pytest.fixture(scope="module", autouse=True)
def summary():
    yield
    for line in OUTCOMES:
        report("hostile server", line)


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_the_token_exchange_follows_no_redirect(servers, status):
    api, other = servers
    api.routes[("POST", "/v1/oauth2/token")] = lambda handler: answer(
        handler, status, {}, {"Location": other.url + "/steal?x=1"}
    )
    other.routes[("POST", "*")] = token
    result = run(api)
    assert result["failed"] and "token exchange follows no redirect" in result["msg"], result
    assert "x=1" not in result["msg"]
    assert other.requests == []  # the client secret went nowhere else
    outcome("token POST answered %d to another host" % status, result)


@pytest.mark.parametrize("target", ["other host", "same host, other port", "https on the same host"])
def test_reads_follow_no_redirect_to_another_origin(servers, target):
    api, other = servers
    location = {
        "other host": other.url.replace("127.0.0.1", "localhost"),
        "same host, other port": other.url,
        "https on the same host": api.url.replace("http:", "https:"),
    }[target] + "/v1/ssh-keys"
    api.routes[("GET", "/v1/ssh-keys")] = lambda handler: answer(handler, 302, {}, {"Location": location})
    other.routes[("GET", "*")] = lambda handler: answer(handler, 200, [KEY])
    result = run(api)
    assert result["failed"] and "redirect to another server" in result["msg"], result
    assert other.requests == []
    outcome(f"GET redirected to {target}", result)


def test_a_redirect_within_the_api_is_followed(servers):
    api, _other = servers
    api.routes[("GET", "/v1/ssh-keys")] = lambda handler: answer(handler, 301, {}, {"Location": "/v1/moved-keys"})
    api.routes[("GET", "/v1/moved-keys")] = lambda handler: answer(handler, 200, [KEY])
    result = run(api)
    assert not result.get("failed") and result["ssh_keys"][0]["id"] == "k1", result
    outcome("GET redirected within the API", result)


def test_a_body_dripping_a_byte_a_second_times_out(servers):
    api, _other = servers

    def drip(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", "100")
        handler.end_headers()
        for _byte in range(100):
            try:
                handler.wfile.write(b" ")
                handler.wfile.flush()
            except OSError:
                return
            time.sleep(1)

    api.routes[("GET", "/v1/ssh-keys")] = drip
    # request_timeout 2: each byte arrives well in time (a read that timed out would be retried),
    # the whole never does
    result = run(api)
    assert result["failed"] and "not complete within 4 seconds" in result["msg"], result
    assert result["seconds"] < 10
    assert len([entry for entry in api.requests if entry[1] == "/v1/ssh-keys"]) == 1  # not retried
    outcome("body dripping a byte a second (request_timeout 2)", result)


def test_a_body_cut_short_by_a_reset_is_retried_then_a_clear_failure(servers):
    api, _other = servers

    def cut(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", "1000")
        handler.end_headers()
        handler.wfile.write(b'[{"id": "k1", ')
        handler.wfile.flush()
        # an abortive close: the client reads a reset, not an end of file
        handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        handler.connection.close()
        handler.close_connection = True

    api.routes[("GET", "/v1/ssh-keys")] = cut
    result = run(api)
    assert result["failed"] and "no response from" in result["msg"], result
    assert len([entry for entry in api.requests if entry[1] == "/v1/ssh-keys"]) > 1  # a read is retried
    outcome("body cut short by a connection reset", result)


@pytest.mark.parametrize("declared", [True, False], ids=["declared", "streamed"])
def test_a_huge_body_is_refused(servers, declared):
    api, _other = servers
    size = 65 * 1024 * 1024

    def huge(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if declared:
            handler.send_header("Content-Length", str(size))
        else:
            handler.send_header("Connection", "close")
        handler.end_headers()
        chunk = b" " * (1024 * 1024)
        try:
            for _mebibyte in range(65):
                handler.wfile.write(chunk)
        except OSError:
            pass
        handler.close_connection = True

    api.routes[("GET", "/v1/ssh-keys")] = huge
    result = run(api)
    assert result["failed"] and "larger than 64 MiB" in result["msg"], result
    outcome("65 MiB body, %s" % ("Content-Length declared" if declared else "no length"), result)


@pytest.mark.parametrize("value", ["1e9", "inf", "1e400", "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_an_absurd_retry_after_fails_at_once(servers, value):
    api, _other = servers
    api.routes[("GET", "/v1/ssh-keys")] = lambda handler: answer(
        handler, 429, {"code": "rate_limited", "message": "slow down"}, {"Retry-After": value}
    )
    result = run(api)
    assert result["failed"] and result["failure"]["status"] == 429, result
    assert "beyond the 900 seconds" in result["msg"] and result["seconds"] < 5, result
    outcome(f"429 with Retry-After: {value}", result)


def rate_limit_spent(reset, window):
    """Headers saying the project's quota of a ``window`` of seconds is spent until ``reset``
    seconds from now (the client believes a reset no further away than the window)."""
    return {"RateLimit": f'"project";r=0;t={reset}', "RateLimit-Policy": f'"project";q=500;w={window}'}


WITH_WAIT_TIMEOUT = dict(module="instance_state", instances=["web-1"], state="running", wait_timeout=90)
WAIT_BEYOND_WHAT_IS_LEFT = {
    # a read answered 503 is retried: its pacing is what the headers of the 503 say; a year-long
    # window is believed up to the longest the client believes (900 s), which is still too long
    "RateLimit reset in 11 days": (dict(module="ssh_key_info"), 503, rate_limit_spent(1000000, 31536000)),
    "RateLimit reset beyond wait_timeout": (WITH_WAIT_TIMEOUT, 503, rate_limit_spent(300, 600)),
    "429 Retry-After beyond wait_timeout": (WITH_WAIT_TIMEOUT, 429, {"Retry-After": "300"}),
}


@pytest.mark.parametrize("case", WAIT_BEYOND_WHAT_IS_LEFT)
def test_a_wait_beyond_what_is_left_fails_at_once(servers, case):
    """Pacing and retries never sleep past the client's bound or the task's wait_timeout: what the
    API asks beyond it fails the request at once, saying so."""
    args, status, headers = WAIT_BEYOND_WHAT_IS_LEFT[case]
    api, _other = servers
    api.routes[("GET", "*")] = lambda handler: answer(handler, status, {"code": "busy", "message": "later"}, headers)
    result = run(api, **args)
    assert result["failed"] and result["seconds"] < 5 and "The API asked to" in result["msg"], result
    bound = "seconds the task may still wait" if "wait_timeout" in args else "beyond the 900 seconds the client waits"
    assert bound in result["msg"], result
    assert len([entry for entry in api.requests if entry[0] == "GET"]) == 1, api.requests  # never sent again
    if status == 503:
        assert result["failure"]["code"] == "wait_too_long", result
    outcome(case, result)


@pytest.mark.parametrize("value", ["nan", "-1", "soon"])
def test_a_meaningless_retry_after_is_a_short_backoff(servers, value):
    api, _other = servers
    answers = iter([(429, {"code": "rate_limited", "message": "slow down"})])

    def rate_limited_once(handler):
        status, body = next(answers, (200, [KEY]))
        answer(handler, status, body, {"Retry-After": value})

    api.routes[("GET", "/v1/ssh-keys")] = rate_limited_once
    result = run(api)
    assert not result.get("failed") and result["seconds"] < 5, result
    outcome(f"429 with Retry-After: {value}, then 200", result)


@pytest.mark.parametrize(
    "case, path, raw, expected",
    [
        ("invalid JSON", "/v1/ssh-keys", b"[{not json", "a string, not a JSON object or list"),
        ("a string for a list", "/v1/ssh-keys", b'"keys"', "a string, not a JSON object or list"),
        ("an object for a list", "/v1/ssh-keys", b'{"items": []}', "a JSON object where a list of objects"),
        ("a null element", "/v1/ssh-keys", b"[null]", "a list holding null"),
        (
            "two keys for one",
            "/v1/ssh-keys/k1",
            json.dumps([KEY, dict(KEY, id="k2")]).encode(),
            "a list of 2 items where one object was expected",
        ),
        ("a number for an object", "/v1/ssh-keys/k1", b"42", "a JSON number where one object"),
    ],
)
def test_wrong_types_and_invalid_json_are_clear_failures(servers, case, path, raw, expected):
    api, _other = servers
    api.routes[("GET", path)] = lambda handler: answer(handler, 200, raw=raw)
    result = run(api, **({"id": "k1"} if path.endswith("k1") else {}))
    assert result["failed"] and expected in result["msg"] and ("GET " + path[3:]) in result["msg"], result
    assert "object has no attribute" not in result["msg"]
    outcome(case, result)


def test_the_documented_one_element_array_read_still_works(servers):
    api, _other = servers
    api.routes[("GET", "/v1/ssh-keys/k1")] = lambda handler: answer(handler, 200, [KEY])
    result = run(api, id="k1")
    assert not result.get("failed") and result["ssh_keys"] == [KEY], result


def test_an_api_url_with_a_password_is_refused_without_echoing_it(servers):
    api, _other = servers
    result = run(api, api_url=api.url.replace("http://", "http://user:pa55word-xyz@") + "/v1")
    assert result["failed"] and "must not carry a user name or password" in result["msg"], result
    assert "pa55word-xyz" not in json.dumps(result)
    assert api.requests == []
    outcome("api_url http://user:***@host/v1", result)


HOSTILE_RATE_LIMITS = {
    # one header used to block every process of the machine for a year, and never healed
    "RateLimit reset a year away": ('"project";r=3;t=31536000', '"project";q=500;w=60'),
    "RateLimit policy window of a year": ('"project";r=3;t=31536000', '"project";q=5;w=31536000'),
    "RateLimit of the wrong types": ('"project";r=abc;t=[1];q=nan', '"project";q=-1;w=0'),
    "RateLimit of infinite numbers": ('"project";r=1e999;t=-inf', '"project";q=inf;w=1e999'),
}


@pytest.mark.parametrize("case", HOSTILE_RATE_LIMITS)
def test_hostile_rate_limit_headers_never_block_the_next_task(servers, case, tmp_path):
    """What the shared rate-limit state keeps from a hostile header lasts one window at most:
    the next task of the machine sends its request at once."""
    remaining, policy = HOSTILE_RATE_LIMITS[case]
    api, _other = servers
    headers = {"RateLimit": remaining, "RateLimit-Policy": policy}
    api.routes[("GET", "/v1/ssh-keys")] = lambda handler: answer(handler, 200, [KEY], headers)
    first = run(api, token_cache=str(tmp_path / "tokens"))
    second = run(api, token_cache=str(tmp_path / "tokens"))
    assert not first.get("failed") and not second.get("failed"), (first, second)
    assert second["seconds"] < 5, second
    for state_file in (tmp_path / "tokens").glob("*.ratelimit"):
        for entry in json.loads(state_file.read_text())["quotas"].values():
            assert entry.get("reset_at", 0) <= time.time() + 900 + 2, entry
    outcome(case + ", then another task", second)


CORRUPT_ENTRIES = {
    "a year-long reset": {"q": 500, "w": 60, "left": 0, "reset_at": time.time() + 31536000, "opened": True},
    "wrong types": {"q": "500", "w": [60], "left": None, "reset_at": "soon"},
    "a probe that never ends": {"probe_until": 1e308},
}


@pytest.mark.parametrize("case", CORRUPT_ENTRIES)
def test_a_corrupt_shared_rate_limit_entry_is_treated_as_absent(servers, case, tmp_path):
    api, _other = servers
    api.routes[("GET", "/v1/ssh-keys")] = lambda handler: answer(handler, 200, [KEY])
    run(api, token_cache=str(tmp_path / "tokens"))  # makes the token cache and its state file
    (state_file,) = (tmp_path / "tokens").glob("*.ratelimit")
    state = json.loads(state_file.read_text())
    state["quotas"] = {"project": CORRUPT_ENTRIES[case], "GET /v1/ssh-keys": CORRUPT_ENTRIES[case]}
    state_file.write_text(json.dumps(state))
    result = run(api, token_cache=str(tmp_path / "tokens"))
    assert not result.get("failed") and result["seconds"] < 5, result
    outcome(f"shared rate-limit state with {case}", result)


# ---------------------------------------------------------------------------- placement, offers, cost
# Answers of the wrong type or money that is no amount where placement, the offers lookup,
# cost_info and the cost guards read them: one clear failure naming the path (or, for one bad
# record among many, that record skipped and named), never a traceback, and never a deploy.

H100 = "1H100.80S.30V"
CATALOG = [
    {
        "instance_type": H100,
        "price_per_hour": "2.29",
        "spot_price": "0.99",
        "currency": "usd",
        "model": "H100",
        "gpu": {"number_of_gpus": 1},
        "gpu_memory": {"size_in_gigabytes": 80},
        "cpu": {"number_of_cores": 30},
        "memory": {"size_in_gigabytes": 120},
    }
]
VOLUME_TYPES = [{"type": "NVMe", "price": {"price_per_month_per_gb": 0.2}}]
DEPLOY = dict(
    module="instance",
    hostname="gpu-1",
    image="ubuntu-24.04",
    ssh_keys=[],
    os_volume={"name": "gpu-1-os", "size": 100},
    wait=False,
)
HOSTILE_AVAILABILITY = {
    # a string of codes would be matched letter by letter ("1H100" in "1H100.80S.30V, ...")
    "availabilities a string": ([{"location_code": "FIN-01", "availabilities": H100 + ",8H100.80S.176V"}], "a string"),
    "availabilities an object": ([{"location_code": "FIN-01", "availabilities": {H100: True}}], "an object"),
    "availabilities holding a number": (
        [{"location_code": "FIN-01", "availabilities": [1]}],
        "a list holding a number",
    ),
    "location_code a list": ([{"location_code": ["FIN-01"], "availabilities": [H100]}], "a list as a location_code"),
}


def serve(api, routes):
    for (method, path), body in routes.items():
        api.routes[(method, "/v1" + path)] = lambda handler, body=body: answer(
            handler, 200, raw=json.dumps(body).encode()
        )


def deploys(api):
    return [entry for entry in api.requests if entry[0] == "POST" and entry[1] == "/v1/instances"]


@pytest.mark.parametrize("case", HOSTILE_AVAILABILITY)
def test_placement_refuses_an_availability_answer_of_the_wrong_type(servers, case):
    availability, said = HOSTILE_AVAILABILITY[case]
    api, _other = servers
    serve(
        api,
        {
            ("GET", "/instances"): [],
            ("GET", "/instance-types"): CATALOG,
            ("GET", "/volume-types"): VOLUME_TYPES,
            ("GET", "/instance-availability"): availability,
        },
    )
    result = run(api, **DEPLOY, placement={"locations": ["FIN-01", "FIN-03"], "instance_types": [H100]})
    assert result["failed"] and "GET /instance-availability failed" in result["msg"] and said in result["msg"], result
    assert result["failure"]["code"] == "unexpected_answer", result
    assert deploys(api) == []
    outcome(f"placement: {case}", result)


def lookup_offers(api, **options):
    """The offers lookup run in this process, as a template calls it: its result or its error."""
    from ansible.errors import AnsibleLookupError
    from ansible.plugins.loader import lookup_loader

    lookup = lookup_loader.get("cloudcompute.cloud.offers")
    started = time.monotonic()
    connection = dict(api_url=api.url + "/v1", client_id="hostile", client_secret=CLIENT_SECRET, token_cache=False)
    try:
        result = {"offers": lookup.run([], variables={}, **connection, **options)}
    except AnsibleLookupError as error:
        result = {"failed": True, "msg": str(error)}
    result["seconds"] = time.monotonic() - started
    assert CLIENT_SECRET not in json.dumps(result)
    return result


HOSTILE_CATALOG = {
    "number_of_gpus a string": dict(CATALOG[0], gpu={"number_of_gpus": "eight"}),
    "number_of_gpus infinite": dict(CATALOG[0], gpu={"number_of_gpus": 1e400}),
    "gpu_memory negative": dict(CATALOG[0], gpu_memory={"size_in_gigabytes": -80}),
    "gpu a string": dict(CATALOG[0], gpu="1x H100"),
}


@pytest.mark.parametrize("case", list(HOSTILE_AVAILABILITY) + list(HOSTILE_CATALOG))
def test_the_offers_lookup_refuses_answers_of_the_wrong_type(servers, case):
    api, _other = servers
    availability = HOSTILE_AVAILABILITY.get(case, ([{"location_code": "FIN-01", "availabilities": [H100]}], None))[0]
    catalog = [HOSTILE_CATALOG[case]] if case in HOSTILE_CATALOG else CATALOG
    serve(api, {("GET", "/instance-types"): catalog, ("GET", "/instance-availability"): availability})
    result = lookup_offers(api, spot=False)
    path = "/instance-types" if case in HOSTILE_CATALOG else "/instance-availability"
    assert result.get("failed") and f"GET {path} failed: the API answered" in result["msg"], result
    outcome(f"offers lookup: {case}", result)


@pytest.mark.parametrize("price", ["NaN", "-2.29", "-Infinity", "abc"])
def test_the_offers_lookup_offers_nothing_at_a_price_that_is_no_price(servers, price):
    """A NaN passes every max_price_per_hour filter, a negative price sorts first: neither is offered."""
    api, _other = servers
    catalog = [dict(CATALOG[0], price_per_hour=price)]
    serve(
        api,
        {
            ("GET", "/instance-types"): catalog,
            ("GET", "/instance-availability"): [{"location_code": "FIN-01", "availabilities": [H100]}],
        },
    )
    result = lookup_offers(api, spot=False, max_price_per_hour=0.5)
    assert result == dict(result, offers=[]), result
    outcome(f"offers lookup: catalog price {price}", result)


@pytest.mark.parametrize("price", ["NaN", "-2.29", "-Infinity", "1e400"])
def test_a_capped_deploy_is_refused_at_a_catalog_price_that_is_no_price(servers, price):
    api, _other = servers
    serve(
        api,
        {
            ("GET", "/instances"): [],
            ("GET", "/instance-types"): [dict(CATALOG[0], price_per_hour=price)],
            ("GET", "/volume-types"): VOLUME_TYPES,
        },
    )
    api.routes[("POST", "/v1/instances")] = lambda handler: answer(handler, 202, "new-id")
    result = run(api, **DEPLOY, instance_type=H100, location_code="FIN-01", max_price_per_hour=0.5)
    assert result["failed"] and "cannot price the plan" in result["msg"] and "nothing was changed" in result["msg"]
    assert deploys(api) == []
    outcome(f"max_price_per_hour 0.5, catalog price {price}", result)


CHARGED = {"id": "i-1", "hostname": "web", "status": "running", "location": "FIN-01", "instance_type": H100}
HOSTILE_BALANCE = {
    "balance amount NaN": ({"amount": "NaN", "currency": "usd"}, "is 'NaN', not a finite number"),
    "balance amount Infinity": ({"amount": float("inf"), "currency": "usd"}, "is inf, not a finite number"),
    "balance amount a string": ({"amount": "plenty", "currency": "usd"}, "is 'plenty', not a finite number"),
    "balance amount an object": ({"amount": {"usd": 5}, "currency": "usd"}, "not a finite number"),
    "balance a list of two": ([{"amount": 1}, {"amount": 2}], "a list of 2 items where one object"),
}


def cost_routes(api, instances, balance):
    serve(
        api,
        {
            ("GET", "/instances"): instances,
            ("GET", "/clusters"): [],
            ("GET", "/volumes"): [],
            ("GET", "/volumes/trash"): [],
            ("GET", "/balance"): balance,
        },
    )


@pytest.mark.parametrize("case", HOSTILE_BALANCE)
def test_cost_info_fails_clearly_on_a_balance_that_is_no_number(servers, case):
    balance, said = HOSTILE_BALANCE[case]
    api, _other = servers
    cost_routes(api, [dict(CHARGED, price_per_hour=2.29)], balance)
    result = run(api, module="cost_info")
    assert result["failed"] and said in result["msg"], result
    outcome(f"cost_info: {case}", result)


@pytest.mark.parametrize("case", HOSTILE_BALANCE)
def test_min_balance_hours_refuses_a_deploy_on_a_balance_that_is_no_number(servers, case):
    balance, said = HOSTILE_BALANCE[case]
    api, _other = servers
    cost_routes(api, [], balance)
    serve(api, {("GET", "/instance-types"): CATALOG, ("GET", "/volume-types"): VOLUME_TYPES})
    api.routes[("POST", "/v1/instances")] = lambda handler: answer(handler, 202, "new-id")
    result = run(api, **DEPLOY, instance_type=H100, location_code="FIN-01", min_balance_hours=1)
    assert result["failed"] and said in result["msg"], result
    assert deploys(api) == []
    outcome(f"min_balance_hours 1: {case}", result)


HOSTILE_RECORDS = {
    "price NaN": (dict(CHARGED, price_per_hour="NaN"), "is 'NaN'"),
    "price negative": (dict(CHARGED, price_per_hour=-2.29), "is -2.29"),
    "price missing": (CHARGED, "is None"),
    "location an object": (
        dict(CHARGED, price_per_hour=1, location={"code": "FIN-01"}),
        "its location is an object, not a string",
    ),
    "hostname a number": (dict(CHARGED, price_per_hour=1, hostname=7), "its name is a number, not a string"),
    "tags a string": (
        dict(CHARGED, price_per_hour=1, tags="team=a"),
        "its tags are not a list of {key, value} or a dictionary: they are a string",
    ),
    "tags a number": (
        dict(CHARGED, price_per_hour=1, tags=7),
        "its tags are not a list of {key, value} or a dictionary: they are a number",
    ),
}


@pytest.mark.parametrize("case", HOSTILE_RECORDS)
def test_cost_info_skips_and_names_a_record_it_cannot_read(servers, case):
    record, said = HOSTILE_RECORDS[case]
    good = dict(CHARGED, id="i-2", hostname="db", price_per_hour=0.5)
    api, _other = servers
    cost_routes(api, [dict(record), good], {"amount": 100, "currency": "usd"})
    result = run(api, module="cost_info")
    assert not result.get("failed"), result
    assert [item["id"] for item in result["resources"]] == ["i-2"] and result["price_per_hour"] == 0.5, result
    assert result["unreadable"] == [{"kind": "instance", "id": "i-1", "reason": result["unreadable"][0]["reason"]}]
    assert said in result["unreadable"][0]["reason"], result
    outcome(f"cost_info: one record's {case} (skipped, named in unreadable)", result)
