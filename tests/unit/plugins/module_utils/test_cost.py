"""How prices are predicted from the public catalogs (pure functions: no emulator needed)."""

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost import (
    CHARGED_KINDS,
    PriceBook,
    cluster_hourly_price,
    describe_cost,
    instance_hourly_price,
    over_cap,
    refuse_over_cap,
    runway_hours,
    volume_hourly_price,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost_report import (
    UnreadableValue,
    check_cap_option,
    check_runway_option,
    cost,
    money,
    with_cost,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._failure import ModuleFailure

VOLUME_TYPES = [
    {"type": "NVMe", "price": {"price_per_month_per_gb": 0.2, "currency": "usd"}},
    {"type": "HDD", "price": {"price_per_month_per_gb": 0.05, "currency": "usd"}},
]
INSTANCE_TYPES = [{"instance_type": "1V100.6V", "price_per_hour": "0.39", "spot_price": "0.1365"}]
CLUSTER_TYPES = [{"cluster_type": "16H100", "price_per_hour": "36.64"}]


def test_volume_prices_are_monthly_gb_prices_over_730_hours():
    assert volume_hourly_price(VOLUME_TYPES, "NVMe", 100) == 0.027397
    assert volume_hourly_price(VOLUME_TYPES, "HDD", 2000) == 0.136986


def test_instance_and_cluster_prices_come_from_the_catalog_strings():
    assert instance_hourly_price(INSTANCE_TYPES, "1V100.6V", spot=False) == 0.39
    assert instance_hourly_price(INSTANCE_TYPES, "1V100.6V", spot=True) == 0.1365
    assert cluster_hourly_price(CLUSTER_TYPES, "16H100") == 36.64


@pytest.mark.parametrize(
    "call",
    [
        lambda: volume_hourly_price(VOLUME_TYPES, "SSD", 1),
        lambda: instance_hourly_price(INSTANCE_TYPES, "9X100", spot=False),
        lambda: cluster_hourly_price(CLUSTER_TYPES, "64H100"),
    ],
)
def test_unknown_types_are_named(call):
    with pytest.raises(ValueError, match="not in the catalog"):
        call()


def test_cost_adds_up_its_parts_and_says_what_they_are():
    total = cost([("instance 1V100.6V (spot)", 0.1365), ("OS volume NVMe 100 GB", 0.027397)], "usd")
    assert total == {
        "price_per_hour": 0.163897,
        "currency": "usd",
        "basis": [
            {"item": "instance 1V100.6V (spot)", "price_per_hour": 0.1365},
            {"item": "OS volume NVMe 100 GB", "price_per_hour": 0.027397},
        ],
    }
    assert describe_cost(total) == "0.163897 usd/h (instance 1V100.6V (spot) 0.1365, OS volume NVMe 100 GB 0.027397)"


def test_what_the_api_charges():
    instance = CHARGED_KINDS["instance"]
    assert instance.is_charged({"status": "offline"})
    assert not instance.is_charged({"status": "discontinued"})
    assert not CHARGED_KINDS["volume"].is_charged({"status": "deleted", "is_permanently_deleted": True})
    trashed = {"id": "v", "name": "data", "type": "NVMe", "status": "deleted", "base_hourly_cost": 0.0274, "tags": []}
    assert CHARGED_KINDS["volume"].summary(trashed)["price_per_hour"] == 0.0274


CATALOGS = {
    "/instance-types": INSTANCE_TYPES,
    "/volume-types": VOLUME_TYPES
    + [{"type": "NVMe_Shared_Cluster", "price": {"price_per_month_per_gb": 0.3, "currency": "usd"}}],
    "/cluster-types": CLUSTER_TYPES,
}


def test_an_instance_deploy_costs_the_instance_and_every_volume_it_creates():
    prices = PriceBook(None, CATALOGS)
    body = {
        "hostname": "a",
        "instance_type": "1V100.6V",
        "is_spot": True,
        "os_volume": {"name": "a-os", "size": 100},
        "volumes": [{"name": "a-data", "size": 2000, "type": "HDD"}],
    }
    assert prices.instance_deploy(body, boots_from_volume=False) == {
        "price_per_hour": 0.300883,
        "currency": "usd",
        "basis": [
            {"item": "instance 1V100.6V (spot)", "price_per_hour": 0.1365},
            {"item": "OS volume a-os NVMe 100 GB", "price_per_hour": 0.027397},
            {"item": "volume a-data HDD 2000 GB", "price_per_hour": 0.136986},
        ],
    }
    # booting from a kept OS volume creates none: it is charged already
    assert prices.instance_deploy(body, boots_from_volume=True)["price_per_hour"] == 0.273486


def test_a_long_term_deploy_is_charged_the_on_demand_price():
    cost_value = PriceBook(None, CATALOGS).instance_deploy(
        {"instance_type": "1V100.6V", "contract": "LONG_TERM", "os_volume": {"name": "os", "size": 50}}, False
    )
    assert cost_value["basis"][0] == {"item": "instance 1V100.6V (long-term, on-demand price)", "price_per_hour": 0.39}


def test_an_os_volume_the_api_sizes_is_named_but_not_priced():
    cost_value = PriceBook(None, CATALOGS).instance_deploy({"instance_type": "1V100.6V"}, False)
    assert cost_value["price_per_hour"] == 0.39
    assert cost_value["basis"][1]["price_per_hour"] is None
    assert describe_cost(cost_value).endswith("size chosen by the API (give os_volume to price it) not priced)")


def test_a_cluster_deploy_costs_the_cluster_and_its_shared_volume():
    cost_value = PriceBook(None, CATALOGS).cluster_deploy(
        {"cluster_type": "16H100", "shared_volume": {"name": "home", "size": 1000}}
    )
    assert cost_value["price_per_hour"] == 37.050959
    assert cost_value["basis"][1]["item"] == "shared volume home NVMe_Shared_Cluster 1000 GB"


def test_an_unknown_type_cannot_be_priced():
    with pytest.raises(ModuleFailure, match="cannot price the plan: instance type '9X100' is not in the catalog"):
        PriceBook(None, CATALOGS).instance_deploy({"instance_type": "9X100"}, False)


def test_the_cap():
    plan = cost([("instance 1V100.6V (on-demand)", 0.39)])
    assert over_cap(plan, None, "x") is None
    assert over_cap(plan, 0.39, "x") is None
    assert over_cap(plan, 0.38, "instance a") == (
        "instance a would cost 0.39 usd/h (instance 1V100.6V (on-demand) 0.39), over max_price_per_hour 0.38"
    )
    with pytest.raises(ModuleFailure, match="; nothing was changed") as refused:
        refuse_over_cap(plan, 0.1, "instance a")
    assert refused.value.result["deploy_cost"] == plan


@pytest.mark.parametrize("cap", [0, -1, -0.01])
def test_a_cap_must_be_a_positive_price(cap):
    with pytest.raises(ModuleFailure, match="must be a positive price per hour"):
        check_cap_option(cap)


def test_runway():
    assert runway_hours(100.0, 8.0) == 12.5
    assert runway_hours(100.0, 0) is None
    with pytest.raises(ModuleFailure, match="zero or more hours"):
        check_runway_option(-1)


def test_the_diff_carries_the_price_before_and_after():
    result = {"diff": {"before": {"id": "a"}, "after": {}}}
    with_cost(result, cost([]), cost([("instance", 1.5)]))
    assert result["diff"] == {"before": {"id": "a", "price_per_hour": 1.5}, "after": {}}
    assert result["cost"] == {"price_per_hour": 0, "currency": "usd", "basis": []}


@pytest.mark.parametrize(
    "value",
    [
        "nan",
        "NaN",
        float("nan"),
        "inf",
        "-inf",
        float("-inf"),
        "1e400",
        "-0.5",
        -1,
        "abc",
        "",
        None,
        [],
        {},
        True,
        "１２",
        "2.29 usd",
        "0x10",
    ],
)
def test_money_is_a_finite_price_of_zero_or_more_or_refused(value):
    with pytest.raises(UnreadableValue, match="the price is .*, not a finite price of zero or more"):
        money(value, "the price")


@pytest.mark.parametrize(
    "value, amount", [("2.29", 2.29), (2, 2.0), (0, 0.0), ("0.0", 0.0), (" 1e2 ", 100.0), (3.5, 3.5)]
)
def test_money_reads_numbers_and_the_catalogs_numeric_strings(value, amount):
    assert money(value, "the price") == amount


def test_a_balance_may_be_negative_but_not_nan():
    assert money(-0.03, "the balance", signed=True) == -0.03
    with pytest.raises(UnreadableValue, match="not a finite number"):
        money(float("nan"), "the balance", signed=True)


def test_an_unreadable_price_is_a_value_error_and_a_module_failure():
    """Modules fail with it; a plugin reading many records catches ValueError and skips one."""
    with pytest.raises(ValueError):
        money("nan", "x")
    with pytest.raises(ModuleFailure):
        money("nan", "x")


@pytest.mark.parametrize("price", ["NaN", "-2.29", "-inf", "inf"])
def test_a_catalog_price_that_is_no_price_cannot_be_priced(price):
    catalogs = {"/instance-types": [{"instance_type": "1V100.6V", "price_per_hour": price}], "/volume-types": []}
    with pytest.raises(ModuleFailure, match="cannot price the plan: the price_per_hour of 1V100.6V is"):
        PriceBook(None, catalogs).instance_deploy({"instance_type": "1V100.6V"}, True)
    with pytest.raises(ValueError):
        cluster_hourly_price([{"cluster_type": "16H100", "price_per_hour": price}], "16H100")
    with pytest.raises(ValueError):
        volume_hourly_price([{"type": "NVMe", "price": {"price_per_month_per_gb": price}}], "NVMe", 1)


def test_a_nan_total_is_over_every_cap():
    assert over_cap(cost([("instance", float("nan"))]), 0.5, "instance a")


@pytest.mark.parametrize("hours", [float("nan"), float("inf"), -1])
def test_a_runway_option_must_be_a_finite_number_of_hours(hours):
    with pytest.raises(ModuleFailure, match="zero or more hours"):
        check_runway_option(hours)


@pytest.mark.parametrize("cap", [float("nan"), float("inf")])
def test_a_cap_must_be_finite(cap):
    with pytest.raises(ModuleFailure, match="must be a positive price per hour"):
        check_cap_option(cap)


@pytest.mark.parametrize(
    "record, reason",
    [
        ({"id": "i-1", "status": "running", "price_per_hour": "NaN"}, "is 'NaN'"),
        ({"id": "i-1", "status": "running", "price_per_hour": None}, "is None"),
        (
            {"id": "i-1", "status": "running", "price_per_hour": 1, "location": {"code": "FIN-01"}},
            "location is an object, not a string",
        ),
        ({"id": "i-1", "status": "running", "price_per_hour": 1, "tags": "team=a"}, "tags are not a list"),
    ],
)
def test_a_charged_record_that_cannot_be_read_is_named(record, reason):
    with pytest.raises(ValueError, match=reason):
        CHARGED_KINDS["instance"].summary(record)
