"""Volumes: records, the view the API returns, attachment bookkeeping and the state machine of
decisions.md ("Volume").

create -> ``ordered`` -> ``detached`` (or ``attached`` when instances were named);
attach -> ``attaching`` -> ``attached``; detach -> ``detaching`` -> ``detached``;
clone -> new volume ``cloning`` -> ``detached``; cancel (of a clone) -> ``canceling`` -> ``canceled``;
delete -> ``deleted`` in the trash (purged after 96 h) or permanently; restore -> ``restoring`` -> ``detached``.

An attachment is recorded on both sides at once: ``volume["instance_ids"]`` and
``instance["volume_ids"]`` (use :func:`link` / :func:`unlink`, never one side alone). A shared
volume can belong to a cluster instead (``volume["cluster_id"]``, set and cleared by
resources/clusters.py): it stays ``attached`` until the cluster is gone, and the volume actions
that would take it away from the cluster (attach elsewhere, detach, delete) answer 400.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from cloudcompute_emulator import catalog, kinds, tags
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.errors import ApiError, forbidden, invalid, not_found
from cloudcompute_emulator.lifecycle import transition_hook
from cloudcompute_emulator.projects import close_charges, register_billable
from cloudcompute_emulator.store import Record
from cloudcompute_emulator.timing import TRASH_RETENTION_SECONDS

if TYPE_CHECKING:
    from cloudcompute_emulator.context import ApiContext
    from cloudcompute_emulator.state import EmulatorState

DEVICE_NAMES = [f"vd{letter}" for letter in "bcdefghijklmnopqrstuvwxyz"]
OS_DEVICE = "vda"
# statuses from which a volume can be deleted, cloned, resized, renamed
SETTLED_STATUSES = frozenset({"detached", "attached", "canceled", "created", "exported"})


def _volume_rate(volume: Record) -> float | None:
    return None if volume.get("is_permanently_deleted") else volume["base_hourly_cost"]


register_billable(kinds.VOLUMES, _volume_rate)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:40] or "volume"


def new_record(
    state: EmulatorState,
    project_id: str,
    *,
    name: str,
    size: int,
    volume_type: str,
    location: str,
    status: str,
    user_id: str | None,
    tag_ids: list[str] | None = None,
    is_os_volume: bool = False,
    os_image: str | None = None,
    ssh_key_ids: list[str] | None = None,
    on_spot_discontinue: str = "keep_detached",
    created_at: float | None = None,
) -> Record:
    """A volume record (not stored yet: callers insert one or many)."""
    now = state.clock.now() if created_at is None else created_at
    volume_id = new_id()
    return {
        "id": volume_id,
        "project_id": project_id,
        "name": name,
        "size": size,
        "type": volume_type,
        "location": location,
        "status": status,
        "is_os_volume": is_os_volume,
        "os_image": os_image,
        "ssh_key_ids": list(ssh_key_ids or []),
        "instance_ids": [],
        "cluster_id": None,
        "target": None,
        "tag_ids": list(tag_ids or []),
        "on_spot_discontinue": on_spot_discontinue,
        "contract": "PAY_AS_YOU_GO",
        "base_hourly_cost": catalog.volume_hourly_cost(volume_type, size),
        "pseudo_path": f"{_slug(name)}-{volume_id[:8]}",
        "created_at": isoformat(now),
        "created_by_user_id": user_id,
        "billed_from": now,
        "deleted_at": None,
        "is_permanently_deleted": False,
    }


# -- view ----------------------------------------------------------------------------------------


def _attached_instance_view(instance: Record) -> dict[str, Any]:
    instance_type = catalog.INSTANCE_TYPES_BY_CODE[instance["instance_type"]]
    return {
        "id": instance["id"],
        "auto_rental_extension": None,
        "ip": instance["ip"],
        "instance_type": instance["instance_type"],
        "status": instance["status"],
        "os_volume_id": instance["os_volume_id"],
        "hostname": instance["hostname"],
        "instance_template": {
            "instance_type": instance_type.code,
            "cpu_cores": instance_type.vcpus,
            "gpu_number": instance_type.gpus,
            "gpu_vram_gb": instance_type.vram_gb,
            "ram_gb": instance_type.ram_gb,
        },
        "instance_model": {
            "code": instance_type.model,
            "manufacturer": instance_type.manufacturer,
            "category": instance_type.category,
            "cluster_model_code": None,
        },
    }


def _attached_cluster_view(cluster: Record) -> dict[str, Any]:
    """A cluster shown among a shared volume's attached computes (its model names the cluster type)."""
    cluster_type = catalog.CLUSTER_TYPES_BY_CODE[cluster["cluster_type"]]
    node_type = cluster_type.node_type
    return {
        "id": cluster["id"],
        "auto_rental_extension": None,
        "ip": cluster["ip"],
        "instance_type": node_type.code,
        "status": cluster["status"],
        "os_volume_id": None,
        "hostname": cluster["hostname"],
        "instance_template": {
            "instance_type": node_type.code,
            "cpu_cores": node_type.vcpus,
            "gpu_number": node_type.gpus,
            "gpu_vram_gb": node_type.vram_gb,
            "ram_gb": node_type.ram_gb,
        },
        "instance_model": {
            "code": node_type.model,
            "manufacturer": node_type.manufacturer,
            "category": node_type.category,
            "cluster_model_code": cluster_type.code,
        },
    }


