#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: balance_info
short_description: Read the balance of a Cloud Compute project
version_added: 0.1.0
description:
  - Returns the project's current balance. Running instances and clusters (shut down ones
    included) and volumes are charged from it every hour; a deployment with a balance of zero
    or less fails with HTTP 402.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options: {}
"""

EXAMPLES = r"""
- name: Read the balance
  cloudcompute.cloud.balance_info:
  register: account

- name: Stop before deploying with too little money
  ansible.builtin.assert:
    that: account.balance.amount > 100
    fail_msg: "only {{ account.balance.amount }} {{ account.balance.currency }} left"
"""

RETURN = r"""
balance:
  description: The project balance.
  returned: always
  type: dict
  contains:
    amount:
      description: The balance, a number.
      type: float
      sample: 1234.56
    currency:
      description: Its currency, V(usd) or V(eur).
      type: str
      sample: usd
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import single_item
from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import read, run_info


def main():
    run_info(dict(), lambda module: {"balance": single_item(read(module.client, "/balance")) or {}})


if __name__ == "__main__":
    main()
