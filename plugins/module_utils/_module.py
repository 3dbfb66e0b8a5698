# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The module wrapper every cloudcompute.cloud module is built on: the common options (with
their environment fallbacks), the API client built from them, and API errors turned into
``fail_json`` with a ``failure`` dict instead of a traceback."""

from urllib.parse import urlsplit

from ansible.module_utils.basic import AnsibleModule, _load_params, env_fallback, missing_required_lib

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import (
    DEFAULT_TOKEN_CACHE,
    HAS_REQUESTS,
    REQUESTS_IMPORT_ERROR,
    ApiClient,
    ApiError,
    MissingCredentials,
)

# Raised by the helpers and modules, handled by CloudComputeModule.run(); imported from here by most.
from ansible_collections.cloudcompute.cloud.plugins.module_utils._failure import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._locks import release_create_locks

# The options of plugins/doc_fragments/common.py (module variant): keep both in step.
COMMON_ARGUMENT_SPEC = dict(
    api_url=dict(type="str", fallback=(env_fallback, ["CLOUDCOMPUTE_API_URL"])),
    client_id=dict(type="str", fallback=(env_fallback, ["CLOUDCOMPUTE_CLIENT_ID"])),
    client_secret=dict(type="str", no_log=True, fallback=(env_fallback, ["CLOUDCOMPUTE_CLIENT_SECRET"])),
    validate_certs=dict(type="bool", default=True, fallback=(env_fallback, ["CLOUDCOMPUTE_VALIDATE_CERTS"])),
    request_timeout=dict(type="float", default=30, fallback=(env_fallback, ["CLOUDCOMPUTE_REQUEST_TIMEOUT"])),
    token_cache=dict(
        type="str", default=DEFAULT_TOKEN_CACHE, no_log=False, fallback=(env_fallback, ["CLOUDCOMPUTE_TOKEN_CACHE"])
    ),
)

# plugins/doc_fragments/wait.py
WAIT_ARGUMENT_SPEC = dict(
    wait=dict(type="bool", default=True),
    wait_timeout=dict(type="int", default=900),
)

# plugins/doc_fragments/tags.py
TAGS_ARGUMENT_SPEC = dict(
    tags=dict(type="dict"),
    purge_tags=dict(type="bool", default=True),
    expires_in=dict(type="str"),
    expires_at=dict(type="str"),
)

# api_url is needed by every request; the credentials only by those that need a token (public
# catalog reads do not), so their absence is reported by the first request that needs them.
CREDENTIALS = ("client_id", "client_secret")


def _with_variable(option):
    """A connection option as messages name it: with the environment variable it falls back to."""
    return "{} (or {})".format(option, COMMON_ARGUMENT_SPEC[option]["fallback"][1][0])


def _holds_secrets(suboptions):
    return any(spec.get("no_log") or _holds_secrets(spec.get("options") or {}) for spec in suboptions.values())


def checkable_spec(argument_spec, params):
    """The argument spec, made safe for Ansible's checks of these parameters.

    ansible-core's argument checks (2.19 to 2.21 at least) crash with a TypeError, so that the
    user sees a traceback, when an option that has suboptions is given a number or a boolean
    instead of a dictionary (``scaling: 5``, or ``compute: [1, 2]``). For such an option the suboptions are left out, so
    that Ansible reports the wrong type as it does for any other option; when a suboption was
    ``no_log``, the whole value is then hidden from the result, since its secrets are no longer
    known as such. Nothing changes for parameters of the right shape.
    """
    safe = dict(argument_spec)
    for option, spec in argument_spec.items():
        suboptions = spec.get("options")
        if not suboptions or spec.get("type") not in ("dict", "list") or not isinstance(params, dict):
            continue
        items = []
        for value in (params[name] for name in (option, *(spec.get("aliases") or ())) if name in params):
            # Ansible goes through a list's items even where one dictionary is expected
            items.extend(value if isinstance(value, list) else [value])
        if any(isinstance(item, (bool, int, float)) for item in items):
            safe[option] = {key: value for key, value in spec.items() if key != "options"}
            if _holds_secrets(suboptions):
                safe[option]["no_log"] = True
            continue
        for item in items:
            if isinstance(item, dict):
                suboptions = checkable_spec(suboptions, item)
        safe[option] = dict(spec, options=suboptions)
    return safe


# The instance modules' option to show the instances' Jupyter token, a credential, in their results.
JUPYTER_TOKEN_ARGUMENT_SPEC = dict(return_jupyter_token=dict(type="bool", default=False))
JUPYTER_TOKEN_MASK = "********"


class CloudComputeModule(AnsibleModule):
    """An AnsibleModule with the common options, a lazily built API client, and ``run``: failures as clean results."""

    def __init__(self, argument_spec, **kwargs):
        spec = checkable_spec(dict(COMMON_ARGUMENT_SPEC, **argument_spec), _load_params())
        kwargs.setdefault("supports_check_mode", True)
        # Before AnsibleModule's own argument checks, which may already call fail_json.
        self._client = None
        super().__init__(argument_spec=spec, **kwargs)
        if not HAS_REQUESTS:
            self.fail_json(msg=missing_required_lib("requests"), exception=str(REQUESTS_IMPORT_ERROR))
        if not self.params.get("api_url"):
            self.fail_json(msg="missing required connection options: " + _with_variable("api_url"))
        # A password in api_url is refused by the client; it must not be shown meanwhile either.
        password = urlsplit(str(self.params["api_url"])).password
        if password:
            self.no_log_values.add(password)

    @property
    def client(self):
        if self._client is None:
            # the common options are the client's settings, under the same names; wait_timeout, where
            # the module has it, bounds the client's waits too
            settings = {option: self.params[option] for option in COMMON_ARGUMENT_SPEC}
            self._client = ApiClient(**settings, wait_timeout=self.params.get("wait_timeout"))
        return self._client

    def hide_jupyter_tokens(self, instances):
        """The instance records with their ``jupyter_token`` masked, unless O(return_jupyter_token)
        asks for it; the tokens are masked in any other text of the result too (messages)."""
        if self.params.get("return_jupyter_token"):
            return instances
        masked = []
        for instance in instances:
            if isinstance(instance, dict) and instance.get("jupyter_token"):
                self.no_log_values.add(instance["jupyter_token"])
                instance = dict(instance, jupyter_token=JUPYTER_TOKEN_MASK)
            masked.append(instance)
        return masked

    def exit_json(self, **result):
        self._before_exit()
        super().exit_json(**result)

    def fail_json(self, msg, **result):
        self._before_exit()
        super().fail_json(msg, **result)

    def _before_exit(self):
        release_create_locks()
        # What the client noticed but handled (shared rate limits unusable, ...): for -vvv only.
        if self._client is not None and self._verbosity >= 3:
            for note in self._client.notes:
                self.warn(note)
            self._client.notes = []

    def run(self, action):
        """Call ``action()`` and turn the failures it raises into clean ``fail_json`` results."""
        try:
            return action()
        except ApiError as error:  # the API's code, message and status in ``failure``
            self.fail_json(msg=str(error), failure=error.to_failure())
        except ModuleFailure as failure:
            self.fail_json(msg=failure.msg, **failure.result)
        except MissingCredentials as missing:
            names = ", ".join(_with_variable(option) for option in CREDENTIALS if not self.params.get(option))
            self.fail_json(
                msg=f"missing required connection options: {names} ({missing}; only the public catalog "
                "endpoints can be read without credentials)"
            )
