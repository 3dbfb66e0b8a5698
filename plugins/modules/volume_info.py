#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: volume_info
short_description: List volumes of a Cloud Compute project, including the trash
version_added: 0.1.0
description:
  - Returns the project's active volumes, all of them or those matching every filter given,
    and with O(include_trash=true) the deleted volumes still in the trash.
  - Names, statuses and tag values match exactly; the location code matches whatever its case,
    as in the catalog modules.
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
      - Return only the volume with this id (an empty list when there is none). A deleted
        volume is returned only with O(include_trash=true).
    type: str
  name:
    description:
      - Return only volumes with exactly this name.
    type: str
  status:
    description:
      - Return only volumes in this status, for example V(attached) or V(detached). The API
        filters by it.
    type: str
  location_code:
    description:
      - Return only volumes in this location (its code, whatever its case).
    type: str
    aliases: [location]
  tags:
    description:
      - Return only volumes carrying all these tags, as a dictionary of key to value. A value
        of V("") matches a freeform tag; a null value matches the key with any value.
    type: dict
  include_trash:
    description:
      - Also return deleted volumes that are still in the trash (status V(deleted), with
        C(deleted_at)); M(cloudcompute.cloud.volume) with O(cloudcompute.cloud.volume#module:state=restored) takes them out of it.
    type: bool
    default: false
seealso:
  - module: cloudcompute.cloud.volume
"""

EXAMPLES = r"""
- name: Every volume in FIN-01
  cloudcompute.cloud.volume_info:
    location_code: FIN-01
  register: fin01

- name: Detached volumes of the research team
  cloudcompute.cloud.volume_info:
    status: detached
    tags:
      team: research
  register: spare

- name: What can still be restored
  cloudcompute.cloud.volume_info:
    status: deleted
    include_trash: true
  register: trash

- name: Show their names and deletion dates
  ansible.builtin.debug:
    msg: "{{ trash.volumes | map(attribute='name') | zip(trash.volumes | map(attribute='deleted_at')) | list }}"
"""

RETURN = r"""
volumes:
  description: The matching volumes, as the API returns them.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: Id of the volume.
      type: str
    name:
      description: Name of the volume.
      type: str
    status:
      description: Status (V(deleted) for a volume in the trash).
      type: str
    size:
      description: Size in GB.
      type: int
    type:
      description: Volume type.
      type: str
    location:
      description: Location code.
      type: str
    is_os_volume:
      description: Whether it is an instance's OS volume.
      type: bool
    instances:
      description: The instances it is attached to.
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
    deleted_at:
      description: When it was deleted; only for volumes in the trash.
      type: str
      returned: for deleted volumes
    is_permanently_deleted:
      description: Whether it was deleted for good; only for deleted volumes.
      type: bool
      returned: for deleted volumes
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import (
    DEPLOYED_RESOURCE_OPTIONS,
    RESOURCE_FILTERS,
    Filter,
    exit_list_info,
    read_list,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule


def visible(volume, include_trash):
    """A deleted volume only with include_trash, and never one deleted for good."""
    return (include_trash or volume.get("status") != "deleted") and not volume.get("is_permanently_deleted")


def main():
    module = CloudComputeModule(
        argument_spec=dict(
            DEPLOYED_RESOURCE_OPTIONS,
            name=dict(type="str"),
            include_trash=dict(type="bool", default=False),
        ),
    )
    params = module.params

    def list_volumes():
        volumes = read_list(module.client, "/volumes", query={"status": params["status"] or None})
        if params["include_trash"] and params["status"] in (None, "deleted"):
            seen = set(volume["id"] for volume in volumes)
            volumes.extend(volume for volume in read_list(module.client, "/volumes/trash") if volume["id"] not in seen)
        return volumes

    exit_list_info(
        module,
        "volumes",
        "/volumes",
        list_all=list_volumes,
        filters=RESOURCE_FILTERS + (Filter("include_trash", None, visible),),
    )


if __name__ == "__main__":
    main()
