"""Properties of what reads times and durations from tags, options and events: the ``expires-at``
tag, ``expires_in`` durations, the ``expired`` filter, the audit log's event times. For any text
the result is an aware UTC time within sane bounds (or a finite duration), or the collection's
own error with a clear message; never a Python error, and never a resource left out of the
report without a reason."""

import math
from datetime import datetime, timedelta, timezone

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import example, given, settings
from hypothesis import strategies as st
from strategies import JSON, TIMESTAMPISH, finite_non_negative

from ansible_collections.cloudcompute.cloud.plugins.filter.expired import expired
from ansible_collections.cloudcompute.cloud.plugins.module_utils._expiry import (
    EXPIRY_TAG,
    expiry_tag_value,
    parse_duration,
    parse_timestamp,
    sort_by_expiry,
)

NOW = datetime(2026, 11, 24, 12, 0, 0, tzinfo=timezone.utc)
EARLIEST = datetime(1, 1, 1, tzinfo=timezone.utc)


@settings(deadline=None)
@given(TIMESTAMPISH)
@example("9999-12-31T23:59:59-23:59")
def test_a_timestamp_is_an_aware_utc_time_or_a_value_error(text):
    try:
        moment = parse_timestamp(text)
    except ValueError as error:
        assert "ISO 8601" in str(error)
        return
    assert moment.tzinfo is not None and moment.utcoffset() == timedelta(0)
    assert EARLIEST <= moment


@settings(deadline=None)
@given(TIMESTAMPISH)
@example("２０２６-11-24T18:00:00Z")
@example("2026-11-24T18:00:00+99:99")
def test_only_ascii_timestamps_with_real_offsets_are_accepted(text):
    try:
        parse_timestamp(text)
    except (ValueError, OverflowError):
        return
    assert text.isascii()
    offset = text.strip()[19:].lstrip(".,0123456789")
    if offset[:1] in ("+", "-"):
        digits = offset[1:].replace(":", "")
        assert int(digits[:2]) <= 23 and int(digits[2:] or 0) <= 59


@given(st.one_of(st.text(max_size=20), st.text("0123456789.smhdwSMHDW ", max_size=20)))
def test_a_duration_is_finite_seconds_or_a_value_error(text):
    try:
        seconds = parse_duration(text)
    except ValueError as error:
        assert "not a duration" in str(error)
        return
    assert math.isfinite(seconds) and seconds >= 0


@settings(deadline=None)
@given(st.integers(min_value=0, max_value=10**12).map(lambda number: f"{number}w"))
@example("999999999w")
def test_an_expiry_tag_value_is_a_timestamp_or_a_value_error(duration):
    try:
        value = expiry_tag_value(expires_in=duration, now=NOW)
    except ValueError:
        return
    assert parse_timestamp(value) >= NOW


def tagged(value, as_dict=False):
    tags = {EXPIRY_TAG: value} if as_dict else [{"key": EXPIRY_TAG, "value": value}]
    return {"id": "r1", "hostname": "h", "price_per_hour": 1.0, "status": "running", "tags": tags}


@settings(deadline=None)
@given(st.lists(TIMESTAMPISH, max_size=5))
@example(["9999-12-31T23:59:59-23:59", "2020-01-01T00:00:00Z"])
def test_every_tagged_resource_is_expired_unreadable_or_kept_and_the_run_goes_on(values):
    resources = [dict(tagged(value), id=f"r{index}") for index, value in enumerate(values)]
    found, unreadable = sort_by_expiry(resources, NOW)
    assert {item["id"] for item in found}.isdisjoint(item["id"] for item in unreadable)
    for item in unreadable:
        assert item["reason"]


@settings(deadline=None)
@given(
    price=st.one_of(st.floats(), st.text(max_size=5), st.none()),
    tag=TIMESTAMPISH,
    as_dict=st.booleans(),
    kind=st.sampled_from(["instance", "cluster", "volume"]),
)
@example(price="abc", tag="2020-01-01T00:00:00Z", as_dict=False, kind="instance")
@example(price=1.0, tag="2020-01-01T00:00:00Z", as_dict=True, kind="instance")
def test_the_expired_filter_reports_or_refuses_clearly(price, tag, as_dict, kind):
    record = dict(tagged(tag, as_dict), price_per_hour=price, base_hourly_cost=price)
    try:
        result = expired([record], kind, now="2026-11-24T12:00:00Z")
    except AnsibleFilterError as error:
        assert str(error).startswith("expired")
        return
    for item in result["expired"]:  # a saving reported is a real amount
        assert isinstance(item["price_per_hour"], float) and math.isfinite(item["price_per_hour"])
        assert item["price_per_hour"] >= 0
    for item in result["unreadable"]:  # an unreadable price is told, never guessed
        assert item["reason"]
        assert item["price_per_hour"] is None or finite_non_negative(item["price_per_hour"])


@given(st.one_of(JSON, st.lists(JSON, max_size=3)))
def test_the_expired_filter_refuses_what_is_not_a_list_of_resources(resources):
    if isinstance(resources, list) and all(isinstance(item, dict) for item in resources):
        return
    with pytest.raises(AnsibleFilterError, match="expired expects a list"):
        expired(resources, "instance")
