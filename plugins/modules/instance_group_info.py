#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: instance_group_info
short_description: List instance groups of a Cloud Compute project
version_added: 0.1.0
description:
  - Returns the project's instance groups (oldest first), all of them or those matching every
    filter given. Deleted groups are never returned.
  - The API lists groups without filtering them; the filters are applied to its answer.
    Names match exactly; location and instance type codes match whatever their case, as in
    the catalog modules.
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
      - Return only the group with this id (an empty list when there is none).
    type: str
  name:
    description:
      - Return only the group with exactly this name.
    type: str
  location_code:
    description:
      - Return only groups in this location (its code, whatever its case).
    type: str
    aliases: [location]
  instance_type:
    description:
      - Return only groups of this instance type (its code, whatever its case).
    type: str
seealso:
  - module: cloudcompute.cloud.instance_group
"""

EXAMPLES = r"""
- name: Every instance group
  cloudcompute.cloud.instance_group_info:
  register: groups

- name: Their names
  ansible.builtin.debug:
    msg: "{{ groups.instance_groups | map(attribute='name') | list }}"

- name: The template of one group
  cloudcompute.cloud.instance_group_info:
    name: etl-workers
  register: etl
"""

RETURN = r"""
instance_groups:
  description: The matching groups, as the API returns them, oldest first.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: Id of the group.
      type: str
    name:
      description: Name of the group.
      type: str
    description:
      description: Description.
      type: str
    location_code:
      description: Location of its instances.
      type: str
    instance_type:
      description: Instance type of its instances.
      type: str
    template:
      description: Defaults of its instances (C(image), C(os_volume), C(ssh_key_ids), C(startup_script_id)).
      type: dict
    created_at:
      description: When it was created (RFC 3339).
      type: str
    updated_at:
      description: When it last changed (RFC 3339).
      type: str
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import Filter, exactly, list_info

# A group's record names its location location_code, not location.
FILTERS = (
    Filter("name", "name", exactly, type="str"),
    Filter("location_code", "location_code", type="str", aliases=["location"]),
    Filter("instance_type", "instance_type", type="str"),
)


def main():
    list_info("instance_groups", "/instance-groups", FILTERS, dict(id=dict(type="str")))


if __name__ == "__main__":
    main()
