"""Properties of what reads prices, balances and availability from API answers: the offers the
``offers`` lookup lists, the prices ``instance``/``cluster``/``volume`` cap and the runway they
check. A price is a finite, non-negative number or the deploy is refused with a clear reason:
a guardrail fails closed."""

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from strategies import HOSTILE_NUMBER, JSON, finite_non_negative

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost import (
    instance_hourly_price,
    over_cap,
    runway_hours,
    volume_hourly_price,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost_report import cost, reported_price
from ansible_collections.cloudcompute.cloud.plugins.module_utils._failure import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._offers import as_number, offers_from

# The collection's own errors: what a hostile answer may end in.
OWN_ERRORS = (ModuleFailure, ApiError)


@given(HOSTILE_NUMBER)
@example("nan")
def test_a_price_read_from_text_is_none_or_finite_and_non_negative(text):
    number = as_number(text)
    assert number is None or finite_non_negative(number)


@given(HOSTILE_NUMBER, st.booleans())
@example("nan", False)
def test_a_catalog_price_is_finite_and_non_negative_or_refused(price, spot):
    catalog = [{"instance_type": "1H100.80S.30V", "price_per_hour": price, "spot_price": price}]
    try:
        value = instance_hourly_price(catalog, "1H100.80S.30V", spot)
    except (KeyError, TypeError, ValueError, *OWN_ERRORS):  # PriceBook.price turns these into ModuleFailure
        return
    assert finite_non_negative(value)


@given(HOSTILE_NUMBER, st.integers(min_value=1, max_value=10**6))
@example("-inf", 100)
def test_a_volume_price_is_finite_and_non_negative_or_refused(per_gb, size):
    catalog = [{"type": "NVMe", "price": {"price_per_month_per_gb": per_gb}}]
    try:
        value = volume_hourly_price(catalog, "NVMe", size)
    except (KeyError, TypeError, ValueError, *OWN_ERRORS):
        return
    assert finite_non_negative(value)


@given(
    price=st.floats(allow_nan=True, allow_infinity=True),
    cap=st.floats(min_value=0.01, max_value=1000),
)
@example(price=math.nan, cap=0.5)
def test_the_price_cap_fails_closed(price, cap):
    """over_cap names a refusal unless the price is a real number within the cap."""
    refusal = over_cap({"price_per_hour": price, "currency": "usd", "basis": []}, cap, "the deploy")
    if finite_non_negative(price) and price <= cap:
        assert refusal is None
    else:
        assert refusal


@given(balance=st.floats(allow_nan=True, allow_infinity=True), rate=st.floats(min_value=0, max_value=1e6))
@example(balance=math.nan, rate=1.0)
def test_the_runway_is_known_or_refused(balance, rate):
    """None when nothing is charged, else a runway that is no NaN (a huge balance may last
    forever), of the balance's sign; a balance that is no finite number is refused."""
    try:
        runway = runway_hours(balance, rate)
    except OWN_ERRORS:
        assert not math.isfinite(balance)
        return
    assert runway is None or (not math.isnan(runway) and (runway >= 0) == (balance >= 0 or runway == 0))


@given(HOSTILE_NUMBER)
@example("abc")
def test_a_reported_price_is_finite_and_non_negative_or_refused(value):
    try:
        price = reported_price({"price_per_hour": value})
    except OWN_ERRORS:
        return
    assert finite_non_negative(price)


@given(st.lists(st.tuples(st.text(max_size=5), st.floats(min_value=0, max_value=1e6) | st.none()), max_size=5))
def test_a_cost_total_is_the_sum_of_the_known_parts(parts):
    total = cost(parts)["price_per_hour"]
    assert finite_non_negative(total)
    assert total == pytest.approx(sum(price for _what, price in parts if price is not None), abs=1e-5)


INSTANCE_TYPE = st.fixed_dictionaries(
    {
        "instance_type": st.text(max_size=8) | JSON,
        "price_per_hour": HOSTILE_NUMBER,
        "spot_price": HOSTILE_NUMBER,
        "gpu": JSON,
        "gpu_memory": JSON,
        "cpu": JSON,
        "memory": JSON,
    }
)
# The client hands offers_from lists of objects (get_list refuses any other answer): within them,
# anything.
ANY_OBJECT = st.dictionaries(st.text(max_size=5), JSON, max_size=3)
AVAILABILITY = st.lists(st.fixed_dictionaries({"location_code": JSON, "availabilities": JSON}) | ANY_OBJECT, max_size=3)


@settings(deadline=None)
@given(
    catalog=st.lists(INSTANCE_TYPE | ANY_OBJECT, max_size=3), availability=st.dictionaries(st.booleans(), AVAILABILITY)
)
@example(
    catalog=[{"instance_type": "1A100.22V", "price_per_hour": "0.5"}],
    availability={False: [{"location_code": "FIN-01", "availabilities": "X1A100.22VX"}]},
)
@example(
    catalog=[{"instance_type": "1A100.22V", "price_per_hour": "nan"}],
    availability={False: [{"location_code": "FIN-01", "availabilities": []}]},
)
@example(catalog=[{"instance_type": "1A100.22V", "gpu": "eight"}], availability={})
def test_offers_are_well_formed_or_refused_clearly(catalog, availability):
    try:
        offers = offers_from(catalog, availability)
    except OWN_ERRORS:
        return
    for offer in offers:
        assert finite_non_negative(offer["price_per_hour"])
        assert isinstance(offer["gpus"], int) and offer["gpus"] >= 0
        assert isinstance(offer["available"], bool)
        entries = [entry for entry in availability.get(offer["spot"], []) if isinstance(entry, dict)]
        listed = [
            entry.get("availabilities") for entry in entries if entry.get("location_code") == offer["location_code"]
        ]
        if offer["available"]:
            assert any(isinstance(names, list) and offer["instance_type"] in names for names in listed)
