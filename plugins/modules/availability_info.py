#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: availability_info
short_description: Find where instance and cluster types can be deployed now
version_added: 0.1.0
description:
  - Returns, per location, the instance types (or cluster types) that have capacity for one
    more deployment right now, on demand or as spot instances.
  - With O(type), also answers whether that one type can be deployed (in O(location_code), or
    anywhere) as the boolean RV(available).
  - Availability changes all the time; a deployment can still meet no capacity (HTTP 503).
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
      - V(instance) for instance types, V(cluster) for cluster types.
    type: str
    choices: [instance, cluster]
    default: instance
  type:
    description:
      - One instance type (or cluster type, with O(kind=cluster)) code. The module then
        returns RV(available), and RV(availability) lists only this type.
      - A type the API does not know fails the task with HTTP 404.
    type: str
    aliases: [instance_type, cluster_type]
  location_code:
    description:
      - Only this location (such as V(FIN-01)). All locations when omitted.
    type: str
  spot:
    description:
      - Capacity for spot instances instead of on-demand ones. Instances only; clusters have
        no spot capacity.
    type: bool
    default: false
seealso:
  - module: cloudcompute.cloud.instance_type_info
  - module: cloudcompute.cloud.cluster_type_info
  - module: cloudcompute.cloud.location_info
"""

EXAMPLES = r"""
- name: Which instance types can be deployed where
  cloudcompute.cloud.availability_info:
  register: availability

- name: Can a spot H100 be deployed in FIN-01?
  cloudcompute.cloud.availability_info:
    type: 1H100.80S.30V
    location_code: FIN-01
    spot: true
  register: h100_spot

- name: Deploy only when it can
  ansible.builtin.debug:
    msg: "deploying a spot H100"
  when: h100_spot.available

- name: Locations that can take an H200 instance now
  cloudcompute.cloud.availability_info:
    type: 1H200.141S.44V
  register: h200

- name: Show them
  ansible.builtin.debug:
    msg: "{{ h200.availability | selectattr('availabilities') | map(attribute='location_code') | list }}"

- name: Cluster types with capacity in FIN-03
  cloudcompute.cloud.availability_info:
    kind: cluster
    location_code: FIN-03
  register: clusters
"""

RETURN = r"""
availability:
  description:
    - One entry per location (the one of O(location_code), or all of them) with the types that
      can be deployed there now. With O(type), C(availabilities) holds at most that type.
  returned: always
  type: list
  elements: dict
  contains:
    location_code:
      description: The location.
      type: str
      sample: FIN-01
    availabilities:
      description: Codes of the types with capacity there.
      type: list
      elements: str
      sample: [1H100.80S.30V, CPU.4V.16G]
available:
  description: Whether O(type) can be deployed now (in O(location_code), or in some location).
  returned: when O(type) is given
  type: bool
"""


from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import CODE, api_path, path_value
from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import (
    read,
    read_list,
    run_info,
    unknown_type_hints,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure

PATHS = {"instance": "/instance-availability", "cluster": "/cluster-availability"}


def read_availability(client, params):
    """Capacity per location, of the one type when ``type`` is given (with ``available``)."""
    kind, type_code = params["kind"], params["type"]
    query = {"location_code": params["location_code"]}
    if kind == "instance":
        query["is_spot"] = "true" if params["spot"] else "false"
    elif params["spot"]:
        raise ModuleFailure("spot applies to instances only: the API has no spot capacity for clusters")
    if not type_code:
        return {"availability": read_list(client, PATHS[kind], query=query)}
    # The per-type answer first: it is the one that tells an unknown type (404).
    path = api_path(PATHS[kind], path_value(type_code, "type", CODE))
    answer = read(client, path, query=query, hints=unknown_type_hints(kind, type_code))
    availability = read_list(client, PATHS[kind], query=query)
    for entry in availability:
        entry["availabilities"] = [code for code in entry.get("availabilities") or [] if code == type_code]
    available = str(answer).strip().lower() == "true"  # JSON true, or the text
    return {"available": available, "availability": availability}


def main():
    argument_spec = dict(
        kind=dict(type="str", choices=["instance", "cluster"], default="instance"),
        type=dict(type="str", aliases=["instance_type", "cluster_type"]),
        location_code=dict(type="str"),
        spot=dict(type="bool", default=False),
    )
    run_info(argument_spec, lambda module: read_availability(module.client, module.params))


if __name__ == "__main__":
    main()
