#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: serverless_compute_resource_info
short_description: List the compute a serverless deployment of Cloud Compute can run on
version_added: 0.1.0
description:
  - Returns the serverless compute resources of the project (C(GET /v1/serverless-compute-resources)),
    each GPU model (C(name)) and number of GPUs per replica (C(size)) that the
    O(cloudcompute.cloud.container_deployment#module:compute) of a container or job deployment
    can name, and whether it is available now.
  - Read it before a deployment to choose a compute that exists and is available; a deployment
    naming another is refused by the API.
  - The filter options are applied locally, combined with AND; GPU models compare whatever their case.
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
      - Return only these GPU models, such as V(H100) or V(L40S).
    type: list
    elements: str
  size:
    description:
      - Return only these numbers of GPUs per replica.
    type: list
    elements: int
  available:
    description:
      - V(true) returns only the resources available now, V(false) only those that are not.
      - Unset returns both.
    type: bool
seealso:
  - module: cloudcompute.cloud.container_deployment
  - module: cloudcompute.cloud.job_deployment
  - module: cloudcompute.cloud.price_info
"""

EXAMPLES = r"""
- name: The serverless compute available now
  cloudcompute.cloud.serverless_compute_resource_info:
    available: true
  register: serverless_compute

- name: Deploy on one H100 only when it is available
  cloudcompute.cloud.container_deployment:
    name: sentiment-api
    containers:
      - image: registry.example.com/ml/sentiment:1.4.0
        exposed_port: 8080
    compute: {name: H100, size: 1}
  when: >-
    serverless_compute.serverless_compute_resources
    | selectattr('name', 'equalto', 'H100') | selectattr('size', 'equalto', 1) | list | length > 0
"""

RETURN = r"""
serverless_compute_resources:
  description: The matching compute resources, in the API's order.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: GPU model, the C(compute.name) of a deployment.
      type: str
      sample: H100
    size:
      description: GPUs per replica, the C(compute.size) of a deployment.
      type: int
      sample: 1
    is_available:
      description: Whether a deployment can get this compute now.
      type: bool
      sample: true
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import Filter, list_info

FILTERS = (
    Filter("name", "name", type="list", elements="str"),
    Filter("size", "size", type="list", elements="int"),
    Filter("available", "is_available", type="bool"),
)


def main():
    list_info("serverless_compute_resources", "/serverless-compute-resources", FILTERS)


if __name__ == "__main__":
    main()
