"""The local filters of the info modules (pure functions: no emulator needed)."""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import (
    Filter,
    apply_filters,
    at_least,
    at_most,
    equals,
    field_value,
    includes,
    one_of,
    set_only,
)

TYPES = [
    {"instance_type": "1H100.80S.30V", "model": "H100", "gpu": {"number_of_gpus": 1}, "price_per_hour": "2.29",
     "supported_os": ["ubuntu-24.04"], "is_spot": False},
    {"instance_type": "8H100.80S.176V", "model": "H100", "gpu": {"number_of_gpus": 8}, "price_per_hour": "18.32",
     "supported_os": ["ubuntu-22.04"], "is_spot": True},
    {"instance_type": "CPU.4V.16G", "model": "CPU Node", "gpu": {"number_of_gpus": 0}, "price_per_hour": "0.1196",
     "supported_os": ["ubuntu-24.04"]},
]


def codes(items):
    return [item["instance_type"] for item in items]


def test_field_values_are_found_by_dotted_path():
    assert field_value(TYPES[1], "gpu.number_of_gpus") == 8
    assert field_value(TYPES[1], "gpu.missing") is None
    assert field_value(TYPES[1], "model.deeper") is None


def test_text_matches_case_insensitively_and_other_values_exactly():
    assert one_of("H100", ["h100", "a100"])
    assert not one_of("H100", ["H200"])
    assert not one_of(None, ["h100"])
    assert equals(False, False) and not equals(None, False)
    assert includes(["ubuntu-24.04"], "UBUNTU-24.04")
    assert not includes("ubuntu-24.04", "ubuntu-24.04")  # a string is not a list of values


def test_numeric_strings_compare_as_numbers():
    assert at_most("2.29", 10) and not at_most("18.32", 10)  # as text, "18.32" < "10" would be wrong
    assert at_least(8, 4) and not at_least("not a price", 0)


def test_filters_combine_with_and_and_unset_options_keep_everything():
    filters = (Filter("gpu_model", "model"), Filter("min_gpus", "gpu.number_of_gpus", at_least),
               Filter("max_price", "price_per_hour", at_most), Filter("image", "supported_os", includes),
               Filter("spot", "is_spot", equals))
    assert codes(apply_filters(TYPES, filters, {})) == codes(TYPES)
    assert codes(apply_filters(TYPES, filters, {"gpu_model": []})) == codes(TYPES)
    assert codes(apply_filters(TYPES, filters, {"gpu_model": ["h100"], "min_gpus": 2})) == ["8H100.80S.176V"]
    assert codes(apply_filters(TYPES, filters, {"max_price": 3, "image": "ubuntu-24.04"})) == ["1H100.80S.30V", "CPU.4V.16G"]
    assert codes(apply_filters(TYPES, filters, {"spot": False})) == ["1H100.80S.30V"]


def test_unset_query_values_are_left_out():
    assert set_only({"currency": "eur", "instance_type": None, "is_spot": False}) == {"currency": "eur", "is_spot": False}
    assert set_only(None) == {}
