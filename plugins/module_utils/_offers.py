# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Offers: the instance type catalog joined with availability per location and contract, for
the ``offers`` lookup. Pure functions over the API's answers, so they are tested on their own."""

import math

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost_report import json_kind, money


def as_number(text):
    """A catalog value the API sends as text (or a count), as a float; None when absent or not a
    finite number of zero or more (no price, size or count is negative, NaN or infinite)."""
    try:
        number = float(text)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) and number >= 0 else None


def wrong_shape(path, what):
    """The error for an answer of ``path`` that is not of the shape the API documents."""
    return ApiError(f"the API answered {what}", method="GET", path=path, code="unexpected_answer")


def availability_entry(entry, path):
    """``(location_code, {type codes with capacity})`` of one entry of GET ``path`` (an
    availability list: ``{location_code, availabilities: [type codes]}``); an ``ApiError`` naming
    what came when the entry is of another shape (a string of codes would otherwise be matched
    letter by letter, a number would crash)."""
    location, codes = entry.get("location_code"), entry.get("availabilities")
    if not isinstance(location, str):
        raise wrong_shape(path, f"{json_kind(location)} as a location_code, where a string was expected")
    if codes is None:
        codes = []
    odd = codes if not isinstance(codes, list) else next((code for code in codes if not isinstance(code, str)), "")
    if not isinstance(odd, str) or isinstance(codes, str):
        holding = "" if odd is codes else "a list holding "
        raise wrong_shape(
            path,
            f"{holding}{json_kind(odd)} as the availabilities of {location[:40]!r}, where a list of type codes was expected",
        )
    return location, set(codes)


def offers_from(catalog, availability):
    """Every (instance type, location, contract) offer.

    ``catalog`` is GET /instance-types; ``availability`` maps spot (bool) to GET
    /instance-availability for that contract (all locations). An offer exists for every location
    the availability answer lists; ``available`` says whether the type has capacity there. A
    catalog entry whose price for a contract is not a finite amount of zero or more has no offer
    for that contract (a price filter cannot judge it); an answer of the wrong shape is an
    ``ApiError``.
    """
    locations = {
        spot: [availability_entry(entry, "/instance-availability") for entry in entries]
        for spot, entries in availability.items()
    }
    offers = []
    for item in catalog:
        instance_type = item.get("instance_type")
        parts = {name: item.get(name) for name in ("gpu", "gpu_memory", "cpu", "memory")}
        for name, part in parts.items():
            if part is not None and not isinstance(part, dict):
                raise wrong_shape(
                    "/instance-types",
                    f"{json_kind(part)} as the {name} of an instance type, where an object was expected",
                )
        gpu, gpu_memory, cpu, memory = (part or {} for part in parts.values())
        gpus, total_memory = count(gpu.get("number_of_gpus")), count(gpu_memory.get("size_in_gigabytes"))
        if not isinstance(instance_type, str) or gpus is None or total_memory is None:
            raise wrong_shape(
                "/instance-types",
                "an instance type without a string instance_type or whole numbers of GPUs and GPU memory",
            )
        for spot, entries in locations.items():
            try:
                price = money(item.get("spot_price" if spot else "price_per_hour"), "price")
            except ValueError:
                continue
            for location, codes in entries:
                offers.append(
                    {
                        "instance_type": instance_type,
                        "location_code": location,
                        "spot": spot,
                        "price_per_hour": price,
                        "currency": item.get("currency"),
                        "gpu_model": item.get("model") if gpus else None,
                        "gpus": gpus,
                        "gpu_memory_gb": total_memory // gpus if gpus else 0,
                        "gpu_memory_total_gb": total_memory,
                        "cpu_cores": cpu.get("number_of_cores"),
                        "memory_gb": memory.get("size_in_gigabytes"),
                        "available": instance_type in codes,
                    }
                )
    return offers


def count(value):
    """A count in the catalog (a number of GPUs, of GB): a whole number of zero or more (absent is
    zero), else None."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    if value < 0 or value != int(value):
        return None
    return int(value)


# The filters of the offers lookup: option -> test(offer, the option's value). An option that is
# None or an empty list keeps every offer.
OFFER_TESTS = {
    "gpu_model": lambda offer, model: (offer["gpu_model"] or "").lower() == model.lower(),
    "gpus": lambda offer, gpus: offer["gpus"] == gpus,
    "min_gpus": lambda offer, gpus: offer["gpus"] >= gpus,
    "min_gpu_memory_gb": lambda offer, size: offer["gpu_memory_gb"] >= size,
    "cpu_only": lambda offer, cpu_only: (offer["gpus"] == 0) == cpu_only,
    "spot": lambda offer, spot: offer["spot"] == spot,
    "locations": lambda offer, locations: offer["location_code"] in locations,
    "max_price_per_hour": lambda offer, price: offer["price_per_hour"] <= price,
    "available": lambda offer, available_only: offer["available"] or not available_only,
}


def filter_offers(offers, filters):
    """The offers matching ``filters`` (the lookup's options; ``available`` is true unless given),
    cheapest first."""
    filters = {"available": True, **filters}
    tests = [(test, filters[option]) for option, test in OFFER_TESTS.items() if filters.get(option) not in (None, [])]
    return sorted(
        (offer for offer in offers if all(test(offer, wanted) for test, wanted in tests)),
        key=lambda offer: (offer["price_per_hour"], offer["instance_type"], offer["location_code"], offer["spot"]),
    )
