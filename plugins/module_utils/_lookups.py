# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Where each kind of resource is found by id or by name, so that every module naming one
(instance, volume, cluster, tag, instance_group, ...) finds it the same way, with the same rule
for a name that several resources share.

``*_named`` pick the one record with a name out of a list the caller already read;
``*_references`` build a ``References`` (names or ids resolved with at most one list call);
``find_taggable`` finds an instance, volume or cluster for the ``tag`` module.
"""

import functools

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import api_path, looks_like_id, path_value
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import References, fetch_or_none, pick_one

# Statuses of instances and clusters (the API uses one value set for both).
# On the way to running: no action is accepted until it gets there.
SETTING_UP = ("new", "ordered", "validating", "provisioning")
# Being removed (deleted, hibernated, discontinued or evicted). It keeps its hostname for a
# moment, and a new one may already carry it.
GOING_AWAY = ("deleting", "discontinued")
# Statuses not left by themselves: waiting for another one is pointless.
BROKEN = ("error", "installation_failed", "no_capacity", "notfound")


def live_one(matches, noun, name):
    """The one match that is not being removed (several are ambiguous and need the id); when
    all of them are being removed, one of those."""
    live = [item for item in matches if item.get("status") not in GOING_AWAY]
    return pick_one(live, noun, name) or (matches[0] if matches else None)


def _hostname_named(noun, records, hostname, exclude_id=None):
    """The instance or cluster (``noun``) with this hostname among ``records``, or None."""
    return live_one(
        [item for item in records if item.get("hostname") == hostname and item.get("id") != exclude_id], noun, hostname
    )


instance_named = functools.partial(_hostname_named, "instance")
cluster_named = functools.partial(_hostname_named, "cluster")


def volume_named(volumes, name, location=None):
    """The volume with this name (in ``location`` when given) among ``volumes``, or None. A name
    used in several locations is ambiguous without the location."""
    return pick_one([item for item in in_location(volumes, location) if item.get("name") == name], "volume", name)


def in_location(volumes, location):
    """The volumes in ``location``; all of them when it is None."""
    return [volume for volume in volumes if location is None or volume.get("location") == location]


def ssh_key_references(client):
    return References("SSH key", lambda: client.get_list("/ssh-keys"))


def startup_script_references(client):
    return References("startup script", lambda: client.get_all_pages("/scripts"))


def volume_references(client, location=None, known=()):
    """Active volumes by name or id, only those in ``location`` when it is given."""
    return References(
        "volume",
        lambda: in_location(client.get_list("/volumes"), location),
        known=known,
        scope=f" in {location}" if location else "",
    )


def instance_references(client, known=()):
    """Instances by hostname or id; ``known`` records (e.g. attached instances) cost no call."""
    return References("instance", lambda: client.get_list("/instances"), name_field="hostname", known=known)


def deployed_with(resource, ssh_keys, startup_script, ssh_key_refs, script_refs):
    """What the deploy options ``ssh_keys`` and ``startup_script`` (names or ids) compare to on
    a deployed instance or cluster, for ``refuse_differences``: ``{option: (desired, current)}``
    for the options given (names cost one list per kind)."""
    pairs = {}
    if ssh_keys is not None:
        pairs["ssh_keys"] = (sorted(ssh_key_refs.ids(ssh_keys)), sorted(resource.get("ssh_key_ids") or []))
    if startup_script is not None:
        pairs["startup_script"] = (script_refs.id(startup_script), resource.get("startup_script_id"))
    return pairs


# resource_type of the tag module -> (collection path, how a name picks one record)
TAGGABLE = {
    "instance": ("/instances", instance_named),
    "volume": ("/volumes", volume_named),
    "cluster": ("/clusters", cluster_named),
}


def find_taggable(client, resource_type, reference):
    """The instance, volume or cluster ``reference`` (id, else hostname or name) names, or None.

    An id costs one read; a name one list. Something that looks like an id but is not one is
    looked for by name too, so a resource named like a UUID is still found."""
    path, named = TAGGABLE[resource_type]
    if looks_like_id(reference):
        found = fetch_or_none(client, api_path(path, path_value(reference, "id")))
        if found is not None:
            return found
    return named(client.get_list(path), reference)
