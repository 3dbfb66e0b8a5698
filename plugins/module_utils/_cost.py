# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the API charges per hour for each kind of resource, in one place: ``cost_info`` adds it
up, the ``expired`` filter (role ``reaper``) reports the saving of a deletion, and ``instance``,
``cluster`` and ``volume`` predict the price of what they deploy, cap it and check the runway.

What every task reports (the cost of a resource as the API reports it, the cost options) is in
``_cost_report.py``: a no-op task does not import this file.

No Ansible imports: modules and plugins share this file.
"""

from collections import namedtuple

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError, single_item
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost_report import (
    CURRENCY,
    UnreadableValue,
    cost,
    instance_part,
    json_kind,
    money,
    reported_price,
    volume_part,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._failure import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import current_tags, matches_tag_filter


class ChargedKind(namedtuple("ChargedKind", "kind paths name_field type_field price_field uncharged_statuses")):
    """How the API lists and charges one kind of resource."""

    def is_charged(self, record):
        return record.get("status") not in self.uncharged_statuses and not record.get("is_permanently_deleted")

    def summary(self, record):
        """The resource as a cost report shows it; ``UnreadableValue`` (a ``ValueError``) naming
        what cannot be read when a field is of the wrong type or the price is no price."""
        shown = {
            "id": record.get("id"),
            "name": record.get(self.name_field),
            "location": record.get("location"),
            "instance_type": record.get(self.type_field),
            "status": record.get("status"),
        }
        for field, value in shown.items():
            if value is not None and not isinstance(value, str):
                raise UnreadableValue(f"its {field} is {json_kind(value)}, not a string")
        try:
            tags = current_tags(record)
        except (AttributeError, KeyError, TypeError):
            # the API returns a list of {id, key, value}; a record read back from a module, a dict
            kind = json_kind(record.get("tags"))
            raise UnreadableValue(
                f"its tags are not a list of {{key, value}} or a dictionary: they are {kind}"
            ) from None
        price = reported_price(record, self.price_field) if self.is_charged(record) else 0.0
        return dict({"kind": self.kind}, **shown, price_per_hour=price, tags=tags)


# Instances are charged in every status but while being deleted or once discontinued (a shut-down
# instance is still charged); clusters likewise; volumes until they are purged from the trash or
# deleted permanently, so the trash is listed too.
CHARGED_KINDS = {
    "instance": ChargedKind(
        "instance", ("/instances",), "hostname", "instance_type", "price_per_hour", ("deleting", "discontinued")
    ),
    "cluster": ChargedKind("cluster", ("/clusters",), "hostname", "cluster_type", "price_per_hour", ("deleting",)),
    "volume": ChargedKind("volume", ("/volumes", "/volumes/trash"), "name", "type", "base_hourly_cost", ()),
}


# The API charges a volume its monthly price per GB spread over this many hours.
HOURS_PER_MONTH = 730
# The type of the OS volume the API creates with an instance deployed from an image.
OS_VOLUME_TYPE = "NVMe"
# The volume type of the shared file system the API creates with a cluster.
CLUSTER_SHARED_VOLUME_TYPE = "NVMe_Shared_Cluster"


def charged_resources(client, tag_filter=()):
    """Every resource the API charges now, which of them ``tag_filter`` (normalized, as
    ``normalize_tag_filter`` makes it) counts, and those that cannot be read (each
    ``{kind, id, reason}``): ``(charged, counted, unreadable)``. One unreadable record does not
    stop the count; a guard that needs the whole charge refuses when there is one."""
    charged, counted, unreadable = [], [], []
    for charged_kind in CHARGED_KINDS.values():
        for path in charged_kind.paths:
            for record in client.get_list(path):
                try:
                    if not charged_kind.is_charged(record):
                        continue
                    item = charged_kind.summary(record)
                    matches = matches_tag_filter(record, tag_filter)
                except (UnreadableValue, TypeError) as error:
                    record_id = record.get("id")
                    unreadable.append(
                        {
                            "kind": charged_kind.kind,
                            "id": record_id if isinstance(record_id, str) else None,
                            "reason": str(error),
                        }
                    )
                    continue
                charged.append(item)
                if matches:
                    counted.append(item)
    return charged, counted, unreadable


def read_balance(client):
    """``(amount, currency)`` of the project's balance; ``UnreadableValue`` when the amount is no
    finite number (a runway read from it would be a guess)."""
    balance = single_item(client.get("/balance"), "GET", "/balance")
    currency = balance.get("currency")
    amount = money(balance.get("amount"), "the balance amount GET /balance answered", signed=True)
    return amount, currency if isinstance(currency, str) and currency else CURRENCY


def runway_hours(balance, price_per_hour):
    """How long ``balance`` lasts at ``price_per_hour``; None when nothing is charged. Either not
    being a finite number raises ``UnreadableValue``: a NaN runway would pass any minimum."""
    balance = money(balance, "the balance", signed=True)
    price_per_hour = money(price_per_hour, "the hourly charge")
    return round(balance / price_per_hour, 2) if price_per_hour > 0 else None


def _catalog_entry(entries, field, code, what):
    for entry in entries or []:
        if isinstance(entry, dict) and entry.get(field) == code:
            return entry
    raise ValueError(f"{what} {code!r} is not in the catalog")


def volume_hourly_price(volume_types, volume_type, size_gb):
    """What a new volume is charged per hour, from the volume type catalog (``/volume-types``)."""
    entry = _catalog_entry(volume_types, "type", volume_type, "volume type")
    price = entry.get("price")
    monthly = money(
        price.get("price_per_month_per_gb") if isinstance(price, dict) else None, f"the price of {volume_type}"
    )
    # a price within range times a size may still overflow to infinity
    return money(round(monthly * size_gb / HOURS_PER_MONTH, 6), f"the hourly price of {size_gb} GB of {volume_type}")


def instance_hourly_price(instance_types, instance_type, spot):
    """What a new instance is charged per hour, from the instance type catalog (``/instance-types``):
    its spot price or its on-demand price. A deploy names no long-term period, so a new
    ``LONG_TERM`` instance is charged the on-demand price too: a period's discount applies only
    once a period is chosen for it."""
    entry = _catalog_entry(instance_types, "instance_type", instance_type, "instance type")
    field = "spot_price" if spot else "price_per_hour"
    return money(entry.get(field), f"the {field} of {instance_type}")


def cluster_hourly_price(cluster_types, cluster_type):
    """What a new cluster is charged per hour, from the cluster type catalog (``/cluster-types``)."""
    entry = _catalog_entry(cluster_types, "cluster_type", cluster_type, "cluster type")
    return money(entry.get("price_per_hour"), f"the price_per_hour of {cluster_type}")


def describe_cost(cost_value):
    """One line naming the total and what makes it up, for messages."""

    def described(part):
        price = part["price_per_hour"]
        return f"{part['item']} {'not priced' if price is None else price}"

    basis = ", ".join(map(described, cost_value["basis"]))
    return f"{cost_value['price_per_hour']} {cost_value['currency']}/h ({basis})"


class PriceBook:
    """Prices of what is about to be deployed, from the public catalogs (read without a token),
    each catalog read at most once per task and only when a price is asked for."""

    def __init__(self, client, catalogs=None):
        self.client = client
        self._catalogs = dict(catalogs or {})  # path -> a catalog already read

    def catalog(self, path):
        if path not in self._catalogs:
            self._catalogs[path] = self.client.get_list(path, authenticated=False)
        return self._catalogs[path]

    def price(self, hourly_price, path, *args):
        """``hourly_price(catalog, *args)`` with the catalog at ``path``; a failure saying what
        cannot be priced."""
        try:
            return hourly_price(self.catalog(path), *args)
        except (KeyError, TypeError, ValueError) as error:
            # the catalog's own words, not a guess: a plan that cannot be priced is not deployed
            raise ModuleFailure(f"cannot price the plan: {error}; nothing was changed")

    def new_volume(self, what, volume_type, size_gb):
        """The cost part of a volume a deploy creates."""
        price = self.price(volume_hourly_price, "/volume-types", volume_type, size_gb)
        return volume_part(what, volume_type, size_gb, price)

    def instance_deploy(self, body, boots_from_volume):
        """The cost of the instance deploy request ``body``: the instance and every volume created
        with it. Volumes it only attaches (``existing_volumes``, an OS volume it boots from) are
        charged already and not part of it."""
        spot = bool(body.get("is_spot") or body.get("contract") == "SPOT")
        instance_type, os_volume = body["instance_type"], body.get("os_volume")
        price = self.price(instance_hourly_price, "/instance-types", instance_type, spot)
        parts = [instance_part(instance_type, spot, body.get("contract"), price)]
        if os_volume and not boots_from_volume:
            parts.append(self.new_volume(f"OS volume {os_volume['name']}", OS_VOLUME_TYPE, os_volume["size"]))
        elif not boots_from_volume:
            # the API picks the size, and no catalog says which: the basis says so
            parts.append((f"OS volume {OS_VOLUME_TYPE}, size chosen by the API (give os_volume to price it)", None))
        for volume in body.get("volumes") or []:
            parts.append(self.new_volume(f"volume {volume['name']}", volume["type"], volume["size"]))
        return cost(parts)

    def cluster_deploy(self, body):
        """The cost of the cluster deploy request ``body``: the cluster and its new shared volume."""
        cluster_type, shared = body["cluster_type"], body["shared_volume"]
        cluster = (f"cluster {cluster_type}", self.price(cluster_hourly_price, "/cluster-types", cluster_type))
        return cost(
            [cluster, self.new_volume(f"shared volume {shared['name']}", CLUSTER_SHARED_VOLUME_TYPE, shared["size"])]
        )


def over_cap(cost_value, cap, what):
    """Why ``what``, costing ``cost_value``, is over the cap ``max_price_per_hour`` (None when it
    is not, or there is no cap)."""
    if cap is not None and not 0 <= cost_value["price_per_hour"] <= cap:  # a NaN or negative total is refused
        return f"{what} would cost {describe_cost(cost_value)}, over max_price_per_hour {cap}"
    return None


def refuse_over_cap(cost_value, cap, what):
    refusal = over_cap(cost_value, cap, what)
    if refusal:
        raise ModuleFailure(refusal + "; nothing was changed", deploy_cost=cost_value)


def refuse_short_runway(client, cost_value, min_hours, what):
    """Fail when deploying ``cost_value`` would leave less than ``min_hours`` of runway at the
    project's new burn rate: what it is charged now plus this deploy's price."""
    if min_hours is None:
        return None
    charged, _counted, unreadable = charged_resources(client)
    if unreadable:
        names = ", ".join(f"{item['kind']} {item['id']} ({item['reason']})" for item in unreadable[:3])
        raise ModuleFailure(
            f"cannot tell the runway min_balance_hours asks for: the charge of {len(unreadable)} resource(s) "
            f"cannot be read: {names}; nothing was changed",
            deploy_cost=cost_value,
            unreadable=unreadable,
        )
    balance, currency = read_balance(client)
    new_rate = round(sum(item["price_per_hour"] for item in charged) + cost_value["price_per_hour"], 6)
    runway = runway_hours(balance, new_rate)
    found = {"balance": balance, "currency": currency, "price_per_hour": new_rate, "runway_hours": runway}
    if runway is not None and runway < min_hours:
        raise ModuleFailure(
            f"{what} would cost {describe_cost(cost_value)}: the project would then burn {new_rate} {currency}/h "
            f"and its balance of {balance} {currency} would last {runway} hours, less than min_balance_hours "
            f"{min_hours}; nothing was changed",
            deploy_cost=cost_value,
            runway=found,
        )
    return found


def guard_deploy(client, params, cost_value, what):
    """Refuse deploying ``what`` at ``cost_value`` before any change when it is over
    ``max_price_per_hour`` or would leave less than ``min_balance_hours`` of runway; return the
    runway found (None when not asked for)."""
    refuse_over_cap(cost_value, params["max_price_per_hour"], what)
    return refuse_short_runway(client, cost_value, params["min_balance_hours"], what)


def insufficient_funds_hint(client, cost_value):
    """The hint for a deploy answered 402: the balance and the price of what was refused."""
    try:
        balance, currency = read_balance(client)
        said = f"The project balance is {balance} {currency}"
    except (ApiError, UnreadableValue):  # the refusal matters more than a failed explanation of it
        said = "The project balance could not be read"
    return f"{said}; this deploy costs {describe_cost(cost_value)}. Top up the balance, or deploy something cheaper."
