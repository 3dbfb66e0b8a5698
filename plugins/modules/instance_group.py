#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: instance_group
short_description: Manage instance groups of a Cloud Compute project
version_added: 0.1.0
description:
  - Create, update and delete instance groups. A group names an instance type and a location,
    and holds a template of defaults for the instances made from it (image, OS volume, SSH keys,
    startup script).
  - A group is identified by O(id), else by O(name). By O(id), a different O(name) renames it.
  - The API can change a group's name, description, template SSH keys and template startup
    script. Its O(instance_type), O(location_code), O(template.image) and O(template.os_volume)
    cannot change after creation; a difference fails naming them, before any change is made.
  - Group names are unique among the project's groups; the API answers 409 to a second group
    with the same name, and the module says so.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  id:
    description:
      - Id of the group. Takes precedence over O(name) for finding it. An id that does not
        exist fails (nothing is created under it), except for O(state=absent).
    type: str
  name:
    description:
      - Name of the group; required to create one.
    type: str
  description:
    description:
      - Free text description.
    type: str
  instance_type:
    description:
      - Instance type code of the group's instances, for example V(CPU.4V.16G). Required to
        create; cannot change.
    type: str
  location_code:
    description:
      - Location of the group's instances, for example V(FIN-01). Required to create; cannot
        change.
    type: str
    aliases: [location]
  template:
    description:
      - Defaults for the instances made from the group. Suboptions left out are left alone on
        an existing group.
    type: dict
    suboptions:
      image:
        description:
          - OS image type, one that O(instance_type) supports (see
            M(cloudcompute.cloud.image_info)). Required to create; cannot change.
        type: str
      os_volume:
        description:
          - The OS volume of the instances. Without it the API picks the instance type's
            default size and the location's default type. Cannot change.
        type: dict
        suboptions:
          size:
            description: Size in GB.
            type: int
            required: true
          type:
            description: Volume type, for example V(NVMe). Compared only when given.
            type: str
      ssh_keys:
        description:
          - Names or ids of the SSH keys to install; V([]) removes them all.
        type: list
        elements: str
      startup_script:
        description:
          - Name or id of the startup script to run on first boot; V("") removes it.
        type: str
  state:
    description:
      - V(present) creates or updates the group; V(absent) deletes it (its name can then be
        used again).
    type: str
    choices: [present, absent]
    default: present
notes:
  - The diff shows C(template.os_volume) only with the keys O(template.os_volume) gives, as the
    API picks the defaults of the others.
  - "API calls: a run that changes nothing costs one read (by id) or one list (by name), and
    one more list for each of O(template.ssh_keys) and O(template.startup_script) given by name
    rather than id. An update is one more call, a creation two."
seealso:
  - module: cloudcompute.cloud.instance_group_info
  - module: cloudcompute.cloud.ssh_key
  - module: cloudcompute.cloud.startup_script
"""

EXAMPLES = r"""
- name: A group of CPU workers in FIN-01
  cloudcompute.cloud.instance_group:
    name: etl-workers
    description: nightly ETL
    instance_type: CPU.8V.32G
    location_code: FIN-01
    template:
      image: ubuntu-24.04
      os_volume:
        size: 100
        type: NVMe
      ssh_keys: [ci, alice-laptop]
      startup_script: etl-bootstrap
  register: group

- name: Rotate its SSH keys (the rest of the template stays)
  cloudcompute.cloud.instance_group:
    name: etl-workers
    template:
      ssh_keys: [ci-2026]

- name: Rename it by id and drop its startup script
  cloudcompute.cloud.instance_group:
    id: "{{ group.instance_group.id }}"
    name: etl-workers-legacy
    template:
      startup_script: ""

- name: Delete it
  cloudcompute.cloud.instance_group:
    name: etl-workers-legacy
    state: absent
