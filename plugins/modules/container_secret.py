#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: container_secret
short_description: Manage secrets that serverless deployments read as environment variables
version_added: 0.1.0
description:
  - Create and delete the named secrets of a Cloud Compute project. A container deployment refers
    to one by name in an C(env) entry of C(type=secret) (see M(cloudcompute.cloud.container_deployment)).
  - The API never returns a secret's value and cannot change it. An existing secret is left alone
    unless O(update_secret=always), which deletes it and creates it again with O(value) on every run.
  - The value is never returned, logged or shown in a diff; a diff only says that it changed.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  name:
    description:
      - Name of the secret, its identity. 1 to 63 characters of lowercase letters, digits and
        hyphens, starting with a letter; checked before any request. Secrets and file secrets
        share one set of names.
    type: str
    required: true
  value:
    description:
      - The secret value. Required with O(state=present).
    type: str
  state:
    description:
      - V(present) creates the secret when it does not exist; V(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  update_secret:
    description:
      - V(on_create) sets O(value) only when the secret is created; an existing secret is kept as it is
        (the API cannot tell whether its value differs).
      - V(always) replaces an existing secret with O(value) on every run (reported as changed). While
        a deployment uses the secret, this needs O(force=true).
    type: str
    choices: [on_create, always]
    default: on_create
  force:
    description:
      - Delete (or replace) the secret even while a deployment uses it; the deployment keeps running with
        what it had. Without it the API refuses, and the error names the deployment.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Store the database password for the inference service
  cloudcompute.cloud.container_secret:
    name: sentiment-db-password
    value: "{{ vault_sentiment_db_password }}"

- name: Rotate a token on every run
  cloudcompute.cloud.container_secret:
    name: hf-token
    value: "{{ vault_hf_token }}"
    update_secret: always
    force: true

- name: Remove a secret no deployment uses any more
  cloudcompute.cloud.container_secret:
    name: old-api-key
    state: absent
"""

RETURN = r"""
container_secret:
  description: The secret as the API lists it (never its value); empty after O(state=absent).
  returned: always
  type: dict
  contains:
    name:
      description: Name of the secret.
      type: str
      sample: sentiment-db-password
    created_at:
      description: When the secret was created (null in check mode for one not created yet).
      type: str
      sample: "2026-11-24T17:40:00Z"
    secret_type:
      description: Always V(generic) for these secrets.
      type: str
      sample: generic
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule
from ansible_collections.cloudcompute.cloud.plugins.module_utils._secrets import SECRET_OPTIONS, SecretRecord


class ContainerSecret(SecretRecord):
    key = "container_secret"
    kind = "secret"

    def body(self):
        return {"name": self.name, "value": self.params["value"]}

    def predicted(self, current=None):
        return dict(super().predicted(), secret_type="generic")


def main():
    module = CloudComputeModule(
        argument_spec=dict(SECRET_OPTIONS, value=dict(type="str", no_log=True)),
        required_if=[("state", "present", ("value",))],
    )
    ContainerSecret(module).run()


if __name__ == "__main__":
    main()
