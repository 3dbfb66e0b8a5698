"""The expired filter, loaded by name through Ansible's plugin loader as a template would."""

import pytest
from ansible.errors import AnsibleFilterError
from ansible.plugins.loader import filter_loader, init_plugin_loader

# Ansible's CLI installs the collection loader before it loads plugins by name; so do we
# (ANSIBLE_COLLECTIONS_PATH points at the staged collection).
init_plugin_loader()
expired = filter_loader.get("cloudcompute.cloud.expired").j2_function

VOLUME = {
    "id": "v1",
    "name": "scratch",
    "location": "FIN-01",
    "type": "NVMe",
    "status": "attached",
    "instance_id": "i1",
    "base_hourly_cost": 0.0274,
    "tags": [{"id": "t", "key": "expires-at", "value": "2026-11-24T10:00:00Z"}],
}
INSTANCE = {
    "id": "i1",
    "hostname": "web-1",
    "location": "FIN-01",
    "instance_type": "CPU.4V.16G",
    "status": "offline",
    "price_per_hour": 0.1196,
    "tags": [{"id": "t", "key": "expires-at", "value": "not a date"}],
}


def test_summarises_expired_volumes_with_their_saving():
    result = expired([VOLUME], "volume", now="2026-11-24T12:00:00Z")
    assert result["unreadable"] == []
    assert result["expired"] == [
        {
            "kind": "volume",
            "id": "v1",
            "name": "scratch",
            "location": "FIN-01",
            "instance_type": "NVMe",
            "status": "attached",
            "price_per_hour": 0.0274,
            "tags": {"expires-at": "2026-11-24T10:00:00Z"},
            "instance_id": "i1",
            "expires_at": "2026-11-24T10:00:00Z",
        }
    ]


def test_grace_and_unreadable_tags():
    result = expired([VOLUME, INSTANCE], "instance", now="2026-11-24T12:00:00Z", grace="3h")
    assert result["expired"] == []
    assert [(item["name"], item["expires_at"]) for item in result["unreadable"]] == [("web-1", "not a date")]
    assert result["unreadable"][0]["price_per_hour"] == 0.1196


def test_an_instance_no_longer_charged_saves_nothing():
    gone = dict(INSTANCE, status="discontinued", tags=VOLUME["tags"])
    assert expired([gone], "instance", now="2026-11-24T12:00:00Z")["expired"][0]["price_per_hour"] == 0.0


@pytest.mark.parametrize(
    "arguments, message",
    [
        (([VOLUME], "volume", None, "5 parsecs"), "5 parsecs"),
        (([VOLUME], "volume", "yesterday"), "yesterday"),
        (([VOLUME], "bucket"), "bucket"),
        (("not a list", "volume"), "list"),
        (([None], "volume"), "list"),
    ],
)
def test_bad_arguments(arguments, message):
    with pytest.raises(AnsibleFilterError, match=message):
        expired(*arguments)


def test_tags_given_as_a_dict():
    volume = dict(VOLUME, tags={"expires-at": "2026-11-24T10:00:00Z", "team": "ml"})
    result = expired([volume], "volume", now="2026-11-24T12:00:00Z")
    assert [item["id"] for item in result["expired"]] == ["v1"]
    assert result["expired"][0]["tags"] == {"expires-at": "2026-11-24T10:00:00Z", "team": "ml"}


@pytest.mark.parametrize("price", ["abc", [1], {"a": 1}, "nan", float("inf"), -1, "1e999"])
def test_a_price_that_is_not_a_number_skips_that_resource_only(price):
    bad = dict(VOLUME, id="v2", name="bad-price", base_hourly_cost=price)
    result = expired([bad, VOLUME], "volume", now="2026-11-24T12:00:00Z")
    assert [item["id"] for item in result["expired"]] == ["v1"]
    assert [item["name"] for item in result["unreadable"]] == ["bad-price"]
    assert "price" in result["unreadable"][0]["reason"]
    assert result["unreadable"][0]["price_per_hour"] is None


def test_one_timestamp_out_of_range_skips_that_resource_only():
    overflow = dict(VOLUME, id="v2", name="overflow", tags={"expires-at": "9999-12-31T23:59:59-23:59"})
    result = expired([overflow, VOLUME], "volume", now="2026-11-24T12:00:00Z")
    assert [item["id"] for item in result["expired"]] == ["v1"]
    assert [item["name"] for item in result["unreadable"]] == ["overflow"]


def test_malformed_tags_do_not_stop_the_others():
    odd = dict(VOLUME, id="v2", name="odd", tags=[None, "x", {"value": "no key"}, {"key": "expires-at", "value": 5}])
    result = expired([odd, VOLUME], "volume", now="2026-11-24T12:00:00Z")
    assert [item["id"] for item in result["expired"]] == ["v1"]
    assert [item["name"] for item in result["unreadable"]] == ["odd"]


def test_what_it_returns_is_never_templated():
    # ansible-core before 2.19 templates any string that is not marked unsafe; the reason quotes
    # the tag's value, which anyone who can tag the resource writes.
    hostile = dict(INSTANCE, tags={"expires-at": "{{ lookup('pipe', 'touch pwned') }}"})
    result = expired([hostile], "instance", now="2026-11-24T12:00:00Z")
    reason = result["unreadable"][0]["reason"]
    assert "lookup('pipe'" in reason
    try:
        from ansible.utils.unsafe_proxy import AnsibleUnsafe
    except ImportError:
        AnsibleUnsafe = None
    import ansible.template

    if not hasattr(ansible.template, "trust_as_template"):
        assert isinstance(reason, AnsibleUnsafe)
    else:
        assert not ansible.template.is_trusted_as_template(reason)