"""

RETURN = r"""
instance_group:
  description:
    - The group as the API returns it; empty after O(state=absent).
    - In check mode, the group as the run would leave it (id null when not created yet).
  returned: always
  type: dict
  contains:
    id:
      description: Id of the group.
      type: str
      sample: 9d6b0e1c-4f2a-4b8e-a1c3-5e7f9a0b2c4d
    project_id:
      description: Id of the project.
      type: str
    name:
      description: Name of the group.
      type: str
      sample: etl-workers
    description:
      description: Description (empty when none was given).
      type: str
    location_code:
      description: Location of its instances.
      type: str
      sample: FIN-01
    instance_type:
      description: Instance type of its instances.
      type: str
      sample: CPU.8V.32G
    template:
      description: Defaults of its instances.
      type: dict
      contains:
        image:
          description: OS image type.
          type: str
          sample: ubuntu-24.04
        os_volume:
          description: OS volume C(size) (GB) and C(type).
          type: dict
          sample: {size: 100, type: NVMe}
        ssh_key_ids:
          description: Ids of the SSH keys.
          type: list
          elements: str
        startup_script_id:
          description: Id of the startup script, or null.
          type: str
    created_at:
      description: When it was created (RFC 3339).
      type: str
    updated_at:
      description: When it last changed (RFC 3339).
      type: str
    deleted_at:
      description: Null for a live group.
      type: str
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import hinted
from ansible_collections.cloudcompute.cloud.plugins.module_utils._lookups import (
    ssh_key_references,
    startup_script_references,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule, ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import (
    Field,
    Resource,
    Step,
    refuse_differences,
)

# A create or update answered 409: the name is taken.
CONFLICT_HINTS = {
    409: "Instance group names are unique among the project's groups: choose another name, or manage that group."
}


def template_of(group):
    return (group or {}).get("template") or {}


class InstanceGroup(Resource):
    key = "instance_group"
    path = "/instance-groups"
    update_method = "PATCH"
    fields = (Field("name"), Field("description"))

    def __init__(self, module):
        super().__init__(module)
        self.template = module.params["template"] or {}
        # the os_volume keys the task sets: the API picks the others
        os_volume = self.template.get("os_volume") or {}
        self.os_volume = {key: value for key, value in os_volume.items() if value is not None}

    def validate(self):
        if self.os_volume and self.os_volume["size"] < 1:
            raise ModuleFailure("template.os_volume: size must be at least 1 GB")

    # --------------------------------------------------------------------- desired state

    def refuse_immutable_changes(self, group):
        """Fail naming the options that differ from the group although the API cannot change them."""
        params, template = self.params, template_of(group)
        pairs = {
            "instance_type": (params["instance_type"], group.get("instance_type")),
            "location_code": (params["location_code"], group.get("location_code")),
            "template.image": (self.template.get("image"), template.get("image")),
        }
        current_os_volume = template.get("os_volume") or {}
        if any(value != current_os_volume.get(key) for key, value in self.os_volume.items()):
            pairs["template.os_volume"] = (self.os_volume, template.get("os_volume"))
        refuse_differences(
            "instance group {} ({})".format(group.get("name"), group["id"]),
            pairs,
            "the API cannot; delete the group and create it again",
        )

    def desired_ssh_key_ids(self):
        keys = self.template.get("ssh_keys")
        return None if keys is None else ssh_key_references(self.client).ids(keys)

    def desired_script_id(self):
        script = self.template.get("startup_script")
        if script is None:
            return None
        return startup_script_references(self.client).id(script) if script else ""

    def patch(self, group):
        """The PATCH body that brings the group to the options: only what differs."""
        template = template_of(group)
        body = {field.api: value for field, value in self.changes(group)}  # a name differs only by id
        template_patch = {}
        ssh_key_ids = self.desired_ssh_key_ids()
        if ssh_key_ids is not None and sorted(ssh_key_ids) != sorted(template.get("ssh_key_ids") or []):
            template_patch["ssh_key_ids"] = ssh_key_ids
        script_id = self.desired_script_id()
        if script_id is not None and (script_id or None) != template.get("startup_script_id"):
            template_patch["startup_script_id"] = script_id  # "" removes it
        if template_patch:
            body["template"] = template_patch
        return body

    def view(self, resource):
        if not resource:
            return {}
        template = template_of(resource)
        shown = {
            field: resource.get(field) for field in ("id", "name", "description", "location_code", "instance_type")
        }
        shown["template"] = {
            "image": template.get("image"),
            "ssh_key_ids": sorted(template.get("ssh_key_ids") or []),
            "startup_script_id": template.get("startup_script_id"),
        }
        if self.os_volume:
            shown["template"]["os_volume"] = {key: (template.get("os_volume") or {}).get(key) for key in self.os_volume}
        return shown

    # --------------------------------------------------------------------------- actions

    def desired(self):
        """The create request's body (the API picks what it leaves out)."""
        params = self.params
        missing = [option for option in ("instance_type", "location_code") if not params[option]]
        if not self.template.get("image"):
            missing.append("template.image")
        if missing:
            raise ModuleFailure(
                "instance group {!r} does not exist; to create it, give {}".format(params["name"], ", ".join(missing))
            )
        template = {
            "image": self.template["image"],
            "os_volume": self.os_volume,
            "ssh_key_ids": self.desired_ssh_key_ids(),
            "startup_script_id": self.desired_script_id(),
        }
        body = {option: params[option] for option in ("name", "instance_type", "location_code")}
        body["template"] = {key: value for key, value in template.items() if value}  # the API picks the others
        body["description"] = params["description"]
        return {key: value for key, value in body.items() if value is not None}

    def predicted(self, current=None):
        body = self.desired()
        template = dict({"os_volume": {}, "ssh_key_ids": [], "startup_script_id": None}, **body["template"])
        return dict(body, id=None, description=body.get("description", ""), template=template)

    @staticmethod
    def predicted_update(group, body):
        template = dict(template_of(group), **body.get("template", {}))
        if "startup_script_id" in template:
            template["startup_script_id"] = template["startup_script_id"] or None  # "" removes it
        return dict(group, template=template, **{key: value for key, value in body.items() if key != "template"})

    def update_in_place(self, group, body):
        updated = self.client.patch(self.item_path(group["id"]), body)
        return updated if isinstance(updated, dict) else self.fetch(group["id"])

    def field_changes(self, current):
        self.refuse_immutable_changes(current)
        body = self.patch(current)
        update = Step(
            "update", lambda group: self.update_in_place(group, body), lambda group: self.predicted_update(group, body)
        )
        return [update] if body else []

    def carry_out(self, current, steps):
        with hinted(CONFLICT_HINTS):  # only a create or an update can answer 409
            return super().carry_out(current, steps)


def main():
    module = CloudComputeModule(
        argument_spec=dict(
            id=dict(type="str"),
            name=dict(type="str"),
            description=dict(type="str"),
            instance_type=dict(type="str"),
            location_code=dict(type="str", aliases=["location"]),
            template=dict(
                type="dict",
                options=dict(
                    image=dict(type="str"),
                    os_volume=dict(
                        type="dict",
                        options=dict(
                            size=dict(type="int", required=True),
                            type=dict(type="str"),
                        ),
                    ),
                    ssh_keys=dict(type="list", elements="str", no_log=False),
                    startup_script=dict(type="str"),
                ),
            ),
            state=dict(type="str", choices=["present", "absent"], default="present"),
        ),
        required_one_of=[("id", "name")],
    )
    InstanceGroup(module).run()


if __name__ == "__main__":
    main()
