"""Properties of what reads response headers: ``RateLimit`` / ``RateLimit-Policy`` (pacing, the
shared quota file) and ``Retry-After`` (the retry decision). Whatever a server sends, the client
waits a bounded, finite, non-negative time, and never fails with a Python error."""

import json
import math

from hypothesis import example, given, settings
from hypothesis import strategies as st
from strategies import JSON

from ansible_collections.cloudcompute.cloud.plugins.module_utils import _api_retry
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_pacing import (
    RateLimitPacing,
    parse_rate_limit_header,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._quota import FORMAT, QuotaFileUnusable, SharedQuota

# The longest rate-limit window a policy may name and still be believed (an hour); a wait for
# longer than that comes from a broken or hostile header.
SANE_WINDOW = 3600
NOW = 1_800_000_000.0

PARAM = st.sampled_from(["r", "t", "q", "w", "x", "", " r "])
PARAM_VALUE = st.one_of(
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.sampled_from(["nan", "inf", "-inf", "1e400", "31536000", '"5"', "", "abc", "0.5"]),
)
ENTRY = st.builds(
    lambda name, params: ";".join([name] + [f"{key}={value}" for key, value in params]),
    st.sampled_from(['"project"', '"endpoint"', "project", '""', "x"]),
    st.lists(st.tuples(PARAM, PARAM_VALUE), max_size=5),
)
HEADER = st.one_of(st.lists(ENTRY, max_size=3).map(", ".join), st.text(max_size=40))


@given(HEADER)
def test_a_rate_limit_header_parses_to_named_integer_parameters(value):
    parsed = parse_rate_limit_header(value)
    assert isinstance(parsed, dict)
    for name, params in parsed.items():
        assert isinstance(name, str) and name
        assert all(isinstance(key, str) and isinstance(number, int) for key, number in params.items())


@settings(deadline=None)
@given(remaining=HEADER, policy=HEADER, elapsed=st.floats(min_value=0, max_value=10**6))
@example(remaining='"project";r=0;t=31536000', policy='"project";q=500;w=60', elapsed=0.0)
def test_pacing_waits_a_bounded_time_whatever_the_headers(remaining, policy, elapsed):
    clock = [NOW]
    pacing = RateLimitPacing(None, lambda: clock[0], lambda seconds: None, lambda text: None)
    pacing.observe({"RateLimit": remaining, "RateLimit-Policy": policy})
    clock[0] += elapsed
    delay = pacing.delay()
    assert math.isfinite(delay) and 0 <= delay <= SANE_WINDOW + 1


@settings(deadline=None, max_examples=50)
@given(remaining=HEADER, policy=HEADER)
@example(remaining='"project";r=0;t=31536000', policy='"project";q=500;w=60')
def test_the_shared_quota_never_asks_for_a_wait_beyond_a_window(tmp_path_factory, remaining, policy):
    path = tmp_path_factory.mktemp("quota") / ".ratelimit"
    slept = []
    quota = SharedQuota(str(path), "identity", lambda: NOW, slept.append)
    quota.observe("GET", "/instances", parse_rate_limit_header(remaining), parse_rate_limit_header(policy))
    waits = []

    def sleep(seconds):
        waits.append(seconds)
        raise StopIteration  # the first wait asked for is the one under test

    quota.sleep = sleep
    try:
        quota.take("GET", "/instances")
    except StopIteration:
        pass
    assert all(math.isfinite(wait) and 0 <= wait <= SANE_WINDOW + 1 for wait in waits)


@settings(deadline=None, max_examples=100)
@given(quotas=st.dictionaries(st.sampled_from(["project", "GET /instances"]), JSON, max_size=2))
@example(quotas={"project": {"q": 10, "w": 60, "left": "many", "reset_at": "soon"}})
def test_a_corrupt_shared_quota_entry_is_treated_as_absent(tmp_path_factory, quotas):
    path = tmp_path_factory.mktemp("quota") / ".ratelimit"
    path.write_text(json.dumps({"format": FORMAT, "identity": "identity", "quotas": quotas}))
    quota = SharedQuota(str(path), "identity", lambda: NOW, lambda seconds: None)
    try:
        waited = quota.take("GET", "/instances")
    except QuotaFileUnusable:
        return
    assert math.isfinite(waited) and 0 <= waited <= SANE_WINDOW + 1


RETRY_AFTER = st.one_of(
    st.none(),
    st.floats().map(repr),
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.sampled_from(
        ["Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT"]
    ),
    st.text(max_size=40),
)


@given(RETRY_AFTER, st.floats(min_value=0, max_value=4e9))
def test_retry_after_is_none_or_a_finite_non_negative_wait(value, now):
    seconds = _api_retry.retry_after_seconds(value, now)
    assert seconds is None or (math.isfinite(seconds) and seconds >= 0)


@given(
    status=st.sampled_from([200, 401, 404, 429, 500, 502, 503, 504]),
    retry_after=RETRY_AFTER,
    time_left=st.one_of(st.just(math.inf), st.floats(min_value=0, max_value=10**6)),
    jitter=st.floats(min_value=0, max_value=1, exclude_max=True),
    waited=st.floats(min_value=0, max_value=_api_retry.MAX_RATE_LIMIT_WAIT),
)
def test_a_retry_never_waits_beyond_the_budget_or_the_time_left(status, retry_after, time_left, jitter, waited):
    headers = {} if retry_after is None else {"Retry-After": retry_after}
    state = _api_retry.RetryState(rate_limit_waited=waited, unavailable_waited=waited)
    decision = _api_retry.decide(
        _api_retry.Attempt(status, headers),
        _api_retry.RequestKind(),
        state,
        _api_retry.RetryLimits(),
        NOW,
        jitter,
        time_left,
    )
    assert decision.action in (_api_retry.ANSWER, _api_retry.RETRY, _api_retry.RENEW_TOKEN, _api_retry.FAIL)
    assert math.isfinite(decision.wait) and 0 <= decision.wait <= min(time_left, _api_retry.MAX_RATE_LIMIT_WAIT)
    if decision.action == _api_retry.RETRY and decision.as_asked:
        # what the task waited in all for the API stays within the client's budget
        spent = max(decision.state.rate_limit_waited, decision.state.unavailable_waited)
        assert spent <= _api_retry.MAX_RATE_LIMIT_WAIT + 1e-6
    if status < 400:
        assert decision.action == _api_retry.ANSWER


@given(
    answers=st.lists(
        st.sampled_from([(500, None), (502, None), (503, None), (None, "connect failed"), (None, "connection lost")]),
        min_size=12,
        max_size=12,
    ),
    idempotent=st.booleans(),
    jitter=st.floats(min_value=0, max_value=1, exclude_max=True),
)
def test_transient_failures_are_retried_at_most_the_limit_then_fail(answers, idempotent, jitter):
    """Whatever mix of 5xx answers and broken connections comes back, a request is retried at
    most MAX_TRANSIENT_RETRIES times, each after a bounded backoff, then fails."""
    state = _api_retry.RetryState()
    kind = _api_retry.RequestKind(idempotent=idempotent)
    retries = 0
    for status, failure in answers:
        failure = {"connect failed": _api_retry.CONNECT_FAILED, "connection lost": _api_retry.CONNECTION_LOST}.get(
            failure
        )
        decision = _api_retry.decide(
            _api_retry.Attempt(status, {}, failure), kind, state, _api_retry.RetryLimits(), NOW, jitter
        )
        if decision.action != _api_retry.RETRY:
            assert decision.action == _api_retry.FAIL
            break
        retries += 1
        assert 0 < decision.wait <= _api_retry.MAX_BACKOFF
        state = decision.state
    assert retries <= _api_retry.MAX_TRANSIENT_RETRIES
    if idempotent and all(status in (500, 502, 503) or status is None for status, _failure in answers):
        assert retries == _api_retry.MAX_TRANSIENT_RETRIES
