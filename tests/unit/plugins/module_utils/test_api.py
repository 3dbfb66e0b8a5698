"""The shared API client against a real emulator over HTTP: auth and the token cache, retries,
lost responses, pacing and error mapping. Nothing here patches the client or the network."""

import json
import os
import re
import stat
import time

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import (
    USER_AGENT,
    ApiClient,
    ApiError,
    parse_created_id,
    single_item,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import ResponseLost
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_pacing import parse_rate_limit_header

PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q unit@test"


@pytest.fixture
def make_client(emulator, tmp_path):
    def factory(**overrides):
        options = dict(
            api_url=emulator.api_url,
            client_id=emulator.client_id,
            client_secret=emulator.client_secret,
            token_cache=str(tmp_path / "tokens"),
        )
        options.update(overrides)
        return ApiClient(**options)

    return factory


def token_requests(log):
    return [entry for entry in log if entry["path"] == "/v1/oauth2/token"]


def api_requests(log, method=None, path=None):
    return [
        entry
        for entry in log
        if (method is None or entry["method"] == method) and (path is None or entry["path"] == path)
    ]


def key_names(client):
    return [key["name"] for key in client.get("/ssh-keys")]


# ---------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "body, expected",
    [
        ("2d9f1c3e-0000-4000-8000-000000000001", "2d9f1c3e-0000-4000-8000-000000000001"),
        ('"2d9f1c3e-0000-4000-8000-000000000001"', "2d9f1c3e-0000-4000-8000-000000000001"),
        ("  2d9f\n", "2d9f"),
        ({"id": "abc"}, "abc"),
        ('{"id": "abc"}', "abc"),
        (["abc", "def"], "abc"),
        ('["abc"]', "abc"),
    ],
)
def test_created_ids_are_read_in_every_form_the_api_uses(body, expected):
    assert parse_created_id(body) == expected


def test_single_reads_accept_an_object_or_a_one_element_array():
    assert single_item([{"id": "a"}]) == {"id": "a"}
    assert single_item({"id": "a"}) == {"id": "a"}


@pytest.mark.parametrize(
    "body, answered",
    [
        ([], "a list of 0 items"),
        ([{"id": "a"}, {"id": "b"}], "a list of 2 items"),  # never "the first": that is another resource
        ("oops", "a string, not a JSON object or list"),
        (None, "null"),
        (7, "a JSON number"),
        ([None], "null"),
    ],
)
def test_a_single_read_answered_with_anything_but_one_object_is_an_error(body, answered):
    with pytest.raises(ApiError) as error:
        single_item(body, "GET", "/ssh-keys/k1")
    assert str(error.value).startswith("GET /ssh-keys/k1 failed: the API answered " + answered)
    assert str(error.value).endswith("where one object was expected")


def test_rate_limit_headers_are_parsed_and_malformed_entries_skipped():
    parsed = parse_rate_limit_header('"project";r=499;t=59, "endpoint";r=59;t=60, garbage;r=x')
    assert parsed["project"] == {"r": 499, "t": 59}
    assert parsed["endpoint"] == {"r": 59, "t": 60}
    assert parsed["garbage"] == {}
    assert parse_rate_limit_header(None) == {}
    # a hostile server's numbers are skipped like any other malformed entry, never a crash
    assert parse_rate_limit_header('"project";r=inf;t=1e400;q=nan;w=60') == {"project": {"w": 60}}


# ------------------------------------------------------------------- auth and token cache


def test_one_token_exchange_serves_many_clients_through_the_cache(make_client, control, tmp_path):
    for _task in range(3):  # three tasks, each with its own client, as in a playbook
        make_client().get("/ssh-keys")
    log = control.requests()["requests"]
    assert len(token_requests(log)) == 1
    assert len(api_requests(log, "GET", "/v1/ssh-keys")) == 3

    cache_files = [path for path in (tmp_path / "tokens").iterdir() if path.suffix == ".json"]
    assert len(cache_files) == 1
    assert stat.S_IMODE(os.stat(cache_files[0]).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "tokens").st_mode) == 0o700


def test_the_cache_never_holds_the_secret(make_client, emulator, tmp_path):
    make_client().get("/ssh-keys")
    for path in (tmp_path / "tokens").iterdir():
        assert emulator.client_secret not in path.read_text(errors="replace")


