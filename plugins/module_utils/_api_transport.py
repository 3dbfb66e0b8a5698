# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""One attempt of a request, and nothing more: the HTTP session, redirects followed only within
the API's origin, a total deadline per attempt and a bound on the body's size. Whether and when
to try again is the retry decision's business (``_api_retry``); what went wrong is reported to
it as a ``TransportFailure`` of one of a few kinds.

Like the rest of the client this file imports nothing from Ansible.
"""

import time
from urllib.parse import urlsplit

try:
    from requests import Session
    from requests.exceptions import ChunkedEncodingError, ConnectTimeout, RequestException, SSLError
    from requests.exceptions import ConnectionError as RequestsConnectionError
    from urllib3.exceptions import HTTPError as Urllib3Error
    from urllib3.exceptions import NewConnectionError

    HAS_REQUESTS = True
    REQUESTS_IMPORT_ERROR = None
except ImportError as import_error:  # reported by the module wrapper with missing_required_lib()
    Session = object  # the client refuses to start without requests
    HAS_REQUESTS = False
    REQUESTS_IMPORT_ERROR = import_error

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import LocalRefusal, shortened

# Every attempt of a request has a total deadline of this many times ``request_timeout`` (the
# timeout itself bounds each read only, so a body sent a byte at a time would never end), and a
# response body larger than MAX_RESPONSE_BYTES is refused: nothing the API sends is that big.
REQUEST_DEADLINE_FACTOR = 2
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
MAX_REDIRECTS = 5
REDIRECT_STATUSES = (301, 302, 303, 307, 308)

# Why an attempt brought no answer the client accepts.
CONNECT_FAILED = "connect failed"  # connecting failed: the request certainly never reached the API
CONNECTION_LOST = "connection lost"  # the connection broke once the request may have been sent
TOO_SLOW = "too slow"  # the answer came, but not within the attempt's deadline
REFUSED = "refused"  # the client refused the answer: TLS, a redirect, a huge body


class TransportFailure(Exception):
    """An attempt that brought no usable answer: ``kind`` (one of the four above) and the
    message, ``code`` and ``status`` the caller's ``ApiError`` carries. ``path`` is set when
    the error names the URL's path rather than the request's."""

    def __init__(self, kind, message, code=None, status=None, path=None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.code = code
        self.status = status
        self.path = path


class Transport(Session):
    """The HTTP session of one client and the way it sends one attempt. It follows redirects only
    within the origin (scheme, host and port) of the request: the access token, a request body or
    the answer of another server never cross."""

    def __init__(self, api_url, request_timeout, validate_certs, headers):
        super().__init__()
        self.api_url = api_url
        self.request_timeout = request_timeout
        # Given with every request, not set on the session: requests lets REQUESTS_CA_BUNDLE (or
        # CURL_CA_BUNDLE) in the environment override a session-level verify=False, so
        # validate_certs=false was ignored wherever one of them is set; a per-request False stands.
        self.validate_certs = validate_certs
        self.max_redirects = MAX_REDIRECTS
        self.headers.update(headers)

    def attempt(self, method, url, params, json_body, headers, follow_redirects):
        """One attempt: the response, its body read (``.content``). Raises ``TransportFailure``
        when no answer came, or one the client does not accept."""
        try:
            raw = self._read(method, url, params, json_body, headers, follow_redirects)
        except SSLError as error:
            raise TransportFailure(
                REFUSED,
                f"TLS verification failed: {shortened(error)} (set validate_certs to false only for a test "
                "endpoint with a self-signed certificate)",
            )
        except RequestException as error:
            kind = CONNECT_FAILED if _never_sent(error) else CONNECTION_LOST
            raise TransportFailure(kind, f"no response from {self.api_url}: {shortened(error)}")
        if raw.status_code in REDIRECT_STATUSES:
            # Only the token exchange gets here (other requests follow same-origin redirects):
            # its body holds the client secret, which is never sent anywhere else.
            location = without_query(raw.headers.get("Location") or "?")
            message = (
                f"the API answered HTTP {raw.status_code} redirecting to {location}, not followed: the token "
                "exchange follows no redirect"
            )
            raise TransportFailure(REFUSED, message, code="redirect_refused", status=raw.status_code)
        return raw

    def _read(self, method, url, params, json_body, headers, follow_redirects):
        """The response with its body read within the attempt's total deadline and refused
        beyond ``MAX_RESPONSE_BYTES`` (``TransportFailure``). Raises ``requests`` exceptions as
        ``Session.request`` does."""
        seconds = REQUEST_DEADLINE_FACTOR * float(self.request_timeout)
        deadline = time.monotonic() + seconds
        raw = self.request(
            method,
            url,
            params=params,
            json=json_body,
            headers=headers,
            stream=True,
            allow_redirects=follow_redirects,
            timeout=self.request_timeout,
            verify=self.validate_certs,
        )
        try:
            declared = raw.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
                raise _too_large(url)
            body = bytearray()
            read = getattr(raw.raw, "read1", None) or raw.raw.read
            while True:
                if time.monotonic() > deadline:
                    raise TransportFailure(
                        TOO_SLOW,
                        f"the answer was not complete within {seconds:g} seconds (twice "
                        "request_timeout); the server sends it too slowly",
                        code="deadline_exceeded",
                    )
                try:
                    chunk = read(65536, decode_content=True)
                except (Urllib3Error, OSError) as error:
                    # A connection reset or cut short while the body was read: a requests error
                    # like one raised before the answer, so the retry rules apply to it too.
                    raise ChunkedEncodingError(error)
                if not chunk:
                    break
                body += chunk
                if len(body) > MAX_RESPONSE_BYTES:
                    raise _too_large(url)
        finally:
            raw.close()
        raw._content = bytes(body)  # what requests' .content, .text and .json() read
        raw._content_consumed = True
        return raw

    def resolve_redirects(self, resp, req, *args, **kwargs):
        if kwargs.get("yield_requests"):
            # requests prepares the next hop of a redirect it was told not to follow (for
            # ``Response.next``): nothing to check, or to prepare, there.
            return iter(())
        return super().resolve_redirects(resp, req, *args, **kwargs)

    def rebuild_auth(self, prepared_request, response):
        if origin(prepared_request.url) != origin(response.request.url):
            raise TransportFailure(
                REFUSED,
                f"the answer was a redirect to another server ({without_query(prepared_request.url)}), not "
                f"followed: the client only follows redirects within {self.api_url}",
                code="cross_origin_redirect",
            )
        return super().rebuild_auth(prepared_request, response)


def checked_api_url(api_url):
    """``api_url`` without its trailing slash; one with a user name or password in it is refused
    (requests would send them as Basic auth instead of the bearer token, and failures would echo
    them) with a message that does not repeat them."""
    api_url = str(api_url).rstrip("/")
    parts = urlsplit(api_url)
    if "@" in parts.netloc:
        host = parts.netloc.rpartition("@")[2]
        message = (
            "api_url must not carry a user name or password (user:password@host); give the credentials as "
            f"client_id and client_secret. The URL was refused for {parts.scheme}://{host}"
        )
    elif parts.scheme not in ("http", "https") or not parts.hostname:
        message = "api_url must be an http:// or https:// URL with a host name, such as https://api.example.com/v1"
    else:
        return api_url
    raise LocalRefusal(message, code="invalid_api_url")


def origin(url):
    parts = urlsplit(url)
    default_port = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default_port


def without_query(url):
    """A URL for an error message: without its query and fragment, which may carry secrets."""
    parts = urlsplit(url)
    return "{}://{}{}".format(parts.scheme, parts.netloc.rpartition("@")[2], parts.path)


def _never_sent(error):
    """True when the request certainly did not reach the API: connecting timed out or failed
    (refused, unreachable, a name that does not resolve). requests wraps urllib3's error, which
    says why in its ``reason`` (and a proxy's in its arguments)."""
    if isinstance(error, ConnectTimeout):
        return True
    if not isinstance(error, RequestsConnectionError):
        return False
    causes = [error]
    while causes:
        cause = causes.pop()
        if isinstance(cause, NewConnectionError):
            return True
        causes.extend(item for item in cause.args + (getattr(cause, "reason", None),) if isinstance(item, Exception))
    return False


def _too_large(url):
    return TransportFailure(
        REFUSED,
        "the response is larger than %d MiB, the most the client accepts" % (MAX_RESPONSE_BYTES // 1048576),
        code="response_too_large",
        path=urlsplit(url).path,
    )
