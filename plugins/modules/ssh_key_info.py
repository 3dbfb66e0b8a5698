#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: ssh_key_info
short_description: List SSH keys of a Cloud Compute project
version_added: 0.1.0
description:
  - Returns the project's SSH keys, all of them or those matching O(id) or O(name).
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  id:
    description:
      - Return only the key with this id (an empty list when there is none).
    type: str
  name:
    description:
      - Return only keys with exactly this name.
    type: str
"""

EXAMPLES = r"""
- name: All keys
  cloudcompute.cloud.ssh_key_info:
  register: all_keys

- name: The id of the deploy key
  cloudcompute.cloud.ssh_key_info:
    name: deploy
  register: deploy_key

- name: Use it
  ansible.builtin.debug:
    msg: "{{ deploy_key.ssh_keys[0].id }}"
"""

RETURN = r"""
ssh_keys:
  description: The matching keys.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: Id of the key.
      type: str
    name:
      description: Name of the key.
      type: str
    key:
      description: The public key.
      type: str
    fingerprint:
      description: MD5 fingerprint as colon-separated hex; null when the API cannot parse the key.
      type: str
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import RESOURCE_FILTERS, list_info


def main():
    list_info("ssh_keys", "/ssh-keys", RESOURCE_FILTERS, dict(id=dict(type="str"), name=dict(type="str")))


if __name__ == "__main__":
    main()
