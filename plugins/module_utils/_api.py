# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The one HTTP client of the collection: every module and the inventory plugin talk to the
Cloud Compute API through ``ApiClient``.

What it takes care of, so callers do not, each in its own file:
- one attempt of a request (``_api_transport``): redirects only within the API's origin, a total
  deadline per attempt, a bound on the body's size;
- authentication (``_api_auth``): OAuth2 client credentials, refresh before expiry, one
  re-authentication on a 401, and a token cache shared between tasks and forks (a 0600 file per
  API URL + client id, holding tokens and never the secret);
- retries only where they are safe (``_api_retry``, the rules in one pure function): 429 waits
  ``Retry-After``; 5xx, 503 and connection errors are retried with capped exponential backoff for
  requests that may be repeated; a create whose response was lost is never resent blindly
  (``create()`` looks the resource up first);
- pacing (``_api_pacing``): the ``RateLimit`` headers of every response tell how much of the
  project's and the endpoint's quota is left, and the client slows down before it runs out;
- tolerant parsing of the API's response forms (bare or quoted ids, array-or-object reads), here;
- URL paths built from validated, encoded values (``api_path()`` and ``path_value()``), here.

Every value that goes into a URL path (an id, a name, a tag key, a type code), whether the user
gave it or the API returned it, goes through ``path_value()``: validated for what it is and
percent-encoded as exactly one segment. Without this a value such as ``../ssh-keys`` reads (and
then deletes) another resource, ``?a=b`` adds a query and ``#`` cuts the path. Query values go
through the ``params`` of the request methods, never into the path::

    api_path("/instances", path_value(instance_id, "id"), "tags")
    api_path("/container-deployments", path_value(name, "name", NAME), "status")

The rest of the collection imports every name of the client from this file.

This file does not import anything from Ansible so the inventory plugin can use it as it is.
"""

import json
import math
import random
import re
import time
from collections import namedtuple
from urllib.parse import quote, urlsplit

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_auth import (
    DEFAULT_TOKEN_CACHE,
    DISABLED_TOKEN_CACHE_VALUES,
    TOKEN_PATH,
    Authentication,
    TokenCache,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import (
    ApiError,
    InvalidPathValue,
    MissingCredentials,
    ResponseLost,
    WaitRefused,
    shortened,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_pacing import RateLimitPacing
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_retry import (
    ANSWER,
    FAIL,
    MAX_RATE_LIMIT_WAIT,
    MAX_TRANSIENT_RETRIES,
    RENEW_TOKEN,
    Attempt,
    RequestKind,
    RetryLimits,
    RetryState,
    backoff_seconds,
    decide,
    too_long_to_wait,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_transport import (
    HAS_REQUESTS,
    REQUESTS_IMPORT_ERROR,
    Transport,
    TransportFailure,
    checked_api_url,
)

# A wait the API asks for of up to a rate-limit window is taken even past the task's
# wait_timeout: the option bounds waiting for resources, and a task that may not wait for its
# resource at all (wait_timeout: 0) must still get its requests through a busy minute. A whole
# window's wait is its 60 seconds, one more for a reset rounded down, and the jitter's second.
ALWAYS_WAITED = 62.0
COLLECTION_VERSION = "0.1.0"
USER_AGENT = "cloudcompute.cloud/" + COLLECTION_VERSION

# What a value that goes into a URL path may be (``path_value()``), with the words of a refusal.
ID = "id"
NAME = "name"
KEY = "key"
CODE = "code"
PATH_VALUE_RULES = {
    # The API's ids: UUIDs, and a few combined ids of letters, digits and ``_.:-``.
    ID: (re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"), "an id (letters, digits and _.:-)"),
    # Serverless deployment, secret and credential names: DNS labels.
    NAME: (
        re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"),
        "a name of 1 to 63 lowercase letters, digits and hyphens, not starting or ending with a hyphen",
    ),
    # Catalog codes (instance and volume types, locations, templates).
    CODE: (re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,127}$"), "a code (letters, digits and _.:+-)"),
    # Tag keys: any text, encoded; only what cannot be one segment is refused.
    KEY: (re.compile(r"^.{1,255}$", re.S), "a non-empty key of at most 255 characters"),
}
VERSION_PREFIX = re.compile(r"/v[0-9]+$")
UUID_PATTERN = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def path_value(value, option, kind=ID):
    """``value`` as one segment of a URL path: validated for what it must be (``ID``, ``NAME``,
    ``CODE``, ``KEY``) and percent-encoded. Raises ``InvalidPathValue`` naming ``option``."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InvalidPathValue(f"{option} must be a string, not {type(value).__name__}", option)
    value = str(value)
    pattern, description = PATH_VALUE_RULES[kind]
    if value in ("", ".", "..") or not pattern.match(value):
        raise InvalidPathValue(f"{option} is not {description}: {json.dumps(value[:80])}", option)
    return quote(value, safe="")


