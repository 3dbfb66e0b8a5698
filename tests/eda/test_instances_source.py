"""The instances event source against the emulator: one event per change, evictions marked."""

import json

import pytest
import requests
from source_runner import collect, run

from ansible_collections.cloudcompute.cloud.extensions.eda.plugins.event_source.instances import InstanceWatch, main
from ansible_collections.cloudcompute.cloud.plugins.module_utils import _event_source


@pytest.fixture
def api(emulator_reset):
    session = requests.Session()
    session.headers["Authorization"] = "Bearer " + emulator_reset.access_token()
    base = emulator_reset.api_url

    def call(method, path, **kwargs):
        response = session.request(method, base + path, **kwargs)
        response.raise_for_status()
        return response

    call(
        "POST",
        "/ssh-keys",
        json={"name": "k", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA7v8M0pXSGfM2n4TlbVa3w4uyCr/nm0Ue2dQ1+jCqBo t"},
    )
    return call


def deploy(api, hostname, **extra):
    body = dict(
        instance_type="CPU.4V.16G",
        image="ubuntu-24.04",
        hostname=hostname,
        location_code="FIN-01",
        ssh_key_ids=[],
        **extra,
    )
    return api("POST", "/instances", json=body).text.strip('"')


def changes(events):
    return [
        (event["change"], event["instance"]["hostname"], event["previous_status"], event["status"]) for event in events
    ]


def test_lifecycle_and_eviction(emulator_reset, api, source_args):
    control = emulator_reset.control
    control.update_settings(profile="demo")  # seconds per step, so every status is seen
    existing = deploy(api, "existing")
    control.advance_clock(10)

    state = {}

    def drive(events):
        # once the first poll has taken stock: a new spot instance with a data volume, evicted when running
        if "spot" not in state and control.requests(method="GET", path="/v1/instances")["count"]:
            state["spot"] = deploy(api, "spot-1", is_spot=True, volumes=[{"name": "data", "size": 1, "type": "NVMe"}])
        if "spot" in state and "evicted" not in state and any(event["status"] == "running" for event in events):
            state["evicted"] = control.evict(state["spot"])
        if "evicted" in state:
            control.advance_clock(1)
        return bool(events) and events[-1]["change"] == "removed"

    events = run(collect(main, source_args(interval=0.05), until=drive, timeout=60))
    assert changes(events) == [
        ("added", "spot-1", None, "ordered"),
        ("status_changed", "spot-1", "ordered", "provisioning"),
        ("status_changed", "spot-1", "provisioning", "running"),
        ("status_changed", "spot-1", "running", "discontinued"),
        ("removed", "spot-1", "discontinued", None),
    ]
    assert [event["evicted"] for event in events] == [False, False, False, True, True]
    assert all(event["kind"] == "instance" for event in events)
    assert existing not in {event["instance"]["id"] for event in events}
    kept = events[-1]["volume_ids"]
    assert len(kept) == 2 and events[-1]["instance"]["volume_ids"] == []  # the OS and the data volume


def test_deleted_instance_is_not_evicted_and_existing_ones_on_request(emulator_reset, api, source_args):
    control = emulator_reset.control
    first = deploy(api, "first", is_spot=True)
    control.advance_clock(10)

    def delete_it(events):
        if len(events) == 1 and "deleted" not in state:
            state["deleted"] = api("PUT", "/instances", json={"action": "delete", "id": first})
            control.advance_clock(60)
        return bool(events) and events[-1]["change"] == "removed"

    state = {}
    events = run(collect(main, source_args(emit_existing=True, include_clusters=True), until=delete_it, timeout=30))
    seen = changes(events)
    assert seen[0] == ("added", "first", None, "running")
    assert seen[-1][:2] == ("removed", "first") and seen[-1][3] is None
    assert not any(event["evicted"] for event in events)


def test_eviction_between_two_polls_is_told_by_the_audit_log(emulator_reset, api, source_args):
    """A spot instance evicted and gone between two polls (never seen discontinued) is still an
    eviction; one the project deleted is not."""
    control = emulator_reset.control
    evicted = deploy(api, "evicted", is_spot=True)
    deleted = deploy(api, "deleted", is_spot=True)
    control.advance_clock(10)
    watch = InstanceWatch(_event_source.build_client(source_args()))
    assert watch.changes() == []
    control.evict(evicted)
    api("PUT", "/instances", json={"action": "delete", "id": deleted})
    control.advance_clock(120)
    removed = {event["instance"]["hostname"]: event for event in watch.changes()}
    assert {name: (event["change"], event["previous_status"], event["evicted"]) for name, event in removed.items()} == {
        "evicted": ("removed", "running", True),
        "deleted": ("removed", "running", False),
    }


def test_jupyter_token_never_reaches_an_event(emulator_reset, api, source_args):
    """Events land in extra-vars files, rule audits and logs: the token is masked, as in the
    modules' results."""
    deploy(api, "with-token")
    emulator_reset.control.advance_clock(10)
    tokens = [record["jupyter_token"] for record in api("GET", "/instances").json()]
    assert all(tokens)
    events = run(collect(main, source_args(emit_existing=True), count=1, timeout=30))
    assert events[0]["instance"]["jupyter_token"] == "********"
    assert not any(token in json.dumps(events) for token in tokens)
