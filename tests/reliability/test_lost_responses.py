"""Each change the modules make, with its answer lost once after the API carried it out (the
connection dropped, or a 5xx, after the commit): the task must still end ok, with the change
made once. The fleet scenario meets these at random; here each one is met on purpose.

The modules run in this process (module_runner) against one emulator (test timing profile).
"""

import pytest
from cloudcompute_emulator.testing import run_emulator
from conftest import mutating, report
from module_runner import ModuleWorld

PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q lost@test"
INSTANCE = {"instance_type": "CPU.4V.16G", "image": "ubuntu-24.04", "location_code": "FIN-01", "ssh_keys": ["lost-key"]}
SURVIVED = []


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with run_emulator(profile="test", rate_limits={"enabled": False}) as emulator:
        world = ModuleWorld(emulator, str(tmp_path_factory.mktemp("tokens")))
        world.make("ssh_key", {"name": "lost-key", "public_key": PUBLIC_KEY})
        yield world
    report(
        "lost responses",
        "%d changes whose answer was lost once, each made exactly once: %s" % (len(SURVIVED), ", ".join(SURVIVED)),
    )


# The ways an answer is lost after the change was committed.
LOSSES = {
    "dropped": {"drop_connection": True, "after_commit": True},
    "500": {"status": 500, "after_commit": True},
}


def lose_once(world, method, path, loss):
    world.control.clear_faults()
    world.control.add_fault(method=method, path=path, count=1, **LOSSES[loss])


def run_through(world, module, args, method, path, loss):
    """Run the module with the first matching request's answer lost; the result and requests."""
    lose_once(world, method, path, loss)
    result, requests = world.run(module, args)
    fired = [fault["hits"] for fault in world.control.faults()["faults"]]
    world.control.clear_faults()
    assert fired == [1], f"the fault on {method} {path} never fired"
    assert "traceback" not in result and not result.get("failed"), result
    return result, requests


def instance(world, hostname, **args):
    return world.make("instance", dict(INSTANCE, hostname=hostname, **args))["instance"]


@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_creates_make_one_resource(world, loss):
    cases = [
        ("ssh_key", {"name": "key-" + loss, "public_key": PUBLIC_KEY}, "/v1/ssh-keys", "ssh-keys"),
        ("startup_script", {"name": "script-" + loss, "script": "#!/bin/sh\n"}, "/v1/scripts", "scripts"),
        (
            "volume",
            {"name": "vol-" + loss, "size": 5, "type": "HDD", "location_code": "FIN-01"},
            "/v1/volumes",
            "volumes",
        ),
        ("instance", dict(INSTANCE, hostname="host-" + loss), "/v1/instances", "instances"),
    ]
    for module, args, path, kind in cases:
        result, _requests = run_through(world, module, args, "POST", path, loss)
        assert result["changed"] is True
        name = args.get("name") or args.get("hostname")
        records = [
            record
            for record in world.control.resources(kind.replace("-", "_"))
            if name in (record.get("name"), record.get("hostname"))
        ]
        assert len(records) == 1, "%s %s made %d times" % (module, name, len(records))
        SURVIVED.append(f"create {module} ({loss})")


@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_instance_actions_are_done_once(world, loss):
    hostname = "acting-" + loss
    instance(world, hostname)
    for state, status in (("stopped", "offline"), ("running", "running")):
        result, _requests = run_through(
            world, "instance", {"hostname": hostname, "state": state}, "PUT", "/v1/instances", loss
        )
        assert result["changed"] is True and result["instance"]["status"] == status
        SURVIVED.append(f"instance {state} ({loss})")
    result, _requests = run_through(
        world, "instance", {"hostname": hostname, "state": "absent"}, "PUT", "/v1/instances", loss
    )
    assert result["changed"] is True
    assert [
        record
        for record in world.control.resources("instances")
        if record["hostname"] == hostname and not record.get("removed_at")
    ] == []
    SURVIVED.append(f"instance absent ({loss})")


@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_volume_actions_are_done_once(world, loss):
    hostname, name = "holder-" + loss, "moving-" + loss
    instance(world, hostname, state="stopped")
    world.make("volume", {"name": name, "size": 5, "type": "HDD", "location_code": "FIN-01"})
    steps = [
        ("resize", {"name": name, "size": 8}, lambda volume: volume["size"] == 8),
        ("attach", {"name": name, "instances": [hostname]}, lambda volume: volume["status"] == "attached"),
        ("detach", {"name": name, "instances": []}, lambda volume: volume["status"] == "detached"),
        (
            "tag",
            {"name": name, "tags": {"team": "a"}},
            lambda volume: volume["tags"] == {"team": "a"},
        ),
        ("delete", {"name": name, "state": "absent"}, None),
        ("restore", {"name": name, "state": "restored"}, lambda volume: volume["status"] == "detached"),
    ]
    for step, args, reached in steps:
        method, path = {"tag": ("POST", "/v1/volumes/*/tags"), "delete": ("DELETE", "/v1/volumes/*")}.get(
            step, ("PUT", "/v1/volumes")
        )
        result, requests = run_through(world, "volume", args, method, path, loss)
        assert result["changed"] is True, step
        if reached:
            assert reached(result["volume"]), (step, result["volume"])
        assert (
            len([entry for entry in mutating(requests) if entry["status"] is not None and entry["status"] < 300]) <= 1
        )
        SURVIVED.append(f"volume {step} ({loss})")
