"""A seeded random walk through instance, volume and cluster operations, clock moves and
evictions: never a 500, and every attachment (to an instance or a cluster) is recorded on both
sides afterwards."""

from __future__ import annotations

import random

from conftest import CPU_TYPE, LOCATION, ApiClient

from cloudcompute_emulator.control import EmulatorControlError

STEPS = 400
INSTANCE_ACTIONS = ["boot", "start", "shutdown", "delete", "discontinue", "hibernate", "configure_spot", "force_shutdown", "delete_stuck"]
VOLUME_ACTIONS = ["attach", "detach", "delete", "rename", "resize", "restore", "clone", "cancel"]
POLICIES = ["keep_detached", "move_to_trash", "delete_permanently"]


def _step(api: ApiClient, control, rng: random.Random, step: int) -> int | None:
    instances = [item["id"] for item in api.ok("GET", "/instances").json()]
    volumes = [item["id"] for item in api.ok("GET", "/volumes").json() + api.ok("GET", "/volumes/trash").json()]
    roll = rng.random()
    if roll < 0.12 or not instances:
        body = {"hostname": f"walk-{step}", "image": "ubuntu-24.04", "instance_type": CPU_TYPE, "location_code": LOCATION,
                "is_spot": rng.random() < 0.3}
        if rng.random() < 0.5:
            body["volumes"] = [{"name": "data", "size": 5, "type": rng.choice(["NVMe", "NVMe_Shared"]), "on_spot_discontinue": rng.choice(POLICIES)}]
        return api.post("/instances", json=body).status_code
    if roll < 0.45:
        chosen = rng.sample(instances, k=min(len(instances), rng.randint(1, 3)))
        body = {"action": rng.choice(INSTANCE_ACTIONS), "id": chosen[0] if rng.random() < 0.5 else chosen}
        if rng.random() < 0.3 and volumes:
            body["volume_ids"] = rng.sample(volumes, 1)
            body["delete_permanently"] = rng.random() < 0.5
        return api.put("/instances", json=body).status_code
    if roll < 0.55:
        return api.post("/volumes", json={"name": "v", "size": 3, "type": rng.choice(["NVMe", "HDD_Shared"]), "location_code": LOCATION,
                                          "instance_ids": rng.sample(instances, 1) if rng.random() < 0.5 else None}).status_code
    if roll < 0.8 and volumes:
        return api.put("/volumes", json={"action": rng.choice(VOLUME_ACTIONS), "id": rng.choice(volumes), "instance_id": rng.choice(instances),
                                         "name": "renamed", "size": rng.randint(1, 40), "is_permanent": rng.random() < 0.3}).status_code
    if roll < 0.85 and volumes:
        return api.delete(f"/volumes/{rng.choice(volumes)}", json={"is_permanent": rng.random() < 0.5}).status_code
    if roll < 0.9:
        return api.post(f"/instances/{rng.choice(instances)}/tags", json={"key": rng.choice("abc")}).status_code
    if roll < 0.93:
        try:
            control.evict(rng.choice(instances))
        except EmulatorControlError as error:
            assert error.status == 400, error
        return None
    if roll < 0.97:
        return _cluster_step(api, rng, step, volumes)
    control.advance_clock(rng.choice([1, 5, 20, 200, 4000]))
    return None


def _cluster_step(api: ApiClient, rng: random.Random, step: int, volumes: list[str]) -> int:
    clusters = api.ok("GET", "/clusters").json()
    if not clusters or rng.random() < 0.35:
        body = {"cluster_type": "16H100", "hostname": f"hpc-{step}", "image": "ubuntu-24.04-cuda-12.8-cluster",
                "location_code": LOCATION, "shared_volume": {"name": "home", "size": 10},
                "ssh_key_ids": [api.ok("GET", "/ssh-keys").json()[0]["id"]]}
        if volumes and rng.random() < 0.5:
            body["existing_volumes"] = [{"id": rng.choice(volumes)}]
        return api.post("/clusters", json=body).status_code
    cluster = rng.choice(clusters)
    if rng.random() < 0.3:
        return api.put("/clusters", json={"actions": [{"action": "discontinue", "id": cluster["id"]}]}).status_code
    node_ids = [cluster["id"], "bogus", *(node["id"] for node in cluster["worker_nodes"])]
    return api.post(f"/clusters/{cluster['id']}/nodes/{rng.choice(node_ids)}/actions",
                    json={"action": rng.choice(["boot", "shutdown", "force_shutdown"])}).status_code


def test_random_walk_keeps_state_consistent(api: ApiClient, control, emulator_reset) -> None:
    api.ssh_key()
    control.update_settings(rate_limits={"enabled": False})
    rng = random.Random(20261121)
    seen: dict[int, int] = {}
    for step in range(STEPS):
        status = _step(api, control, rng, step)
        if status is not None:
            assert status < 500, status
            seen[status] = seen.get(status, 0) + 1
    assert {202, 400}.issubset(seen), seen
    live = {item["id"]: item for item in control.resources("instances") if "removed_at" not in item}
    volumes = {item["id"]: item for item in control.resources("volumes")}
    for volume in volumes.values():
        for instance_id in volume["instance_ids"]:
            assert volume["id"] in live[instance_id]["volume_ids"], (volume, instance_id)
    for instance in live.values():
        for volume_id in instance["volume_ids"]:
            assert instance["id"] in volumes[volume_id]["instance_ids"], (instance, volume_id)
    clusters = {item["id"]: item for item in control.resources("clusters") if "removed_at" not in item}
    assert clusters, seen  # clusters were made
    # a bogus node is refused (the walk's own draws may or may not have tried one)
    bogus = api.post(f"/clusters/{next(iter(clusters))}/nodes/bogus/actions", json={"action": "boot"})
    assert bogus.status_code == 404, bogus.text
    for volume in volumes.values():
        if volume.get("cluster_id"):
            assert volume["id"] in {mount["id"] for mount in clusters[volume["cluster_id"]]["shared_volumes"]}, volume
            assert not volume["instance_ids"] and volume["status"] == "attached", volume
    for cluster in clusters.values():
        for mount in cluster["shared_volumes"]:
            assert volumes[mount["id"]]["cluster_id"] == cluster["id"], (cluster, mount)
    assert "Traceback" not in emulator_reset.log()