def default_mount_point(volume: Record) -> str:
    return f"/mnt/{_slug(volume['name'])}"


def _commands(volume: Record) -> dict[str, str]:
    mount_point = default_mount_point(volume)
    if catalog.VOLUME_TYPES_BY_NAME[volume["type"]].is_shared_fs:
        source = f"nfs.{volume['location'].lower()}.cloudcompute.internal:/{volume['pseudo_path']}"
        mount = f"mount -t nfs -o nconnect=16 {source} {mount_point}"
        fstab = f"{source} {mount_point} nfs defaults,nconnect=16 0 0"
    else:
        source = f"/dev/disk/by-id/virtio-{volume['id'][:20]}"
        mount = f"mount {source} {mount_point}"
        fstab = f"{source} {mount_point} ext4 defaults,nofail 0 2"
    return {
        "mount_command": mount,
        "create_directory_command": f"mkdir -p {mount_point}",
        "filesystem_to_fstab_command": f"grep -qxF '{fstab}' /etc/fstab || echo '{fstab}' | sudo tee -a /etc/fstab",
    }


def view(state: EmulatorState, volume: Record) -> dict[str, Any]:
    instances = state.store.table(kinds.INSTANCES)
    attached = [instances[instance_id] for instance_id in volume["instance_ids"] if instance_id in instances]
    attached_views = [_attached_instance_view(instance) for instance in attached]
    cluster = state.store.get(kinds.CLUSTERS, volume["cluster_id"]) if volume.get("cluster_id") else None
    if cluster is not None:
        attached_views.append(_attached_cluster_view(cluster))
    result = {
        "id": volume["id"],
        "name": volume["name"],
        "status": volume["status"],
        "size": volume["size"],
        "type": volume["type"],
        "location": volume["location"],
        "is_os_volume": volume["is_os_volume"],
        "created_at": volume["created_at"],
        "target": volume["target"],
        "instance_id": attached_views[0]["id"] if attached_views else None,
        "instances": attached_views,
        "ssh_key_ids": volume["ssh_key_ids"],
        "tags": tags.views(state, volume["tag_ids"]),
        "contract": volume["contract"],
        "long_term": None,
        "base_hourly_cost": volume["base_hourly_cost"],
        "monthly_price": catalog.volume_monthly_price(volume["type"], volume["size"]),
        "currency": "usd",
        "pseudo_path": volume["pseudo_path"],
        **_commands(volume),
        "created_by_user_id": volume["created_by_user_id"],
    }
    if volume["status"] == "deleted":
        result["deleted_at"] = volume["deleted_at"]
        result["is_permanently_deleted"] = volume["is_permanently_deleted"]
    return result


# -- attachments ---------------------------------------------------------------------------------


def link(state: EmulatorState, volume: Record, instance: Record) -> None:
    if instance["id"] not in volume["instance_ids"]:
        volume["instance_ids"].append(instance["id"])
    if volume["id"] not in instance["volume_ids"]:
        instance["volume_ids"].append(volume["id"])
    if volume["target"] is None:
        if volume["is_os_volume"]:
            volume["target"] = OS_DEVICE
        else:
            volumes = state.store.table(kinds.VOLUMES)
            taken = {volumes[other]["target"] for other in instance["volume_ids"] if other in volumes}
            volume["target"] = next((name for name in DEVICE_NAMES if name not in taken), None)
    state.store.save(kinds.VOLUMES, volume)
    state.store.save(kinds.INSTANCES, instance)


def unlink(state: EmulatorState, volume: Record, instance: Record | None, instance_id: str | None = None) -> None:
    instance_id = instance["id"] if instance is not None else instance_id
    if instance_id in volume["instance_ids"]:
        volume["instance_ids"].remove(instance_id)
    if instance is not None and volume["id"] in instance["volume_ids"]:
        instance["volume_ids"].remove(volume["id"])
        state.store.save(kinds.INSTANCES, instance)
    if not volume["instance_ids"]:
        volume["target"] = None
    state.store.save(kinds.VOLUMES, volume)


def mark_detached(state: EmulatorState, volume: Record) -> None:
    volume["status"] = "detached"
    state.store.save(kinds.VOLUMES, volume)


