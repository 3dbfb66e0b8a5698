#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: location_info
short_description: List the datacenter locations of Cloud Compute
version_added: 0.1.0
description:
  - Returns the datacenter locations resources can be deployed in, narrowed by the filter
    options (applied locally, combined with AND, case-insensitive).
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  code:
    description:
      - Return only these locations (codes such as V(FIN-01)).
    type: list
    elements: str
  country_code:
    description:
      - Return only locations in these countries (ISO 3166 alpha-2 codes such as V(FI)).
    type: list
    elements: str
seealso:
  - module: cloudcompute.cloud.availability_info
"""

EXAMPLES = r"""
- name: Every location
  cloudcompute.cloud.location_info:
  register: locations

- name: The codes of the locations in Finland
  cloudcompute.cloud.location_info:
    country_code: FI
  register: finland

- name: Show them
  ansible.builtin.debug:
    msg: "{{ finland.locations | map(attribute='code') | list }}"
"""

RETURN = r"""
locations:
  description: The matching locations, in the API's order.
  returned: always
  type: list
  elements: dict
  contains:
    code:
      description: Location code, the C(location_code) of a deployment.
      type: str
      sample: FIN-01
    name:
      description: Name of the location.
      type: str
    country_code:
      description: Country of the location (ISO 3166 alpha-2).
      type: str
      sample: FI
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import Filter, list_info

FILTERS = (
    Filter("code", "code", type="list", elements="str"),
    Filter("country_code", "country_code", type="list", elements="str"),
)


def main():
    list_info("locations", "/locations", FILTERS)


if __name__ == "__main__":
    main()
