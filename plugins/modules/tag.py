#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: tag
short_description: Manage the tags of a Cloud Compute instance, volume or cluster
version_added: 0.1.0
description:
  - Add, change and remove key/value tags on one instance, volume or cluster, named by id or
    by name, without touching anything else of it.
  - Keys are stored in lowercase by the API, so they are compared in lowercase; a freeform tag
    has the value V(""). A resource carries at most 10 tags; a change that would exceed this
    fails before any change is made.
  - The M(cloudcompute.cloud.instance), M(cloudcompute.cloud.volume) and
    M(cloudcompute.cloud.cluster) modules manage tags too (O(cloudcompute.cloud.instance#module:tags),
    purged by default); this module is for tagging resources those tasks do not own, or for
    adding tags without knowing the others.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  resource_type:
    description:
      - The kind of resource to tag.
    type: str
    required: true
    choices: [instance, volume, cluster]
  resource:
    description:
      - Id of the resource, or its name (the hostname of an instance or cluster, the name of
        a volume). A name that several resources carry fails; give the id then.
    type: str
    required: true
  tags:
    description:
      - The tags, as a dictionary of key to value or as a list of dictionaries with C(key) and
        an optional C(value).
      - With O(state=present), a missing or null value is a freeform tag (value V("")).
      - With O(state=absent), a missing or null value removes the key whatever its value; a
        value (V("") included) removes the tag only when it has that value.
    type: raw
    required: true
  state:
    description:
      - V(present) sets the tags (adding them, or changing their values); V(absent) removes them.
    type: str
    choices: [present, absent]
    default: present
  purge_tags:
    description:
      - With O(state=present), also remove every tag of the resource that O(tags) does not
        list. V(true) with empty O(tags) removes all tags.
      - Named as in every other module; V(purge) is the older name and still works.
    type: bool
    default: false
    aliases: [purge]
notes:
  - "API calls: a run that changes nothing costs one read (by id) or one list (by name). A
    change costs one call per tag added or removed (a changed value is one of each) and one
    read of the result."
seealso:
  - module: cloudcompute.cloud.instance
  - module: cloudcompute.cloud.volume
  - module: cloudcompute.cloud.cluster
"""

EXAMPLES = r"""
- name: Tag an instance by hostname (other tags stay)
  cloudcompute.cloud.tag:
    resource_type: instance
    resource: trainer-1
    tags:
      project: llm
      owner: alice
      pinned: ""

- name: The same tags, as a list of key/value pairs
  cloudcompute.cloud.tag:
    resource_type: instance
    resource: trainer-1
    tags:
      - key: project
        value: llm
      - key: pinned

- name: Exactly these tags on a volume, by id (the others are removed)
  cloudcompute.cloud.tag:
    resource_type: volume
    resource: 6a0d1e7e-1c55-4c4f-9e0f-2f0b0a3f6d11
    tags:
      backup: daily
    purge_tags: true

- name: Remove the owner tag of a cluster, whatever its value
  cloudcompute.cloud.tag:
    resource_type: cluster
    resource: hpc-1
    tags:
      owner:
    state: absent

- name: Remove every tag of a volume
  cloudcompute.cloud.tag:
    resource_type: volume
    resource: scratch
    tags: {}
    purge_tags: true
"""

RETURN = r"""
tags:
  description:
    - The tags of the resource after the run, as a dictionary of key (in lowercase) to value
      (V("") for a freeform tag), the form O(tags) takes.
    - In check mode, as the run would leave them.
  returned: always
  type: dict
  sample: {project: llm, pinned: ""}
tag_ids:
  description:
    - The id of each tag of RV(tags), by key (the same key and value have the same id across
      the project).
    - In check mode, V(null) for a tag not added yet.
  returned: always
  type: dict
  sample: {project: 3b1f0c1e-5d2a-4c4e-8f7a-9a8b7c6d5e4f, pinned: 8e2d4c6a-1b3f-4a5e-9c7d-0f1e2d3c4b5a}
resource_id:
  description: Id of the tagged resource.
  returned: always
  type: str
  sample: 5f0c7d3a-2b8e-4c1f-9a6d-0e4b3c2a1f90
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._lookups import TAGGABLE, find_taggable
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule, ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import Resource
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import (
    current_tags,
    normalize_tags,
    shown_tags,
    tag_changes,
    tags_to_remove,
)


class TagSet(Resource):
    """The tags of one instance, volume or cluster: the resource this module manages is that
    one's tag set, changed by the tag step alone."""

    key = "tags"

    def __init__(self, module):
        super().__init__(module)
        self.path = TAGGABLE[self.params["resource_type"]][0]
        self.wanted = None
        self.resource_id = None

    def validate(self):
        if self.params["state"] == "absent" and self.params["purge_tags"]:
            raise ModuleFailure(
                "purge_tags: purge applies to state=present only; to remove every tag use "
                "state=present, tags: {} and purge_tags: true"
            )
        # keys lowercased, values checked and the 10-tag limit applied, all before any call
        self.wanted = normalize_tags(self.params["tags"], any_value=self.params["state"] == "absent")

    def find(self):
        resource_type, reference = self.params["resource_type"], self.params["resource"]
        resource = find_taggable(self.client, resource_type, reference)
        if resource is None:
            raise ModuleFailure(f"{resource_type} {reference!r} not found")
        if resource.get("status") == "deleted":
            raise ModuleFailure(f"{resource_type} {reference} is deleted and cannot be tagged")
        self.resource_id = resource["id"]
        return resource

    def plan(self, current):
        if self.params["state"] == "present":
            to_add, to_remove = tag_changes(current, self.wanted, self.params["purge_tags"])
        else:
            to_add, to_remove = {}, tags_to_remove(current, self.wanted)
        return [self.tag_step(to_add, to_remove), self.read_back()] if to_add or to_remove else []

    def view(self, resource):
        return current_tags(resource or {})

    def returned(self, after):
        shown = shown_tags({"tags": (after or {}).get("tags") or []})
        return {"tags": shown["tags"], "tag_ids": shown["tag_ids"], "resource_id": self.resource_id}


def main():
    module = CloudComputeModule(
        argument_spec=dict(
            resource_type=dict(type="str", required=True, choices=sorted(TAGGABLE)),
            resource=dict(type="str", required=True),
            tags=dict(type="raw", required=True),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            purge_tags=dict(type="bool", default=False, aliases=["purge"]),
        ),
    )
    TagSet(module).run()


if __name__ == "__main__":
    main()