def unlink_all(state: EmulatorState, volume: Record) -> None:
    instances = state.store.table(kinds.INSTANCES)
    for instance_id in list(volume["instance_ids"]):
        unlink(state, volume, instances.get(instance_id), instance_id)


# -- deletion ------------------------------------------------------------------------------------


def move_to_trash(state: EmulatorState, volume: Record, at: float | None = None) -> None:
    """Status ``deleted``, listed in the trash, purged for good after 96 hours."""
    moment = state.clock.now() if at is None else at
    unlink_all(state, volume)
    volume["status"] = "deleted"
    volume["deleted_at"] = isoformat(moment)
    state.store.save(kinds.VOLUMES, volume)
    state.scheduler.schedule(
        kinds.VOLUMES,
        volume,
        moment + TRASH_RETENTION_SECONDS,
        hook="volume.purge",
        expect={"status": "deleted", "is_permanently_deleted": False},
    )


def delete_permanently(state: EmulatorState, volume: Record, at: float | None = None) -> None:
    """Gone from lists and the trash; a read by id still shows the deleted shape."""
    moment = state.clock.now() if at is None else at
    close_charges(state, kinds.VOLUMES, volume, moment)
    unlink_all(state, volume)
    volume["status"] = "deleted"
    volume["deleted_at"] = volume["deleted_at"] or isoformat(moment)
    volume["is_permanently_deleted"] = True
    state.store.save(kinds.VOLUMES, volume)


def is_in_trash(volume: Record) -> bool:
    return volume["status"] == "deleted" and not volume["is_permanently_deleted"]


# -- transitions ---------------------------------------------------------------------------------


@transition_hook("volume.settle_attachment")
def _settle_attachment(state: EmulatorState, volume: Record, _at: float, _params: dict) -> None:
    """End of ordered/attaching/detaching: attached when linked to an instance, else detached."""
    volume["status"] = "attached" if volume["instance_ids"] else "detached"
    state.store.save(kinds.VOLUMES, volume)


@transition_hook("volume.purge")
def _purge(state: EmulatorState, volume: Record, at: float, _params: dict) -> None:
    delete_permanently(state, volume, at)


def schedule(state: EmulatorState, volume: Record, step: str, to_status: str | None = None, hook: str | None = None) -> None:
    state.scheduler.schedule_step(state, kinds.VOLUMES, volume, step, to_status=to_status, hook=hook)


# -- lookups and checks shared by the routes and instances -----------------------------------------


def find(ctx: ApiContext, volume_id: str) -> Record:
    volume = ctx.store.get(kinds.VOLUMES, volume_id)
    if volume is None or volume["project_id"] != ctx.project_id:
        raise not_found(f"Volume {volume_id}")
    return volume


def check_location(location_code: str) -> None:
    if location_code not in catalog.LOCATION_CODES:
        raise invalid(f"location_code: unknown location '{location_code}' (one of {', '.join(catalog.LOCATION_CODES)})")


def check_standalone_type(volume_type: str, field: str = "type") -> None:
    known = catalog.VOLUME_TYPES_BY_NAME.get(volume_type)
    if known is None or not known.standalone:
        allowed = ", ".join(t.type for t in catalog.VOLUME_TYPES if t.standalone)
        raise invalid(f"{field}: '{volume_type}' is not a volume type that can be created here (one of {allowed})")


def require_not_on_cluster(volume: Record, action: str) -> None:
    """A cluster's shared volume stays with the cluster until the cluster is discontinued."""
    if volume.get("cluster_id"):
        raise invalid(
            f"Cannot {action} volume {volume['id']}: it is attached to cluster {volume['cluster_id']} "
            "(discontinue the cluster to detach it)"
        )


def require_offline(instance: Record) -> None:
    if instance["status"] != "offline" or instance.get("pending_power"):
        raise forbidden(f"Instance {instance['id']} is not shut down (status {instance['status']})")


def check_attachable(volume_type: str, instance_count: int) -> None:
    if instance_count > 1 and not catalog.VOLUME_TYPES_BY_NAME[volume_type].is_shared_fs:
        raise invalid(f"A {volume_type} volume can be attached to one instance only")


def find_instances_for_attach(ctx: ApiContext, instance_ids: list[str], location: str) -> list[Record]:
    """The named instances, each in ``location`` and shut down (403 otherwise, nothing changed)."""
    instances = []
    for instance_id in dict.fromkeys(instance_ids):
        instance = ctx.store.get(kinds.INSTANCES, instance_id)
        if instance is None or instance["project_id"] != ctx.project_id:
            raise not_found(f"Instance {instance_id}")
        if instance["location"] != location:
            raise invalid(f"Instance {instance_id} is in {instance['location']}, the volume in {location}")
        instances.append(instance)
    for instance in instances:
        require_offline(instance)
    return instances


def unavailable_action(action: str) -> ApiError:
    return invalid(f"The action '{action}' is not available for volumes")
