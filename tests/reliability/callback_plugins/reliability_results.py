# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Record every task result of a playbook run as one JSON line, for tests/reliability.

The reliability tests read it to count failed tasks and to search the raw results (what the
modules returned, before any display) for secrets. Enabled with ANSIBLE_CALLBACK_PLUGINS
pointing here, ANSIBLE_CALLBACKS_ENABLED=reliability_results and the output file in
RELIABILITY_RESULTS_FILE.
"""

DOCUMENTATION = r"""
name: reliability_results
type: aggregate
short_description: every task result as a JSON line (tests only)
description:
  - Appends one JSON object per task result to the file named by E(RELIABILITY_RESULTS_FILE).
requirements:
  - RELIABILITY_RESULTS_FILE set in the environment
"""

import json
import os

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "reliability_results"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.path = os.environ.get("RELIABILITY_RESULTS_FILE")

    def _record(self, outcome, result):
        if not self.path:
            return
        entry = {
            "host": result._host.get_name(),
            "task": result._task.get_name(),
            "action": result._task.action,
            "outcome": outcome,
            "result": result._result,
        }
        with open(self.path, "a") as handle:
            handle.write(json.dumps(entry, default=str) + "\n")

    def v2_runner_on_ok(self, result):
        self._record("ok", result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record("ignored" if ignore_errors else "failed", result)

    def v2_runner_on_unreachable(self, result):
        self._record("unreachable", result)

    def v2_runner_on_skipped(self, result):
        self._record("skipped", result)

    def v2_runner_item_on_ok(self, result):
        self._record("item_ok", result)

    def v2_runner_item_on_failed(self, result):
        self._record("item_failed", result)
