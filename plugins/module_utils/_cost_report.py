# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The ``cost`` a module reports, and its cost options: what every task of ``instance``,
``cluster`` and ``volume`` needs, a no-op too (the cost of a resource as the API reports it).

Pricing a deploy from the catalogs, the price cap and the runway guard are in ``_cost.py``,
which only a task that deploys imports: each task compiles what it imports.

No Ansible imports: modules and plugins share this file.
"""

import math
import re

from ansible_collections.cloudcompute.cloud.plugins.module_utils._failure import ModuleFailure

# The catalogs are read without a currency, so they answer in US dollars, the currency the API
# charges resources in.
CURRENCY = "usd"

# The options of plugins/doc_fragments/cost.py: keep them in step.
CAP_ARGUMENT_SPEC = dict(max_price_per_hour=dict(type="float"))
RUNWAY_ARGUMENT_SPEC = dict(min_balance_hours=dict(type="float"))


def check_cap_option(cap, option="max_price_per_hour"):
    """A cap must be a positive, finite price: refuse anything else before any API call."""
    if cap is not None and not (cap > 0 and math.isfinite(cap)):
        raise ModuleFailure(f"{option} must be a positive price per hour, not {cap}")


def check_runway_option(min_hours):
    """NaN would compare false with every runway: a guard that never refuses."""
    if min_hours is not None and not (min_hours >= 0 and math.isfinite(min_hours)):
        raise ModuleFailure(f"min_balance_hours must be zero or more hours, not {min_hours}")


# A number as the API writes one, in ASCII digits: the catalogs send prices as strings.
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", re.ASCII)


def json_kind(value):
    """What ``value`` (decoded from the API's JSON) is, in JSON's words, for messages."""
    if value is None:
        return "null"
    kinds = ((bool, "a boolean"), (str, "a string"), ((int, float), "a number"), (dict, "an object"), (list, "a list"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "a value")


class UnreadableValue(ModuleFailure, ValueError):
    """A value from the API that a cost cannot be read from (a price or balance that is no amount
    of money, a field of the wrong type). A module fails with it (it is a ``ModuleFailure``); a
    plugin reading many records skips the one it cannot read (it is a ``ValueError``)."""


def money(value, what, signed=False):
    """The amount of money ``value`` (a price or balance from the API: a number, or a numeric
    string as the catalogs send prices) as a float. Only a finite number of zero or more is a
    price (``signed``: any finite number, as a balance may be); anything else (NaN, infinity, a
    negative price, text, null, a list) raises ``UnreadableValue`` naming ``what`` it was, so a
    guardrail that depends on it refuses rather than guesses."""
    number = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str) and len(value) <= 64 and _NUMBER.fullmatch(value.strip()):
        number = float(value)
    if number is None or not math.isfinite(number) or (number < 0 and not signed):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        expected = "a finite number" if signed else "a finite price of zero or more"
        raise UnreadableValue(f"{what} is {shown}, not {expected}")
    return number


def reported_price(record, field="price_per_hour"):
    """The hourly price the API reports in ``record``; ``UnreadableValue`` when it reports none
    or no price (a resource is never free by mistake)."""
    owner = str(record.get("id") or "a resource")[:40]
    return money(record.get(field), f"the {field} the API reports for {owner}")


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
        parts[0] = (parts[0][0], reported_price(record))
    return cost(parts, planned["currency"])


def own_cost(deploy_cost):
    """Of the cost of a deploy (the instance or the cluster first, then the volumes created with
    it), the cost of the resource alone."""
    return cost([(part["item"], part["price_per_hour"]) for part in deploy_cost["basis"][:1]], deploy_cost["currency"])


def with_cost(result, after_cost, before_cost=None):
    """Add ``cost`` (what the resource costs after the run) to a module result, and the hourly
    price before and after to its diff."""
    result["cost"] = after_cost
    diff = result.get("diff") or {}
    for side, side_cost in (("before", before_cost), ("after", after_cost)):
        if diff.get(side) and side_cost is not None:
            diff[side]["price_per_hour"] = side_cost["price_per_hour"]
    return result
