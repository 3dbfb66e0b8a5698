"""The client's retry rules, one row per case: what an attempt brought, the kind of request and
what earlier attempts used up -> what the client does next. ``decide()`` is pure, so each row
is the whole story; the client's tests (test_api.py, the reliability suite) show the client
doing as it is told against a server."""

from email.utils import formatdate

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_retry import (
    ANSWER,
    FAIL,
    RENEW_TOKEN,
    RETRY,
    Attempt,
    RequestKind,
    RetryLimits,
    RetryState,
    backoff_seconds,
    decide,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_transport import (
    CONNECT_FAILED,
    CONNECTION_LOST,
    REFUSED,
    TOO_SLOW,
)

NOW = 1_800_000_000.0
JITTER = 0.5  # the random part of every wait: half of its range in these rows

# Kinds of request.
READ = RequestKind(idempotent=True)  # GET, PUT, PATCH, DELETE
CREATE = RequestKind(idempotent=False)  # POST: not repeated blindly
DEPLOY = RequestKind(idempotent=False, retry_unavailable=False)  # a 503 is "no capacity"
TOKEN = RequestKind(idempotent=True, authenticated=False)  # the token exchange

DEFAULT = RetryLimits()  # 5 transient retries, 429s for 900 s in all
INVENTORY = RetryLimits(rate_limit_retries=2)  # gives up after two 429s
FRESH = RetryState()


def answered(status, retry_after=None):
    return Attempt(status, {} if retry_after is None else {"Retry-After": retry_after})


def no_answer(failure):
    return Attempt(failure=failure)


def used(**counters):
    """The state after earlier attempts: ``used(transient=2)``."""
    return FRESH._replace(**counters)


def answer():
    return dict(action=ANSWER)


def renew_token(**counted):
    return dict(action=RENEW_TOKEN, counted=counted)


def retry(wait, as_asked=False, **counted):
    """Retry after ``wait`` seconds (``as_asked``: what Retry-After asked); ``counted``: the
    counters this attempt changed, with their new values."""
    return dict(action=RETRY, wait=wait, as_asked=as_asked, counted=counted)


def fail(lost=False, after_lost_response=False, hint=None, **counted):
    return dict(action=FAIL, lost=lost, after_lost_response=after_lost_response, hint=hint, counted=counted)


CASES = [
    # answers
    ("200 is the answer", answered(200), READ, FRESH, DEFAULT, answer()),
    ("204 is the answer", answered(204), READ, FRESH, DEFAULT, answer()),
    ("404 fails with the API's error", answered(404), READ, FRESH, DEFAULT, fail()),
    (
        "404 after a lost answer says so",
        answered(404),
        READ,
        used(transient=1, outcome_unknown=True),
        DEFAULT,
        fail(after_lost_response=True),
    ),
    ("400 on a create fails at once", answered(400), CREATE, FRESH, DEFAULT, fail()),
    # 401: a new token, once
    ("401 renews the token", answered(401), READ, FRESH, DEFAULT, renew_token(reauthenticated=True)),
    ("401 again fails", answered(401), READ, used(reauthenticated=True), DEFAULT, fail()),
    ("401 of the token exchange fails", answered(401), TOKEN, FRESH, DEFAULT, fail()),
    # 429: wait as asked, within a time budget
    (
        "429 waits Retry-After seconds",
        answered(429, "3"),
        READ,
        FRESH,
        DEFAULT,
        retry(3.5, as_asked=True, rate_limited=1, rate_limit_waited=3.5),
    ),
    (
        "429 waits until a Retry-After date",
        answered(429, formatdate(NOW + 10, usegmt=True)),
        CREATE,
        FRESH,
        DEFAULT,
        retry(10.5, as_asked=True, rate_limited=1, rate_limit_waited=10.5),
    ),
    (
        "429 on a create is retried too",
        answered(429, "1"),
        CREATE,
        used(rate_limited=4, rate_limit_waited=6.0),
        DEFAULT,
        retry(1.5, as_asked=True, rate_limited=5, rate_limit_waited=7.5),
    ),
    (
        "429 without Retry-After backs off",
        answered(429),
        READ,
        used(rate_limited=2),
        DEFAULT,
        retry(4.5, as_asked=True, rate_limited=3, rate_limit_waited=4.5),
    ),
    (
        "429 with a meaningless Retry-After backs off",
        answered(429, "soon"),
        READ,
        FRESH,
        DEFAULT,
        retry(1.5, as_asked=True, rate_limited=1, rate_limit_waited=1.5),
    ),
    (
        "429's wait is clamped to the budget left",
        answered(429, "2.9"),
        READ,
        used(rate_limit_waited=897.0),
        DEFAULT,
        retry(3.0, as_asked=True, rate_limited=1, rate_limit_waited=900.0),
    ),
    (
        "429 asking beyond the budget fails at once",
        answered(429, "5"),
        READ,
        used(rate_limit_waited=899.0),
        DEFAULT,
        fail(hint="The API asked to retry after 5, beyond the 900 seconds the client waits in all", rate_limited=1),
    ),
    (
        "429 asking an absurd wait fails at once",
        answered(429, "1e9"),
        READ,
        FRESH,
        DEFAULT,
        fail(hint="beyond the 900 seconds", rate_limited=1),
    ),
    (
        "429 once the budget is spent fails",
        answered(429, "1"),
        READ,
        used(rate_limited=40, rate_limit_waited=900.0),
        DEFAULT,
        fail(),
    ),
    ("429 beyond the inventory's count fails", answered(429, "1"), READ, used(rate_limited=2), INVENTORY, fail()),
    (
        "429 within the inventory's count waits",
        answered(429, "1"),
        READ,
        used(rate_limited=1),
        INVENTORY,
        retry(1.5, as_asked=True, rate_limited=2, rate_limit_waited=1.5),
    ),
    # 503: an outage, retried a few times; for a deploy an answer, unless Retry-After says when
    ("503 backs off", answered(503), READ, FRESH, DEFAULT, retry(0.375, transient=1)),
    ("503 on a create backs off too", answered(503), CREATE, FRESH, DEFAULT, retry(0.375, transient=1)),
    ("503 after five retries fails", answered(503), READ, used(transient=5), DEFAULT, fail()),
    ("503 to a deploy is its answer", answered(503), DEPLOY, FRESH, DEFAULT, fail()),
    (
        "503 to a deploy with Retry-After waits",
        answered(503, "2"),
        DEPLOY,
        FRESH,
        DEFAULT,
        retry(2.5, as_asked=True, transient=1, unavailable_waited=2.5),
    ),
    (
        "503 asking beyond the budget fails at once",
        answered(503, "901"),
        READ,
        FRESH,
        DEFAULT,
        fail(hint="beyond the 900 seconds", transient=1),
    ),
    # other 5xx: the request may have been carried out
    ("500 on a read backs off", answered(500), READ, FRESH, DEFAULT, retry(0.375, transient=1, outcome_unknown=True)),
    (
        "502 on a read backs off longer each time",
        answered(502),
        READ,
        used(transient=3),
        DEFAULT,
        retry(3.0, transient=4, outcome_unknown=True),
    ),
    (
        "500 backoff stops growing at 8 s",
        answered(500),
        READ,
        used(transient=6),
        RetryLimits(transient_retries=10),
        retry(6.0, transient=7, outcome_unknown=True),
    ),
    (
        "500 on a read after five retries fails, after a lost answer",
        answered(500),
        READ,
        used(transient=5, outcome_unknown=True),
        DEFAULT,
        fail(after_lost_response=True),
    ),
    ("502 on a create is a lost response", answered(502), CREATE, FRESH, DEFAULT, fail(lost=True)),
    # no answer
    (
        "connect failure on a create is retried: nothing was sent",
        no_answer(CONNECT_FAILED),
        CREATE,
        FRESH,
        DEFAULT,
        retry(0.375, transient=1),
    ),
    ("connect failure after five retries fails", no_answer(CONNECT_FAILED), CREATE, used(transient=5), DEFAULT, fail()),
    (
        "connection lost on a read is retried",
        no_answer(CONNECTION_LOST),
        READ,
        FRESH,
        DEFAULT,
        retry(0.375, transient=1, outcome_unknown=True),
    ),
    (
        "connection lost on a read after five retries fails",
        no_answer(CONNECTION_LOST),
        READ,
        used(transient=5),
        DEFAULT,
        fail(),
    ),
    (
        "connection lost on a create is a lost response",
        no_answer(CONNECTION_LOST),
        CREATE,
        FRESH,
        DEFAULT,
        fail(lost=True),
    ),
    ("an answer too slow for a read fails, not retried", no_answer(TOO_SLOW), READ, FRESH, DEFAULT, fail()),
    (
        "an answer too slow for a create is a lost response",
        no_answer(TOO_SLOW),
        CREATE,
        FRESH,
        DEFAULT,
        fail(lost=True),
    ),
    ("a refused answer (TLS, redirect, huge) fails, not retried", no_answer(REFUSED), READ, FRESH, DEFAULT, fail()),
]


# The same rules within a task's wait_timeout: ``time_left``, the seconds the task may still wait,
# bounds every wait, and what the API asks beyond it fails at once.
WITHIN_WAIT_TIMEOUT = [
    (
        "429 asking more than the task has left fails at once",
        answered(429, "30"),
        READ,
        FRESH,
        10.0,
        fail(hint="The API asked to retry after 30, beyond the 10 seconds the task may still wait", rate_limited=1),
    ),
    (
        "429 asking an absurd wait names what the task has left",
        answered(429, "999999"),
        CREATE,
        FRESH,
        60.0,
        fail(hint="beyond the 60 seconds the task may still wait", rate_limited=1),
    ),
    (
        "429 with more than the client's budget left names the client's",
        answered(429, "999999"),
        READ,
        FRESH,
        3600.0,
        fail(hint="beyond the 900 seconds the client waits in all", rate_limited=1),
    ),
    (
        "429 once the client's budget is nearly used up names what is left of it",
        answered(429, "3"),
        READ,
        FRESH._replace(rate_limited=200, rate_limit_waited=899.0),
        62.0,
        fail(hint="beyond the 900 seconds the client waits in all (1 left)", rate_limited=201),
    ),
    (
        "429 within the task's time waits as asked",
        answered(429, "3"),
        READ,
        FRESH,
        10.0,
        retry(3.5, as_asked=True, rate_limited=1, rate_limit_waited=3.5),
    ),
    (
        "429's jitter is clamped to the task's time",
        answered(429, "3"),
        READ,
        FRESH,
        3.2,
        retry(3.2, as_asked=True, rate_limited=1, rate_limit_waited=3.2),
    ),
    (
        "503 with Retry-After beyond the task's time fails at once",
        answered(503, "120"),
        DEPLOY,
        FRESH,
        30.0,
        fail(hint="beyond the 30 seconds the task may still wait", transient=1),
    ),
    ("a backoff is clamped to the task's time", answered(503), READ, FRESH, 0.1, retry(0.1, transient=1)),
    (
        "a connect failure with no time left is retried at once",
        no_answer(CONNECT_FAILED),
        CREATE,
        FRESH,
        0.0,
        retry(0.0, transient=1),
    ),
]


@pytest.mark.parametrize(
    "attempt, kind, state, limits, expected", [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_decision(attempt, kind, state, limits, expected):
    assert_decision(decide(attempt, kind, state, limits, NOW, JITTER), state, expected)


@pytest.mark.parametrize(
    "attempt, kind, state, time_left, expected",
    [case[1:] for case in WITHIN_WAIT_TIMEOUT],
    ids=[case[0] for case in WITHIN_WAIT_TIMEOUT],
)
def test_decision_within_wait_timeout(attempt, kind, state, time_left, expected):
    assert_decision(decide(attempt, kind, state, DEFAULT, NOW, JITTER, time_left), state, expected)


def assert_decision(decision, state, expected):
    assert decision.action == expected["action"]
    if decision.action == RETRY:
        assert decision.wait == pytest.approx(expected["wait"])
        assert decision.as_asked == expected["as_asked"]
    if decision.action == FAIL:
        assert (decision.lost, decision.after_lost_response) == (expected["lost"], expected["after_lost_response"])
        if expected["hint"]:
            assert expected["hint"] in decision.hint
        else:
            assert decision.hint is None
    counted = dict((name, value) for name, value in decision.state._asdict().items() if value != getattr(state, name))
    assert counted == pytest.approx(expected.get("counted", {}))


def test_the_jitter_spreads_a_backoff_over_its_upper_half():
    assert [backoff_seconds(3, jitter) for jitter in (0.0, 0.5, 0.999)] == pytest.approx([1.0, 1.5, 1.999])
