#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: startup_script_info
short_description: List startup scripts of a Cloud Compute project
version_added: 0.1.0
description:
  - Returns the project's startup scripts, reading every page of the API's paginated list.
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
      - Return only the script with this id (an empty list when there is none).
    type: str
  name:
    description:
      - Return only scripts with exactly this name.
    type: str
  name_contains:
    description:
      - Return only scripts whose name contains this text, in the same case (the API's partial-name
        filter, which ignores case, narrows the list first).
    type: str
  order:
    description:
      - Order by creation time, newest first (V(desc), the API's default) or oldest first.
    type: str
    choices: [asc, desc]
    default: desc
"""

EXAMPLES = r"""
- name: Every script, oldest first
  cloudcompute.cloud.startup_script_info:
    order: asc
  register: scripts

- name: Scripts whose names mention cuda
  cloudcompute.cloud.startup_script_info:
    name_contains: cuda
  register: cuda_scripts
"""

RETURN = r"""
startup_scripts:
  description: The matching scripts.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: Id of the script.
      type: str
    name:
      description: Name of the script.
      type: str
    script:
      description: Content of the script.
      type: str
    created_at:
      description: When the script was created (RFC 3339).
      type: str
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import (
    RESOURCE_FILTERS,
    Filter,
    contains_text,
    list_info,
)

FILTERS = RESOURCE_FILTERS + (Filter("name_contains", "name", contains_text),)


def scripts_query(params):
    # The API's name filter is a partial match; an exact name narrows the list it answers.
    return {
        "orderBy": "created_at",
        "orderDirection": params["order"],
        "name": params["name_contains"] or params["name"] or None,
    }


def main():
    options = dict(
        id=dict(type="str"),
        name=dict(type="str"),
        name_contains=dict(type="str"),
        order=dict(type="str", choices=["asc", "desc"], default="desc"),
    )
    list_info("startup_scripts", "/scripts", FILTERS, options, query=scripts_query, paged=True)


if __name__ == "__main__":
    main()
