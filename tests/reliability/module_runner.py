"""Run a collection module in this process, the way Ansible runs it in its own: arguments in,
one JSON result out on stdout, the process "exits". A module process per example would cost
half a second each; in-process it costs the module's own work.

``run_module`` never lets an exception escape: one that escapes the module is what Ansible
would show as a traceback ("MODULE FAILURE"), and is returned as ``{"traceback": ...}``.
"""

import contextlib
import glob
import importlib
import io
import json
import os
import traceback

from ansible.module_utils.testing import patch_module_args
from ansible.plugins.loader import fragment_loader, init_plugin_loader
from ansible.utils.plugin_docs import get_docstring

# Ansible's CLI installs the collection loader before it loads anything of a collection; so do
# we, before the first module is imported (ANSIBLE_COLLECTIONS_PATH names the copy under test).
init_plugin_loader()

COLLECTION = "ansible_collections.cloudcompute.cloud"
# this file is tests/reliability/ in the collection
MODULES_DIRECTORY = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "plugins", "modules"
)
TRACEBACK_MARK = "Traceback (most recent call last)"


def module_names():
    """Every module of the collection (the copy this suite runs from)."""
    return sorted(
        os.path.basename(path)[:-3]
        for path in glob.glob(os.path.join(MODULES_DIRECTORY, "*.py"))
        if not os.path.basename(path).startswith("_")
    )


def run_module(name, args):
    """The module's result dict, or ``{"traceback": text}`` when it crashed or printed no JSON."""
    module = importlib.import_module(f"{COLLECTION}.plugins.modules.{name}")
    output = io.StringIO()
    try:
        with patch_module_args(args), contextlib.redirect_stdout(output):
            module.main()
    except SystemExit:
        pass
    except Exception:  # pylint: disable=broad-exception-caught
        return {"traceback": traceback.format_exc()}
    text = output.getvalue()
    try:
        return json.loads(text)
    except ValueError:
        return {"traceback": "the module printed no JSON result:\n" + text[-3000:]}


def is_clear_failure(result):
    """A failed result whose ``msg`` a user can read: a non-empty text, no traceback."""
    message = result.get("msg")
    return (
        result.get("failed") is True
        and isinstance(message, str)
        and message.strip() != ""
        and TRACEBACK_MARK not in message
        and "traceback" not in result
        and "exception" not in result
    )


def module_options(names):
    """name -> {option: doc spec} from each module's documentation (doc fragments merged), which
    the sanity tests hold equal to its argument spec."""
    options = {}
    for name in names:
        doc = get_docstring(
            os.path.join(MODULES_DIRECTORY, name + ".py"), fragment_loader, collection_name="cloudcompute.cloud"
        )[0]
        options[name] = doc.get("options") or {}
    return options


class ModuleWorld:
    """Modules run in this process against one emulator, with the requests each run made."""

    def __init__(self, emulator, token_cache):
        self.emulator = emulator
        self.control = emulator.control
        self.connection = {
            "api_url": emulator.api_url,
            "client_id": emulator.client_id,
            "client_secret": emulator.client_secret,
            "token_cache": token_cache,
        }

    def run(self, module, args):
        """(result, requests the run made)."""
        before = self.control.requests(since=2**62)["total"]
        result = run_module(module, dict(args, **self.connection))
        return result, self.control.requests(since=before)["requests"]

    def make(self, module, args):
        result, _requests = self.run(module, args)
        assert not result.get("failed") and "traceback" not in result, result
        return result
