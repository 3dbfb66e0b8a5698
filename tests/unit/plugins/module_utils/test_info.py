"""The local filters of the info modules (pure functions: no emulator needed)."""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import (
    RESOURCE_FILTERS,
    Filter,
    apply_filters,
    at_least,
    at_most,
    carries_tags,
    contains_text,
    equals_any_case,
    exactly,
    field_value,
    filter_options,
    includes,
    set_only,
)

TYPES = [
    {
        "instance_type": "1H100.80S.30V",
        "model": "H100",
        "gpu": {"number_of_gpus": 1},
        "price_per_hour": "2.29",
        "supported_os": ["ubuntu-24.04"],
        "is_spot": False,
    },
    {
        "instance_type": "8H100.80S.176V",
        "model": "H100",
        "gpu": {"number_of_gpus": 8},
        "price_per_hour": "18.32",
        "supported_os": ["ubuntu-22.04"],
        "is_spot": True,
    },
    {
        "instance_type": "CPU.4V.16G",
        "model": "CPU Node",
        "gpu": {"number_of_gpus": 0},
        "price_per_hour": "0.1196",
        "supported_os": ["ubuntu-24.04"],
    },
]


def codes(items):
    return [item["instance_type"] for item in items]


INSTANCES = [
    {
        "id": "i-1",
        "hostname": "web-1",
        "status": "running",
        "location": "FIN-01",
        "instance_type": "CPU.4V.16G",
        "tags": [{"id": "t1", "key": "team", "value": "Vision"}, {"id": "t2", "key": "batch", "value": ""}],
    },
    {
        "id": "i-2",
        "hostname": "Web-1",
        "status": "offline",
        "location": "FIN-02",
        "instance_type": "1H100.80S.30V",
        "tags": [],
    },
]


def ids(items):
    return [item["id"] for item in items]


def test_field_values_are_found_by_dotted_path():
    assert field_value(TYPES[1], "gpu.number_of_gpus") == 8
    assert field_value(TYPES[1], "gpu.missing") is None
    assert field_value(TYPES[1], "model.deeper") is None
    assert field_value(TYPES[1], None) is TYPES[1]


def test_codes_match_whatever_their_case_one_value_or_a_list():
    assert equals_any_case("H100", ["h100", "a100"])
    assert equals_any_case("FIN-01", "fin-01")
    assert not equals_any_case("H100", ["H200"])
    assert not equals_any_case(None, ["h100"]) and not equals_any_case(None, "h100")
    assert equals_any_case(False, False) and not equals_any_case(None, False)
    assert includes(["ubuntu-24.04"], "UBUNTU-24.04")
    assert not includes("ubuntu-24.04", "ubuntu-24.04")  # a string is not a list of values


def test_names_and_statuses_match_exactly():
    assert exactly("web-1", "web-1") and not exactly("Web-1", "web-1")
    assert not exactly(None, "web-1")
    assert contains_text("cuda-setup", "cuda") and not contains_text("CUDA-setup", "cuda")
    assert not contains_text(None, "cuda")


def test_tags_match_by_key_whatever_its_case_and_by_value_exactly():
    tags = INSTANCES[0]["tags"]
    assert carries_tags(tags, {"TEAM": "Vision", "batch": ""})
    assert carries_tags(tags, {"team": None})  # the key with any value
    assert not carries_tags(tags, {"team": "vision"})
    assert not carries_tags(tags, {"batch": "x"})
    assert not carries_tags(None, {"team": None})


def test_numeric_strings_compare_as_numbers():
    assert at_most("2.29", 10) and not at_most("18.32", 10)  # as text, "18.32" < "10" would be wrong
    assert at_least(8, 4) and not at_least("not a price", 0)


def test_filters_combine_with_and_and_unset_options_keep_everything():
    filters = (
        Filter("gpu_model", "model"),
        Filter("min_gpus", "gpu.number_of_gpus", at_least),
        Filter("max_price", "price_per_hour", at_most),
        Filter("image", "supported_os", includes),
        Filter("spot", "is_spot", exactly),
    )
    assert codes(apply_filters(TYPES, filters, {})) == codes(TYPES)
    assert codes(apply_filters(TYPES, filters, {"gpu_model": []})) == codes(TYPES)
    assert codes(apply_filters(TYPES, filters, {"gpu_model": ["h100"], "min_gpus": 2})) == ["8H100.80S.176V"]
    assert codes(apply_filters(TYPES, filters, {"max_price": 3, "image": "ubuntu-24.04"})) == [
        "1H100.80S.30V",
        "CPU.4V.16G",
    ]
    assert codes(apply_filters(TYPES, filters, {"spot": False})) == ["1H100.80S.30V"]


def test_unset_query_values_are_left_out():
    assert set_only({"currency": "eur", "instance_type": None, "is_spot": False}) == {
        "currency": "eur",
        "is_spot": False,
    }
    assert set_only(None) == {}


def test_the_resource_filters_follow_one_rule_and_skip_options_a_module_does_not_have():
    assert ids(apply_filters(INSTANCES, RESOURCE_FILTERS, {})) == ["i-1", "i-2"]
    assert ids(apply_filters(INSTANCES, RESOURCE_FILTERS, {"hostname": "web-1"})) == ["i-1"]
    assert ids(apply_filters(INSTANCES, RESOURCE_FILTERS, {"status": "Running"})) == []
    assert ids(apply_filters(INSTANCES, RESOURCE_FILTERS, {"location_code": "fin-02"})) == ["i-2"]
    assert ids(apply_filters(INSTANCES, RESOURCE_FILTERS, {"instance_type": "1h100.80s.30v"})) == ["i-2"]
    assert ids(apply_filters(INSTANCES, RESOURCE_FILTERS, {"tags": {"team": "Vision"}, "status": "running"})) == ["i-1"]
    assert ids(apply_filters(INSTANCES, RESOURCE_FILTERS, {"tags": {}, "name": None})) == ["i-1", "i-2"]


def test_a_filter_on_the_whole_item():
    visible = Filter("include_trash", None, lambda item, include: include or item["status"] != "deleted")
    items = [{"id": "a", "status": "detached"}, {"id": "b", "status": "deleted"}]
    assert ids(apply_filters(items, [visible], {"include_trash": False})) == ["a"]
    assert ids(apply_filters(items, [visible], {"include_trash": True})) == ["a", "b"]


def test_the_options_of_a_module_come_from_the_filters_that_declare_them():
    filters = RESOURCE_FILTERS + (Filter("shared_fs", "is_shared_fs", exactly, type="bool"),)
    # the resource filters declare no spec: a module that has one of their options declares it itself
    assert filter_options(filters, id=dict(type="str")) == {"shared_fs": {"type": "bool"}, "id": {"type": "str"}}
