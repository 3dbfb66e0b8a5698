#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: instance_type_info
short_description: List the instance types of Cloud Compute with their prices
version_added: 0.1.0
description:
  - Returns the catalog of instance types (GPU and CPU), with hourly on-demand, spot, dynamic
    and serverless prices in the chosen currency, narrowed by the filter options.
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
  instance_type:
    description:
      - Return only these instance types (codes such as V(1H100.80S.30V) or V(CPU.8V.32G)).
    type: list
    elements: str
  gpu_model:
    description:
      - Return only types with one of these GPU models (the C(model) field, such as V(H100) or
        V(A100); CPU types have the model V(CPU Node)).
    type: list
    elements: str
  manufacturer:
    description:
      - Return only types of these manufacturers (such as V(NVIDIA) or V(AMD)).
    type: list
    elements: str
  min_gpus:
    description:
      - Return only types with at least this many GPUs (V(1) leaves out the CPU types).
    type: int
  max_gpus:
    description:
      - Return only types with at most this many GPUs (V(0) keeps only the CPU types).
    type: int
  min_gpu_memory:
    description:
      - Return only types with at least this much GPU memory in total, in GB.
    type: int
  max_price_per_hour:
    description:
      - Return only types whose on-demand C(price_per_hour), in O(currency), is at most this.
    type: float
  image:
    description:
      - Return only types that support this OS image type (their C(supported_os) lists it),
        such as V(ubuntu-24.04-cuda-12.8-open-docker).
    type: str
seealso:
  - module: cloudcompute.cloud.availability_info
  - module: cloudcompute.cloud.image_info
"""

EXAMPLES = r"""
- name: Every instance type, prices in euro
  cloudcompute.cloud.instance_type_info:
    currency: eur
  register: catalog

- name: H100 and H200 types with at least 4 GPUs under 15 USD an hour
  cloudcompute.cloud.instance_type_info:
    gpu_model: [H100, H200]
    min_gpus: 4
    max_price_per_hour: 15
  register: big_gpus

- name: The lowest hourly price among them (prices are numeric strings)
  ansible.builtin.debug:
    msg: "{{ big_gpus.instance_types | map(attribute='price_per_hour') | map('float') | min }}"

- name: The spot price of one type
  cloudcompute.cloud.instance_type_info:
    instance_type: 1H100.80S.30V
  register: h100

- name: CPU types that can run plain Ubuntu 24.04
  cloudcompute.cloud.instance_type_info:
    max_gpus: 0
    image: ubuntu-24.04
  register: cpu_types
"""

RETURN = r"""
instance_types:
  description:
    - The matching instance types, in catalog order.
    - Prices are numeric strings in the requested currency, as the API returns them; convert
      them with the P(ansible.builtin.float#filter) filter to compute with them.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: Id of the catalog entry.
      type: str
    instance_type:
      description: Code of the type, the C(instance_type) of a deployment.
      type: str
      sample: 1H100.80S.30V
    name:
      description: Name of the hardware.
      type: str
      sample: H100 SXM5 80GB
    display_name:
      description: Name shown to people.
      type: str
    description:
      description: Description of the type.
      type: str
    model:
      description: GPU model, or the CPU model family for CPU types.
      type: str
      sample: H100
    manufacturer:
      description: Hardware manufacturer.
      type: str
      sample: NVIDIA
    best_for:
      description: Workloads the type suits.
      type: list
      elements: str
    cpu:
      description: CPU (C(description), C(number_of_cores), C(model)).
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
    storage:
      description: Local storage (C(description)).
      type: dict
    p2p:
      description: GPU interconnect, empty for a single GPU.
      type: str
    currency:
      description: Currency of the prices.
      type: str
      sample: usd
    price_per_hour:
      description: On-demand price per hour.
      type: str
      sample: "2.29"
    spot_price:
      description: Spot price per hour.
      type: str
    dynamic_price:
      description: Current dynamic price per hour, when the type has one.
      type: str
    max_dynamic_price:
      description: Ceiling of the dynamic price per hour.
      type: str
    serverless_price:
      description: Serverless price per hour, for types that serverless deployments can use.
      type: str
    serverless_spot_price:
      description: Serverless spot price per hour, for types that serverless deployments can use.
      type: str
    supported_os:
      description: OS image types that instances of this type can be deployed with.
      type: list
      elements: str
    deploy_warning:
      description: A warning to read before deploying, when there is one.
      type: str
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import (
    Filter,
    at_least,
    at_most,
    priced_catalog_info,
)

FILTERS = (
    Filter("instance_type", "instance_type", type="list", elements="str"),
    Filter("min_gpus", "gpu.number_of_gpus", at_least, type="int"),
    Filter("max_gpus", "gpu.number_of_gpus", at_most, type="int"),
    Filter("min_gpu_memory", "gpu_memory.size_in_gigabytes", at_least, type="int"),
)


def main():
    priced_catalog_info("instance_types", "/instance-types", FILTERS)


if __name__ == "__main__":
    main()
