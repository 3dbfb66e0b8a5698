"""The tags a module asks a resource to carry, with the expiry options (pure: no emulator)."""

import re

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import (
    current_tags,
    desired_tags,
    shown_tags,
    tag_changes,
)

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def options(**values):
    return dict(dict(tags=None, expires_in=None, expires_at=None), **values)


def resource(**tags):
    return {"id": "r", "tags": [{"id": "t-" + key, "key": key, "value": value} for key, value in tags.items()]}


def test_without_expiry_the_tags_are_the_tags_option():
    assert desired_tags(options()) is None
    assert desired_tags(options(tags={"Team": "ml", "gpu": None})) == {"team": "ml", "gpu": ""}


def test_expires_at_is_normalised_and_added_to_the_tags():
    wanted = desired_tags(options(tags={"team": "ml"}, expires_at="2026-12-24T19:00:00+01:00"))
    assert wanted == {"team": "ml", "expires-at": "2026-12-24T18:00:00Z"}


def test_expires_in_counts_from_the_run_that_sets_it():
    fresh = desired_tags(options(expires_in="8h"))
    assert TIMESTAMP.match(fresh["expires-at"])
    tagged = resource(team="ml", **{"expires-at": "2026-11-24T20:00:00Z"})
    assert desired_tags(options(expires_in="8h"), tagged) == {"team": "ml", "expires-at": "2026-11-24T20:00:00Z"}
    assert tag_changes(tagged, desired_tags(options(expires_in="8h"), tagged), purge=True) == ({}, [])


def test_expiry_alone_keeps_the_other_tags():
    tagged = resource(team="ml", owner="alice")
    to_add, to_remove = tag_changes(tagged, desired_tags(options(expires_at="2026-12-01"), tagged), purge=True)
    assert to_add == {"expires-at": "2026-12-01T00:00:00Z"}
    assert to_remove == []


@pytest.mark.parametrize(
    "values, message",
    [
        (dict(expires_in="5 parsecs"), "expires_in: '5 parsecs' is not a duration"),
        (dict(expires_at="next week"), "expires_at: 'next week' is not an ISO 8601"),
        (dict(expires_in="1h", expires_at="2026-12-01"), "mutually exclusive"),
        (dict(tags={"expires-at": "2026-12-01"}, expires_in="1h"), "given twice"),
        (dict(tags=dict(("k%d" % number, "") for number in range(10)), expires_in="1h"), "at most 10 tags"),
    ],
)
def test_refused_before_any_call(values, message):
    with pytest.raises(ModuleFailure, match=message):
        desired_tags(options(**values))


@pytest.mark.parametrize("tags", ["team=a", 0, False, "", 3.5])
def test_tags_that_are_neither_a_list_nor_a_dict_are_unreadable_not_absent(tags):
    with pytest.raises(TypeError, match="neither a list nor a dict"):
        current_tags({"id": "i-1", "tags": tags})


def test_tags_in_either_form_and_none_read_alike():
    assert current_tags({"tags": [{"id": "t1", "key": "Team", "value": "a"}, {"key": "x"}]}) == {"team": "a", "x": ""}
    assert current_tags({"tags": {"Team": "a", "x": None}}) == {"team": "a", "x": ""}
    assert current_tags({"tags": None}) == current_tags({}) == {}


def test_results_show_tags_as_a_dict_and_their_ids_apart():
    record = {"id": "i-1", "tags": [{"id": "t-1", "key": "Team", "value": "ml"}, {"id": "t-2", "key": "pinned"}]}
    assert shown_tags(record) == {
        "id": "i-1",
        "tags": {"team": "ml", "pinned": ""},
        "tag_ids": {"team": "t-1", "pinned": "t-2"},
    }
    assert record["tags"][0]["key"] == "Team"  # the record itself is left as it was


@pytest.mark.parametrize("tags", [None, "team=ml", {"team": "ml"}])
def test_a_record_without_the_apis_tag_list_is_shown_as_it_is(tags):
    record = {"id": "i-1", "tags": tags}
    assert shown_tags(record) is record


def test_an_entry_that_is_no_tag_is_left_out():
    record = {"tags": ["team", {"value": "x"}, {"id": "t-1", "key": "team", "value": "ml"}]}
    assert shown_tags(record) == {"tags": {"team": "ml"}, "tag_ids": {"team": "t-1"}}
