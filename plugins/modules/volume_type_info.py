#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: volume_type_info
short_description: List the volume types of Cloud Compute with their prices
version_added: 0.1.0
description:
  - Returns the catalog of block volume and shared file system types, with their performance
    and monthly price per GB, narrowed by the filter options (applied locally, combined with AND).
  - The catalog is public; it is read without an access token, so O(client_id) and
    O(client_secret) are not needed.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  type:
    description:
      - Return only these volume types (such as V(NVMe), V(HDD) or V(NVMe_Shared)),
        case-insensitively.
    type: list
    elements: str
  shared_fs:
    description:
      - V(true) returns only shared file system types, V(false) only block volume types.
    type: bool
seealso:
  - module: cloudcompute.cloud.price_info
"""

EXAMPLES = r"""
- name: Every volume type
  cloudcompute.cloud.volume_type_info:
  register: volume_types

- name: Shared file systems only
  cloudcompute.cloud.volume_type_info:
    shared_fs: true
  register: shared

- name: Monthly price of 500 GB of NVMe
  cloudcompute.cloud.volume_type_info:
    type: NVMe
  register: nvme

- name: Show it
  ansible.builtin.debug:
    msg: "{{ nvme.volume_types[0].price.price_per_month_per_gb * 500 }} {{ nvme.volume_types[0].price.currency }}"
"""

RETURN = r"""
volume_types:
  description: The matching volume types, in catalog order.
  returned: always
  type: list
  elements: dict
  contains:
    type:
      description: The volume type, the C(type) of a volume.
      type: str
      sample: NVMe
    is_shared_fs:
      description: Whether this is a shared file system type.
      type: bool
    price:
      description: >-
        Price: C(price_per_month_per_gb) and C(cps_per_gb) (per GB and second) as numbers,
        and their C(currency).
      type: dict
    iops:
      description: I/O operations per second.
      type: str
    throughput_gbps:
      description: Throughput in Gbit/s.
      type: float
    burst_bandwidth:
      description: Burst bandwidth.
      type: float
    continuous_bandwidth:
      description: Sustained bandwidth.
      type: float
    internal_network_speed:
      description: Internal network speed.
      type: float
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import Filter, exactly, list_info

FILTERS = (
    Filter("type", "type", type="list", elements="str"),
    Filter("shared_fs", "is_shared_fs", exactly, type="bool"),
)


def main():
    list_info("volume_types", "/volume-types", FILTERS, public=True)


if __name__ == "__main__":
    main()
