# -*- coding: utf-8 -*-
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The one HTTP client of the collection: every module and the inventory plugin talk to the
Cloud Compute API through ``ApiClient``.

What it takes care of, so callers do not:
- OAuth2 client credentials, refresh before expiry, one re-authentication on a 401, and a token
  cache shared between tasks and forks (a 0600 file per API URL + client id, holding tokens and
  never the secret);
- retries only where they are safe: 429 waits ``Retry-After``; 5xx, 503 and connection errors
  are retried with capped exponential backoff for requests that may be repeated; a create whose
  response was lost is never resent blindly (``create()`` looks the resource up first);
- pacing: the ``RateLimit`` headers of every response tell how much of the project's and the
  endpoint's quota is left, and the client slows down before it runs out;
- tolerant parsing of the API's response forms (bare or quoted ids, array-or-object reads).

This file does not import anything from Ansible so the inventory plugin can use it as it is.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import math
import os
import random
import re
import tempfile
import time
from email.utils import parsedate_to_datetime

from urllib.parse import quote, urlsplit

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX: the cache still works, without locking
    fcntl = None

try:
    import requests
    from requests.exceptions import ConnectionError as RequestsConnectionError
    from requests.exceptions import ChunkedEncodingError, ConnectTimeout, RequestException, SSLError
    from urllib3.exceptions import HTTPError as TransportError
    HAS_REQUESTS = True
    REQUESTS_IMPORT_ERROR = None
except ImportError as import_error:  # reported by the module wrapper with missing_required_lib()
    requests = None
    HAS_REQUESTS = False
    REQUESTS_IMPORT_ERROR = import_error

from ansible_collections.cloudcompute.cloud.plugins.module_utils._locks import (
    UnsafeCachePath, check_private_directory, ensure_private_directory, open_private_file)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._quota import QuotaFileUnusable, SharedQuota

COLLECTION_VERSION = "0.1.0"
USER_AGENT = "cloudcompute.cloud/" + COLLECTION_VERSION
TOKEN_SCOPE = "cloud-api-v1"
DEFAULT_TOKEN_CACHE = "~/.cache/cloudcompute.cloud/tokens"
DISABLED_TOKEN_CACHE_VALUES = ("", "false", "no", "off", "none", "disabled")

# Retry limits. A 429 is always safe to retry (the API did nothing) and tells us how long to
# wait. When many forks share one quota (a fleet deployed in parallel), a request can lose the
# race for it at several window resets in a row, through no fault of its own: so a task waits
# out 429s for up to MAX_RATE_LIMIT_WAIT seconds in all, not a number of times. Other transient
# failures back off exponentially up to MAX_BACKOFF seconds.
MAX_RATE_LIMIT_WAIT = 900.0
MAX_TRANSIENT_RETRIES = 5
INITIAL_BACKOFF = 0.5
MAX_BACKOFF = 8.0
# A request keeps this share of each rate-limit quota in reserve for other forks and tasks:
# below it the client spreads its remaining requests over the rest of the window.
PACING_RESERVE = 0.2
# Every attempt of a request has a total deadline of this many times ``request_timeout`` (the
# timeout itself bounds each read only, so a body sent a byte at a time would never end), and a
# response body larger than MAX_RESPONSE_BYTES is refused: nothing the API sends is that big.
REQUEST_DEADLINE_FACTOR = 2
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
MAX_REDIRECTS = 5
REDIRECT_STATUSES = (301, 302, 303, 307, 308)


class ApiError(Exception):
    """The API answered with an error, or could not be reached.

    ``status`` is the HTTP status (None when no response arrived), ``code`` and ``message`` the
    API's error body. ``to_failure()`` is what modules return as ``failure``.

    ``after_lost_response`` is True when the request was sent again because the answer to an
    earlier attempt was lost (connection broken after sending, or a 5xx): the API may refuse
    the repetition precisely because the first attempt took effect (a resize to the size it
    already has, an action on an instance already gone), so the caller should look before
    failing (``_resource.confirm_after_lost_response``).
    """

    def __init__(self, message, status=None, code=None, method=None, path=None, hint=None, after_lost_response=False):
        self.status = status
        self.code = code
        self.api_message = message
        self.method = method
        self.path = path
        self.hint = hint
        self.after_lost_response = after_lost_response
        super(ApiError, self).__init__(self.describe())

    def describe(self):
        where = " ".join(part for part in (self.method, self.path) if part)
        status = " (HTTP %s%s)" % (self.status, ", " + self.code if self.code else "") if self.status else ""
        text = "%s failed%s: %s" % (where or "API request", status, self.api_message)
        if self.hint:
            text = text.rstrip(" .") + ". " + self.hint
        return text

    def with_hint(self, hint):
        """The same error with a hint for the user appended to its text (``failure`` unchanged)."""
        return self.__class__(self.api_message, status=self.status, code=self.code, method=self.method,
                              path=self.path, hint=hint, after_lost_response=self.after_lost_response)

    def to_failure(self):
        return {
            "code": self.code,
            "message": self.api_message,
            "status": self.status,
            "method": self.method,
            "path": self.path,
        }


