#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: price_info
short_description: Read the Cloud Compute price lists beyond the hourly instance prices
version_added: 0.1.0
description:
  - Reads the price lists chosen with O(include), each returned under its own key, named like
    its O(include) value.
  - Long-term contract periods with their discounts, for instances and for clusters.
  - Container types with their serverless prices (for serverless container and job deployments).
  - Managed inference endpoint prices, and the container registry price.
  - Hourly instance, cluster and volume prices are in M(cloudcompute.cloud.instance_type_info),
    M(cloudcompute.cloud.cluster_type_info) and M(cloudcompute.cloud.volume_type_info).
  - The long-term periods and container types are public and read without an access token;
    the managed endpoint and container registry prices need O(client_id) and O(client_secret).
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  include:
    description:
      - The price lists to read. Each is one API request.
    type: list
    elements: str
    choices:
      - instance_long_term_periods
      - cluster_long_term_periods
      - container_types
      - managed_endpoint_prices
      - container_registry_price
    default:
      - instance_long_term_periods
      - cluster_long_term_periods
      - container_types
      - managed_endpoint_prices
      - container_registry_price
  currency:
    description:
      - Currency of the container type prices (the only list the API converts).
    type: str
    choices: [usd, eur]
    default: usd
  enabled_only:
    description:
      - Return only the long-term periods that can be chosen now (C(is_enabled)).
    type: bool
    default: false
seealso:
  - module: cloudcompute.cloud.instance_type_info
  - module: cloudcompute.cloud.cluster_type_info
  - module: cloudcompute.cloud.volume_type_info
"""

EXAMPLES = r"""
- name: Every price list
  cloudcompute.cloud.price_info:
  register: prices

- name: Long-term discounts for instances that can be chosen now
  cloudcompute.cloud.price_info:
    include: instance_long_term_periods
    enabled_only: true
  register: periods

- name: The best discount
  ansible.builtin.debug:
    msg: "{{ periods.instance_long_term_periods | map(attribute='discount_percentage') | max }} %"

- name: Serverless prices in euro (no credentials needed)
  cloudcompute.cloud.price_info:
    include: container_types
    currency: eur
  register: serverless
"""

RETURN = r"""
instance_long_term_periods:
  description: Long-term contract periods for instances.
  returned: when V(instance_long_term_periods) is in O(include)
  type: list
  elements: dict
  contains:
    code:
      description: Code of the period.
      type: str
      sample: 3_MONTHS
    name:
      description: Name of the period.
      type: str
    unit_name:
      description: Unit of the period (V(hour), V(day), V(week), V(month) or V(year)).
      type: str
    unit_value:
      description: Length of the period in that unit.
      type: int
    discount_percentage:
      description: Discount over the on-demand price, in percent.
      type: int
    is_enabled:
      description: Whether the period can be chosen now.
      type: bool
cluster_long_term_periods:
  description: Long-term contract periods for clusters, in the shape of RV(instance_long_term_periods).
  returned: when V(cluster_long_term_periods) is in O(include)
  type: list
  elements: dict
container_types:
  description:
    - Container types (compute for serverless deployments) with their prices per hour as
      numeric strings in O(currency).
  returned: when V(container_types) is in O(include)
  type: list
  elements: dict
  contains:
    id:
      description: Id of the catalog entry.
      type: str
    instance_type:
      description: Code of the container type.
      type: str
    name:
      description: Name of the hardware.
      type: str
    model:
      description: GPU model.
      type: str
    manufacturer:
      description: Hardware manufacturer.
      type: str
    cpu:
      description: CPUs.
      type: dict
    gpu:
      description: GPUs.
      type: dict
    gpu_memory:
      description: GPU memory.
      type: dict
    memory:
      description: RAM.
      type: dict
    currency:
      description: Currency of the prices.
      type: str
    serverless_price:
      description: Price per hour of a replica.
      type: str
    serverless_spot_price:
      description: Price per hour of a spot replica.
      type: str
managed_endpoint_prices:
  description: Prices of the managed inference endpoints.
  returned: when V(managed_endpoint_prices) is in O(include)
  type: list
  elements: dict
  contains:
    external_id:
      description: Id of the priced item.
      type: str
    resource:
      description: What is priced (a model or an endpoint).
      type: str
    unit_name:
      description: Unit of the price, such as V(input_token), V(output_token), V(image) or V(gpu_hour).
      type: str
    unit_price:
      description: Price of one unit.
      type: float
    currency:
      description: Currency of the price.
      type: str
container_registry_price:
  description: Price of the container registry storage.
  returned: when V(container_registry_price) is in O(include)
  type: dict
  contains:
    price_per_month_per_gb:
      description: Price per GB and month.
      type: float
    currency:
      description: Currency of the price.
      type: str
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import single_item
from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import read, read_list, run_info

# include value (and result key) -> (path, public endpoint?)
PRICE_LISTS = {
    "instance_long_term_periods": ("/long-term/periods/instances", True),
    "cluster_long_term_periods": ("/long-term/periods/clusters", True),
    "container_types": ("/container-types", True),
    "managed_endpoint_prices": ("/managed-endpoints/pricing", False),
    "container_registry_price": ("/container-registry/pricing", False),
}
PERIODS = ("instance_long_term_periods", "cluster_long_term_periods")


def read_price_list(client, params, name):
    """The price list ``name`` of ``PRICE_LISTS``, as the options ask for it."""
    path, public = PRICE_LISTS[name]
    if name == "container_registry_price":
        return single_item(read(client, path, public=public)) or {}
    query = {"currency": params["currency"]} if name == "container_types" else None
    items = read_list(client, path, query=query, public=public)
    if name in PERIODS and params["enabled_only"]:
        items = [period for period in items if period.get("is_enabled")]
    return items


def read_price_lists(module):
    """Each price list ``include`` names, under its name, in the order of ``PRICE_LISTS``."""
    params = module.params
    return {name: read_price_list(module.client, params, name) for name in PRICE_LISTS if name in params["include"]}


def main():
    argument_spec = dict(
        include=dict(type="list", elements="str", choices=list(PRICE_LISTS), default=list(PRICE_LISTS)),
        currency=dict(type="str", choices=["usd", "eur"], default="usd"),
        enabled_only=dict(type="bool", default=False),
    )
    run_info(argument_spec, read_price_lists)


if __name__ == "__main__":
    main()
