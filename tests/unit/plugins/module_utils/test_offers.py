"""Offers (the offers lookup's join of catalog and availability) on the emulator's real answers,
with capacity set through its control API."""

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiClient
from ansible_collections.cloudcompute.cloud.plugins.module_utils._offers import filter_offers, offers_from


@pytest.fixture
def read_offers(emulator, emulator_reset, tmp_path):
    client = ApiClient(
        api_url=emulator.api_url,
        client_id=emulator.client_id,
        client_secret=emulator.client_secret,
        token_cache=str(tmp_path / "tokens"),
    )

    def read(**filters):
        catalog = client.get("/instance-types", authenticated=False)
        availability = dict(
            (spot, client.get("/instance-availability", params={"is_spot": str(spot).lower()}))
            for spot in (False, True)
        )
        return filter_offers(offers_from(catalog, availability), filters)

    return read


def test_eight_h100_offers_are_sorted_and_joined_with_the_catalog(read_offers):
    offers = read_offers(gpu_model="h100", gpus=8, spot=False)
    assert [offer["location_code"] for offer in offers] == ["FIN-01", "FIN-02", "FIN-03", "ICE-01"]
    assert offers[0] == {
        "instance_type": "8H100.80S.176V",
        "location_code": "FIN-01",
        "spot": False,
        "price_per_hour": 18.32,
        "currency": "usd",
        "gpu_model": "H100",
        "gpus": 8,
        "gpu_memory_gb": 80,
        "gpu_memory_total_gb": 640,
        "cpu_cores": 176,
        "memory_gb": offers[0]["memory_gb"],
        "available": True,
    }
    assert offers[0]["memory_gb"] > 0


def test_offers_follow_capacity(read_offers, control):
    control.set_capacity("8H100.80S.176V", "FIN-01", 0)
    assert [offer["location_code"] for offer in read_offers(gpu_model="H100", gpus=8, spot=False)] == [
        "FIN-02",
        "FIN-03",
        "ICE-01",
    ]
    every = read_offers(gpu_model="H100", gpus=8, spot=False, available=False)
    assert [
        (offer["location_code"], offer["available"])
        for offer in every
        if offer["location_code"] in ("FIN-01", "FIN-02")
    ] == [("FIN-01", False), ("FIN-02", True)]
    # a type never offered in a location is listed (unavailable) with available=false only
    assert not any(offer["location_code"] == "ICE-01" for offer in read_offers(gpu_model="H200"))
    assert any(offer["location_code"] == "ICE-01" for offer in read_offers(gpu_model="H200", available=False))


def test_filters_combine_and_prices_follow_the_contract(read_offers):
    spot = read_offers(
        spot=True, min_gpu_memory_gb=48, max_price_per_hour=1.0, locations=["FIN-01", "FIN-02", "FIN-03"]
    )
    assert spot, "some spot GPU under 1 USD/h with 48 GB cards exists in Finland"
    assert all(offer["spot"] and offer["gpu_memory_gb"] >= 48 and offer["price_per_hour"] <= 1.0 for offer in spot)
    assert [offer["price_per_hour"] for offer in spot] == sorted(offer["price_per_hour"] for offer in spot)
    on_demand = read_offers(gpu_model="A100", gpus=1, spot=False, locations=["FIN-01"])[0]["price_per_hour"]
    spot_price = read_offers(gpu_model="A100", gpus=1, spot=True, locations=["FIN-01"])[0]["price_per_hour"]
    assert spot_price < on_demand == 1.29
    cpu = read_offers(cpu_only=True, locations=["ICE-01"], spot=False)
    assert cpu and all(offer["gpus"] == 0 and offer["gpu_model"] is None for offer in cpu)
    assert all(offer["gpus"] >= 4 for offer in read_offers(min_gpus=4))
    assert read_offers(gpu_model="H100", gpus=3) == []
    # no spot capacity for B200 anywhere; on-demand only in FIN-03
    assert [(offer["location_code"], offer["spot"]) for offer in read_offers(gpu_model="b200", gpus=8)] == [
        ("FIN-03", False)
    ]
