"""Rate limits of spec section 8 with short windows: headers, 429, Retry-After, overrides."""

from __future__ import annotations

import re
import time

from conftest import ApiClient, assert_error

HEADER = re.compile(r'^"project";r=(\d+);t=(\d+), "endpoint";r=(\d+);t=(\d+)$')


def _remaining(response) -> tuple[int, int]:
    match = HEADER.match(response.headers["ratelimit"])
    assert match, response.headers["ratelimit"]
    return int(match.group(1)), int(match.group(3))


def test_headers_on_authenticated_requests(api: ApiClient, anonymous: ApiClient) -> None:
    response = api.ok("GET", "/locations")
    assert response.headers["ratelimit-policy"] == '"project";q=500;w=60, "endpoint";q=60;w=60'
    assert _remaining(response) == (499, 59)
    assert HEADER.match(response.headers["ratelimit"]).group(2) in ("59", "60")
    assert _remaining(api.ok("GET", "/locations")) == (498, 58)
    # route overrides
    listing = api.ok("GET", "/instances")
    assert listing.headers["ratelimit-policy"] == '"project";q=500;w=60, "endpoint";q=120;w=60'
    assert _remaining(listing) == (497, 119)
    assert api.ok("GET", "/volumes").headers["ratelimit-policy"].endswith('"endpoint";q=120;w=60')
    # the endpoint counter is per full path, the project counter shared
    assert _remaining(api.ok("GET", "/ssh-keys")) == (495, 59)
    # public endpoints without a token are not counted and carry no headers
    assert "ratelimit" not in anonymous.ok("GET", "/instance-types").headers


def test_endpoint_quota_answers_429_with_retry_after(api: ApiClient, control) -> None:
    control.update_settings(rate_limits={"window_seconds": 2, "endpoint_quota": 3, "project_quota": 100})
    for _ in range(3):
        api.ok("GET", "/locations")
    response = api.get("/locations")
    assert_error(response, 429, "rate_limit_exceeded")
    assert response.headers["retry-after"].isdigit() and 1 <= int(response.headers["retry-after"]) <= 2
    assert _remaining(response) == (97, 0)
    # another path still works: only the endpoint counter is exhausted
    api.ok("GET", "/balance")
    time.sleep(int(response.headers["retry-after"]) + 0.05)
    assert _remaining(api.ok("GET", "/locations"))[1] == 2
    log = control.requests(path="/v1/locations")
    assert [entry["status"] for entry in log["requests"]] == [200, 200, 200, 429, 200]
    assert log["requests"][3]["rate_limited"] is True


def test_project_quota_and_overrides(api: ApiClient, control, emulator_reset) -> None:
    control.update_settings(rate_limits={"window_seconds": 5, "project_quota": 4, "endpoint_quota": 1,
                                         "overrides": {"GET /v1/instances": 3}})
    api.ok("GET", "/instances")
    api.ok("GET", "/instances")
    api.ok("GET", "/instances")
    assert_error(api.get("/instances"), 429, "rate_limit_exceeded")
    api.ok("GET", "/locations")
    assert_error(api.get("/locations"), 429, "rate_limit_exceeded")  # endpoint quota 1
    assert_error(api.get("/balance"), 429, "rate_limit_exceeded")  # project quota 4 used up
    # another project has its own quota (the token exchange itself is public: not counted)
    other = control.create_credentials(project_id="another-project")
    client = ApiClient(api.api_url, emulator_reset.access_token(other["client_id"], other["client_secret"]))
    client.ok("GET", "/balance")


def test_rate_limits_can_be_switched_off(api: ApiClient, control) -> None:
    control.update_settings(rate_limits={"enabled": False, "endpoint_quota": 1})
    for _ in range(5):
        response = api.ok("GET", "/locations")
    assert "ratelimit" not in response.headers
    settings = control.update_settings(rate_limits={"enabled": True})
    assert settings["rate_limits"]["endpoint_quota"] == 1


def test_control_api_is_never_rate_limited(api: ApiClient, control) -> None:
    control.update_settings(rate_limits={"window_seconds": 10, "project_quota": 1})
    for _ in range(10):
        control.health()
    api.ok("GET", "/locations")
    assert_error(api.get("/locations"), 429, "rate_limit_exceeded")
