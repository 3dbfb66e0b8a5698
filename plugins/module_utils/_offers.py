# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Offers: the instance type catalog joined with availability per location and contract, for
the ``offers`` lookup. Pure functions over the API's answers, so they are tested on their own."""


def as_number(text):
    """A price the API sends as text (or a count), as a float; None when absent or no number."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def offers_from(catalog, availability):
    """Every (instance type, location, contract) offer.

    ``catalog`` is GET /instance-types; ``availability`` maps spot (bool) to GET
    /instance-availability for that contract (all locations). An offer exists for every location
    the availability answer lists; ``available`` says whether the type has capacity there.
    """
    offers = []
    for item in catalog:
        gpus = int((item.get("gpu") or {}).get("number_of_gpus") or 0)
        total_memory = int((item.get("gpu_memory") or {}).get("size_in_gigabytes") or 0)
        for spot, locations in availability.items():
            price = as_number(item.get("spot_price" if spot else "price_per_hour"))
            if price is None:
                continue
            for entry in locations:
                offers.append(
                    {
                        "instance_type": item.get("instance_type"),
                        "location_code": entry.get("location_code"),
                        "spot": spot,
                        "price_per_hour": price,
                        "currency": item.get("currency"),
                        "gpu_model": item.get("model") if gpus else None,
                        "gpus": gpus,
                        "gpu_memory_gb": total_memory // gpus if gpus else 0,
                        "gpu_memory_total_gb": total_memory,
                        "cpu_cores": (item.get("cpu") or {}).get("number_of_cores"),
                        "memory_gb": (item.get("memory") or {}).get("size_in_gigabytes"),
                        "available": item.get("instance_type") in (entry.get("availabilities") or []),
                    }
                )
    return offers


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
