"""How prices are predicted from the public catalogs (pure functions: no emulator needed)."""

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost import (
    CHARGED_KINDS,
    cluster_hourly_price,
    cost,
    describe_cost,
    instance_hourly_price,
    volume_hourly_price,
)

VOLUME_TYPES = [{"type": "NVMe", "price": {"price_per_month_per_gb": 0.2, "currency": "usd"}},
                {"type": "HDD", "price": {"price_per_month_per_gb": 0.05, "currency": "usd"}}]
INSTANCE_TYPES = [{"instance_type": "1V100.6V", "price_per_hour": "0.39", "spot_price": "0.1365"}]
CLUSTER_TYPES = [{"cluster_type": "16H100", "price_per_hour": "36.64"}]


def test_volume_prices_are_monthly_gb_prices_over_730_hours():
    assert volume_hourly_price(VOLUME_TYPES, "NVMe", 100) == 0.027397
    assert volume_hourly_price(VOLUME_TYPES, "HDD", 2000) == 0.136986


def test_instance_and_cluster_prices_come_from_the_catalog_strings():
    assert instance_hourly_price(INSTANCE_TYPES, "1V100.6V", spot=False) == 0.39
    assert instance_hourly_price(INSTANCE_TYPES, "1V100.6V", spot=True) == 0.1365
    assert cluster_hourly_price(CLUSTER_TYPES, "16H100") == 36.64


@pytest.mark.parametrize("call", [
    lambda: volume_hourly_price(VOLUME_TYPES, "SSD", 1),
    lambda: instance_hourly_price(INSTANCE_TYPES, "9X100", spot=False),
    lambda: cluster_hourly_price(CLUSTER_TYPES, "64H100"),
])
def test_unknown_types_are_named(call):
    with pytest.raises(ValueError, match="not in the catalog"):
        call()


def test_cost_adds_up_its_parts_and_says_what_they_are():
    total = cost([("instance 1V100.6V (spot)", 0.1365), ("OS volume NVMe 100 GB", 0.027397)], "usd")
    assert total == {"price_per_hour": 0.163897, "currency": "usd", "basis": [
        {"item": "instance 1V100.6V (spot)", "price_per_hour": 0.1365},
        {"item": "OS volume NVMe 100 GB", "price_per_hour": 0.027397}]}
    assert describe_cost(total) == "0.163897 usd/h (instance 1V100.6V (spot) 0.1365, OS volume NVMe 100 GB 0.027397)"


def test_what_the_api_charges():
    instance = CHARGED_KINDS["instance"]
    assert instance.is_charged({"status": "offline"})
    assert not instance.is_charged({"status": "discontinued"})
    assert not CHARGED_KINDS["volume"].is_charged({"status": "deleted", "is_permanently_deleted": True})
    trashed = {"id": "v", "name": "data", "type": "NVMe", "status": "deleted", "base_hourly_cost": 0.0274, "tags": []}
    assert CHARGED_KINDS["volume"].summary(trashed)["price_per_hour"] == 0.0274
