#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: cluster_info
short_description: List clusters of a Cloud Compute project
version_added: 0.1.0
description:
  - Returns the project's clusters, all of them or those matching every filter given, with
    their jump host address, shared volumes and worker nodes.
  - The API lists clusters without filtering them; the filters are applied to its answer.
    Hostnames, statuses and tag values match exactly; location and cluster type codes match
    whatever their case, as in the catalog modules.
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
      - Return only the cluster with this id (an empty list when there is none).
    type: str
  hostname:
    description:
      - Return only clusters with exactly this hostname.
    type: str
    aliases: [name]
  status:
    description:
      - Return only clusters in this status, for example V(running) or V(provisioning).
    type: str
  tags:
    description:
      - Return only clusters carrying all these tags, as a dictionary of key to value. A value
        of V("") matches a freeform tag; a null value matches the key with any value.
    type: dict
  location_code:
    description:
      - Return only clusters in this location (its code, whatever its case).
    type: str
    aliases: [location]
  cluster_type:
    description:
      - Return only clusters of this cluster type, for example V(16H100) (whatever its case).
    type: str
seealso:
  - module: cloudcompute.cloud.cluster
"""

EXAMPLES = r"""
- name: Every running cluster of the llm project
  cloudcompute.cloud.cluster_info:
    status: running
    tags:
      project: llm
  register: llm

- name: Their jump hosts
  ansible.builtin.debug:
    msg: "{{ llm.clusters | map(attribute='ip') | list }}"

- name: The worker hostnames of one cluster
  cloudcompute.cloud.cluster_info:
    hostname: hpc-1
  register: hpc

- name: Show them
  ansible.builtin.debug:
    msg: "{{ hpc.clusters[0].worker_nodes | map(attribute='hostname') | list }}"
"""

RETURN = r"""
clusters:
  description: The matching clusters, as the API returns them.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: Id of the cluster.
      type: str
    hostname:
      description: Hostname of the cluster (its jump host).
      type: str
    status:
      description: Status.
      type: str
    cluster_type:
      description: Cluster type code.
      type: str
    image:
      description: Cluster image type.
      type: str
    location:
      description: Location code.
      type: str
    ip:
      description: Address of the jump host; null until the cluster is running.
      type: str
    shared_volumes:
      description: Its shared volumes (id, name, mount_point, size_in_gigabytes).
      type: list
      elements: dict
    worker_nodes:
      description: Its worker nodes (id, hostname, public_ip, private_ip, status).
      type: list
      elements: dict
    tags:
      description: Tags, as a dictionary of key (lowercase) to value (V("") for a freeform tag).
      type: dict
    tag_ids:
      description:
        - The id of each tag, by key.
        - In check mode, V(null) for a tag not added yet.
      type: dict
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import (
    DEPLOYED_RESOURCE_OPTIONS,
    RESOURCE_FILTERS,
    list_info,
)


def main():
    options = dict(
        DEPLOYED_RESOURCE_OPTIONS,
        hostname=dict(type="str", aliases=["name"]),
        cluster_type=dict(type="str"),
    )
    list_info("clusters", "/clusters", RESOURCE_FILTERS, options)


if __name__ == "__main__":
    main()
