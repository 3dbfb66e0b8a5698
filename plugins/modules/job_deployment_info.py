#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: job_deployment_info
short_description: List serverless job deployments of a Cloud Compute project
version_added: 0.1.0
description:
  - Returns the project's serverless job deployments, or the one named O(name), with their
    containers, compute and scaling, and by default their status.
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
      - Return only the job deployment with this name (an empty list when there is none).
    type: str
  include:
    description:
      - What to read besides the deployments themselves, which already carry their scaling.
      - V(status) adds C(status), at one more API call per deployment.
    type: list
    elements: str
    choices: [status]
    default: [status]
  status:
    description:
      - Return only deployments in one of these statuses (V(running), V(paused),
        V(terminating)). Reads the status of every deployment.
    type: list
    elements: str
notes:
  - "API calls: one list (or one read with O(name)), plus one per deployment for V(status)."
seealso:
  - module: cloudcompute.cloud.job_deployment
"""

EXAMPLES = r"""
- name: Every job deployment with its status
  cloudcompute.cloud.job_deployment_info:
  register: jobs

- name: The paused ones
  cloudcompute.cloud.job_deployment_info:
    status: [paused]
  register: paused_jobs

- name: One job deployment's scaling, in a single call
  cloudcompute.cloud.job_deployment_info:
    name: transcribe
    include: []
  register: transcribe

- name: Show it
  ansible.builtin.debug:
    msg: "{{ transcribe.job_deployments[0].scaling if transcribe.job_deployments else 'no such job deployment' }}"
"""

RETURN = r"""
job_deployments:
  description: The job deployments, as the API returns them, with what O(include) asked for.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: Name of the deployment.
      type: str
      sample: transcribe
    status:
      description: Status, V(running), V(paused) or V(terminating).
      type: str
      returned: when V(status) is in O(include) or O(status) is given
      sample: running
    endpoint_base_url:
      description: Base address jobs are submitted to.
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
      description: Scaling options (C(max_replica_count), C(queue_message_ttl_seconds), C(deadline_seconds)).
      type: dict
    container_registry_settings:
      description: Registry settings.
      type: dict
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._serverless import exit_deployment_info


def main():
    exit_deployment_info("job_deployments", "/job-deployments", parts=["status"])


if __name__ == "__main__":
    main()