def test_a_changed_secret_does_not_reuse_the_cached_token(make_client, control):
    make_client().get("/ssh-keys")
    with pytest.raises(ApiError) as failure:
        make_client(client_secret="wrong-secret").get("/ssh-keys")
    assert failure.value.status == 401
    assert failure.value.code == "unauthorized_request"
    assert failure.value.path == "/oauth2/token"


def test_without_a_cache_every_client_exchanges_credentials(make_client, control):
    for _task in range(2):
        make_client(token_cache="false").get("/ssh-keys")
    assert len(token_requests(control.requests()["requests"])) == 2


def test_an_expiring_token_is_refreshed_with_the_refresh_grant(make_client, control):
    control.update_settings(token_ttl=2)
    client = make_client()
    client.get("/ssh-keys")
    time.sleep(1.7)  # inside the renewal margin (a fifth of the lifetime)
    client.get("/ssh-keys")
    grants = [entry.get("grant_type") for entry in token_requests(control.requests()["requests"])]
    assert grants == ["client_credentials", "refresh_token"]
    assert all(entry["status"] < 400 for entry in control.requests()["requests"])


def test_a_rejected_token_is_replaced_once(make_client, control, tmp_path):
    make_client().get("/ssh-keys")
    cache_file = next(path for path in (tmp_path / "tokens").iterdir() if path.suffix == ".json")
    cached = json.loads(cache_file.read_text())
    cached["access_token"] = "revoked-token"
    cache_file.write_text(json.dumps(cached))
    control.clear_requests()

    assert make_client().get("/ssh-keys") == []
    statuses = [(entry["path"], entry["status"]) for entry in control.requests()["requests"]]
    assert statuses[0] == ("/v1/ssh-keys", 401)
    assert statuses[-1] == ("/v1/ssh-keys", 200)
    assert len(token_requests(control.requests()["requests"])) == 1


def test_every_request_carries_the_collection_user_agent(make_client, control):
    make_client().get("/ssh-keys")
    agents = set(entry.get("user_agent") for entry in control.requests()["requests"])
    assert agents == {USER_AGENT}


# -------------------------------------------------------------------------- retries


def test_429_waits_retry_after_and_succeeds(make_client, control):
    control.add_fault(method="GET", path="/v1/ssh-keys", status=429, count=2, retry_after=1)
    client = make_client()
    started = time.monotonic()
    assert client.get("/ssh-keys") == []
    assert time.monotonic() - started >= 2  # two Retry-After waits of a second
    assert client.stats["rate_limited"] == 2


def test_429s_are_waited_out_for_a_time_not_a_number_of_times(make_client, control):
    # A fork of a large fleet can lose the race for a shared quota at many window resets in a
    # row: it keeps waiting until the time budget is spent, however many 429s that takes.
    control.add_fault(method="GET", path="/v1/ssh-keys", status=429, count=30, retry_after=1)
    waits = []
    client = make_client(sleep=waits.append, max_rate_limit_wait=60)
    assert client.get("/ssh-keys") == []
    assert client.stats["rate_limited"] == 30
    control.add_fault(method="GET", path="/v1/ssh-keys", status=429, probability=1.0, retry_after=1)
    waits.clear()
    with pytest.raises(ApiError) as rate_limited:
        client.get("/ssh-keys")
    assert rate_limited.value.status == 429
    # each wait 1 s plus up to 1 s of jitter, the last one clamped to what is left of the budget
    # (a sum of floats: within a rounding error of it)
    assert 30 <= len(waits) <= 60 and 59 <= sum(waits) <= 60 + 1e-9


def test_5xx_on_a_read_is_retried_with_backoff(make_client, control):
    control.add_fault(method="GET", path="/v1/ssh-keys", status=500, count=2)
    client = make_client()
    assert client.get("/ssh-keys") == []
    assert client.stats["retries"] == 2


def test_persistent_5xx_on_a_read_fails_with_the_api_error(make_client, control):
    control.add_fault(method="GET", path="/v1/ssh-keys", status=500, probability=1.0)
    client = make_client(sleep=lambda seconds: None)
    with pytest.raises(ApiError) as failure:
        client.get("/ssh-keys")
    assert failure.value.status == 500
    assert failure.value.code == "server_error"
    assert failure.value.to_failure()["method"] == "GET"