def api_path(*parts):
    """A request path from fixed parts (plain strings written in the code, slashes allowed) and
    ``path_value()`` segments."""
    segments = (str(part).strip("/") for part in parts)
    return "/" + "/".join(segment for segment in segments if segment)


def looks_like_id(value):
    """Resource ids are UUIDs; names given where an id is accepted are anything else."""
    return bool(value) and bool(UUID_PATTERN.match(str(value)))


# A parsed API response: ``status``, ``headers`` and ``body`` (JSON, text or None).
Response = namedtuple("Response", "status headers body")


def parse_created_id(body):
    """The id in a create response: bare text, a JSON string, ``{"id": ...}`` or ``[id, ...]``."""
    if isinstance(body, dict):
        return body.get("id")
    if isinstance(body, list):
        return parse_created_id(body[0]) if body else None
    if isinstance(body, str):
        text = body.strip()
        if text.startswith(('"', "{", "[")):
            try:
                return parse_created_id(json.loads(text))
            except ValueError:
                pass
        return text.strip('"') or None
    return body


def single_item(body, method="GET", path=None):
    """A single-resource read answered either as an object or as a one-element array (the form
    the API documents for SSH key and startup script reads). Anything else (a list of several
    or none, a string, a number) is an error: taking "the first" of a list is how a read of the
    wrong path turns into a change to the wrong resource."""
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    if not isinstance(body, dict):
        raise unexpected_answer(body, method, path, "one object")
    return body


def list_of_objects(body, method="GET", path=None):
    """``body`` when it is a list of objects (None: an empty list); otherwise an error."""
    if body is None:
        return []
    if not isinstance(body, list):
        raise unexpected_answer(body, method, path, "a list of objects")
    for item in body:
        if not isinstance(item, dict):
            raise unexpected_answer(item, method, path, "a list of objects", "a list holding ")
    return body


def unexpected_answer(body, method, path, expected, prefix=""):
    """The ``ApiError`` for an answer of the wrong shape: what came, where, what was expected."""
    if isinstance(body, list):
        what = "a list of %d item%s" % (len(body), "" if len(body) == 1 else "s")
    elif isinstance(body, str):
        what = f"a string, not a JSON object or list ({shortened(json.dumps(body[:80]))})"
    elif body is None:
        what = "null"
    else:
        what = "a JSON " + {bool: "boolean", int: "number", float: "number", dict: "object"}.get(type(body), "value")
    message = f"the API answered {prefix}{what} where {expected} was expected"
    return ApiError(message, method=method, path=path, code="unexpected_answer")


