"""Modules run whole, in-process, against a scripted API: fast tests of a module's plan and its
prediction (check mode, ``--diff``) without a server. The module, its client (authentication,
pacing, retries, error handling) and the HTTP library all run for real; only the answers on the
wire are scripted, with ``responses``. Behaviour against a live API is the integration targets'
job (tests/integration/targets), which run the same modules against the emulator.

A test scripts the answers it expects to be asked for (``api.answer``), runs the module
(``run_module``), and checks the result and which requests were sent (``api.sent``). A request
nobody scripted fails the module with a connection error, so a plan that reads or writes more
than the test expects shows up in its result.
"""

import json
import re

import pytest
import responses
from ansible.module_utils import basic

API_URL = "https://api.scripted.test/v1"
TOKEN_PATH = "/oauth2/token"

try:  # ansible-core 2.19 and later
    from ansible.module_utils.testing import patch_module_args
except ImportError:  # ansible-core 2.16 to 2.18 read the arguments from this global
    from contextlib import contextmanager

    @contextmanager
    def patch_module_args(args):
        saved = basic._ANSIBLE_ARGS
        basic._ANSIBLE_ARGS = json.dumps({"ANSIBLE_MODULE_ARGS": args}).encode()
        try:
            yield
        finally:
            basic._ANSIBLE_ARGS = saved


class ScriptedApi:
    """The API's answers, scripted per method and path (a path may be a regular expression)."""

    def __init__(self, mock):
        self.mock = mock
        mock.add(
            responses.POST,
            API_URL + TOKEN_PATH,
            json={"access_token": "scripted-token", "token_type": "Bearer", "expires_in": 3600},
        )

    def answer(self, method, path, json=None, status=200, headers=None):
        url = re.compile(re.escape(API_URL) + path.pattern) if isinstance(path, re.Pattern) else API_URL + path
        self.mock.add(method, url, json=json, status=status, headers=headers)

    @property
    def sent(self):
        """(method, path with its query) of every request sent, the token exchange left out."""
        calls = []
        for call in self.mock.calls:
            path = call.request.url[len(API_URL) :]
            if path != TOKEN_PATH:
                calls.append((call.request.method, path))
        return calls

    def body(self, index):
        """The JSON body of the ``index``-th request of ``sent``."""
        calls = [call for call in self.mock.calls if not call.request.url.endswith(TOKEN_PATH)]
        return json.loads(calls[index].request.body)


@pytest.fixture(autouse=True)
def known_hosts(tmp_path, monkeypatch):
    """The collection's known_hosts file of the test (a delete forgets the host keys pinned in
    it), never the user's: empty until a test writes it."""
    path = tmp_path / "known_hosts"
    monkeypatch.setenv("CLOUDCOMPUTE_KNOWN_HOSTS", str(path))
    return path


@pytest.fixture
def api():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield ScriptedApi(mock)


@pytest.fixture
def run_module(capsys):
    """Run a module's ``main`` with ``args`` (the connection options are added) and return its
    result, whether it exited or failed. ``check_mode`` and ``diff`` as on the command line."""

    def run(main, args, check_mode=False, diff=False):
        module_args = dict(
            dict(
                api_url=API_URL,
                client_id="scripted-client",
                client_secret="scripted-secret",
                token_cache="false",
                request_timeout=5,
                _ansible_check_mode=check_mode,
                _ansible_diff=diff,
            ),
            **args,
        )
        with patch_module_args(module_args), pytest.raises(SystemExit):
            main()
        return json.loads(capsys.readouterr().out)

    return run
