from datetime import datetime, timezone

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._expiry import (
    expiry_tag_value,
    format_timestamp,
    parse_duration,
    parse_timestamp,
    sort_by_expiry,
)

NOW = datetime(2026, 11, 24, 12, 0, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("90m", 5400),
        ("8h", 28800),
        ("3d", 259200),
        ("1w", 604800),
        ("30s", 30),
        ("1h30m", 5400),
        (" 2H ", 7200),
        ("1.5h", 5400),
        ("0s", 0),
    ],
)
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["5 parsecs", "", "h", "10", "-5m", "1y", "8 hours", "1h-30m"])
def test_not_durations(text):
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-11-24T18:00:00Z", "2026-11-24T18:00:00Z"),
        ("2026-11-24T18:00:00.123Z", "2026-11-24T18:00:00Z"),
        ("2026-11-24T18:00:00.123456789Z", "2026-11-24T18:00:00Z"),
        ("2026-11-24T19:30:00+01:30", "2026-11-24T18:00:00Z"),
        ("2026-11-24T12:00:00-0600", "2026-11-24T18:00:00Z"),
        ("2026-11-24T18:00:00", "2026-11-24T18:00:00Z"),
        ("2026-11-24 18:00", "2026-11-24T18:00:00Z"),
        ("2026-11-25", "2026-11-25T00:00:00Z"),
    ],
)
def test_timestamps(text, expected):
    assert format_timestamp(parse_timestamp(text)) == expected


@pytest.mark.parametrize("text", ["tomorrow", "2026-13-01", "2026-11-24T25:00:00Z", "24/11/2026", "{{ now() }}"])
def test_not_timestamps(text):
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_timestamp(text)


def test_expiry_tag_value():
    assert expiry_tag_value(expires_in="90m", now=NOW) == "2026-11-24T13:30:00Z"
    assert expiry_tag_value(expires_at="2026-11-24T19:00:00+01:00") == "2026-11-24T18:00:00Z"
    assert expiry_tag_value() is None


def tagged(name, value=None):
    tags = [] if value is None else [{"id": "t-" + name, "key": "expires-at", "value": value}]
    return {"id": name, "name": name, "tags": tags + [{"id": "x", "key": "team", "value": "ml"}]}


def test_sort_by_expiry():
    resources = [
        tagged("past", "2026-11-24T11:00:00Z"),
        tagged("exactly-now", "2026-11-24T12:00:00Z"),
        tagged("future", "2026-11-24T13:00:00Z"),
        tagged("untagged"),
        tagged("garbled", "soon"),
        {"id": "dict-tags", "tags": {"expires-at": "2026-11-01"}},
    ]
    expired, unreadable = sort_by_expiry(resources, NOW)
    assert [item["id"] for item in expired] == ["past", "exactly-now", "dict-tags"]
    assert expired[2]["expires_at"] == "2026-11-01T00:00:00Z"
    assert [(item["id"], item["expires_at"]) for item in unreadable] == [("garbled", "soon")]
    assert "ISO 8601" in unreadable[0]["reason"]


def test_grace_keeps_recent_expiries():
    expired, _unreadable = sort_by_expiry([tagged("past", "2026-11-24T11:00:00Z")], NOW, grace_seconds=7200)
    assert expired == []


@pytest.mark.parametrize(
    "text",
    [
        "２０２６-11-24T18:00:00Z",  # full-width digits
        "2026-11-24T18:00:00+99:99",
        "2026-11-24T18:00:00+24:00",
        "2026-11-24T18:00:00-05:60",
        "2026-11-24T18:00:00.१२३Z",  # Devanagari digits in the fraction
    ],
)
def test_only_ascii_digits_and_real_offsets(text):
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_timestamp(text)


@pytest.mark.parametrize("text", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59"])
def test_timestamps_out_of_range_are_not_timestamps(text):
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_timestamp(text)


@pytest.mark.parametrize("text", ["９０m", "1٥h"])
def test_durations_take_ascii_digits_only(text):
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)


def test_a_duration_past_the_calendar_is_refused():
    with pytest.raises(ValueError, match="too far"):
        expiry_tag_value(expires_in="99999999999w", now=NOW)


def test_one_tag_out_of_range_skips_that_resource_only():
    resources = [tagged("overflow", "9999-12-31T23:59:59-23:59"), tagged("past", "2026-11-24T11:00:00Z")]
    expired, unreadable = sort_by_expiry(resources, NOW)
    assert [item["id"] for item in expired] == ["past"]
    assert [item["id"] for item in unreadable] == ["overflow"]


def test_a_grace_past_the_calendar_expires_nothing():
    expired, unreadable = sort_by_expiry([tagged("past", "2026-11-24T11:00:00Z")], NOW, grace_seconds=1e15)
    assert (expired, unreadable) == ([], [])


@pytest.mark.parametrize(
    "tags",
    [
        {"Expires-At": "2026-11-24T11:00:00Z"},
        [{"key": "Expires-At", "value": "2026-11-24T11:00:00Z"}],
        {" expires-at ": "2026-11-24T11:00:00Z"},
        [{"key": " EXPIRES-AT", "value": "2026-11-24T11:00:00Z"}],
    ],
)
def test_tag_keys_match_whatever_their_case_in_both_forms(tags):
    expired, _unreadable = sort_by_expiry([{"id": "a", "tags": tags}], NOW)
    assert [item["id"] for item in expired] == ["a"]


def test_two_expiry_tags_that_disagree_are_unreadable():
    tags = {"expires-at": "2026-11-24T11:00:00Z", "Expires-At": "2030-01-01"}
    expired, unreadable = sort_by_expiry([{"id": "a", "tags": tags}], NOW)
    assert expired == []
    assert "twice" in unreadable[0]["reason"]
