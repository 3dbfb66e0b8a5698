"""The resource helpers that need no API: references by name or id, tag filters."""

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import References, refuse_differences
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import (
    matches_tag_filter,
    normalize_tag_filter,
    normalize_tags,
    tag_filter_query,
    tags_to_remove,
)

WEB_ID = "11111111-1111-4111-8111-111111111111"
DB_ID = "22222222-2222-4222-8222-222222222222"
TWIN_ID = "33333333-3333-4333-8333-333333333333"


class Lister:
    """A list_all that counts its calls."""

    def __init__(self, records):
        self.records = records
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return self.records


def test_known_records_answer_without_a_call():
    lister = Lister([])
    references = References("instance", lister, name_field="hostname", known=[{"id": WEB_ID, "hostname": "web"}])
    assert references.record("web")["id"] == WEB_ID
    assert references.record(WEB_ID)["hostname"] == "web"
    assert lister.calls == 0


def test_ids_pass_through_and_names_cost_one_list_at_most():
    lister = Lister([{"id": WEB_ID, "name": "web"}, {"id": DB_ID, "name": "db"}])
    references = References("SSH key", lister)
    assert references.ids([TWIN_ID]) == [TWIN_ID]
    assert lister.calls == 0
    assert references.ids(["web", "db", "web", DB_ID]) == [WEB_ID, DB_ID]
    assert lister.calls == 1


def test_a_missing_name_fails_naming_it_and_the_scope():
    references = References("volume", Lister([]), scope=" in FIN-01")
    with pytest.raises(ModuleFailure) as failure:
        references.id("data")
    assert failure.value.msg == "volume 'data' not found in FIN-01"


def test_an_ambiguous_name_needs_the_id():
    references = References("volume", Lister([{"id": WEB_ID, "name": "data"}, {"id": TWIN_ID, "name": "data"}]))
    with pytest.raises(ModuleFailure) as failure:
        references.id("data")
    assert WEB_ID in failure.value.msg and TWIN_ID in failure.value.msg


def test_tag_filters_match_keys_any_value_or_exact_values():
    tag_filter = normalize_tag_filter({"Env": "prod", "gpu": None, "pinned": ""})
    assert tag_filter == [("env", "prod"), ("gpu", None), ("pinned", "")]
    assert tag_filter_query(tag_filter) == ["env=prod", "gpu", "pinned="]
    resource = {
        "tags": [{"key": "env", "value": "prod"}, {"key": "gpu", "value": "h100"}, {"key": "pinned", "value": ""}]
    }
    assert matches_tag_filter(resource, tag_filter)
    assert not matches_tag_filter(resource, normalize_tag_filter({"env": "dev"}))
    assert not matches_tag_filter(resource, normalize_tag_filter({"gpu": ""}))
    assert matches_tag_filter({"tags": []}, [])


def test_tags_are_normalized_from_a_dict_or_a_list_of_pairs():
    assert normalize_tags({"Team": "ml", "GPU": None}) == {"team": "ml", "gpu": ""}
    assert normalize_tags([{"key": "Team", "value": "ml"}, {"key": "gpu"}]) == {"team": "ml", "gpu": ""}
    assert normalize_tags([{"key": "team", "value": 7}, {"key": "TEAM", "value": "7"}]) == {"team": "7"}
    for bad, message in (
        ("team=ml", "must be a dictionary"),
        ([{"value": "x"}], "must be a dict with a key"),
        ({"team": "a", "Team": "b"}, "given twice"),
        ({" ": "x"}, "must not be empty"),
        (dict(("k%d" % number, "") for number in range(11)), "at most 10 tags"),
    ):
        with pytest.raises(ModuleFailure) as failure:
            normalize_tags(bad)
        assert message in failure.value.msg


def test_tags_to_remove_by_key_or_by_key_and_value():
    resource = {
        "tags": [
            {"id": "1", "key": "team", "value": "ml"},
            {"id": "2", "key": "pinned", "value": ""},
            {"id": "3", "key": "owner", "value": "alice"},
        ]
    }
    selection = normalize_tags({"Team": None, "pinned": "", "owner": "bob", "absent": None}, any_value=True)
    assert selection == {"team": None, "pinned": "", "owner": "bob", "absent": None}
    assert [tag["id"] for tag in tags_to_remove(resource, selection)] == ["1", "2"]


def test_only_given_options_that_differ_are_refused_and_all_are_named():
    refuse_differences("thing t1", {"size": (None, 10), "type": ("HDD", "HDD")}, "advice")
    with pytest.raises(ModuleFailure) as failure:
        refuse_differences(
            "thing t1",
            {"type": ("HDD", "NVMe"), "location_code": ("FIN-02", "FIN-01"), "size": (None, 1)},
            "make a new one.",
        )
    assert failure.value.msg == "cannot change location_code, type of existing thing t1: make a new one."
    assert failure.value.result["immutable"] == {
        "type": {"desired": "HDD", "current": "NVMe"},
        "location_code": {"desired": "FIN-02", "current": "FIN-01"},
    }
