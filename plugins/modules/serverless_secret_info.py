#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: serverless_secret_info
short_description: List the secrets, file secrets or registry credentials of serverless deployments
version_added: 0.1.0
description:
  - Lists the secrets (M(cloudcompute.cloud.container_secret)), file secrets or container registry
    credentials of a Cloud Compute project, or the one named.
  - Only names and metadata; the API never returns a value, a file's content or a credential.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  kind:
    description:
      - What to list. V(secret) lists the secrets read as environment variables only (not the file
        secrets, which V(file_secret) lists with their file names).
    type: str
    choices: [secret, file_secret, registry_credential]
    default: secret
  name:
    description:
      - Return only the one with this name (an empty list when there is none).
    type: str
"""

EXAMPLES = r"""
- name: List the secrets
  cloudcompute.cloud.serverless_secret_info:
  register: listed

- name: Does the registry credential exist?
  cloudcompute.cloud.serverless_secret_info:
    kind: registry_credential
    name: ghcr-deploy
  register: credential

- name: Create the deployment only when it does
  ansible.builtin.debug:
    msg: "the credential exists"
  when: credential.secrets | length == 1
"""

RETURN = r"""
secrets:
  description: The records of O(kind), without any value.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: Name of the record.
      type: str
      sample: sentiment-db-password
    created_at:
      description: When it was created.
      type: str
      sample: "2026-11-24T17:40:00Z"
    secret_type:
      description: V(generic) for a secret, V(file-secret) for a file secret; absent for registry credentials.
      type: str
      sample: generic
    file_names:
      description: Names of the files of a file secret (not their contents).
      type: list
      elements: str
      sample: [config.yaml]
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import Filter, exactly, exit_list_info
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule
from ansible_collections.cloudcompute.cloud.plugins.module_utils._secrets import KINDS, list_records


def main():
    module = CloudComputeModule(
        argument_spec=dict(
            kind=dict(type="str", choices=sorted(KINDS), default="secret"),
            name=dict(type="str"),
        ),
    )
    exit_list_info(
        module,
        "secrets",
        KINDS[module.params["kind"]][0],
        filters=(Filter("name", "name", exactly),),
        list_all=lambda: list_records(module.client, module.params["kind"]),
    )


if __name__ == "__main__":
    main()
