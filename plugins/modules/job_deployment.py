#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: job_deployment
short_description: Manage serverless job deployments of a Cloud Compute project
version_added: 0.1.0
description:
  - Create a serverless job deployment (containers that process queued jobs), change it,
    pause and resume it, purge its queue, and delete it.
  - A deployment is identified by its O(name), which cannot change.
  - Options left out are left as they are. Within O(containers), matched with the live
    containers by position, every member left out is kept as it is, while the lists C(env),
    C(volume_mounts), C(entrypoint_overrides.entrypoint) and C(entrypoint_overrides.cmd) are
    set exactly as given (C(env) regardless of order).
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.wait
  - cloudcompute.cloud.serverless
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  name:
    description:
      - Name of the job deployment, a DNS label (lowercase letters, digits and C(-), at most
        63). It cannot change.
    type: str
    required: true
  state:
    description:
      - V(present) creates the deployment or updates it, and resumes it when it is paused.
      - V(paused) creates or updates it and pauses it; queued jobs wait until it is resumed.
      - V(absent) deletes it.
    type: str
    choices: [present, absent, paused]
    default: present
  containers:
    description:
      - The containers of the deployment (one or more). Required to create one.
  compute:
    description:
      - The GPUs each replica runs on. Required to create a deployment.
  scaling:
    description:
      - How the deployment scales. Members left out keep their current values (on creation,
        the API's defaults).
    type: dict
    suboptions:
      max_replica_count:
        description: Most replicas working at the same time.
        type: int
      queue_message_ttl_seconds:
        description: Seconds a queued job waits at most.
        type: int
      deadline_seconds:
        description: Seconds a job may run at most.
        type: int
  purge_queue:
    description:
      - Drop every queued job of an existing deployment (before a resume, so none of them
        starts). Always reports a change.
    type: bool
    default: false
  delete_timeout:
    description:
      - With O(state=absent), milliseconds the API's delete request waits for the deployment
        to be removed (V(0) to V(300000)); V(0) returns at once, with the deployment
        V(terminating).
      - By default V(0) with O(wait=false), and otherwise as long as O(wait_timeout) allows,
        but never so long that the request outlasts O(request_timeout). With O(wait=true) the
        module then waits until the deployment is gone, within O(wait_timeout).
    type: int
notes:
  - O(wait) waits until the deployment is V(running) (or V(paused) with O(state=paused)), and
    with O(state=absent) until it is gone. A deployment that is V(terminating) is waited for
    before one of the same name is created.
  - "API calls: a run that changes nothing costs two reads (the deployment and its status),
    and one list of the volumes when a shared mount names its volume by name."
seealso:
  - module: cloudcompute.cloud.job_deployment_info
  - module: cloudcompute.cloud.container_deployment
"""

EXAMPLES = r"""
- name: A batch transcription worker on H100s
  cloudcompute.cloud.job_deployment:
    name: transcribe
    containers:
      - image: registry.example.com/ml/whisper-worker:3.1
        env:
          - name: MODEL
            value: large-v3
          - name: STORAGE_KEY
            type: secret
            value: transcribe-storage-key
    compute:
      name: H100
      size: 1
    scaling:
      max_replica_count: 8
      deadline_seconds: 1800
    container_registry_settings:
      is_private: true
      credentials: example-registry

- name: Hold the queue while the model is replaced
  cloudcompute.cloud.job_deployment:
    name: transcribe
    state: paused

- name: Drop what was queued, take the new image and resume
  cloudcompute.cloud.job_deployment:
    name: transcribe
    purge_queue: true
    containers:
      - image: registry.example.com/ml/whisper-worker:3.2

- name: Delete it and wait until it is gone
  cloudcompute.cloud.job_deployment:
    name: transcribe
    state: absent
"""

RETURN = r"""
job_deployment:
  description:
    - The job deployment as the API returns it, with its C(status) (after waiting, when
      waiting); empty after O(state=absent).
    - In check mode, the deployment as the run would leave it.
  returned: always
  type: dict
  contains:
    name:
      description: Name of the deployment.
      type: str
      sample: transcribe
    status:
      description: Status, V(running), V(paused) or V(terminating) (being deleted).
      type: str
      sample: running
    endpoint_base_url:
      description: Base address jobs are submitted to, with an inference API key.
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
      sample: {name: H100, size: 1}
    scaling:
      description: Scaling options (C(max_replica_count), C(queue_message_ttl_seconds), C(deadline_seconds)).
      type: dict
    container_registry_settings:
      description: Registry settings (C(is_private), C(credentials) with the credentials' C(name)).
      type: dict
queue_purged:
  description: Whether the queue was purged (or, in check mode, would be).
  returned: always
  type: bool
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule
from ansible_collections.cloudcompute.cloud.plugins.module_utils._serverless import (
    Deployment,
    at_least,
    deployment_argument_spec,
)

SCALING_OPTIONS = dict(
    max_replica_count=dict(type="int"),
    queue_message_ttl_seconds=dict(type="int"),
    deadline_seconds=dict(type="int"),
)


class JobDeployment(Deployment):
    key = "job_deployment"
    path = "/job-deployments"
    running_status = "running"
    created_status = "running"
    restart_status = "running"
    going_away = ("terminating",)

    checks = Deployment.checks + tuple(
        (f"scaling.{option}", at_least(1), f"scaling.{option}: must be at least 1") for option in SCALING_OPTIONS
    )


def main():
    argument_spec = deployment_argument_spec(
        state=dict(type="str", choices=["present", "absent", "paused"], default="present"),
        scaling=dict(type="dict", options=SCALING_OPTIONS),
    )
    JobDeployment(CloudComputeModule(argument_spec=argument_spec)).run()


if __name__ == "__main__":
    main()
