#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: startup_script
short_description: Manage startup scripts of a Cloud Compute project
version_added: 0.1.0
description:
  - Create, replace and remove the scripts that instances and clusters run on first boot.
  - A script is identified by O(id), else by O(name). The API cannot edit a script, so a
    different O(script) (or, by O(id), a different O(name)) replaces it with a new script that
    has a new id; the old one is removed after the new one exists.
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
      - Id of the script. Takes precedence over O(name) for finding it.
    type: str
  name:
    description:
      - Name of the script. Required to create one.
    type: str
  script:
    description:
      - Content of the script. Required to create one.
    type: str
  state:
    description:
      - V(present) creates the script (or replaces it when the content differs); V(absent) removes it.
    type: str
    choices: [present, absent]
    default: present
notes:
  - A project holds at most 100 scripts unless its quota was raised; the API refuses more.
"""

EXAMPLES = r"""
- name: Install the NVIDIA container toolkit on first boot
  cloudcompute.cloud.startup_script:
    name: container-toolkit
    script: |
      #!/bin/bash
      set -euo pipefail
      apt-get update && apt-get install -y nvidia-container-toolkit

- name: Keep a script's content in a file next to the playbook
  cloudcompute.cloud.startup_script:
    name: bootstrap
    script: "{{ lookup('ansible.builtin.file', 'files/bootstrap.sh') }}"

- name: Remove it
  cloudcompute.cloud.startup_script:
    name: bootstrap
    state: absent
"""

RETURN = r"""
startup_script:
  description: The script as the API returns it; empty after O(state=absent).
  returned: always
  type: dict
  contains:
    id:
      description: Id of the script (null in check mode for a script not created yet).
      type: str
      sample: 0c1c3d52-9c0e-4d0d-a8c0-5a37b8f7a111
    name:
      description: Name of the script.
      type: str
      sample: container-toolkit
    script:
      description: Content of the script.
      type: str
      sample: "#!/bin/bash\necho hello\n"
    created_at:
      description: When the script was created (RFC 3339).
      type: str
      sample: "2026-11-21T10:00:00.000Z"
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import REPLACE, Field, Resource


class StartupScript(Resource):
    key = "startup_script"
    path = "/scripts"
    fields = (
        Field("name", on_change=REPLACE),
        Field("script", on_change=REPLACE),
    )
    required_to_create = ("script",)

    def list_named(self, name):
        # The API's name filter matches parts of names; find_by_name keeps exact matches.
        return self.client.get_all_pages(self.path, params={"name": name})


def main():
    module = CloudComputeModule(
        argument_spec=dict(
            id=dict(type="str"),
            name=dict(type="str"),
            script=dict(type="str"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
        ),
        required_one_of=[("id", "name")],
    )
    StartupScript(module).run()


if __name__ == "__main__":
    main()
