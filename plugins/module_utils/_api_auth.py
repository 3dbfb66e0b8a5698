# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Authentication: OAuth2 client credentials, refresh before expiry, the token dropped when the
API rejects it, and a token cache shared between tasks and forks (a 0600 file per API URL +
client id, holding tokens and never the secret).

Like the rest of the client this file imports nothing from Ansible.
"""

import contextlib
import hashlib
import json
import os
import tempfile

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import ApiError
from ansible_collections.cloudcompute.cloud.plugins.module_utils._locks import (
    FileLock,
    check_private_directory,
    ensure_private_directory,
)

TOKEN_PATH = "/oauth2/token"
TOKEN_SCOPE = "cloud-api-v1"
DEFAULT_TOKEN_CACHE = "~/.cache/cloudcompute.cloud/tokens"
DISABLED_TOKEN_CACHE_VALUES = ("", "false", "no", "off", "none", "disabled")


class Authentication:
    """The access token of one client: from memory, the token cache or a token exchange, renewed
    before it expires and dropped when the API rejects it.

    ``exchange(body)`` sends the token request (``POST /oauth2/token`` with ``body``) and returns
    the ``Response``: the client's own request, with its retries and error handling.
    """

    def __init__(self, client_id, client_secret, token_cache, clock, exchange):
        self.credentials = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret}
        self.token_cache = token_cache
        self.clock = clock
        self.exchange = exchange
        self.token = None

    def access_token(self):
        token = self.token
        if token is None and self.token_cache:
            token = self.token_cache.load()
        if token is None or self._expiring(token):
            token = self._renew(token)
        self.token = token
        return token["access_token"]

    def invalidate(self):
        """Forget the token the API rejected, here and in the cache (unless another fork has
        replaced it there meanwhile)."""
        rejected = self.token
        self.token = None
        if self.token_cache and rejected:
            with self.token_cache.locked():
                cached = self.token_cache.load()
                if cached and cached.get("access_token") == rejected.get("access_token"):
                    self.token_cache.clear()

    def _expiring(self, token):
        # Renew when less than a fifth of the lifetime (at most a minute) is left, so a token
        # never expires between our check and the API's.
        lifetime = token.get("expires_in", 3600)
        margin = min(60.0, lifetime / 5.0)
        return self.clock() >= token.get("expires_at", 0) - margin

    def _renew(self, stale):
        if not self.token_cache:
            return self._obtain(stale)
        with self.token_cache.locked():
            cached = self.token_cache.load()
            renewed_meanwhile = cached and cached.get("access_token") != (stale or {}).get("access_token")
            if renewed_meanwhile and not self._expiring(cached):  # by another fork, while we waited for the lock
                return cached
            token = self._obtain(cached or stale)
            self.token_cache.store(token)
            return token

    def _obtain(self, stale):
        if stale and stale.get("refresh_token"):
            try:
                return self._request_token({"grant_type": "refresh_token", "refresh_token": stale["refresh_token"]})
            except ApiError as error:
                if error.status not in (400, 401):
                    raise
                # Refresh tokens are single-use and expire: fall back to the client credentials.
        return self._request_token(self.credentials)

    def _request_token(self, body):
        response = self.exchange(body)
        data = response.body if isinstance(response.body, dict) else {}
        if not data.get("access_token"):
            raise ApiError(
                "the token response carried no access_token", status=response.status, method="POST", path=TOKEN_PATH
            )
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
        self.key = hashlib.sha256((f"{api_url}\n{client_id}").encode()).hexdigest()[:32]
        self.path = os.path.join(self.directory, self.key + ".json")
        # The rate-limit state every process with this API URL and client id shares.
        self.quota_path = os.path.join(self.directory, self.key + ".ratelimit")
        self.lock_path = self.path + ".lock"
        self.secret_digest = hashlib.sha256(
            (f"cloudcompute.cloud token cache\n{self.key}\n{client_secret}").encode()
        ).hexdigest()

    def load(self):
        if not os.path.lexists(self.directory):
            return None
        check_private_directory(self.directory)
        try:
            handle = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(handle) as stream:
                data = json.load(stream)
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("secret_digest") != self.secret_digest:
            return None
        return data

    def store(self, token):
        ensure_private_directory(self.directory)
        data = dict(token, secret_digest=self.secret_digest)
        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".token-", suffix=".tmp")  # mode 0600
        try:
            with os.fdopen(handle, "w") as stream:
                json.dump(data, stream)
            os.rename(temporary, self.path)
        except Exception:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    def clear(self):
        with contextlib.suppress(OSError):
            os.unlink(self.path)

    def locked(self):
        """The lock to hold while the tokens are renewed (``with cache.locked(): ...``)."""
        return FileLock(self.lock_path).acquire()
