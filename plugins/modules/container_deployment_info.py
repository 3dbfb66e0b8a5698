#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: container_deployment_info
short_description: List serverless container deployments of a Cloud Compute project
version_added: 0.1.0
description:
  - Returns the project's serverless container deployments, or the one named O(name), with
    their containers, compute and scaling, and on request their status and replicas.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  name:
    description:
      - Return only the deployment with this name (an empty list when there is none).
    type: str
  include:
    description:
      - What to read besides the deployments themselves, which already carry their scaling.
      - V(status) adds C(status); V(replicas) adds C(replicas). Each costs one more API call
        per deployment.
    type: list
    elements: str
    choices: [status, replicas]
    default: [status]
  status:
    description:
      - Return only deployments in one of these statuses, for example V(healthy) or
        V(paused). Reads the status of every deployment, as V(status) in O(include) does.
    type: list
    elements: str
notes:
  - "API calls: one list (or one read with O(name)), plus one per deployment for V(status)
    and one per deployment for V(replicas)."
seealso:
  - module: cloudcompute.cloud.container_deployment
"""

EXAMPLES = r"""
- name: Every container deployment with its status
  cloudcompute.cloud.container_deployment_info:
  register: deployments

- name: Their names and statuses
  ansible.builtin.debug:
    msg: "{{ deployments.container_deployments | items2dict(key_name='name', value_name='status') }}"

- name: One deployment with its replicas
  cloudcompute.cloud.container_deployment_info:
    name: sentiment-api
    include: [status, replicas]
  register: sentiment

- name: Deployments that are not healthy
  cloudcompute.cloud.container_deployment_info:
    status: [degraded, unhealthy, quota_reached]
  register: troubled

- name: Just the configuration, in a single call
  cloudcompute.cloud.container_deployment_info:
    include: []
"""

RETURN = r"""
container_deployments:
  description: The deployments, as the API returns them, with what O(include) asked for.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: Name of the deployment.
      type: str
      sample: sentiment-api
    status:
      description:
        - Status, one of V(initializing), V(image_pulling), V(healthy), V(degraded),
          V(unhealthy), V(paused), V(quota_reached), V(version_updating).
      type: str
      returned: when V(status) is in O(include) or O(status) is given
      sample: healthy
    replicas:
      description: Its replicas, each with C(id), C(status) and C(started_at); none while paused.
      type: list
      elements: dict
      returned: when V(replicas) is in O(include)
    endpoint_base_url:
      description: Base address of the deployed endpoint.
      type: str
    created_at:
      description: When it was created.
      type: str
    containers:
      description:
        - Its containers, in the shape of
          RV(cloudcompute.cloud.container_deployment#module:container_deployment.containers).
      type: list
      elements: dict
    compute:
      description: GPU model (C(name)) and GPUs per replica (C(size)).
      type: dict
    scaling:
      description: Scaling options.
      type: dict
    container_registry_settings:
      description: Registry settings.
      type: dict
    is_spot:
      description: Whether the replicas run on spot capacity.
      type: bool
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._serverless import exit_deployment_info


def main():
    exit_deployment_info("container_deployments", "/container-deployments", parts=["status", "replicas"])


if __name__ == "__main__":
    main()
