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


# The API charges a volume its monthly price per GB spread over this many hours.
HOURS_PER_MONTH = 730


def _catalog_entry(entries, field, code, what):
    for entry in entries or []:
        if isinstance(entry, dict) and entry.get(field) == code:
            return entry
    raise ValueError("%s %r is not in the catalog" % (what, code))


def volume_hourly_price(volume_types, volume_type, size_gb):
    """What a new volume is charged per hour, from the volume type catalog (``/volume-types``)."""
    entry = _catalog_entry(volume_types, "type", volume_type, "volume type")
    return round(float(entry["price"]["price_per_month_per_gb"]) * size_gb / HOURS_PER_MONTH, 6)


def instance_hourly_price(instance_types, instance_type, spot):
    """What a new instance is charged per hour, from the instance type catalog (``/instance-types``):
    its spot price or its on-demand price (a long-term contract is charged the on-demand price
    until its period's discount is applied by a renewal)."""
    entry = _catalog_entry(instance_types, "instance_type", instance_type, "instance type")
    return float(entry["spot_price" if spot else "price_per_hour"])


def cluster_hourly_price(cluster_types, cluster_type):
    """What a new cluster is charged per hour, from the cluster type catalog (``/cluster-types``)."""
    return float(_catalog_entry(cluster_types, "cluster_type", cluster_type, "cluster type")["price_per_hour"])


def cost(parts, currency):
    """``{price_per_hour, currency, basis}`` of the ``parts``, ``[(what, price_per_hour)]``."""
    return {
        "price_per_hour": round(sum(price for _what, price in parts), 6),
        "currency": currency,
        "basis": [{"item": what, "price_per_hour": round(price, 6)} for what, price in parts],
    }


def describe_cost(cost_value):
    """One line naming the total and what makes it up, for messages."""
    return "%s %s/h (%s)" % (cost_value["price_per_hour"], cost_value["currency"], ", ".join(
        "%s %s" % (part["item"], part["price_per_hour"]) for part in cost_value["basis"]))
