# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The failure a module finds by itself. Apart from ``_module.py`` so that helpers free of
Ansible imports (``_tags.py``) can raise it and the inventory plugin can use them."""


class ModuleFailure(Exception):
    """A failure found by the module itself (bad input, timeout, ambiguity): ``fail_json`` it."""

    def __init__(self, msg, **result):
        super().__init__(msg)
        self.msg = msg
        self.result = result
