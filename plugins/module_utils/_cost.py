# -*- coding: utf-8 -*-
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the API charges per hour for each kind of resource, in one place: ``cost_info`` adds it
up and the ``expired`` filter (role ``reaper``) reports the saving of a deletion.

No Ansible imports: modules and plugins share this file.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import current_tags


class ChargedKind:
    """How the API lists and charges one kind of resource."""

    def __init__(self, kind, paths, name_field, type_field, price_field, uncharged_statuses):
        self.kind = kind
        self.paths = paths
        self.name_field = name_field
        self.type_field = type_field
        self.price_field = price_field
        self.uncharged_statuses = uncharged_statuses

    def is_charged(self, record):
        return record.get("status") not in self.uncharged_statuses and not record.get("is_permanently_deleted")

    def summary(self, record):
        """The resource as a cost report shows it."""
        return {
            "kind": self.kind,
            "id": record.get("id"),
            "name": record.get(self.name_field),
            "location": record.get("location"),
            "instance_type": record.get(self.type_field),
            "status": record.get("status"),
            "price_per_hour": float(record.get(self.price_field) or 0) if self.is_charged(record) else 0.0,
            "tags": current_tags(record),
        }


# Instances are charged in every status but while being deleted or once discontinued (a shut-down
# instance is still charged); clusters likewise; volumes until they are purged from the trash or
# deleted permanently, so the trash is listed too.
CHARGED_KINDS = {
    "instance": ChargedKind("instance", ("/instances",), "hostname", "instance_type", "price_per_hour",
                            ("deleting", "discontinued")),
    "cluster": ChargedKind("cluster", ("/clusters",), "hostname", "cluster_type", "price_per_hour", ("deleting",)),
    "volume": ChargedKind("volume", ("/volumes", "/volumes/trash"), "name", "type", "base_hourly_cost", ()),
}
