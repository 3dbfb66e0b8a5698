# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
name: unsafe_var
short_description: A variable's value as data, never templated
version_added: 0.1.0
description:
  - Returns the value of a variable exactly as it was given, with every string in it marked unsafe, so
    Jinja in it is never evaluated, however the value is used afterwards.
  - For data from outside that arrives as a variable Ansible trusts as a template, above all the event
    ansible-rulebook and EDA controller pass to a playbook as the extra variable C(ansible_eda). Reading
    such a variable directly (C({{ ansible_eda.event }})) evaluates any Jinja in it on the controller
    (on ansible-core 2.16 to 2.18 the whole variable at once, as soon as any part of it is read).
  - The variable is read before any templating, so nothing in it runs, on every supported ansible-core.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
options:
  _terms:
    description: The name of the variable.
    type: list
    elements: str
    required: true
  default:
    description:
      - The value to return when the variable is not defined. Without it, an undefined variable fails
        the lookup.
    type: raw
notes:
  - The value is returned as is; templates in the variable's own definition are not evaluated either.
    Use it for data, not for variables that are meant to be templated.
seealso:
  - name: Unsafe or raw strings
    description: How Ansible keeps a string from being templated.
    link: https://docs.ansible.com/ansible/latest/playbook_guide/playbooks_advanced_syntax.html#unsafe-or-raw-strings
"""

EXAMPLES = r"""
- name: Read the event of a rulebook's run_playbook action as data
  ansible.builtin.set_fact:
    evicted: "{{ lookup('cloudcompute.cloud.unsafe_var', 'ansible_eda').event.instance }}"

- name: Use its description; a description such as "{{ lookup('pipe', 'id') }}" stays that text
  ansible.builtin.debug:
    msg: "{{ evicted.description }}"

- name: Nothing given by hand
  ansible.builtin.debug:
    msg: "{{ lookup('cloudcompute.cloud.unsafe_var', 'ansible_eda', default={}) }}"
"""

RETURN = r"""
_raw:
  description: The variable's value, its strings marked unsafe.
  type: list
  elements: raw
"""

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible.utils.unsafe_proxy import wrap_var

NO_DEFAULT = object()


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        # The lookup reads ``variables`` (the raw variables, before templating): reading the
        # variable through a template would evaluate what it holds before this could mark it.
        default = kwargs.pop("default", NO_DEFAULT)
        if kwargs:
            raise AnsibleLookupError(f"cloudcompute.cloud.unsafe_var takes no option {', '.join(sorted(kwargs))}")
        values = []
        for name in terms:
            if not isinstance(name, str):
                raise AnsibleLookupError(f"cloudcompute.cloud.unsafe_var takes variable names, got {name!r}")
            if name in (variables or {}):
                values.append(wrap_var(variables[name]))
            elif default is not NO_DEFAULT:
                values.append(wrap_var(default))
            else:
                raise AnsibleLookupError(f"cloudcompute.cloud.unsafe_var: no variable named {name!r}")
        return values
