"""The price cap and the runway guard fail closed (issue 31): a catalog price or a balance that is
not a finite amount (NaN, infinity, a negative price, text) refuses the deploy, naming what it
read, before any write; with a placement, on every candidate. Against a scripted API (JSON as
Python writes it: ``NaN`` and ``Infinity`` are what a hostile server may send)."""

import pytest
import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.instance import main

DEPLOY = dict(
    hostname="gpu-1",
    instance_type="1H100.80S.30V",
    image="ubuntu-24.04",
    location_code="FIN-01",
    os_volume=dict(name="os", size=100),
)
VOLUME_TYPES = [{"type": "NVMe", "price": {"price_per_month_per_gb": 0.2}}]


def catalog(price):
    return [{"instance_type": "1H100.80S.30V", "price_per_hour": price, "spot_price": "0.99"}]


def writes(api):
    return [(method, path) for method, path in api.sent if method != "GET"]


@pytest.mark.parametrize("price", ["NaN", float("nan"), "-2.29", -2.29, "-inf", float("-inf"), "abc", None, "１２"])
@pytest.mark.parametrize("check_mode", [False, True], ids=["run", "check"])
def test_a_price_that_is_no_price_refuses_a_capped_deploy(api, run_module, price, check_mode):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-types", json=catalog(price))
    api.answer(responses.GET, "/volume-types", json=VOLUME_TYPES)
    api.answer(responses.POST, "/instances", json="new-id", status=202)
    result = run_module(main, dict(DEPLOY, max_price_per_hour=0.5), check_mode=check_mode)
    assert result.get("failed") is True, result
    assert "cannot price the plan: the price_per_hour of 1H100.80S.30V is" in result["msg"], result
    assert "not a finite price of zero or more; nothing was changed" in result["msg"], result
    assert writes(api) == []


@pytest.mark.parametrize("placement", [dict(strategy="in_order"), dict(strategy="cheapest")])
def test_with_a_placement_a_candidate_without_a_price_is_never_deployed_under_a_cap(api, run_module, placement):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(
        responses.GET,
        "/instance-types",
        json=catalog("NaN") + [{"instance_type": "1V100.6V", "price_per_hour": "0.39", "spot_price": "0.14"}],
    )
    api.answer(responses.GET, "/volume-types", json=VOLUME_TYPES)
    api.answer(
        responses.GET,
        "/instance-availability",
        json=[{"location_code": "FIN-01", "availabilities": ["1H100.80S.30V", "1V100.6V"]}],
    )
    deploy = {key: value for key, value in DEPLOY.items() if key not in ("instance_type", "location_code")}
    result = run_module(
        main,
        dict(
            deploy,
            max_price_per_hour=0.5,
            placement=dict(placement, locations=["FIN-01"], instance_types=["1H100.80S.30V", "1V100.6V"]),
        ),
    )
    assert result.get("failed") is True, result
    assert "the price_per_hour of 1H100.80S.30V is 'NaN'" in result["msg"], result
    assert writes(api) == []


@pytest.mark.parametrize("amount", [float("nan"), "NaN", float("inf"), "abc", None, [1]])
def test_a_balance_that_is_no_number_refuses_a_deploy_with_min_balance_hours(api, run_module, amount):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-types", json=catalog("2.29"))
    api.answer(responses.GET, "/volume-types", json=VOLUME_TYPES)
    for path in ("/clusters", "/volumes", "/volumes/trash"):
        api.answer(responses.GET, path, json=[])
    api.answer(responses.GET, "/balance", json={"amount": amount, "currency": "usd"})
    api.answer(responses.POST, "/instances", json="new-id", status=202)
    result = run_module(main, dict(DEPLOY, min_balance_hours=10))
    assert result.get("failed") is True, result
    assert "the balance amount GET /balance answered is" in result["msg"], result
    assert "not a finite number" in result["msg"], result
    assert writes(api) == []


def test_a_charged_resource_without_a_readable_price_refuses_a_deploy_with_min_balance_hours(api, run_module):
    """The project's burn cannot be known: the guard refuses rather than count the resource as free."""
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-types", json=catalog("2.29"))
    api.answer(responses.GET, "/volume-types", json=VOLUME_TYPES)
    api.answer(
        responses.GET,
        "/clusters",
        json=[{"id": "c-1", "hostname": "hpc", "status": "running", "price_per_hour": "NaN"}],
    )
    for path in ("/volumes", "/volumes/trash"):
        api.answer(responses.GET, path, json=[])
    api.answer(responses.GET, "/balance", json={"amount": 1000000, "currency": "usd"})
    result = run_module(main, dict(DEPLOY, min_balance_hours=10))
    assert result.get("failed") is True, result
    assert "cannot tell the runway min_balance_hours asks for" in result["msg"], result
    assert result["unreadable"] == [{"kind": "cluster", "id": "c-1", "reason": result["unreadable"][0]["reason"]}]
    assert "is 'NaN'" in result["unreadable"][0]["reason"]
    assert writes(api) == []


@pytest.mark.parametrize("option, value", [("max_price_per_hour", float("inf")), ("min_balance_hours", float("nan"))])
def test_a_cap_or_runway_that_is_no_finite_number_is_refused_before_any_request(api, run_module, option, value):
    result = run_module(main, dict(DEPLOY, **{option: value}))
    assert result.get("failed") is True and option in result["msg"], result
    assert api.sent == []
