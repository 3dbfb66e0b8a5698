# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""When a request is tried again, written once as a pure function: ``decide()`` takes what an
attempt brought (a status and headers, or why there was no answer), what kind of request it was
and what the earlier attempts used up, and says what to do next: accept the answer, renew the
access token and try again, wait and try again, or fail (and whether the request may have been
carried out). It sends, sleeps and reads no clock: the client does, as told.

The rules:
- a 429 is always safe to retry (the API did nothing) and says how long to wait. When many forks
  share one quota (a fleet deployed in parallel), a request can lose the race for it at several
  window resets in a row, through no fault of its own: so a task waits out 429s for up to
  ``rate_limit_wait`` seconds in all, not a number of times (unless ``rate_limit_retries`` is
  set, as the inventory plugin does);
- a 401 renews the token once (it may have been revoked, or expired early);
- a 503 is an outage retried a few times, unless the caller says a 503 is an answer
  (``retry_unavailable=False``, a deploy out of capacity) and the API gives no ``Retry-After``;
- other 5xx and broken connections are retried with capped exponential backoff, but only for
  requests that may be repeated; a request that never reached the API (connecting failed)
  always may;
- a wait the API asks for that goes beyond the budget (or beyond ``time_left``, what is left of
  the task's ``wait_timeout``) fails at once: sleeping first and giving up after is how a hostile
  ``Retry-After`` hangs a task.

Like the rest of the client this file imports nothing from Ansible.
"""

import math
from collections import namedtuple
from email.utils import parsedate_to_datetime

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import shortened
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_transport import (
    CONNECT_FAILED,
    CONNECTION_LOST,
    TOO_SLOW,
)

MAX_RATE_LIMIT_WAIT = 900.0
MAX_TRANSIENT_RETRIES = 5
INITIAL_BACKOFF = 0.5
MAX_BACKOFF = 8.0

# What to do after an attempt.
ANSWER = "answer"  # the answer is the result
RETRY = "retry"  # wait ``Decision.wait`` seconds, then try again
RENEW_TOKEN = "renew token"  # drop the access token, then try again with a new one
FAIL = "fail"  # raise: ``ResponseLost`` when ``lost``, otherwise ``ApiError``

# What one attempt brought: the HTTP status and headers of the answer, or ``failure``, the
# transport's kind of failure (``_api_transport``), when there was no answer to accept.
Attempt = namedtuple("Attempt", "status headers failure", defaults=(None, None, None))

# The request, as far as retrying goes: may it be sent again when its outcome is unknown, does
# it carry an access token, is a 503 an outage (retry) or an answer (a deploy out of capacity)?
RequestKind = namedtuple("RequestKind", "idempotent authenticated retry_unavailable", defaults=(True, True, True))

# A client's limits: transient failures retried (5xx, connection), 429s retried (None: no
# count, only the time budget), seconds waited in all on what the API asks (Retry-After).
RetryLimits = namedtuple(
    "RetryLimits",
    "transient_retries rate_limit_retries rate_limit_wait",
    defaults=(MAX_TRANSIENT_RETRIES, None, MAX_RATE_LIMIT_WAIT),
)

# What the earlier attempts of one request used up. ``outcome_unknown``: an earlier attempt may
# have been carried out without the client hearing of it.
RetryState = namedtuple(
    "RetryState",
    "transient rate_limited rate_limit_waited unavailable_waited reauthenticated outcome_unknown",
    defaults=(0, 0, 0.0, 0.0, False, False),
)

# The decision: ``action`` (above), ``state`` after this attempt (also when failing: what was
# counted), for RETRY the seconds to ``wait`` and whether the API asked for it (``as_asked``:
# a rate-limit window has reset meanwhile); for FAIL whether the request may have been carried
# out (``lost``), whether an earlier attempt's answer was lost (``after_lost_response``) and a
# ``hint`` for the user.
Decision = namedtuple(
    "Decision",
    "action state wait as_asked lost after_lost_response hint",
    defaults=(RetryState(), 0.0, False, False, False, None),
)


def decide(attempt, kind, state, limits, now, jitter, time_left=math.inf):
    """What to do after ``attempt`` (an ``Attempt``) of a request of ``kind`` (a ``RequestKind``),
    given what the earlier attempts used up (``state``), the client's ``limits`` (a
    ``RetryLimits``), the time ``now`` (for a ``Retry-After`` date), ``jitter``, a random
    number in [0, 1) that keeps forks from waking in lockstep, and the seconds the task may still
    wait (``time_left``), which no wait exceeds. Returns a ``Decision``."""
    decision = _decide(attempt, kind, state, limits, now, jitter, time_left)
    return decision._replace(wait=min(decision.wait, time_left))


def _decide(attempt, kind, state, limits, now, jitter, time_left):
    if attempt.failure is not None:
        return _after_no_answer(attempt.failure, kind, state, limits, jitter)
    status = attempt.status
    headers = attempt.headers or {}
    if status < 400:
        return Decision(ANSWER, state)
    if status == 401 and kind.authenticated and not state.reauthenticated:
        return Decision(RENEW_TOKEN, state._replace(reauthenticated=True))
    if (
        status == 429
        and state.rate_limit_waited < limits.rate_limit_wait
        and (limits.rate_limit_retries is None or state.rate_limited < limits.rate_limit_retries)
    ):
        state = state._replace(rate_limited=state.rate_limited + 1)
        return _wait_as_asked(headers, state.rate_limited, "rate_limit_waited", state, limits, now, jitter, time_left)
    asked_to_wait = bool(headers.get("Retry-After"))
    if status == 503 and (kind.retry_unavailable or asked_to_wait) and state.transient < limits.transient_retries:
        # Overloaded or out of capacity, the API did nothing: retry a few times, then fail
        # clearly (no endless retry on a capacity shortage).
        state = state._replace(transient=state.transient + 1)
        if not asked_to_wait:
            return _backoff(state, jitter)
        return _wait_as_asked(headers, state.transient, "unavailable_waited", state, limits, now, jitter, time_left)
    if status >= 500 and status != 503:
        if kind.idempotent and state.transient < limits.transient_retries:
            return _backoff(state._replace(transient=state.transient + 1, outcome_unknown=True), jitter)
        if not kind.idempotent:
            return Decision(FAIL, state, lost=True)
    return Decision(FAIL, state, after_lost_response=state.outcome_unknown)


def _after_no_answer(failure, kind, state, limits, jitter):
    if failure in (CONNECT_FAILED, CONNECTION_LOST):
        # A connect failure means nothing reached the API: always safe to retry.
        sent = failure == CONNECTION_LOST
        if (kind.idempotent or not sent) and state.transient < limits.transient_retries:
            return _backoff(
                state._replace(transient=state.transient + 1, outcome_unknown=state.outcome_unknown or sent), jitter
            )
        return Decision(FAIL, state, lost=sent and not kind.idempotent)
    if failure == TOO_SLOW:
        # Not retried: a server that sends its answer this slowly will do it again. The request
        # was carried out, so a change whose answer is cut short is "lost".
        return Decision(FAIL, state, lost=not kind.idempotent)
    return Decision(FAIL, state)  # refused by the client (TLS, a redirect, a huge body): never retried


def _backoff(state, jitter):
    """Retry after the backoff of the ``state.transient``-th transient failure."""
    return Decision(RETRY, state, wait=backoff_seconds(state.transient, jitter))


def _wait_as_asked(headers, number, waited, state, limits, now, jitter, time_left):
    """Retry after what ``Retry-After`` asks (a backoff for the ``number``-th time when it is
    missing or not understood), counting the wait in the ``waited`` field of ``state``; or fail
    when that goes beyond what is left of ``rate_limit_wait`` or of ``time_left``."""
    budget = limits.rate_limit_wait - getattr(state, waited)
    delay = retry_after_seconds(headers.get("Retry-After"), now)
    if delay is None:
        delay = min(MAX_BACKOFF, INITIAL_BACKOFF * 2**number)
    if delay > min(budget, time_left):
        asked = "retry after " + shortened(headers.get("Retry-After"))[:60]
        return Decision(FAIL, state, hint=too_long_to_wait(asked, limits.rate_limit_wait, time_left, budget))
    wait = min(budget, time_left, delay + jitter)
    return Decision(RETRY, state._replace(**{waited: getattr(state, waited) + wait}), wait=wait, as_asked=True)


def too_long_to_wait(asked, limit, time_left, left_of_limit=None):
    """The words of a refusal to wait as the API ``asked``: beyond what is left of the client's
    ``limit`` (``left_of_limit``, all of it by default) or, when less is left, beyond what is left
    of the task's ``wait_timeout``."""
    left_of_limit = limit if left_of_limit is None else left_of_limit
    if time_left < left_of_limit:
        bound = f"the {time_left:.0f} seconds the task may still wait; raise wait_timeout or"
    elif left_of_limit < limit:
        bound = f"the {limit:.0f} seconds the client waits in all ({max(0.0, left_of_limit):.0f} left);"
    else:
        bound = f"the {limit:.0f} seconds the client waits in all;"
    return f"The API asked to {asked}, beyond {bound} try again later"


def backoff_seconds(attempt, jitter):
    """The wait before retry number ``attempt`` (1, 2, ...) after a transient failure: doubling
    from INITIAL_BACKOFF up to MAX_BACKOFF, spread by ``jitter`` over its upper half."""
    ceiling = min(MAX_BACKOFF, INITIAL_BACKOFF * 2 ** (attempt - 1))
    return ceiling / 2 + jitter * ceiling / 2


def retry_after_seconds(value, now):
    """The wait a ``Retry-After`` header asks for, in seconds: a number of seconds or an HTTP
    date. None when absent or not understood; never negative, infinite or NaN (an absurd value
    is returned as it is large, for the caller to hold against its budget)."""
    if value is None:
        return None
    text = str(value).strip()
    try:
        delay = float(text)
    except ValueError:
        try:
            delay = parsedate_to_datetime(text).timestamp() - now
        except (TypeError, ValueError, IndexError, OverflowError, OSError):  # not an HTTP date, or one out of range
            return None
    if math.isnan(delay):
        return None
    return min(max(0.0, delay), 1e12)
