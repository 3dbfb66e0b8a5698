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
