# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The API client's errors: what every caller catches (``ApiError``) and the few kinds that
tell it more (a refusal by the client itself, a lost response, missing credentials).

Like the rest of the client this file imports nothing from Ansible.
"""


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
        super().__init__(self.describe())

    def describe(self):
        where = " ".join(part for part in (self.method, self.path) if part)
        status = " (HTTP {}{})".format(self.status, ", " + self.code if self.code else "") if self.status else ""
        text = "{} failed{}: {}".format(where or "API request", status, self.api_message)
        if self.hint:
            text = text.rstrip(" .") + ". " + self.hint
        return text

    def with_hint(self, hint):
        """The same error with a hint for the user appended to its text (``failure`` unchanged)."""
        kept = ("status", "code", "method", "path", "after_lost_response")
        return self.__class__(self.api_message, hint=hint, **{name: getattr(self, name) for name in kept})

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
        super().__init__(message, **kwargs)


class MissingCredentials(Exception):
    """A request needs an access token but the client has no client id or secret. Public
    catalog reads work without them; everything else fails with this before anything is sent."""

    def __init__(self, method, path):
        self.method = method
        self.path = path
        super().__init__(f"{method} {path} needs an access token")


class ResponseLost(ApiError):
    """A request that must not be repeated blindly may or may not have been carried out: the
    connection broke after it was sent, or the API answered 5xx. The caller must find out."""


class WaitRefused(Exception):
    """The API asked the client to wait longer than it may (pacing): the client fails the request."""


def shortened(text):
    """``text`` (or an error's) cut to a length that fits in a message."""
    text = str(text)
    return text if len(text) < 300 else text[:297] + "..."