def test_a_5xx_create_is_checked_before_it_is_sent_again(make_client, control):
    # The fault answers 500 without running the handler: nothing was created, so the client
    # looks, finds nothing, and creates once.
    control.add_fault(method="POST", path="/v1/ssh-keys", status=500, count=1)
    client = make_client()
    lookups = []

    def find_existing():
        lookups.append(1)
        return next((key for key in client.get("/ssh-keys") if key["name"] == "k1"), None)

    key_id = client.create("/ssh-keys", {"name": "k1", "key": PUBLIC_KEY}, find_existing)
    assert key_id and lookups == [1]
    assert key_names(client) == ["k1"]
    assert len(api_requests(control.requests()["requests"], "POST", "/v1/ssh-keys")) == 2


def test_a_lost_create_response_makes_no_duplicate(make_client, control):
    # The connection drops after the key was stored: the client must find it, not resend.
    control.add_fault(method="POST", path="/v1/ssh-keys", drop_connection=True, after_commit=True, count=1)
    client = make_client()

    def find_existing():
        return next((key for key in client.get("/ssh-keys") if key["name"] == "k2"), None)

    key_id = client.create("/ssh-keys", {"name": "k2", "key": PUBLIC_KEY}, find_existing)
    keys = client.get("/ssh-keys")
    assert [key["id"] for key in keys] == [key_id]
    assert len(api_requests(control.requests()["requests"], "POST", "/v1/ssh-keys")) == 1


def test_a_create_answered_with_the_resource_returns_it_also_after_a_lost_response(make_client, control):
    # Serverless deployments are named, not numbered: the create answers the whole deployment.
    client = make_client()
    body = {
        "name": "web",
        "containers": [{"image": "nginx:1.27", "exposed_port": 80}],
        "compute": {"name": "L40S", "size": 1},
    }

    def find_existing(name):
        return next((item for item in client.get("/container-deployments") if item["name"] == name), None)

    created = client.create("/container-deployments", body, lambda: find_existing("web"), returns_resource=True)
    assert created["name"] == "web" and created["containers"][0]["image"]["image"] == "nginx:1.27"

    control.add_fault(method="POST", path="/v1/container-deployments", drop_connection=True, after_commit=True, count=1)
    again = client.create(
        "/container-deployments", dict(body, name="api"), lambda: find_existing("api"), returns_resource=True
    )
    assert again["name"] == "api"
    assert sorted(item["name"] for item in client.get("/container-deployments")) == ["api", "web"]
    assert len(api_requests(control.requests()["requests"], "POST", "/v1/container-deployments")) == 2


def test_a_plain_post_is_never_resent_after_a_lost_response(make_client, control):
    control.add_fault(method="POST", path="/v1/ssh-keys", drop_connection=True, after_commit=True, count=1)
    client = make_client()
    with pytest.raises(ApiError) as failure:
        client.post("/ssh-keys", {"name": "k3", "key": PUBLIC_KEY})
    assert failure.value.status is None
    assert key_names(client) == ["k3"]


def test_503_is_retried_a_few_times_then_fails_clearly(make_client, control):
    control.add_fault(method="GET", path="/v1/ssh-keys", status=503, probability=1.0)
    client = make_client(sleep=lambda seconds: None)
    with pytest.raises(ApiError) as failure:
        client.get("/ssh-keys")
    assert failure.value.status == 503
    gets = api_requests(control.requests()["requests"], "GET", "/v1/ssh-keys")
    assert 2 <= len(gets) <= 6


def test_a_connection_refused_is_reported_without_traceback_or_secret(emulator, tmp_path):
    client = ApiClient(
        "http://127.0.0.1:9/v1", "id", "very-secret", token_cache=str(tmp_path), sleep=lambda seconds: None
    )
    with pytest.raises(ApiError) as failure:
        client.get("/ssh-keys")
    assert failure.value.status is None
    assert "very-secret" not in str(failure.value)
    assert "no response from http://127.0.0.1:9/v1" in str(failure.value)