class ApiClient:
    """Authenticated, paced, retrying access to one Cloud Compute API endpoint.

    ``api_url`` includes the version prefix (``https://.../v1``); paths passed to the request
    methods are relative to it (``/instances``). ``client_id`` and ``client_secret`` may be
    None when only public endpoints are read (``authenticated=False``).

    ``get``, ``post``, ``put``, ``patch`` and ``delete`` return the answer's body; ``request()``
    returns the whole ``Response``, for the callers that need its status or headers.
    """

    def __init__(
        self,
        api_url,
        client_id,
        client_secret,
        validate_certs=True,
        request_timeout=30,
        token_cache=DEFAULT_TOKEN_CACHE,
        sleep=time.sleep,
        clock=time.time,
        max_rate_limit_retries=None,
        max_rate_limit_wait=MAX_RATE_LIMIT_WAIT,
        max_transient_retries=MAX_TRANSIENT_RETRIES,
        wait_timeout=None,
    ):
        if not HAS_REQUESTS:
            raise ImportError(f"the requests Python library is required: {REQUESTS_IMPORT_ERROR}")
        self.api_url = checked_api_url(api_url)
        # Every path of the API is under a version prefix (/v1): without one in api_url every
        # request is answered 404, which the errors then explain.
        self.versioned = bool(VERSION_PREFIX.search(urlsplit(self.api_url).path))
        self.client_id = client_id
        self.sleep = sleep
        self.clock = clock
        self.transport = Transport(
            self.api_url, request_timeout, validate_certs, {"User-Agent": USER_AGENT, "Accept": "application/json"}
        )
        # A task can wait out several rate-limit windows; an interactive caller (the inventory
        # plugin, which has its cache to fall back on) gives up sooner, after a number of 429s.
        self.retry_limits = RetryLimits(max_transient_retries, max_rate_limit_retries, max_rate_limit_wait)
        # A task's wait_timeout bounds the waits of its client too: the API asking for more fails at once.
        self.wait_deadline = None if wait_timeout is None else clock() + wait_timeout
        self.has_credentials = bool(client_id and client_secret)
        # token_cache=None reads "none", one of the words that disable the cache
        caching = self.has_credentials and str(token_cache).strip().lower() not in DISABLED_TOKEN_CACHE_VALUES
        self.token_cache = TokenCache(token_cache, self.api_url, client_id, client_secret) if caching else None
        self.authentication = Authentication(client_id, client_secret, self.token_cache, clock, self._exchange_token)
        # What the caller should show at -vvv (the inventory plugin, CloudComputeModule).
        self.notes = []
        self.pacing = RateLimitPacing(self.token_cache, clock, self._wait_for_rate_limit, self._note)
        # What this client did, for results and tests: requests sent, token exchanges, retries.
        self.stats = {"requests": 0, "token_requests": 0, "retries": 0, "rate_limited": 0, "paced_seconds": 0.0}

    # ----------------------------------------------------------------- public request methods

    def get(self, path, params=None, authenticated=True):
        """GET a path; ``authenticated=False`` for the public catalog endpoints (no token, so no
        token exchange and no credentials needed)."""
        return self.request("GET", path, params=params, authenticated=authenticated).body

    def get_list(self, path, params=None, authenticated=True):
        """GET a list of objects (an empty body is an empty list); any other answer is an error
        naming what came and where, never a crash further on."""
        return list_of_objects(self.get(path, params=params, authenticated=authenticated), "GET", path)

    def get_url(self, url):
        """GET an absolute URL outside the API, such as a pre-signed download link, never sending
        the access token along (the link carries its own authorisation)."""
        return self.request("GET", url, authenticated=False).body

    def get_text(self, path, params=None):
        """GET and return the body as the API sent it, not decoded: for callers that keep the
        answer verbatim (the inventory cache stores it) and decode it themselves."""
        return self.request("GET", path, params=params, decode_json=False).body

    def get_one(self, path, params=None):
        """GET a single resource, tolerating the API's one-element-array form."""
        return single_item(self.get(path, params=params), "GET", path)

    def post(self, path, json_body=None, idempotent=False, retry_unavailable=True):
        return self.request(
            "POST", path, json_body=json_body, idempotent=idempotent, retry_unavailable=retry_unavailable
        ).body

    def put(self, path, json_body=None, idempotent=True):
        return self.request("PUT", path, json_body=json_body, idempotent=idempotent).body

    def patch(self, path, json_body=None):
        return self.request("PATCH", path, json_body=json_body).body

    def delete(self, path, json_body=None, params=None):
        return self.request("DELETE", path, json_body=json_body, params=params).body

    def create(
        self,
        path,
        json_body,
        find_existing,
        method="POST",
        retry_unavailable=True,
        returns_resource=False,
    ):
        """Send a create without ever making a duplicate; return the new resource's id.

        When the response is lost (connection broken after sending, or 5xx), ``find_existing()``
        looks the resource up by its identity: if it exists the create did happen, otherwise the
        create is sent again. ``method`` is POST but for creates the API expresses as an action
        (``PUT /volumes`` with ``clone``); ``retry_unavailable`` as in ``request()``.

        ``returns_resource=True`` is for APIs that answer a create with the whole new resource
        (and may have no ``id`` at all, such as the serverless deployments, named instead): the
        response body is returned, or after a lost response the record ``find_existing()`` found.

        A create is attempted as often as any other request is tried: once, and once again per
        transient retry of the client.
        """
        for attempt in range(1, self.retry_limits.transient_retries + 2):
            try:
                response = self.request(
                    method, path, json_body=json_body, idempotent=False, retry_unavailable=retry_unavailable
                )
                return response.body if returns_resource else parse_created_id(response.body)
            except ResponseLost:
                existing = find_existing()
                if existing:
                    return existing if returns_resource else existing["id"]
                if attempt > self.retry_limits.transient_retries:
                    raise
                self.stats["retries"] += 1
                self.sleep(min(backoff_seconds(attempt, random.random()), self.time_left()))
        raise AssertionError("unreachable")  # pragma: no cover

    def get_all_pages(self, path, params=None, page_size=100):
        """Read every page of a paginated list (``page``/``pageSize`` with ``X-Total-Count``)."""
        items = []
        page = 1
        while True:
            query = dict(params or {}, page=page, pageSize=page_size)
            response = self.request("GET", path, params=query)
            batch = list_of_objects(response.body, "GET", path)
            items.extend(batch)
            total = response.headers.get("X-Total-Count")
            if len(batch) < page_size or (total is not None and total.isdigit() and len(items) >= int(total)):
                return items
            page += 1

    # ------------------------------------------------------------------------------ core

    def request(
        self,
        method,
        path,
        params=None,
        json_body=None,
        idempotent=None,
        authenticated=True,
        retry_unavailable=True,
        decode_json=True,
    ):
        """Send one logical request, with retries where they are safe; return a ``Response``.

        ``idempotent`` says whether the request may be sent again when its outcome is unknown;
        it defaults to True for every method but POST. ``retry_unavailable=False`` makes a 503
        an answer rather than an outage: a deploy out of capacity fails at once with the API's
        message instead of being retried for seconds to the same result — unless the 503
        carries ``Retry-After``, the API saying when to come back (overload, maintenance). With
        ``decode_json=False`` a successful response's body is its text, undecoded.
        """
        if authenticated and not self.has_credentials:
            raise MissingCredentials(method, path)
        url = path if path.startswith(("https://", "http://")) else self.api_url + path
        kind = RequestKind(method != "POST" if idempotent is None else idempotent, authenticated, retry_unavailable)
        # Unauthenticated requests (the token endpoint, the public catalog) count against no quota.
        quota_key = (method, urlsplit(url).path) if authenticated else None
        state = RetryState()
        while True:
            # The token exchange follows no redirect: its body holds the client secret.
            try:
                raw, failure = self._attempt(
                    method, url, params, json_body, authenticated, quota_key, follow_redirects=path != TOKEN_PATH
                )
            except WaitRefused as refused:
                raise ApiError(str(refused), code="wait_too_long", method=method, path=path) from None
            attempt = Attempt(failure=failure.kind) if failure else Attempt(raw.status_code, raw.headers)
            decision = decide(attempt, kind, state, self.retry_limits, self.clock(), random.random(), self.time_left())
            # A 429 counts whether it is waited out or fails the request.
            self.stats["rate_limited"] += decision.state.rate_limited - state.rate_limited
            if decision.action == ANSWER:
                body = _parse_body(raw) if decode_json else raw.content.decode(raw.encoding or "utf-8", "replace")
                return Response(raw.status_code, raw.headers, body)
            if decision.action == FAIL:
                error = _api_error(decision, method, path, raw, failure)
                if raw is not None and raw.status_code == 404 and url != path and not self.versioned:
                    error = error.with_hint(
                        f"api_url {self.api_url} has no version prefix: the API's paths begin with /v1, "
                        f"so api_url is most likely {self.api_url}/v1"
                    )
                raise error
            if decision.action == RENEW_TOKEN:
                self.authentication.invalidate()
            else:
                self.stats["retries"] += 1
                if decision.as_asked:
                    self.pacing.forget()  # the wait outlasts the window the counters were about
                self.sleep(decision.wait)
            state = decision.state

    def _attempt(self, method, url, params, json_body, authenticated, quota_key, follow_redirects):
        """One attempt, paced and authenticated: ``(response, None)``, or ``(None, failure)``
        when the transport brought no answer it accepts."""
        self.stats["paced_seconds"] += self.pacing.pace(quota_key)
        headers = {"Authorization": "Bearer " + self.authentication.access_token()} if authenticated else {}
        self.stats["requests"] += 1
        try:
            raw = self.transport.attempt(method, url, params, json_body, headers, follow_redirects)
        except TransportFailure as failure:
            return None, failure
        self.pacing.observe(raw.headers, quota_key)
        return raw, None

    def time_left(self):
        """Seconds the client may still wait: what is left of the task's wait_timeout, if it has
        one, but never less than ``ALWAYS_WAITED``."""
        return math.inf if self.wait_deadline is None else max(ALWAYS_WAITED, self.wait_deadline - self.clock())

    def _wait_for_rate_limit(self, seconds):
        """Every wait of pacing: refused (``WaitRefused``) when the quota's reset is further away
        than the client waits for anything (a hostile reset of days), instead of sleeping."""
        left = self.time_left()
        if seconds > min(self.retry_limits.rate_limit_wait, left):
            asked = f"wait {seconds:.0f} seconds for its rate limit to reset"
            raise WaitRefused(too_long_to_wait(asked, self.retry_limits.rate_limit_wait, left))
        self.sleep(seconds)

    def _note(self, text):
        self.notes.append(text)  # ``notes`` looked up each time: callers empty it by replacing the list

    def _exchange_token(self, body):
        self.stats["token_requests"] += 1
        return self.request("POST", TOKEN_PATH, json_body=body, idempotent=True, authenticated=False)

    def pacing_delay(self):
        """Seconds to wait before the next request so the rate-limit quotas last until their
        windows reset (0 with plenty left): callers that poll stretch their interval to it."""
        return self.pacing.delay()


def _parse_body(raw):
    if raw.status_code == 204 or not raw.content:
        return None
    if "json" in raw.headers.get("Content-Type", ""):
        try:
            return raw.json()
        except ValueError:
            pass  # not JSON after all: the text, for the caller to name
    return raw.text


def _api_error(decision, method, path, raw, failure):
    """The error of a request that failed with the answer ``raw`` or the transport's ``failure``
    (then ``raw`` is None): ``ResponseLost`` when the request may have been carried out."""
    if failure:
        message, code, status, path = failure.message, failure.code, failure.status, failure.path or path
    else:
        body = _parse_body(raw)
        fields = body if isinstance(body, dict) else {}
        text = body if isinstance(body, str) and body.strip() else raw.reason
        message = fields.get("message") or fields.get("detail") or text or f"HTTP {raw.status_code}"
        code, status = fields.get("code"), raw.status_code
    error_class = ResponseLost if decision.lost else ApiError
    return error_class(
        str(message),
        status=status,
        code=code,
        method=method,
        path=path,
        after_lost_response=decision.after_lost_response,
        hint=decision.hint,
    )
