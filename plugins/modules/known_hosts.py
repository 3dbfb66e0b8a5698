#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: known_hosts
short_description: Forget the SSH host keys of Cloud Compute instances that are gone
version_added: 0.1.0
description:
  - The inventory plugin and the C(cluster) role pin each host's SSH key under the id of its
    instance, cluster jump host or worker (C(HostKeyAlias=cloudcompute-<id>)), in a known_hosts
    file of the collection's own. An entry outlives the instance it belongs to; this module
    removes such entries.
  - With O(state=pruned), every entry of the file whose instance, cluster or worker the project
    no longer has (not listed, or being deleted or discontinued) is removed. It reads the
    instance and cluster lists first; when either cannot be read the task fails and nothing is
    removed.
  - With O(state=absent), the entries of the ids in O(ids) are removed, without reading the API
    (for example right after deleting them).
  - Lines that are not this collection's (the user's own hosts, comments, hashed or marked
    entries) are never touched. The file is replaced whole and keeps its mode.
  - Keys are only ever removed. A host whose entry is gone is trusted on its next first contact
    again (C(StrictHostKeyChecking=accept-new)), so remove only what is gone.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  path:
    description:
      - The known_hosts file.
      - When not set, E(CLOUDCOMPUTE_KNOWN_HOSTS), else C(known_hosts) in the token cache's
        directory (O(token_cache)), the file the inventory plugin and the C(cluster) role use by
        default.
    type: path
  state:
    description:
      - V(pruned) removes the entries of every id the project no longer has.
      - V(absent) removes the entries of the ids in O(ids).
    type: str
    choices: [pruned, absent]
    default: pruned
  ids:
    description:
      - Ids of instances, clusters or cluster workers whose keys to forget, with O(state=absent).
    type: list
    elements: str
notes:
  - The C(reaper) role runs it after deleting what expired.
seealso:
  - plugin: cloudcompute.cloud.cloudcompute
    plugin_type: inventory
"""

EXAMPLES = r"""
- name: Forget the keys of every instance, cluster and worker that is gone
  cloudcompute.cloud.known_hosts:
  register: forgotten

- name: Forget the key of an instance just deleted
  cloudcompute.cloud.known_hosts:
    state: absent
    ids:
      - "{{ deleted.instance.id }}"
"""

RETURN = r"""
path:
  description: The known_hosts file.
  returned: always
  type: str
  sample: /home/user/.cache/cloudcompute.cloud/tokens/known_hosts
removed:
  description: The entries removed (in check mode, those that would be).
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: The instance, cluster or worker id the entry was pinned under.
      type: str
      sample: 5a1b6d5c-bd2f-4f7e-9a53-8f0e7c3d2a10
    alias:
      description: The name of the entry, C(cloudcompute-<id>).
      type: str
      sample: cloudcompute-5a1b6d5c-bd2f-4f7e-9a53-8f0e7c3d2a10
    key_type:
      description: The key's type.
      type: str
      sample: ssh-ed25519
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils import _ssh
from ansible_collections.cloudcompute.cloud.plugins.module_utils._failure import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule

# An instance or cluster in one of these statuses is on its way out: its address may be handed on.
GONE_STATUSES = ("deleting", "deleted", "discontinued")


def live_ids(client):
    """Every id of an instance, cluster or worker the project has; the lists are read in full or
    the task fails (nothing is forgotten on a partial answer)."""
    ids = set()
    for record in client.get_list("/instances") + client.get_list("/clusters"):
        if record.get("status") in GONE_STATUSES:
            continue
        ids.add(record.get("id"))
        workers = record.get("worker_nodes")
        for worker in workers if isinstance(workers, list) else ():
            if isinstance(worker, dict):
                ids.add(worker.get("id"))
    return ids


def forget(module):
    params = module.params
    try:
        path = _ssh.known_hosts_path(params["path"], params["token_cache"])
        if params["state"] == "absent":
            forgotten = set(params["ids"]).__contains__
        else:
            live = live_ids(module.client)

            def forgotten(resource_id):
                return resource_id not in live

        before = sorted(_ssh.known_aliases(path))
        removed = _ssh.forget_host_keys(path, forgotten, write=not module.check_mode)
    except (_ssh.SshValueError, OSError) as error:
        raise ModuleFailure(f"cannot forget host keys: {error}")
    gone = {alias for alias, _type in removed}
    module.exit_json(
        changed=bool(removed),
        path=path,
        removed=[{"id": _ssh.alias_id(alias), "alias": alias, "key_type": key_type} for alias, key_type in removed],
        diff={"before": {"aliases": before}, "after": {"aliases": [alias for alias in before if alias not in gone]}},
    )


def main():
    module = CloudComputeModule(
        argument_spec=dict(
            path=dict(type="path"),
            state=dict(type="str", choices=["pruned", "absent"], default="pruned"),
            ids=dict(type="list", elements="str"),
        ),
        required_if=[("state", "absent", ("ids",))],
    )
    module.run(lambda: forget(module))


if __name__ == "__main__":
    main()