def test_a_post_that_could_not_connect_is_sent_again_it_never_reached_the_api(tmp_path):
    # Connecting failed (nothing listens there): even a create is safe to send again, and the
    # failure is a plain ApiError, not a lost response to look for.
    client = ApiClient("http://127.0.0.1:9/v1", None, None, sleep=lambda seconds: None)
    with pytest.raises(ApiError) as failure:
        client.request("POST", "/ssh-keys", json_body={"name": "k"}, authenticated=False)
    assert not isinstance(failure.value, ResponseLost)
    assert client.stats["requests"] == 6 and client.stats["retries"] == 5


def test_retry_limits_are_per_client(make_client, control):
    control.add_fault(method="GET", path="/v1/ssh-keys", status=429, probability=1.0, retry_after=1)
    control.add_fault(method="GET", path="/v1/scripts", status=503, probability=1.0)
    client = make_client(sleep=lambda seconds: None, max_rate_limit_retries=1, max_transient_retries=2)
    with pytest.raises(ApiError) as rate_limited:
        client.get("/ssh-keys")
    with pytest.raises(ApiError) as unavailable:
        client.get("/scripts")
    assert (rate_limited.value.status, unavailable.value.status) == (429, 503)
    log = control.requests()["requests"]
    assert len(api_requests(log, "GET", "/v1/ssh-keys")) == 2
    assert len(api_requests(log, "GET", "/v1/scripts")) == 3


# ----------------------------------------------------------------------- undecoded reads


def test_get_text_returns_the_body_as_sent(make_client):
    client = make_client()
    client.post("/ssh-keys", {"name": "raw", "key": PUBLIC_KEY})
    text = client.get_text("/ssh-keys")
    assert isinstance(text, str)
    assert json.loads(text) == client.get("/ssh-keys")


def test_get_text_raises_api_errors_like_any_request(make_client):
    with pytest.raises(ApiError) as failure:
        make_client().get_text("/instances/00000000-0000-4000-8000-000000000000")
    assert failure.value.status == 404


# ---------------------------------------------------------------------------- pacing


def test_the_client_paces_itself_before_the_quota_runs_out(make_client, control):
    control.update_settings(
        rate_limits={"enabled": True, "window_seconds": 3, "endpoint_quota": 10, "project_quota": 1000}
    )
    client = make_client()
    for _request in range(25):
        client.get("/ssh-keys")
    statuses = [entry["status"] for entry in api_requests(control.requests()["requests"], "GET", "/v1/ssh-keys")]
    assert statuses.count(429) == 0
    assert len(statuses) == 25
    assert client.stats["paced_seconds"] > 0


def test_pacing_delay_follows_the_headers(make_client):
    client = make_client()
    client.pacing.observe({"RateLimit": '"project";r=400;t=30', "RateLimit-Policy": '"project";q=500;w=60'})
    assert client.pacing_delay() == 0
    client.pacing.observe({"RateLimit": '"project";r=9;t=30', "RateLimit-Policy": '"project";q=500;w=60'})
    assert 2.7 < client.pacing_delay() <= 3.1  # 30-31 s spread over the 10 requests left
    client.pacing.observe({"RateLimit": '"project";r=0;t=30', "RateLimit-Policy": '"project";q=500;w=60'})
    assert 30 < client.pacing_delay() <= 31  # t is rounded down: wait until surely reset


