"""The domain without a server: resource rules driven through plain functions.

The domain is built from a store, a hand-moved clock and a scheduler (what ``ports.Domain``
asks for), with the hooks, billables and seeders the app factory registers, and the caller is a
plain ``Principal``: no HTTP, no ``EmulatorState``. Durations are those of the ``client`` timing
profile, which these tests also pin down from a client's side.
"""

from __future__ import annotations

from typing import Any

import pytest

from cloudcompute_emulator import kinds, projects
from cloudcompute_emulator.app import register_domain
from cloudcompute_emulator.clock import Clock
from cloudcompute_emulator.errors import ApiError
from cloudcompute_emulator.lifecycle import Scheduler
from cloudcompute_emulator.ports import Principal
from cloudcompute_emulator.resources import instances, volumes
from cloudcompute_emulator.resources.ownership import find_owned, get_owned
from cloudcompute_emulator.schemas.instances import InstanceAction, InstanceDeploy
from cloudcompute_emulator.schemas.volumes import VolumeAction, VolumeCreate
from cloudcompute_emulator.settings import EmulatorSettings
from cloudcompute_emulator.store import Store

OWNER = Principal("cc-owner", "project-a", "owner", "user-a")
STRANGER = Principal("cc-stranger", "project-b", "owner", "user-b")


class ManualClock(Clock):
    """Time moves only when a test says so."""

    def now(self) -> float:
        return 1_800_000_000.0 + self.offset


class Domain:
    def __init__(self, profile: str = "client") -> None:
        self.store = Store()
        self.clock = ManualClock()
        self.scheduler = Scheduler(self.store)
        self.settings = EmulatorSettings.model_validate({"profile": profile})
        self.billables: dict[str, Any] = {}
        self.seeders: dict[str, Any] = {}
        register_domain(self)  # any object with these attributes will do

    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)
        self.scheduler.apply_due(self, self.clock.now())


@pytest.fixture
def domain() -> Domain:
    return Domain()


def _create_volume(domain: Domain, caller: Principal = OWNER, **overrides: Any) -> dict:
    body = {"name": "data", "size": 10, "type": "NVMe", "location_code": "FIN-01", **overrides}
    return volumes.create(domain, caller, VolumeCreate.model_validate(body))


def _volume_action(domain: Domain, action: str, volume_id: str, caller: Principal = OWNER, **extra: Any) -> list[str]:
    return volumes.act(domain, caller, VolumeAction.model_validate({"action": action, "id": volume_id, **extra}))


def _deploy(domain: Domain, caller: Principal = OWNER) -> dict:
    domain.store.insert(kinds.SSH_KEYS, {"id": f"key-{caller.project_id}", "project_id": caller.project_id})
    body = {"hostname": "web-1", "image": "ubuntu-24.04", "instance_type": "CPU.4V.16G", "location_code": "FIN-01",
            "ssh_key_ids": [f"key-{caller.project_id}"]}
    return instances.deploy(domain, caller, InstanceDeploy.model_validate(body))


def _instance_action(domain: Domain, action: str, ids: str | list[str], caller: Principal = OWNER) -> Any:
    body = InstanceAction.model_validate({"action": action, "id": ids})
    return instances.act_on_many(domain, caller, body) if isinstance(ids, list) else instances.act_on_one(domain, caller, body)


def _audit_actions(domain: Domain, object_type: str) -> list[str]:
    return [event["action"] for event in domain.store.table(kinds.AUDIT_EVENTS).values() if event["object_type"] == object_type]


# -- volumes ---------------------------------------------------------------------------------------


def test_volume_lifecycle_create_delete_at_once_restore(domain: Domain) -> None:
    volume = _create_volume(domain)
    assert volume["status"] == "ordered" and volume["created_by_user_id"] == "user-a"
    # a client deleting right after creating: accepted while ordered, and the pending
    # ordered -> detached transition never lands on the deleted volume
    _volume_action(domain, "delete", volume["id"])
    assert volume["status"] == "deleted" and volumes.trash(domain, "project-a") == [volume]
    domain.advance(60)
    assert volume["status"] == "deleted" and volumes.listed(domain, "project-a") == []
    _volume_action(domain, "restore", volume["id"])
    assert volume["status"] == "restoring"
    domain.advance(0.5)
    assert volume["status"] == "detached" and volumes.listed(domain, "project-a") == [volume]
    assert _audit_actions(domain, "volume") == ["create", "trash", "restore"]


