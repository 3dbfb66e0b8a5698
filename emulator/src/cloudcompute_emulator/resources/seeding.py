"""Bulk creation for ``POST /_emulator/seed``: thousands of realistic records in one go.

Seeding bypasses the API's checks that would only slow it down or make it impossible (capacity,
balance, SSH keys) and records no audit events: it stands for resources made earlier by other
means. ``SEEDERS`` names the function of each kind; the app factory registers them.
"""

from __future__ import annotations

from typing import Any

from cloudcompute_emulator import catalog, kinds, tags
from cloudcompute_emulator.ports import Domain, Seeder
from cloudcompute_emulator.resources import clusters, instances, volumes

# statuses in which an instance has been provisioned, so it has an address
ADDRESSED_STATUSES = frozenset({"running", "offline", "provisioning", "error", "discontinued", "unknown"})


def seed_instances(state: Domain, project_id: str, count: int, options: dict[str, Any]) -> list[str]:
    instance_type = catalog.INSTANCE_TYPES_BY_CODE[options["instance_type"]]
    image = options.get("image") or instance_type.default_image()
    status = options["status"]
    location = options["location_code"]
    prefix = options["hostname_prefix"]
    tag_ids = tags.resolve_inputs(state, project_id, options.get("tags"))
    now = state.clock.now()
    created_instances, created_volumes = [], []
    for number in range(1, count + 1):
        hostname = f"{prefix}-{number:05d}"
        instance = instances.new_record(
            state, project_id, hostname=hostname, instance_type=instance_type, image=image, location=location,
            is_spot=options["is_spot"], contract="SPOT" if options["is_spot"] else "PAY_AS_YOU_GO", user_id=None,
            tag_ids=tag_ids, status=status, created_at=now,
        )
        os_volume = volumes.new_record(
            state, project_id, name=f"OS-NVMe-{hostname}", size=instance_type.default_os_volume_gb,
            volume_type=catalog.OS_VOLUME_TYPE, location=location, status="attached", user_id=None,
            is_os_volume=True, os_image=image, created_at=now,
        )
        # linked directly: a new instance has no other volumes to pick a device name around
        os_volume["instance_ids"] = [instance["id"]]
        os_volume["target"] = volumes.OS_DEVICE
        instance["os_volume_id"] = os_volume["id"]
        instance["volume_ids"] = [os_volume["id"]]
        if status in ADDRESSED_STATUSES:
            instance["ip"] = instances.allocate_address(state)
        created_instances.append(instance)
        created_volumes.append(os_volume)
    state.store.insert_many(kinds.INSTANCES, created_instances)
    state.store.insert_many(kinds.VOLUMES, created_volumes)
    if status == "ordered":
        for instance in created_instances:
            instances.start_lifecycle(state, instance, start=now)
    elif status == "provisioning":
        for instance in created_instances:
            state.scheduler.schedule_step(state, kinds.INSTANCES, instance, "instance.provisioning", start=now, to_status="running")
    return [instance["id"] for instance in created_instances]


def seed_volumes(state: Domain, project_id: str, count: int, options: dict[str, Any]) -> list[str]:
    tag_ids = tags.resolve_inputs(state, project_id, options.get("tags"))
    now = state.clock.now()
    created = [
        volumes.new_record(
            state, project_id, name=f"{options['hostname_prefix']}-volume-{number:05d}", size=options["volume_size"],
            volume_type=options["volume_type"], location=options["location_code"], status="detached", user_id=None,
            tag_ids=tag_ids, created_at=now,
        )
        for number in range(1, count + 1)
    ]
    state.store.insert_many(kinds.VOLUMES, created)
    return [volume["id"] for volume in created]


def seed_clusters(state: Domain, project_id: str, count: int, options: dict[str, Any]) -> list[str]:
    """Clusters ``<prefix>-cluster-00001``... with their /home shared volume; provisioned ones
    (``running``/``offline``) have their jump host address and workers at once."""
    cluster_type = catalog.CLUSTER_TYPES_BY_CODE[options["cluster_type"]]
    image = options.get("cluster_image") or cluster_type.default_image()
    status = options["status"]
    location = options["location_code"]
    tag_ids = tags.resolve_inputs(state, project_id, options.get("tags"))
    now = state.clock.now()
    created = []
    for number in range(1, count + 1):
        hostname = f"{options['hostname_prefix']}-cluster-{number:05d}"
        cluster = clusters.new_record(
            state, project_id, hostname=hostname, cluster_type=cluster_type, image=image, location=location, user_id=None,
            tag_ids=tag_ids, worker_count=options.get("workers_per_cluster"), status=status, created_at=now,
        )
        state.store.insert(kinds.CLUSTERS, cluster)
        shared = volumes.new_record(
            state, project_id, name=f"{hostname}-home", size=catalog.CLUSTER_SHARED_VOLUME_DEFAULT_GB,
            volume_type=catalog.CLUSTER_SHARED_VOLUME_TYPE, location=location, status="attached", user_id=None, created_at=now,
        )
        state.store.insert(kinds.VOLUMES, shared)
        clusters.attach_shared_volume(state, cluster, shared, catalog.CLUSTER_SHARED_MOUNT_POINT)
        if status in clusters.PROVISIONED:
            clusters.provision(state, cluster, status)
        elif status == "ordered":
            clusters.start_lifecycle(state, cluster, start=now)
        elif status == "provisioning":
            state.scheduler.schedule_step(state, kinds.CLUSTERS, cluster, "cluster.provisioning", start=now, hook="cluster.running")
        created.append(cluster["id"])
    return created


SEEDERS: dict[str, Seeder] = {
    "instances": seed_instances,
    "volumes": seed_volumes,
    "clusters": seed_clusters,
}
