"""Properties of what reads tags and inventory data from the API: tags in either of their forms,
tag filters, and the inventory plugin's checks of the records it turns into hosts (ids, addresses,
group names). For any input: the documented shape, or the collection's own error."""

import ipaddress

from ansible.errors import AnsibleParserError
from hypothesis import given
from hypothesis import strategies as st
from strategies import JSON

from ansible_collections.cloudcompute.cloud.plugins.inventory import cloudcompute
from ansible_collections.cloudcompute.cloud.plugins.module_utils import _ssh
from ansible_collections.cloudcompute.cloud.plugins.module_utils._failure import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import (
    MAX_KEY_LENGTH,
    MAX_TAGS,
    MAX_VALUE_LENGTH,
    matches_tag_filter,
    normalize_tag_filter,
    normalize_tags,
)

TAG_KEY = st.text(max_size=12) | st.integers()
TAGS = st.one_of(
    st.dictionaries(TAG_KEY, st.none() | st.text(max_size=12) | st.integers(), max_size=12),
    st.lists(st.fixed_dictionaries({"key": TAG_KEY, "value": st.none() | st.text(max_size=12)}) | JSON, max_size=12),
    JSON,
)


@given(TAGS, st.booleans())
def test_tags_normalize_to_what_the_api_stores_or_are_refused(tags, any_value):
    try:
        normalized = normalize_tags(tags, any_value=any_value)
    except ModuleFailure as error:
        assert str(error)
        return
    if tags is None:
        assert normalized is None
        return
    assert len(normalized) <= MAX_TAGS
    for key, value in normalized.items():
        assert key == key.strip().lower() and 0 < len(key) <= MAX_KEY_LENGTH
        assert (value is None and any_value) or (isinstance(value, str) and len(value) <= MAX_VALUE_LENGTH)


@given(st.text("abcXYZ", min_size=1, max_size=4), st.text(max_size=4))
def test_a_tag_filter_matches_tags_in_list_and_dict_form_alike(key, value):
    tag_filter = normalize_tag_filter({key: value})
    as_list = {"tags": [{"key": key, "value": value}]}
    as_dict = {"tags": {key: value}}
    assert matches_tag_filter(as_list, tag_filter) == matches_tag_filter(as_dict, tag_filter)


RECORD = st.fixed_dictionaries(
    {"id": JSON},
    optional={"hostname": JSON, "ip": JSON, "tags": JSON, "worker_nodes": JSON, "status": JSON, "location": JSON},
)


@given(st.lists(RECORD, max_size=3) | JSON)
def test_the_inventory_accepts_well_formed_records_or_refuses_naming_the_request(records):
    try:
        cloudcompute.check_records(records, "GET /instances")
    except AnsibleParserError as error:
        assert "GET /instances" in str(error)
        return
    for record in records:
        assert isinstance(record["id"], str) and record["id"]
        assert all(isinstance(tag, dict) and isinstance(tag.get("key"), str) for tag in record.get("tags") or [])


@given(st.text(max_size=40) | st.ip_addresses().map(str))
def test_an_address_reaches_ssh_only_as_a_host_name_or_an_ip_address(address):
    usable = cloudcompute.usable_address({"id": "i-1"}, address, "ip")
    if usable:
        assert usable == address
        assert not usable.startswith("-") and not any(character.isspace() for character in usable)
        try:
            ipaddress.ip_address(usable)
        except ValueError:
            assert _ssh.DNS_NAME.match(usable)


@given(st.text(max_size=20), st.text(max_size=20) | JSON.map(str))
def test_a_group_name_is_a_safe_ansible_group_name(category, value):
    name = cloudcompute.group_name(category, value)
    assert name.startswith("cloudcompute_")
    assert all(character.isalnum() or character == "_" for character in name)