@pytest.mark.parametrize("shared", [True, False], ids=["shared quota", "paced alone"])
@pytest.mark.parametrize(
    "reset, policy, wait_timeout, expected, asked_at_least",
    [
        # a reset is believed up to the policy's window, and no window is longer than 900 s
        (1_000_000, '"project";q=500;w=31536000', None, "beyond the 900 seconds the client waits in all", 900),
        (300, '"project";q=500;w=600', 120, "beyond the 120 seconds the task may still wait", 300),
        (300, '"project";q=500;w=600', 5, "beyond the 62 seconds the task may still wait", 300),
    ],
    ids=["a hostile reset", "more than the task has left", "more than a minute for a short wait_timeout"],
)
def test_pacing_never_waits_beyond_what_is_left(
    make_client, tmp_path, shared, reset, policy, wait_timeout, expected, asked_at_least
):
    slept = []
    token_cache = str(tmp_path / "tokens") if shared else False
    client = make_client(token_cache=token_cache, wait_timeout=wait_timeout, sleep=slept.append)
    quota_key = ("GET", "/v1/ssh-keys")
    headers = {"RateLimit": f'"project";r=0;t={reset}', "RateLimit-Policy": policy}
    client.pacing.observe(headers, quota_key)
    with pytest.raises(ApiError) as failure:
        client.get("/ssh-keys")
    assert (failure.value.code, failure.value.method, failure.value.path) == ("wait_too_long", "GET", "/ssh-keys")
    asked = re.search(r"The API asked to wait (\d+) seconds for its rate limit to reset", failure.value.api_message)
    assert asked_at_least <= int(asked.group(1)) <= asked_at_least + 2  # t is rounded down: a second more
    assert expected in failure.value.api_message
    assert slept == [] and client.stats["requests"] == 0  # failed at once, nothing sent


@pytest.mark.parametrize("shared", [True, False], ids=["shared quota", "paced alone"])
def test_a_reset_beyond_the_policy_window_is_waited_for_no_longer_than_the_window(
    make_client, emulator_reset, tmp_path, shared
):
    slept, started = [], time.time()
    token_cache = str(tmp_path / "tokens") if shared else False
    client = make_client(token_cache=token_cache, sleep=slept.append, clock=lambda: started + sum(slept))
    headers = {"RateLimit": '"project";r=0;t=31536000', "RateLimit-Policy": '"project";q=500;w=60'}
    client.pacing.observe(headers, ("GET", "/v1/ssh-keys"))
    client.get("/ssh-keys")
    assert 60 <= sum(slept) <= 63
    assert client.stats["requests"] == 2  # the token exchange, then the request itself


@pytest.mark.parametrize("reset", [20, 60], ids=["part of a window", "a whole window"])
@pytest.mark.parametrize("shared", [True, False], ids=["shared quota", "paced alone"])
def test_pacing_waits_out_a_window_whatever_the_wait_timeout(make_client, emulator_reset, tmp_path, shared, reset):
    """wait_timeout bounds waiting for resources: a task that may not wait at all still gets its
    request through a rate-limit window of a minute, the second added to a reset rounded down
    and the jitter included. (The emulator is reset: the sleeps are not real, so a quota that
    earlier tests used up would still be used up.)"""
    slept = []
    token_cache = str(tmp_path / "tokens") if shared else False
    client = make_client(
        token_cache=token_cache, wait_timeout=0, sleep=slept.append, clock=lambda: time.time() + sum(slept)
    )
    headers = {"RateLimit": f'"project";r=0;t={reset}', "RateLimit-Policy": '"project";q=500;w=60'}
    client.pacing.observe(headers, ("GET", "/v1/ssh-keys"))
    client.get("/ssh-keys")
    assert reset <= sum(slept) <= reset + 3 and client.stats["requests"] >= 1


# ---------------------------------------------------------------------------- errors


def test_api_errors_carry_code_message_status_method_and_path(make_client):
    with pytest.raises(ApiError) as failure:
        make_client().get("/ssh-keys/00000000-0000-4000-8000-000000000000")
    error = failure.value
    assert error.to_failure() == {
        "code": "not_found",
        "message": error.api_message,
        "status": 404,
        "method": "GET",
        "path": "/ssh-keys/00000000-0000-4000-8000-000000000000",
    }
    assert "not found" in error.api_message.lower()
    assert str(error).startswith("GET /ssh-keys/00000000-0000-4000-8000-000000000000 failed (HTTP 404, not_found)")


def test_an_api_url_without_the_version_prefix_gets_a_hint(emulator):
    bare = emulator.api_url[: -len("/v1")]
    client = ApiClient(bare, emulator.client_id, emulator.client_secret, token_cache="false")
    with pytest.raises(ApiError) as failure:
        client.get("/ssh-keys")
    assert failure.value.status == 404
    assert f"api_url {bare} has no version prefix" in str(failure.value), str(failure.value)
    assert f"most likely {bare}/v1" in str(failure.value)


