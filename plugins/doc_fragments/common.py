# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)


class ModuleDocFragment:
    # Modules: the connection options and their environment fallbacks
    # (plugins/module_utils/_module.py COMMON_ARGUMENT_SPEC).
    DOCUMENTATION = r"""
options:
  api_url:
    description:
      - Base URL of the Cloud Compute API, including the version prefix, for example
        V(https://api.example.com/v1) or the local emulator's V(http://127.0.0.1:8400/v1).
      - Only V(http) and V(https) URLs with a host name are accepted. A URL with a user name or
        password in it (V(https://user:password@host/v1)) is refused, without repeating the
        password; give the credentials as O(client_id) and O(client_secret).
      - Redirects are followed only within this URL's scheme, host and port (at most 5); a
        redirect to another server fails naming its location. The token exchange follows no
        redirect at all, so the client secret is never sent anywhere else.
      - If not set, the value of the E(CLOUDCOMPUTE_API_URL) environment variable is used.
    type: str
  client_id:
    description:
      - Client id of a Cloud API credential (console, Keys, Cloud API Credentials).
      - If not set, the value of the E(CLOUDCOMPUTE_CLIENT_ID) environment variable is used.
      - Needed by every request except the reads of the public catalog endpoints (instance
        types, cluster types, container types, volume types, long-term periods), which are made
        without a token; a task that needs a token fails before sending anything when it is missing.
    type: str
  client_secret:
    description:
      - Client secret of that credential. It is never logged nor written to the token cache.
      - If not set, the value of the E(CLOUDCOMPUTE_CLIENT_SECRET) environment variable is used.
      - Needed whenever O(client_id) is.
    type: str
  validate_certs:
    description:
      - Whether to verify the API's TLS certificate. Set to V(false) only for a test endpoint
        with a self-signed certificate; to trust a private CA instead, point the
        E(REQUESTS_CA_BUNDLE) environment variable at its bundle.
      - If not set, the value of the E(CLOUDCOMPUTE_VALIDATE_CERTS) environment variable is used.
    type: bool
    default: true
  request_timeout:
    description:
      - Seconds to wait for each HTTP response before it counts as lost.
      - Each attempt of a request must also be complete within twice this time in all, however
        slowly the answer arrives; and an answer larger than 64 MiB is refused.
      - A V(Retry-After) the API sends (seconds or an HTTP date) is waited out only while it
        fits in the 15 minutes a task waits for the rate limit in all; a longer one fails the
        task at once with the API's answer.
      - If not set, the value of the E(CLOUDCOMPUTE_REQUEST_TIMEOUT) environment variable is used.
    type: float
    default: 30
  token_cache:
    description:
      - Directory where the access and refresh tokens are cached between tasks, in one file
        per API URL and client id, readable by its owner only (mode 0600). Every task of a
        playbook, and every fork, reuses the cached token until it nears expiry, so a playbook
        makes about one token exchange per token lifetime. The client secret is never written.
      - Missing directories are created with mode 0700 whatever the umask. A directory that is
        a symbolic link, is owned by another user or is writable by group or others is refused
        with an error (set O(token_cache=false) or choose a directory of your own); a symbolic
        link at the token or lock file is never followed.
      - Beside each token file, a rate-limit state file (C(.ratelimit), mode 0600) shares the
        API's project and endpoint quotas between every process on this machine that uses the
        same API URL and client id (forks, the inventory plugin, parallel C(ansible-playbook)
        runs). Each request takes a slot before it is sent, so the processes wait for the next
        window instead of racing for it and being answered 429. An unusable state file (corrupt,
        of another user) only means pacing per process, noted at C(-vvv).
      - Set to V(false) to disable the cache (every task then exchanges credentials, and paces
        its requests on its own).
      - If not set, the value of the E(CLOUDCOMPUTE_TOKEN_CACHE) environment variable is used.
    type: str
    default: ~/.cache/cloudcompute.cloud/tokens
notes:
  - Requests are paced from the API's C(RateLimit) headers, 429 answers are retried after
    C(Retry-After) (for up to 15 minutes in all, however many forks share the quota), and
    transient failures of requests that are safe to repeat are retried with backoff. A create whose response is lost is never resent blindly; the resource is
    looked up by its identity first, so no duplicate is made.
requirements:
  - requests
"""

    # Inventory plugin: the same options read from configuration/environment (env: keys).
    PLUGIN = r"""
options:
  api_url:
    description:
      - Base URL of the Cloud Compute API, including the version prefix.
    type: str
    required: true
    env:
      - name: CLOUDCOMPUTE_API_URL
  client_id:
    description:
      - Client id of a Cloud API credential. Templates (lookups, vaulted variables) are allowed.
      - Required, except in the inventory plugin when its C(projects) option names the credentials.
    type: str
    env:
      - name: CLOUDCOMPUTE_CLIENT_ID
  client_secret:
    description:
      - Client secret of that credential. Templates (lookups, vaulted variables) are allowed.
      - Required, except in the inventory plugin when its C(projects) option names the credentials.
    type: str
    env:
      - name: CLOUDCOMPUTE_CLIENT_SECRET
  validate_certs:
    description:
      - Whether to verify the API's TLS certificate.
    type: bool
    default: true
    env:
      - name: CLOUDCOMPUTE_VALIDATE_CERTS
  request_timeout:
    description:
      - Seconds to wait for each HTTP response.
    type: float
    default: 30
    env:
      - name: CLOUDCOMPUTE_REQUEST_TIMEOUT
  token_cache:
    description:
      - Directory of the shared token cache and rate-limit state (see the modules); V(false)
        disables both.
    type: str
    default: ~/.cache/cloudcompute.cloud/tokens
    env:
      - name: CLOUDCOMPUTE_TOKEN_CACHE
requirements:
  - requests
"""

    # The instance modules: whether their results show the instances' Jupyter token.
    JUPYTER_TOKEN = r"""
options:
  return_jupyter_token:
    description:
      - Whether the C(jupyter_token) of the instances is shown in the result.
      - The token gives access to the instance's Jupyter server, so it is a credential. By default
        it is masked (C(********)) in the result, its C(diff) and any message. Set V(true) only
        where the result is kept as safely as a password would be, and give the task
        C(no_log) then.
    type: bool
    default: false
"""
