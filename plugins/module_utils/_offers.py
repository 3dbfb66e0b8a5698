# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Offers: the instance type catalog joined with availability per location and contract, for
the ``offers`` lookup. Pure functions over the API's answers, so they are tested on their own."""


def as_number(text):
    """A price the API sends as text, as a float (None when absent)."""
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


def filter_offers(offers, filters):
    """The offers matching ``filters`` (the lookup's options; None means "any"), cheapest first."""

    def keep(offer):
        model = filters.get("gpu_model")
        checks = (
            model is None or (offer["gpu_model"] or "").lower() == model.lower(),
            filters.get("gpus") is None or offer["gpus"] == filters["gpus"],
            filters.get("min_gpus") is None or offer["gpus"] >= filters["min_gpus"],
            filters.get("min_gpu_memory_gb") is None or offer["gpu_memory_gb"] >= filters["min_gpu_memory_gb"],
            filters.get("cpu_only") is None or (offer["gpus"] == 0) == filters["cpu_only"],
            filters.get("spot") is None or offer["spot"] == filters["spot"],
            not filters.get("locations") or offer["location_code"] in filters["locations"],
            filters.get("max_price_per_hour") is None or offer["price_per_hour"] <= filters["max_price_per_hour"],
            not filters.get("available", True) or offer["available"],
        )
        return all(checks)

    return sorted(
        (offer for offer in offers if keep(offer)),
        key=lambda offer: (offer["price_per_hour"], offer["instance_type"], offer["location_code"], offer["spot"]),
    )
