# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The ``cost`` a module reports, and its cost options: what every task of ``instance``,
``cluster`` and ``volume`` needs, a no-op too (the cost of a resource as the API reports it).

Pricing a deploy from the catalogs, the price cap and the runway guard are in ``_cost.py``,
which only a task that deploys imports: each task compiles what it imports.

No Ansible imports: modules and plugins share this file.
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._failure import ModuleFailure

# The catalogs are read without a currency, so they answer in US dollars, the currency the API
# charges resources in.
CURRENCY = "usd"

# The options of plugins/doc_fragments/cost.py: keep them in step.
CAP_ARGUMENT_SPEC = dict(max_price_per_hour=dict(type="float"))
RUNWAY_ARGUMENT_SPEC = dict(min_balance_hours=dict(type="float"))


def check_cap_option(cap, option="max_price_per_hour"):
    """A cap must be a positive price: refuse anything else before any API call."""
    if cap is not None and not cap > 0:
        raise ModuleFailure(f"{option} must be a positive price per hour, not {cap}")


def check_runway_option(min_hours):
    if min_hours is not None and min_hours < 0:
        raise ModuleFailure(f"min_balance_hours must be zero or more hours, not {min_hours}")


def reported_price(record, field="price_per_hour"):
    """The hourly price the API reports in ``record`` (0 when it reports none)."""
    return float(record.get(field) or 0)


def cost(parts, currency=CURRENCY):
    """``{price_per_hour, currency, basis}`` of the ``parts``, ``[(what, price_per_hour)]``; a
    part whose price cannot be known beforehand has the price None and is left out of the total."""
    return {
        "price_per_hour": round(sum(price for _what, price in parts if price is not None), 6),
        "currency": currency,
        "basis": [
            {"item": what, "price_per_hour": None if price is None else round(price, 6)} for what, price in parts
        ],
    }


def instance_part(instance_type, spot, contract, price):
    charged_as = "spot" if spot else ("long-term, on-demand price" if contract == "LONG_TERM" else "on-demand")
    return (f"instance {instance_type} ({charged_as})", price)


def volume_part(what, volume_type, size, price):
    return (f"{what} {volume_type} {size} GB", price)


def existing_volume_cost(volume):
    what, price = f"volume {volume.get('name')}", reported_price(volume, "base_hourly_cost")
    return cost([volume_part(what, volume.get("type"), volume.get("size"), price)])


def with_reported_price(planned, record):
    """The ``planned`` cost of a deploy with its first part (the instance or the cluster) at the
    price the API reports for the new ``record``; the volumes keep their catalog price."""
    parts = [(part["item"], part["price_per_hour"]) for part in planned["basis"]]
    if record and record.get("price_per_hour") is not None:
        parts[0] = (parts[0][0], float(record["price_per_hour"]))
    return cost(parts, planned["currency"])


def with_cost(result, after_cost, before_cost=None):
    """Add ``cost`` (what the resource costs after the run) to a module result, and the hourly
    price before and after to its diff."""
    result["cost"] = after_cost
    diff = result.get("diff") or {}
    for side, side_cost in (("before", before_cost), ("after", after_cost)):
        if diff.get(side) and side_cost is not None:
            diff[side]["price_per_hour"] = side_cost["price_per_hour"]
    return result