def test_volume_resize_grows_and_recharges(domain: Domain) -> None:
    volume = _create_volume(domain, size=100)
    domain.advance(2)
    with pytest.raises(ApiError, match="can only grow") as refused:
        _volume_action(domain, "resize", volume["id"], size=100)
    assert refused.value.status == 400 and volume["size"] == 100
    before = projects.balance(domain, "project-a")
    _volume_action(domain, "resize", volume["id"], size=1000)
    domain.advance(3600)
    charged = before - projects.balance(domain, "project-a")
    assert volume["base_hourly_cost"] == pytest.approx(charged, abs=1e-3) and charged > 0


def test_a_volume_action_naming_several_volumes_is_all_or_nothing(domain: Domain) -> None:
    settled = _create_volume(domain, name="settled")
    domain.advance(2)
    busy = _create_volume(domain, name="busy")  # still ordered
    body = VolumeAction.model_validate({"action": "resize", "id": [settled["id"], busy["id"]], "size": 20})
    with pytest.raises(ApiError, match="while it is ordered"):
        volumes.act(domain, OWNER, body)
    assert settled["size"] == 10 and busy["size"] == 10


def test_attaching_needs_a_shut_down_instance(domain: Domain) -> None:
    instance = _deploy(domain)
    domain.advance(4)
    volume = _create_volume(domain)
    domain.advance(2)
    with pytest.raises(ApiError) as refused:
        _volume_action(domain, "attach", volume["id"], instance_id=instance["id"])
    assert refused.value.status == 403 and volume["instance_ids"] == []
    _instance_action(domain, "shutdown", instance["id"])
    domain.advance(0.5)
    _volume_action(domain, "attach", volume["id"], instance_id=instance["id"])
    assert volume["status"] == "attaching" and volume["id"] in instance["volume_ids"]
    domain.advance(0.5)
    assert volume["status"] == "attached" and volume["target"] == "vdb"


# -- instances -------------------------------------------------------------------------------------


def test_client_profile_shows_ordered_then_provisioning_then_running(domain: Domain) -> None:
    instance = _deploy(domain)
    assert instance["status"] == "ordered" and instance["ip"] is None
    domain.advance(1)
    # a client that polls past `ordered` and then asserts `provisioning` has seconds to see it
    assert instance["status"] == "provisioning" and instance["ip"]
    domain.advance(2.9)
    assert instance["status"] == "provisioning"
    domain.advance(0.1)
    assert instance["status"] == "running"


def test_instance_actions_single_and_bulk(domain: Domain) -> None:
    instance = _deploy(domain)
    domain.advance(4)
    assert _instance_action(domain, "start", instance["id"]) is False  # already running: 204
    assert _instance_action(domain, "shutdown", instance["id"]) is True
    with pytest.raises(ApiError, match="pending power action"):
        _instance_action(domain, "start", instance["id"])
    domain.advance(0.5)
    assert instance["status"] == "offline"
    results = _instance_action(domain, "start", [instance["id"], "no-such-id"])
    assert [result["status"] for result in results] == ["success", "error"] and results[1]["statusCode"] == 404
    assert _audit_actions(domain, "compute") == ["create", "shutdown", "start"]


def test_deleting_an_instance_right_after_deploying_it(domain: Domain) -> None:
    instance = _deploy(domain)
    os_volume = domain.store.get(kinds.VOLUMES, instance["os_volume_id"])
    assert _instance_action(domain, "delete", instance["id"]) is True
    assert instance["status"] == "deleting" and os_volume["status"] == "deleted"
    domain.advance(10)
    assert domain.store.get(kinds.INSTANCES, instance["id"]) is None
    with pytest.raises(ApiError) as gone:
        _instance_action(domain, "delete", instance["id"])
    assert gone.value.status == 404


# -- ownership -------------------------------------------------------------------------------------


def test_another_projects_records_are_not_found(domain: Domain) -> None:
    volume = _create_volume(domain)
    instance = _deploy(domain)
    assert get_owned(domain, kinds.VOLUMES, volume["id"], "project-a") is volume
    assert find_owned(domain, kinds.VOLUMES, volume["id"], "project-b") is None
    for attempt in (
        lambda: get_owned(domain, kinds.INSTANCES, instance["id"], "project-b"),
        lambda: _volume_action(domain, "delete", volume["id"], caller=STRANGER),
        lambda: _instance_action(domain, "delete", instance["id"], caller=STRANGER),
        lambda: _create_volume(domain, caller=STRANGER, instance_id=instance["id"]),
    ):
        with pytest.raises(ApiError, match="not found") as refused:
            attempt()
        assert refused.value.status == 404
    assert volume["status"] == "ordered" and instance["status"] == "ordered"
    assert _instance_action(domain, "delete", [instance["id"]], caller=STRANGER)[0]["statusCode"] == 404