class LocalRefusal(ApiError):
    """Something refused by the client itself, before or instead of a request: a value that may
    not go into a URL path, an ``api_url`` with a password in it, an unsafe token cache. An
    ``ApiError`` so that every caller reports it as it reports the API's failures; its text is
    the message alone."""

    def describe(self):
        return self.api_message


class InvalidPathValue(LocalRefusal):
    """A value refused for a URL path segment; ``option`` names where it came from."""

    def __init__(self, message, option=None, **kwargs):
        self.option = option
        kwargs.setdefault("code", "invalid_value")
        super(InvalidPathValue, self).__init__(message, **kwargs)


class MissingCredentials(Exception):
    """A request needs an access token but the client has no client id or secret. Public
    catalog reads work without them; everything else fails with this before anything is sent."""

    def __init__(self, method, path):
        self.method = method
        self.path = path
        super(MissingCredentials, self).__init__("%s %s needs an access token" % (method, path))


class ResponseLost(ApiError):
    """A request that must not be repeated blindly may or may not have been carried out: the
    connection broke after it was sent, or the API answered 5xx. The caller must find out."""


class Response:
    """A parsed API response: ``status``, ``headers`` and ``body`` (JSON, text or None)."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body


def parse_created_id(body):
    """The id in a create response: bare text, a JSON string, ``{"id": ...}`` or ``[id, ...]``."""
    if isinstance(body, dict):
        return body.get("id")
    if isinstance(body, list):
        return parse_created_id(body[0]) if body else None
    if isinstance(body, str):
        text = body.strip()
        if text.startswith(("\"", "{", "[")):
            try:
                return parse_created_id(json.loads(text))
            except ValueError:
                pass
        return text.strip("\"") or None
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
    if not isinstance(body, list) or not all(isinstance(item, dict) for item in body):
        if isinstance(body, list):
            body = [item for item in body if not isinstance(item, dict)][0]
            raise unexpected_answer(body, method, path, "a list of objects", "a list holding ")
        raise unexpected_answer(body, method, path, "a list of objects")
    return body


def unexpected_answer(body, method, path, expected, prefix=""):
    """The ``ApiError`` for an answer of the wrong shape: what came, where, what was expected."""
    if isinstance(body, list):
        what = "a list of %d item%s" % (len(body), "" if len(body) == 1 else "s")
    elif body is None:
        what = "null"
    elif isinstance(body, str):
        what = "a string, not a JSON object or list (%s)" % _short(json.dumps(body[:80]))
    else:
        what = "a JSON %s" % {"bool": "boolean", "int": "number", "float": "number", "dict": "object"}.get(
            type(body).__name__, type(body).__name__)
    return ApiError("the API answered %s%s where %s was expected" % (prefix, what, expected), method=method, path=path,
                    code="unexpected_answer")


# ------------------------------------------------------------------------ URL path building
#
# Every value that goes into a URL path (an id, a name, a tag key, a type code), whether the
# user gave it or the API returned it, goes through ``api_path()``: validated for what it is and
# percent-encoded as exactly one segment. Without this a value such as ``../ssh-keys`` reads (and
# then deletes) another resource, ``?a=b`` adds a query and ``#`` cuts the path. Query values go
# through the ``params`` of the request methods, never into the path.
#
#     api_path("/instances", path_value(instance_id, "id"), "tags")
#     api_path("/container-deployments", path_value(name, "name", NAME), "status")

ID = "id"
NAME = "name"
KEY = "key"
CODE = "code"
PATH_VALUE_RULES = {
    # The API's ids: UUIDs, and a few combined ids of letters, digits and ``_.:-``.
    ID: (re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"), "an id (letters, digits and _.:-)"),
    # Serverless deployment, secret and credential names: DNS labels.
    NAME: (re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"),
           "a name of 1 to 63 lowercase letters, digits and hyphens, not starting or ending with a hyphen"),
    # Catalog codes (instance and volume types, locations, templates).
    CODE: (re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,127}$"), "a code (letters, digits and _.:+-)"),
    # Tag keys: any text, encoded; only what cannot be one segment is refused.
    KEY: (re.compile(r"^.{1,255}$", re.S), "a non-empty key of at most 255 characters"),
}


class PathValue:
    """One dynamic segment of an API path: ``value``, what it must be (``ID``, ``NAME``,
    ``CODE``, ``KEY``) and the option to name when it is refused."""

    def __init__(self, value, option, kind=ID):
        self.value = value
        self.option = option
        self.kind = kind

    def encoded(self):
        value = self.value
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise InvalidPathValue("%s must be a string, not %s" % (self.option, type(value).__name__), self.option)
        value = str(value)
        pattern, description = PATH_VALUE_RULES[self.kind]
        if value in ("", ".", "..") or not pattern.match(value):
            shown = json.dumps(value[:80])
            raise InvalidPathValue("%s is not %s: %s" % (self.option, description, shown), self.option)
        return quote(value, safe="")


def path_value(value, option, kind=ID):
    return PathValue(value, option, kind)


def api_path(*parts):
    """A request path from fixed parts (plain strings written in the code, slashes allowed) and
    ``path_value()`` segments (validated and encoded as one segment each). Raises
    ``InvalidPathValue`` naming the option before anything is sent."""
    segments = []
    for part in parts:
        if isinstance(part, PathValue):
            segments.append(part.encoded())
        else:
            segments.append(str(part).strip("/"))
    return "/" + "/".join(segment for segment in segments if segment)


def parse_rate_limit_header(value):
    """Parse ``RateLimit`` / ``RateLimit-Policy`` header values of the form
    ``"project";r=499;t=59, "endpoint";r=59;t=59`` into ``{name: {param: int}}``.
    Unknown or malformed entries are skipped: pacing is an optimisation, never a failure."""
    entries = {}
    for item in (value or "").split(","):
        parts = [part.strip() for part in item.split(";")]
        name = parts[0].strip("\"") if parts else ""
        if not name:
            continue
        params = {}
        for part in parts[1:]:
            key, sep, raw = part.partition("=")
            if sep:
                try:
                    params[key.strip()] = int(float(raw.strip().strip("\"")))
                except ValueError:
                    continue
        entries[name] = params
    return entries


def token_cache_disabled(token_cache):
    return token_cache is None or str(token_cache).strip().lower() in DISABLED_TOKEN_CACHE_VALUES


class TokenCache:
    """Tokens shared by every task and fork that uses the same API URL and client id.

    One JSON file per (API URL, client id), mode 0600 in a 0700 directory, written atomically.
    It holds the access and refresh tokens and their expiry, plus a salted digest of the client
    secret so that a changed secret never reuses tokens obtained with the old one. Refreshing is
    done under an exclusive lock so that parallel forks refresh once, not once each (refresh
    tokens are single-use).
    """

    def __init__(self, directory, api_url, client_id, client_secret):
        self.directory = os.path.expanduser(directory)
        key = hashlib.sha256(("%s\n%s" % (api_url, client_id)).encode("utf-8")).hexdigest()[:32]
        self.key = key
        self.path = os.path.join(self.directory, key + ".json")
        # The rate-limit state every process with this API URL and client id shares.
        self.quota_path = os.path.join(self.directory, key + ".ratelimit")
        self.lock_path = self.path + ".lock"
        self.secret_digest = hashlib.sha256(
            ("cloudcompute.cloud token cache\n%s\n%s" % (key, client_secret)).encode("utf-8")
        ).hexdigest()

    def ensure_directory(self):
        try:
            ensure_private_directory(self.directory)
        except UnsafeCachePath as problem:
            raise self.refusal(problem)

    def check_directory(self):
        try:
            check_private_directory(self.directory)
        except UnsafeCachePath as problem:
            raise self.refusal(problem)

    def refusal(self, problem):
        return LocalRefusal("token_cache %s is not safe to keep tokens in: %s. Use a directory of your own "
                            "with mode 0700, or set token_cache to false to run without the cache"
                            % (self.directory, problem.strerror), code="unsafe_token_cache")

    def load(self):
        if not os.path.lexists(self.directory):
            return None
        self.check_directory()
        try:
            handle = os.open(self.path, os.O_RDONLY | _O_NOFOLLOW)
            with os.fdopen(handle) as stream:
                data = json.load(stream)
        except (IOError, OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("secret_digest") != self.secret_digest:
            return None
        return data

    def store(self, token):
        self.ensure_directory()
        data = dict(token, secret_digest=self.secret_digest)
        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".token-", suffix=".tmp")
        try:
            os.fchmod(handle, 0o600)
            with os.fdopen(handle, "w") as stream:
                json.dump(data, stream)
            os.rename(temporary, self.path)
        except Exception:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise

    def clear(self):
        try:
            os.unlink(self.path)
        except OSError:
            pass

    def locked(self):
        return _FileLock(self.lock_path, self.ensure_directory)


_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class _FileLock:
    def __init__(self, path, ensure_directory):
        self.path = path
        self.ensure_directory = ensure_directory
        self.handle = None

    def __enter__(self):
        if fcntl is None:
            return self
        self.ensure_directory()
        try:
            self.handle = open_private_file(self.path)
        except UnsafeCachePath as problem:
            raise LocalRefusal("the token cache lock %s: %s" % (self.path, problem.strerror), code="unsafe_token_cache")
        fcntl.flock(self.handle, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc_info):
        if self.handle is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            os.close(self.handle)
            self.handle = None


class ApiClient:
    """Authenticated, paced, retrying access to one Cloud Compute API endpoint.

    ``api_url`` includes the version prefix (``https://.../v1``); paths passed to the request
    methods are relative to it (``/instances``). ``client_id`` and ``client_secret`` may be
    None when only public endpoints are read (``authenticated=False``).
    """

    def __init__(self, api_url, client_id, client_secret, validate_certs=True, request_timeout=30,
                 token_cache=DEFAULT_TOKEN_CACHE, sleep=time.sleep, clock=time.time,
                 max_rate_limit_retries=None, max_rate_limit_wait=MAX_RATE_LIMIT_WAIT,
                 max_transient_retries=MAX_TRANSIENT_RETRIES):
        if not HAS_REQUESTS:
            raise ImportError("the requests Python library is required: %s" % REQUESTS_IMPORT_ERROR)
        self.api_url = checked_api_url(api_url)
        self.client_id = client_id
        self.client_secret = client_secret
        self.request_timeout = request_timeout
        # A task can wait out several rate-limit windows; an interactive caller (the inventory
        # plugin, which has its cache to fall back on) gives up sooner, after a number of 429s.
        self.max_rate_limit_retries = max_rate_limit_retries
        self.max_rate_limit_wait = max_rate_limit_wait
        self.max_transient_retries = max_transient_retries
        self.sleep = sleep
        self.clock = clock
        self.session = _SameOriginSession()
        self.session.max_redirects = MAX_REDIRECTS
        # Given with every request, not set on the session: requests lets REQUESTS_CA_BUNDLE (or
        # CURL_CA_BUNDLE) in the environment override a session-level verify=False, so
        # validate_certs=false was ignored wherever one of them is set; a per-request False stands.
        self.validate_certs = validate_certs
        self.session.headers.update({"User-Agent": USER_AGENT, "Accept": "application/json"})
        self.has_credentials = bool(client_id and client_secret)
        self.token_cache = None if token_cache_disabled(token_cache) or not self.has_credentials else TokenCache(
            token_cache, self.api_url, client_id, client_secret)
        self._token = None
        self.shared_quota = self.token_cache and SharedQuota(
            self.token_cache.quota_path, self.token_cache.key, clock, sleep)
        # What the caller should show at -vvv (the inventory plugin, CloudComputeModule).
        self.notes = []
        # Latest rate-limit state per quota name: {"project": {"r": .., "t": .., "q": .., "w": .., "at": ..}}
        self.rate_limits = {}
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
        body = self.get(path, params=params, authenticated=authenticated)
        return list_of_objects(body, "GET", path)

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
        return self.request("POST", path, json_body=json_body, idempotent=idempotent,
                            retry_unavailable=retry_unavailable).body

    def put(self, path, json_body=None, idempotent=True):
        return self.request("PUT", path, json_body=json_body, idempotent=idempotent)

    def patch(self, path, json_body=None):
        return self.request("PATCH", path, json_body=json_body).body

    def delete(self, path, json_body=None, params=None):
        return self.request("DELETE", path, json_body=json_body, params=params)

    def create(self, path, json_body, find_existing, max_attempts=None, method="POST", retry_unavailable=True,
               returns_resource=False):
        """Send a create without ever making a duplicate; return the new resource's id.

        When the response is lost (connection broken after sending, or 5xx), ``find_existing()``
        looks the resource up by its identity: if it exists the create did happen, otherwise the
        create is sent again. ``method`` is POST but for creates the API expresses as an action
        (``PUT /volumes`` with ``clone``); ``retry_unavailable`` as in ``request()``.

        ``returns_resource=True`` is for APIs that answer a create with the whole new resource
        (and may have no ``id`` at all, such as the serverless deployments, named instead): the
        response body is returned, or after a lost response the record ``find_existing()`` found.

        A create is attempted as often as any other request is tried (``max_attempts`` defaults
        to one more than the client's transient retries).
        """
        if max_attempts is None:
            max_attempts = self.max_transient_retries + 1
        for attempt in range(1, max_attempts + 1):
            try:
                response = self.request(method, path, json_body=json_body, idempotent=False,
                                        retry_unavailable=retry_unavailable)
                return response.body if returns_resource else parse_created_id(response.body)
            except ResponseLost:
                existing = find_existing()
                if existing:
                    return existing if returns_resource else existing["id"]
                if attempt == max_attempts:
                    raise
                self._retry_after_backoff(attempt)
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

    def request(self, method, path, params=None, json_body=None, idempotent=None, authenticated=True,
                retry_unavailable=True, decode_json=True):
        """Send one logical request, with retries where they are safe; return a ``Response``.

        ``idempotent`` says whether the request may be sent again when its outcome is unknown;
        it defaults to True for every method but POST. ``retry_unavailable=False`` makes a 503
        an answer rather than an outage: a deploy out of capacity fails at once with the API's
        message instead of being retried for seconds to the same result — unless the 503
        carries ``Retry-After``, the API saying when to come back (overload, maintenance). With
        ``decode_json=False`` a successful response's body is its text, undecoded.
        """
        if idempotent is None:
            idempotent = method != "POST"
        if authenticated and not self.has_credentials:
            raise MissingCredentials(method, path)
        url = path if path.startswith(("https://", "http://")) else self.api_url + path
        rate_limited = transient = 0
        rate_limit_waited = unavailable_waited = 0.0
        reauthenticated = False
        # Set once an attempt may have been carried out without us hearing of it.
        outcome_unknown = False
        # Unauthenticated requests (the token endpoint, the public catalog) count against no quota.
        quota_key = (method, urlsplit(url).path) if authenticated else None
        while True:
            self._pace(quota_key)
            headers = {}
            if authenticated:
                headers["Authorization"] = "Bearer " + self._access_token()
            sent = True
            try:
                self.stats["requests"] += 1
                raw, content = self._send(method, url, params, json_body, headers,
                                          follow_redirects=path != "/oauth2/token")
            except _DeadlineExceeded as exceeded:
                # Not retried: a server that sends its answer this slowly will do it again. The
                # request was carried out, so a change whose answer is cut short is "lost".
                error_class = ApiError if idempotent else ResponseLost
                raise error_class("the answer was not complete within %g seconds (twice request_timeout); the "
                                  "server sends it too slowly" % exceeded.seconds, method=method, path=path,
                                  code="deadline_exceeded")
            except CrossOriginRedirect as redirect:
                raise ApiError("the answer was a redirect to another server (%s), not followed: the client only "
                               "follows redirects within %s" % (_without_query(redirect.location), self.api_url),
                               method=method, path=path, code="cross_origin_redirect")
            except SSLError as error:
                raise ApiError("TLS verification failed: %s (set validate_certs to false only for a test "
                               "endpoint with a self-signed certificate)" % _short(error), method=method, path=path)
            except RequestException as error:
                # A connect failure means nothing reached the API: always safe to retry.
                sent = not _never_sent(error)
                if (idempotent or not sent) and transient < self.max_transient_retries:
                    outcome_unknown = outcome_unknown or sent
                    transient += 1
                    self._retry_after_backoff(transient)
                    continue
                error_class = ResponseLost if sent and not idempotent else ApiError
                raise error_class("no response from %s: %s" % (self.api_url, _short(error)), method=method, path=path)

            self._remember_rate_limits(raw.headers, quota_key)
            status = raw.status_code
            if status in REDIRECT_STATUSES:
                # Only the token exchange gets here (other requests follow same-origin redirects):
                # its body holds the client secret, which is never sent anywhere else.
                raise ApiError("the API answered HTTP %s redirecting to %s, not followed: the token exchange "
                               "follows no redirect" % (status, _without_query(raw.headers.get("Location") or "?")),
                               status=status, method=method, path=path, code="redirect_refused")
            if status < 400:
                if not decode_json:
                    return Response(status, raw.headers, content.decode(raw.encoding or "utf-8", "replace"))
                return Response(status, raw.headers, _parse_body(raw))

            if status == 401 and authenticated and not reauthenticated:
                # The token may have been revoked or expired early: get a new one, once.
                reauthenticated = True
                self._invalidate_token()
                continue
            if status == 429 and rate_limit_waited < self.max_rate_limit_wait and (
                    self.max_rate_limit_retries is None or rate_limited < self.max_rate_limit_retries):
                rate_limited += 1
                self.stats["rate_limited"] += 1
                waited = self._wait_retry_after(raw.headers, rate_limited, self.max_rate_limit_wait - rate_limit_waited)
                if waited is not None:
                    rate_limit_waited += waited
                    continue
                raise _api_error(raw, method, path, hint=_beyond_budget(raw, self.max_rate_limit_wait))
            if (status == 503 and (retry_unavailable or raw.headers.get("Retry-After"))
                    and transient < self.max_transient_retries):
                # Overloaded or out of capacity, the API did nothing: retry a few times, then
                # fail clearly (no endless retry on a capacity shortage).
                transient += 1
                if raw.headers.get("Retry-After"):
                    waited = self._wait_retry_after(raw.headers, transient, self.max_rate_limit_wait - unavailable_waited)
                    if waited is None:
                        raise _api_error(raw, method, path, hint=_beyond_budget(raw, self.max_rate_limit_wait))
                    unavailable_waited += waited
                else:
                    self._retry_after_backoff(transient)
                continue
            if status >= 500 and status != 503:
                if idempotent and transient < self.max_transient_retries:
                    outcome_unknown = True
                    transient += 1
                    self._retry_after_backoff(transient)
                    continue
                if not idempotent:
                    raise _api_error(raw, method, path, ResponseLost)
            raise _api_error(raw, method, path, after_lost_response=outcome_unknown)

    # ------------------------------------------------------------------------ authentication

    def _access_token(self):
        token = self._token
        if token is None and self.token_cache:
            token = self.token_cache.load()
        if token is None or self._expiring(token):
            token = self._renew_token(token)
        self._token = token
        return token["access_token"]

    def _expiring(self, token):
        # Renew when less than a fifth of the lifetime (at most a minute) is left, so a token
        # never expires between our check and the API's.
        lifetime = token.get("expires_in", 3600)
        margin = min(60.0, lifetime / 5.0)
        return self.clock() >= token.get("expires_at", 0) - margin

    def _renew_token(self, stale):
        if not self.token_cache:
            return self._exchange_token(stale)
        with self.token_cache.locked():
            # Another fork may have renewed it while we waited for the lock.
            cached = self.token_cache.load()
            if cached and not self._expiring(cached) and (stale is None or cached["access_token"] != stale["access_token"]):
                return cached
            token = self._exchange_token(cached or stale)
            self.token_cache.store(token)
            return token

    def _exchange_token(self, stale):
        if stale and stale.get("refresh_token"):
            try:
                return self._token_request({"grant_type": "refresh_token", "refresh_token": stale["refresh_token"]})
            except ApiError as error:
                if error.status not in (400, 401):
                    raise
                # Refresh tokens are single-use and expire: fall back to the client credentials.
        return self._token_request({
            "grant_type": "client_credentials",
            "client_id": self.client_id,
            "client_secret": self.client_secret,
        })

    def _token_request(self, body):
        self.stats["token_requests"] += 1
        response = self.request("POST", "/oauth2/token", json_body=body, idempotent=True, authenticated=False)
        data = response.body if isinstance(response.body, dict) else {}
        if not data.get("access_token"):
            raise ApiError("the token response carried no access_token", status=response.status,
                           method="POST", path="/oauth2/token")
        try:
            expires_in = float(data.get("expires_in") or 3600)
        except (TypeError, ValueError):
            expires_in = 3600.0
        if not 0 < expires_in < 1e7:  # NaN, infinite or absurd: the documented hour
            expires_in = 3600.0
        return {
            "access_token": data["access_token"],
            "refresh_token": data.get("refresh_token"),
            "expires_in": expires_in,
            "expires_at": self.clock() + expires_in,
            "scope": data.get("scope", TOKEN_SCOPE),
        }

    def _invalidate_token(self):
        rejected = self._token
        self._token = None
        if self.token_cache and rejected:
            with self.token_cache.locked():
                cached = self.token_cache.load()
                if cached and cached.get("access_token") == rejected.get("access_token"):
                    self.token_cache.clear()

    # ------------------------------------------------------------------- pacing and waiting

    def _remember_rate_limits(self, headers, quota_key=None):
        remaining = parse_rate_limit_header(headers.get("RateLimit"))
        policy = parse_rate_limit_header(headers.get("RateLimit-Policy"))
        if self.shared_quota and quota_key:
            try:
                self.shared_quota.observe(quota_key[0], quota_key[1], remaining, policy)
            except QuotaFileUnusable as error:
                self._pace_alone(error)
        if not remaining:
            return
        now = self.clock()
        self.rate_limits = {}
        for name, values in remaining.items():
            entry = dict(policy.get(name, {}))
            entry.update(values)
            entry["at"] = now
            self.rate_limits[name] = entry

    def pacing_delay(self):
        """Seconds to wait before the next request so the quotas last until their windows reset.

        Above the reserve there is no delay. Below it, the remaining requests are spread evenly
        over the time left in the window; with none left, wait for the reset.
        """
        delay = 0.0
        now = self.clock()
        for entry in self.rate_limits.values():
            if "r" not in entry or "t" not in entry:
                continue
            # ``t`` is whole seconds, possibly rounded down: count the window as one second longer.
            reset_in = max(0.0, entry["t"] + 1 - (now - entry["at"]))
            remaining = entry["r"]
            reserve = max(1, int(entry.get("q", 0) * PACING_RESERVE))
            if remaining <= 0:
                delay = max(delay, reset_in)
            elif remaining < reserve:
                delay = max(delay, reset_in / (remaining + 1))
        return delay

    def _pace(self, quota_key=None):
        if self.shared_quota and quota_key:
            try:
                self.stats["paced_seconds"] += self.shared_quota.take(*quota_key)
                return
            except QuotaFileUnusable as error:
                self._pace_alone(error)
        delay = self.pacing_delay()
        if delay > 0:
            delay += random.uniform(0, min(1.0, delay / 4))  # forks must not wake in lockstep
            self.stats["paced_seconds"] += delay
            self.sleep(delay)

    def _pace_alone(self, reason):
        # Sharing is an optimisation, never a failure: pace from this client's own responses.
        self.shared_quota = None
        self.notes.append("rate limits are paced by this process alone, not shared with the others: %s" % reason)

    def _wait_retry_after(self, headers, attempt, budget):
        """Wait as ``Retry-After`` asks (a backoff when it is missing or not understood) and
        return the seconds waited; None, without waiting, when the wait would go beyond
        ``budget``: sleeping first and giving up after is how a hostile value hangs a task."""
        delay = retry_after_seconds(headers.get("Retry-After"), self.clock())
        if delay is None:
            delay = min(MAX_BACKOFF, INITIAL_BACKOFF * 2 ** attempt)
        if delay > budget:
            return None
        delay = min(budget, delay + random.uniform(0, 1.0))
        self.stats["retries"] += 1
        # After the wait the window has reset; forget the stale counters.
        self.rate_limits = {}
        self.sleep(delay)
        return delay

    def _send(self, method, url, params, json_body, headers, follow_redirects):
        """One attempt: the response and its body, read within the attempt's total deadline
        (``REQUEST_DEADLINE_FACTOR`` times ``request_timeout``) and refused beyond
        ``MAX_RESPONSE_BYTES``. Raises ``requests`` exceptions as ``session.request`` does."""
        deadline = time.monotonic() + REQUEST_DEADLINE_FACTOR * float(self.request_timeout)
        raw = self.session.request(method, url, params=params, json=json_body, headers=headers, stream=True,
                                   allow_redirects=follow_redirects, timeout=self.request_timeout,
                                   verify=self.validate_certs)
        try:
            declared = raw.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
                raise _too_large(method, url)
            chunks = []
            size = 0
            read = getattr(raw.raw, "read1", None) or raw.raw.read
            while True:
                if time.monotonic() > deadline:
                    raise _DeadlineExceeded(REQUEST_DEADLINE_FACTOR * float(self.request_timeout))
                try:
                    chunk = read(65536, decode_content=True)
                except (TransportError, OSError) as error:
                    # A connection reset or cut short while the body was read: a requests error
                    # like one raised before the answer, so the retry rules apply to it too.
                    raise ChunkedEncodingError(error)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise _too_large(method, url)
                chunks.append(chunk)
        finally:
            raw.close()
        content = b"".join(chunks)
        raw._content = content  # what requests' .text and .json() read
        raw._content_consumed = True
        return raw, content

    def _retry_after_backoff(self, attempt):
        self.stats["retries"] += 1
        self._backoff(attempt)

    def _backoff(self, attempt):
        delay = min(MAX_BACKOFF, INITIAL_BACKOFF * 2 ** (attempt - 1))
        self.sleep(random.uniform(delay / 2, delay))


def checked_api_url(api_url):
    """``api_url`` without its trailing slash; one with a user name or password in it is refused
    (requests would send them as Basic auth instead of the bearer token, and failures would echo
    them) with a message that does not repeat them."""
    api_url = str(api_url).rstrip("/")
    parts = urlsplit(api_url)
    if "@" in parts.netloc:
        raise LocalRefusal("api_url must not carry a user name or password (user:password@host); give the "
                           "credentials as client_id and client_secret. The URL was refused for %s://%s"
                           % (parts.scheme, parts.netloc.rpartition("@")[2]), code="invalid_api_url")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LocalRefusal("api_url must be an http:// or https:// URL with a host name, such as "
                           "https://api.example.com/v1", code="invalid_api_url")
    return api_url


def origin(url):
    parts = urlsplit(url)
    default_port = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default_port


class _DeadlineExceeded(Exception):
    def __init__(self, seconds):
        super(_DeadlineExceeded, self).__init__(seconds)
        self.seconds = seconds


class CrossOriginRedirect(Exception):
    def __init__(self, location):
        super(CrossOriginRedirect, self).__init__(location)
        self.location = location


if HAS_REQUESTS:
    class _SameOriginSession(requests.Session):
        """A session that follows redirects only within the origin (scheme, host and port) of the
        request: the access token, a request body or the answer of another server never cross."""

        def resolve_redirects(self, resp, req, *args, **kwargs):
            if kwargs.get("yield_requests"):
                # requests prepares the next hop of a redirect it was told not to follow (for
                # ``Response.next``): nothing to check, or to prepare, there.
                return iter(())
            return super(_SameOriginSession, self).resolve_redirects(resp, req, *args, **kwargs)

        def rebuild_auth(self, prepared_request, response):
            if origin(prepared_request.url) != origin(response.request.url):
                raise CrossOriginRedirect(prepared_request.url)
            return super(_SameOriginSession, self).rebuild_auth(prepared_request, response)


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
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when is None:
            return None
        try:
            delay = when.timestamp() - now
        except (OverflowError, ValueError, OSError):
            return None
    if math.isnan(delay):
        return None
    return min(max(0.0, delay), 1e12)


def _never_sent(error):
    """True when the request certainly did not reach the API (connecting failed)."""
    if isinstance(error, ConnectTimeout):
        return True
    if isinstance(error, RequestsConnectionError):
        text = repr(error)
        return "NewConnectionError" in text or "Failed to resolve" in text or "NameResolutionError" in text
    return False


def _short(error):
    text = str(error)
    return text if len(text) < 300 else text[:297] + "..."


def _parse_body(raw):
    if raw.status_code == 204 or not raw.content:
        return None
    text = raw.text
    if "json" in raw.headers.get("Content-Type", ""):
        try:
            return raw.json()
        except ValueError:
            return text
    return text


def _too_large(method, url):
    return ApiError("the response is larger than %d MiB, the most the client accepts" % (MAX_RESPONSE_BYTES // 1048576),
                    method=method, path=urlsplit(url).path, code="response_too_large")


def _beyond_budget(raw, budget):
    return ("The API asked to retry after %s, beyond the %d seconds the client waits in all; try again later"
            % (_short(raw.headers.get("Retry-After"))[:60], budget))


def _without_query(url):
    """A URL for an error message: without its query and fragment, which may carry secrets."""
    parts = urlsplit(url)
    return "%s://%s%s" % (parts.scheme, parts.netloc.rpartition("@")[2], parts.path)


def _api_error(raw, method, path, error_class=ApiError, after_lost_response=False, hint=None):
    body = _parse_body(raw)
    code = message = None
    if isinstance(body, dict):
        code = body.get("code")
        message = body.get("message") or body.get("detail")
    if not message:
        message = (body if isinstance(body, str) and body.strip() else raw.reason) or "HTTP %s" % raw.status_code
    return error_class(str(message), status=raw.status_code, code=code, method=method, path=path,
                       after_lost_response=after_lost_response, hint=hint)


_ID_PATTERN = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def looks_like_id(value):
    """Resource ids are UUIDs; names given where an id is accepted are anything else."""
    return bool(value) and bool(_ID_PATTERN.match(str(value)))
