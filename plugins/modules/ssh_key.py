#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: ssh_key
short_description: Manage SSH keys of a Cloud Compute project
version_added: 0.1.0
description:
  - Register, replace and remove the SSH public keys that instances and clusters are deployed with.
  - A key is identified by O(id), else by O(name). The API cannot edit a key, so a different
    O(public_key) (or, by O(id), a different O(name)) replaces it with a new key that has a new
    id; the old one is removed after the new one exists.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  id:
    description:
      - Id of the key. Takes precedence over O(name) for finding it.
    type: str
  name:
    description:
      - Name of the key. Required to create one.
    type: str
  public_key:
    description:
      - The public key in OpenSSH format (C(ssh-ed25519 AAAA... comment)). Required to create
        one. Keys are compared by type and key material; the comment does not count.
    type: str
    aliases: [key]
  state:
    description:
      - V(present) registers the key (or replaces it when the key material differs);
        V(absent) removes it.
    type: str
    choices: [present, absent]
    default: present
"""

EXAMPLES = r"""
- name: Register my workstation's key
  cloudcompute.cloud.ssh_key:
    name: alice-laptop
    public_key: "{{ lookup('ansible.builtin.file', '~/.ssh/id_ed25519.pub') }}"

- name: Remove a key by name
  cloudcompute.cloud.ssh_key:
    name: old-ci-key
    state: absent

- name: Set the credentials once for every task of a play
  hosts: localhost
  module_defaults:
    group/cloudcompute.cloud.all:
      api_url: "{{ cloudcompute_api_url }}"
      client_id: "{{ cloudcompute_client_id }}"
      client_secret: "{{ vault_cloudcompute_client_secret }}"
  tasks:
    - name: Register the deploy key
      cloudcompute.cloud.ssh_key:
        name: deploy
        public_key: "{{ deploy_public_key }}"
"""

RETURN = r"""
ssh_key:
  description: The key as the API returns it; empty after O(state=absent).
  returned: always
  type: dict
  contains:
    id:
      description: Id of the key (null in check mode for a key not created yet).
      type: str
      sample: 6a0d1e7e-1c55-4c4f-9e0f-2f0b0a3f6d11
    name:
      description: Name of the key.
      type: str
      sample: alice-laptop
    key:
      description: The public key.
      type: str
      sample: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q alice@laptop
    fingerprint:
      description: MD5 fingerprint of the key as colon-separated hex; null when the API cannot parse the key.
      type: str
      sample: "3f:1c:...:9a"
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule, ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import REPLACE, Field, Resource

KEY_TYPES = ("ssh-", "ecdsa-", "sk-")


def key_material(public_key):
    """Type and base64 blob of an OpenSSH public key: what identifies it, without the comment."""
    return tuple((public_key or "").split()[:2])


class SshKey(Resource):
    key = "ssh_key"
    path = "/ssh-keys"
    fields = (
        Field("name", on_change=REPLACE),
        Field("public_key", "key", normalize=key_material, on_change=REPLACE),
    )
    required_to_create = ("name", "public_key")

    def validate(self):
        super().validate()
        public_key = self.params["public_key"]
        if public_key is not None and (
            len(key_material(public_key)) < 2 or not public_key.strip().startswith(KEY_TYPES)
        ):
            raise ModuleFailure("public_key is not an OpenSSH public key (expected 'ssh-ed25519 AAAA... comment')")


def main():
    module = CloudComputeModule(
        argument_spec=dict(
            id=dict(type="str"),
            name=dict(type="str"),
            public_key=dict(type="str", aliases=["key"], no_log=False),
            state=dict(type="str", choices=["present", "absent"], default="present"),
        ),
        required_one_of=[("id", "name")],
    )
    SshKey(module).run()


if __name__ == "__main__":
    main()
