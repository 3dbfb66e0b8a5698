"""Finding instances, volumes and clusters by id or name, the same way in every module."""

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError
from ansible_collections.cloudcompute.cloud.plugins.module_utils._lookups import (
    cluster_named,
    find_taggable,
    instance_named,
    volume_named,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure

OLD_ID = "11111111-1111-4111-8111-111111111111"
NEW_ID = "22222222-2222-4222-8222-222222222222"
OTHER_ID = "33333333-3333-4333-8333-333333333333"


class FakeClient:
    """Answers GETs from a dict of path -> body (404 when missing) and counts them."""

    def __init__(self, answers):
        self.answers = answers
        self.paths = []

    def get(self, path, params=None):
        self.paths.append(path)
        if path not in self.answers:
            raise ApiError("not found", status=404, code="not_found", method="GET", path=path)
        return self.answers[path]

    def get_list(self, path, params=None):
        return self.get(path, params) or []

    def get_one(self, path, params=None):
        return self.get(path, params)


def test_the_live_one_wins_over_one_being_removed():
    instances = [
        {"id": OLD_ID, "hostname": "web", "status": "deleting"},
        {"id": NEW_ID, "hostname": "web", "status": "ordered"},
    ]
    assert instance_named(instances, "web")["id"] == NEW_ID
    assert instance_named(instances[:1], "web")["id"] == OLD_ID
    assert instance_named(instances, "web", exclude_id=NEW_ID)["id"] == OLD_ID
    assert instance_named(instances, "db") is None


def test_two_live_clusters_with_one_hostname_need_the_id():
    clusters = [
        {"id": OLD_ID, "hostname": "hpc", "status": "running"},
        {"id": NEW_ID, "hostname": "hpc", "status": "running"},
    ]
    with pytest.raises(ModuleFailure) as failure:
        cluster_named(clusters, "hpc")
    assert "2 clusters are named 'hpc'" in failure.value.msg


def test_a_volume_name_used_in_two_locations_needs_the_location():
    volumes = [
        {"id": OLD_ID, "name": "data", "location": "FIN-01"},
        {"id": NEW_ID, "name": "data", "location": "ICE-01"},
    ]
    assert volume_named(volumes, "data", "ICE-01")["id"] == NEW_ID
    with pytest.raises(ModuleFailure):
        volume_named(volumes, "data")


def test_taggable_by_id_costs_one_read_and_by_name_one_list():
    client = FakeClient(
        {
            "/clusters/" + OLD_ID: {"id": OLD_ID, "hostname": "hpc"},
            "/clusters": [{"id": OLD_ID, "hostname": "hpc", "status": "running"}],
        }
    )
    assert find_taggable(client, "cluster", OLD_ID)["hostname"] == "hpc"
    assert client.paths == ["/clusters/" + OLD_ID]
    client.paths = []
    assert find_taggable(client, "cluster", "hpc")["id"] == OLD_ID
    assert client.paths == ["/clusters"]


def test_an_unknown_id_is_looked_for_as_a_name_too():
    client = FakeClient({"/volumes": [{"id": NEW_ID, "name": OTHER_ID, "location": "FIN-01"}]})
    assert find_taggable(client, "volume", OTHER_ID)["id"] == NEW_ID
    assert find_taggable(client, "volume", "missing") is None
    assert client.paths == ["/volumes/" + OTHER_ID, "/volumes", "/volumes"]
