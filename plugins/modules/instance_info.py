#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: instance_info
short_description: List instances of a Cloud Compute project
version_added: 0.1.0
description:
  - Returns the project's instances, all of them or those matching every filter given.
  - O(status) and O(tags) are sent to the API, which filters by them; the other filters are
    applied to the API's answer.
  - Hostnames, statuses and tag values match exactly; location and instance type codes match
    whatever their case, as in the catalog modules.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.common.JUPYTER_TOKEN
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  id:
    description:
      - Return only the instance with this id (an empty list when there is none).
    type: str
  hostname:
    description:
      - Return only instances with exactly this hostname.
    type: str
    aliases: [name]
  status:
    description:
      - Return only instances in this status, for example V(running) or V(offline).
    type: str
  tags:
    description:
      - Return only instances carrying all these tags, as a dictionary of key to value. A value
        of V("") matches a freeform tag; a null value matches the key with any value.
    type: dict
  location_code:
    description:
      - Return only instances in this location (its code, whatever its case).
    type: str
    aliases: [location]
  instance_type:
    description:
      - Return only instances of this instance type (its code, whatever its case).
    type: str
seealso:
  - module: cloudcompute.cloud.instance
"""

EXAMPLES = r"""
- name: Running instances of the llm project
  cloudcompute.cloud.instance_info:
    status: running
    tags:
      project: llm
  register: llm

- name: Their addresses
  ansible.builtin.debug:
    msg: "{{ llm.instances | map(attribute='ip') | list }}"

- name: Every H100 in FIN-01, whatever its tags
  cloudcompute.cloud.instance_info:
    location_code: FIN-01
    instance_type: 1H100.80S.30V

- name: Instances with an owner tag, any owner
  cloudcompute.cloud.instance_info:
    tags:
      owner:
"""

RETURN = r"""
instances:
  description: The matching instances, as the API returns them.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: Id of the instance.
      type: str
    hostname:
      description: Hostname.
      type: str
    status:
      description: Status.
      type: str
    instance_type:
      description: Instance type code.
      type: str
    image:
      description: OS image type.
      type: str
    location:
      description: Location code.
      type: str
    ip:
      description: Public address, or null.
      type: str
    private_ip:
      description: Private address, or null.
      type: str
    os_volume_id:
      description: Id of its OS volume.
      type: str
    volume_ids:
      description: Ids of every volume attached to it.
      type: list
      elements: str
    is_spot:
      description: Whether it is a spot instance.
      type: bool
    tags:
      description: Tags, as a dictionary of key (lowercase) to value (V("") for a freeform tag).
      type: dict
    tag_ids:
      description:
        - The id of each tag, by key.
        - In check mode, V(null) for a tag not added yet.
      type: dict
    jupyter_token:
      description:
        - Token of the instance's Jupyter server, a credential; C(********) unless
          O(return_jupyter_token=true).
      type: str
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import (
    DEPLOYED_RESOURCE_OPTIONS,
    RESOURCE_FILTERS,
    exit_list_info,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import (
    JUPYTER_TOKEN_ARGUMENT_SPEC,
    CloudComputeModule,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import normalize_tag_filter, tag_filter_query


def main():
    module = CloudComputeModule(
        argument_spec=dict(
            DEPLOYED_RESOURCE_OPTIONS,
            hostname=dict(type="str", aliases=["name"]),
            instance_type=dict(type="str"),
            **JUPYTER_TOKEN_ARGUMENT_SPEC,
        ),
    )
    params = module.params
    # The API filters instances by status and tags itself.
    query = {"status": params["status"] or None, "tag": tag_filter_query(normalize_tag_filter(params["tags"])) or None}
    exit_list_info(
        module, "instances", "/instances", query=query, filters=RESOURCE_FILTERS, shown=module.hide_jupyter_tokens
    )


if __name__ == "__main__":
    main()