def test_a_503_can_be_an_answer_rather_than_an_outage(make_client, control):
    # A deploy out of capacity: retrying for seconds gives the same answer, so it is not retried.
    control.add_fault(method="POST", path="/v1/ssh-keys", status=503, probability=1.0)
    client = make_client(sleep=lambda seconds: pytest.fail("a 503 answer must not be waited on"))
    with pytest.raises(ApiError) as failure:
        client.create("/ssh-keys", {"name": "k4", "key": PUBLIC_KEY}, lambda: None, retry_unavailable=False)
    assert failure.value.status == 503
    assert len(api_requests(control.requests()["requests"], "POST", "/v1/ssh-keys")) == 1


def test_a_create_is_tried_as_often_as_any_request(make_client, control):
    # Five lost responses in a row (a 502 before anything was done): the sixth attempt creates.
    control.add_fault(method="POST", path="/v1/ssh-keys", status=502, count=5)
    lookups = []
    client = make_client(sleep=lambda seconds: None)

    def find_existing():
        lookups.append(1)
        return None

    key_id = client.create("/ssh-keys", {"name": "k6", "key": PUBLIC_KEY}, find_existing)
    assert [key["id"] for key in client.get("/ssh-keys")] == [key_id]
    assert len(lookups) == 5


def test_a_refusal_after_a_lost_response_says_so(make_client, control):
    # The first delete happened but its answer was lost; the repetition finds nothing to delete.
    client = make_client(sleep=lambda seconds: None)
    key_id = client.create("/ssh-keys", {"name": "k7", "key": PUBLIC_KEY}, lambda: None)
    control.add_fault(method="DELETE", path="/v1/ssh-keys/*", drop_connection=True, after_commit=True, count=1)
    with pytest.raises(ApiError) as repeated:
        client.delete("/ssh-keys/" + key_id)
    assert repeated.value.status == 404 and repeated.value.after_lost_response is True
    with pytest.raises(ApiError) as plain:
        client.delete("/ssh-keys/" + key_id)
    assert plain.value.status == 404 and plain.value.after_lost_response is False


def test_a_503_with_retry_after_is_an_outage_even_for_a_deploy(make_client, control):
    # Retry-After is the API saying when to come back (overload, maintenance), not "no capacity".
    control.add_fault(method="POST", path="/v1/ssh-keys", status=503, retry_after=1, count=2)
    waits = []
    client = make_client(sleep=waits.append)
    key_id = client.create("/ssh-keys", {"name": "k5", "key": PUBLIC_KEY}, lambda: None, retry_unavailable=False)
    assert client.get_one("/ssh-keys/" + key_id)["name"] == "k5"
    assert len(api_requests(control.requests()["requests"], "POST", "/v1/ssh-keys")) == 3
    assert len(waits) == 2 and all(wait >= 1 for wait in waits)


def test_a_create_expressed_as_an_action_is_never_resent_blindly(make_client, control):
    # PUT /volumes clone creates a volume: a lost response is resolved by a lookup, like a POST.
    client = make_client()
    source = client.create(
        "/volumes", {"name": "source", "size": 1, "type": "HDD", "location_code": "FIN-01"}, lambda: None
    )
    while client.get("/volumes/" + source)["status"] != "detached":  # only a settled volume can be cloned
        time.sleep(0.02)
    control.add_fault(method="PUT", path="/v1/volumes", drop_connection=True, after_commit=True, count=1)

    def find_existing():
        return next((volume for volume in client.get("/volumes") if volume["name"] == "copy"), None)

    clone_id = client.create("/volumes", {"action": "clone", "id": source, "name": "copy"}, find_existing, method="PUT")
    names = sorted(volume["name"] for volume in client.get("/volumes"))
    assert names == ["copy", "source"]
    assert clone_id == find_existing()["id"]
    assert len(api_requests(control.requests()["requests"], "PUT", "/v1/volumes")) == 1


def test_a_hint_is_added_to_the_message_not_to_the_failure(make_client):
    with pytest.raises(ApiError) as failure:
        make_client().get("/ssh-keys/00000000-0000-4000-8000-000000000000")
    error = failure.value.with_hint("Check the id.")
    assert str(error).endswith("Check the id.")
    assert "Check the id." not in error.to_failure()["message"]
