#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: container_registry_credential
short_description: Manage the credentials serverless deployments pull private images with
version_added: 0.1.0
description:
  - Create and delete the named container registry credentials of a Cloud Compute project. A
    deployment refers to one by name in C(container_registry_settings.credentials) (see M(cloudcompute.cloud.container_deployment)).
  - The API never returns a credential and cannot change one. An existing credential is left alone
    unless O(update_secret=always), which deletes it and creates it again on every run.
  - Each O(registry_type) takes its own fields, checked before any request. Secret fields are never
    returned, logged or shown in a diff.
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
      - Name of the credential, its identity. 1 to 63 characters of lowercase letters, digits and
        hyphens, starting with a letter; checked before any request.
    type: str
    required: true
  registry_type:
    description:
      - The kind of registry. Required with O(state=present).
      - V(dockerhub) and V(ghcr) take O(username) and O(access_token); V(gcr) takes
        O(service_account_key); V(aws-ecr) takes O(access_key_id), O(secret_access_key), O(region)
        and O(ecr_repo); V(custom) takes O(docker_config_json); V(scaleway) takes
        O(scaleway_domain) and O(scaleway_uuid). Every field of the type is required, and fields
        of other types are refused.
    type: str
    choices: [dockerhub, ghcr, gcr, aws-ecr, custom, scaleway]
  username:
    description: User name (V(dockerhub), V(ghcr)).
    type: str
  access_token:
    description: Access token (V(dockerhub), V(ghcr)).
    type: str
  service_account_key:
    description: The service account key JSON, as one string (V(gcr)).
    type: str
  access_key_id:
    description: AWS access key id (V(aws-ecr)).
    type: str
  secret_access_key:
    description: AWS secret access key (V(aws-ecr)).
    type: str
  region:
    description: AWS region of the repository (V(aws-ecr)).
    type: str
  ecr_repo:
    description: The ECR repository, for example C(123456789012.dkr.ecr.eu-west-1.amazonaws.com) (V(aws-ecr)).
    type: str
  docker_config_json:
    description: A Docker C(config.json) with the registry's C(auths), as one string (V(custom)).
    type: str
  scaleway_domain:
    description: The Scaleway registry domain, for example C(rg.fr-par.scw.cloud) (V(scaleway)).
    type: str
  scaleway_uuid:
    description: The Scaleway secret key (V(scaleway)).
    type: str
  state:
    description:
      - V(present) creates the credential when it does not exist; V(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  update_secret:
    description:
      - V(on_create) sets the fields only when the credential is created; an existing one is kept
        as it is (the API cannot tell whether it differs).
      - V(always) replaces an existing credential on every run (reported as changed). While a
        deployment uses it, this needs O(force=true).
    type: str
    choices: [on_create, always]
    default: on_create
  force:
    description:
      - Delete (or replace) the credential even while a deployment uses it; the deployment keeps
        running with what it had. Without it the API refuses, and the error names the deployment.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Pull from GitHub's registry
  cloudcompute.cloud.container_registry_credential:
    name: ghcr-deploy
    registry_type: ghcr
    username: deploy-bot
    access_token: "{{ vault_ghcr_token }}"

- name: Pull from ECR, rotating the keys on every run
  cloudcompute.cloud.container_registry_credential:
    name: ecr-ml
    registry_type: aws-ecr
    access_key_id: "{{ vault_aws_access_key_id }}"
    secret_access_key: "{{ vault_aws_secret_access_key }}"
    region: eu-west-1
    ecr_repo: 123456789012.dkr.ecr.eu-west-1.amazonaws.com
    update_secret: always
    force: true
"""

RETURN = r"""
container_registry_credential:
  description: The credential as the API lists it (its name and creation time only); empty after O(state=absent).
  returned: always
  type: dict
  contains:
    name:
      description: Name of the credential.
      type: str
      sample: ghcr-deploy
    created_at:
      description: When it was created (null in check mode for one not created yet).
      type: str
      sample: "2026-11-24T17:40:00Z"
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule, ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._secrets import SECRET_OPTIONS, SecretRecord

# The fields the API takes for each registry type.
TYPE_FIELDS = {
    "dockerhub": ("username", "access_token"),
    "ghcr": ("username", "access_token"),
    "gcr": ("service_account_key",),
    "aws-ecr": ("access_key_id", "secret_access_key", "region", "ecr_repo"),
    "custom": ("docker_config_json",),
    "scaleway": ("scaleway_domain", "scaleway_uuid"),
}
# Every other field is a secret (no_log).
PUBLIC_FIELDS = ("username", "region", "ecr_repo", "scaleway_domain")
ALL_FIELDS = sorted(set(field for fields in TYPE_FIELDS.values() for field in fields))


class RegistryCredential(SecretRecord):
    key = "container_registry_credential"
    kind = "registry_credential"

    def validate(self):
        super().validate()
        if self.params["state"] != "present":
            return
        registry_type = self.params["registry_type"]
        wanted = TYPE_FIELDS[registry_type]
        missing = ", ".join(field for field in wanted if not self.params[field])
        if missing:
            raise ModuleFailure(f"registry_type={registry_type} needs {missing}")
        foreign = ", ".join(field for field in ALL_FIELDS if field not in wanted and self.params[field] is not None)
        if foreign:
            raise ModuleFailure(
                f"{foreign}: not a field of registry_type={registry_type} (it takes {', '.join(wanted)})"
            )

    def body(self):
        body = {"name": self.name, "type": self.params["registry_type"]}
        body.update((field, self.params[field]) for field in TYPE_FIELDS[self.params["registry_type"]])
        return body


def main():
    options = dict(SECRET_OPTIONS, registry_type=dict(type="str", choices=list(TYPE_FIELDS)))
    options.update((field, dict(type="str", no_log=field not in PUBLIC_FIELDS)) for field in ALL_FIELDS)
    module = CloudComputeModule(argument_spec=options, required_if=[("state", "present", ("registry_type",))])
    RegistryCredential(module).run()


if __name__ == "__main__":
    main()
