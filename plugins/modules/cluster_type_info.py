#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: cluster_type_info
short_description: List the cluster types of Cloud Compute with their prices
version_added: 0.1.0
description:
  - Returns the catalog of cluster types (multi-node GPU clusters) with their hourly price in the
    chosen currency, narrowed by the filter options.
  - The catalog is public; it is read without an access token, so O(client_id) and
    O(client_secret) are not needed.
  - Filters are applied locally and combine with AND; a list filter matches any of its values,
    case-insensitively.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  currency:
    description:
      - Currency of the prices.
    type: str
    choices: [usd, eur]
    default: usd
  cluster_type:
    description:
      - Return only these cluster types (codes such as V(16H200)).
    type: list
    elements: str
  gpu_model:
    description:
      - Return only cluster types with one of these GPU models (the C(model) field).
    type: list
    elements: str
  manufacturer:
    description:
      - Return only cluster types of these manufacturers.
    type: list
    elements: str
  max_price_per_hour:
    description:
      - Return only cluster types whose C(price_per_hour), in O(currency), is at most this.
    type: float
  image:
    description:
      - Return only cluster types that support this cluster image type (their C(supported_os)
        lists it); M(cloudcompute.cloud.image_info) with O(cloudcompute.cloud.image_info#module:kind=cluster)
        lists the cluster images.
    type: str
seealso:
  - module: cloudcompute.cloud.availability_info
  - module: cloudcompute.cloud.image_info
"""

EXAMPLES = r"""
- name: Every cluster type, prices in euro
  cloudcompute.cloud.cluster_type_info:
    currency: eur
  register: cluster_catalog

- name: One cluster type
  cloudcompute.cloud.cluster_type_info:
    cluster_type: 16H200
  register: h200_cluster

- name: Its nodes
  ansible.builtin.debug:
    msg: "{{ h200_cluster.cluster_types[0].node_details }}"
"""

RETURN = r"""
cluster_types:
  description:
    - The matching cluster types, in catalog order.
    - Prices are numeric strings in the requested currency, as the API returns them.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: Id of the catalog entry.
      type: str
    cluster_type:
      description: Code of the type, the C(cluster_type) of a cluster deployment.
      type: str
      sample: 16H200
    name:
      description: Name of the type.
      type: str
    model:
      description: GPU model.
      type: str
    manufacturer:
      description: Hardware manufacturer.
      type: str
    cpu:
      description: CPUs (C(description), C(number_of_cores), C(model)).
      type: dict
    gpu:
      description: GPUs (C(description), C(number_of_gpus)).
      type: dict
    gpu_memory:
      description: GPU memory in total (C(description), C(size_in_gigabytes)).
      type: dict
    memory:
      description: RAM (C(description), C(size_in_gigabytes)).
      type: dict
    node_details:
      description: The nodes of a cluster of this type.
      type: list
      elements: str
      sample: ["2x 8 GPU nodes"]
    currency:
      description: Currency of the price.
      type: str
    price_per_hour:
      description: Price per hour of the whole cluster.
      type: str
    supported_os:
      description: Cluster image types a cluster of this type can be deployed with.
      type: list
      elements: str
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import Filter, priced_catalog_info

FILTERS = (Filter("cluster_type", "cluster_type", type="list", elements="str"),)


def main():
    priced_catalog_info("cluster_types", "/cluster-types", FILTERS)


if __name__ == "__main__":
    main()
