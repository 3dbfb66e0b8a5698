"""Volumes: records, the view the API returns, attachment bookkeeping and the
volume state machine.

create -> ``ordered`` -> ``detached`` (or ``attached`` when instances were named);
attach -> ``attaching`` -> ``attached``; detach -> ``detaching`` -> ``detached``;
clone -> new volume ``cloning`` -> ``detached``; cancel (of a clone) -> ``canceling`` -> ``canceled``;
delete -> ``deleted`` in the trash (purged after 96 h) or permanently; restore -> ``restoring`` -> ``detached``.
A PUT naming several volumes is all or nothing: every volume is checked before any changes
(:func:`act`).

An attachment is recorded on both sides at once: ``volume["instance_ids"]`` and
``instance["volume_ids"]`` (use :func:`link` / :func:`unlink`, never one side alone). A shared
volume can belong to a cluster instead (``volume["cluster_id"]``, set and cleared by
resources/clusters.py): it stays ``attached`` until the cluster is gone, and the volume actions
that would take it away from the cluster (attach elsewhere, detach, delete) answer 400.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from cloudcompute_emulator import catalog, kinds, tags
from cloudcompute_emulator.audit import record_event
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.errors import ApiError, forbidden, invalid, not_found
from cloudcompute_emulator.ports import Domain, Principal
from cloudcompute_emulator.projects import close_charges
from cloudcompute_emulator.resources.ownership import get_owned
from cloudcompute_emulator.schemas.volumes import VolumeAction, VolumeCreate
from cloudcompute_emulator.store import Record
from cloudcompute_emulator.timing import TRASH_RETENTION_SECONDS

DEVICE_NAMES = [f"vd{letter}" for letter in "bcdefghijklmnopqrstuvwxyz"]
OS_DEVICE = "vda"
# statuses from which a volume can be deleted, cloned, resized, renamed
SETTLED_STATUSES = frozenset({"detached", "attached", "canceled", "created", "exported"})


def hourly_rate(volume: Record) -> float | None:
    return None if volume.get("is_permanently_deleted") else volume["base_hourly_cost"]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:40] or "volume"


def new_record(
    state: Domain,
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


def view(state: Domain, volume: Record) -> dict[str, Any]:
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


def link(state: Domain, volume: Record, instance: Record) -> None:
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


def unlink(state: Domain, volume: Record, instance: Record | None, instance_id: str | None = None) -> None:
    instance_id = instance["id"] if instance is not None else instance_id
    if instance_id in volume["instance_ids"]:
        volume["instance_ids"].remove(instance_id)
    if instance is not None and volume["id"] in instance["volume_ids"]:
        instance["volume_ids"].remove(volume["id"])
        state.store.save(kinds.INSTANCES, instance)
    if not volume["instance_ids"]:
        volume["target"] = None
    state.store.save(kinds.VOLUMES, volume)


def mark_detached(state: Domain, volume: Record) -> None:
    volume["status"] = "detached"
    state.store.save(kinds.VOLUMES, volume)


def unlink_all(state: Domain, volume: Record) -> None:
    instances = state.store.table(kinds.INSTANCES)
    for instance_id in list(volume["instance_ids"]):
        unlink(state, volume, instances.get(instance_id), instance_id)


# -- deletion ------------------------------------------------------------------------------------


def move_to_trash(state: Domain, volume: Record, at: float | None = None) -> None:
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


def delete_permanently(state: Domain, volume: Record, at: float | None = None) -> None:
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


def _settle_attachment(state: Domain, volume: Record, _at: float, _params: dict) -> None:
    """End of ordered/attaching/detaching: attached when linked to an instance, else detached."""
    volume["status"] = "attached" if volume["instance_ids"] else "detached"
    state.store.save(kinds.VOLUMES, volume)


def _purge(state: Domain, volume: Record, at: float, _params: dict) -> None:
    delete_permanently(state, volume, at)


def schedule(state: Domain, volume: Record, step: str, to_status: str | None = None, hook: str | None = None) -> None:
    state.scheduler.schedule_step(state, kinds.VOLUMES, volume, step, to_status=to_status, hook=hook)


# -- lookups and checks shared by the routes and instances -----------------------------------------


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


def find_instances_for_attach(state: Domain, project_id: str, instance_ids: list[str], location: str) -> list[Record]:
    """The named instances, each in ``location`` and shut down (403 otherwise, nothing changed)."""
    instances = []
    for instance_id in dict.fromkeys(instance_ids):
        instance = get_owned(state, kinds.INSTANCES, instance_id, project_id)
        if instance["location"] != location:
            raise invalid(f"Instance {instance_id} is in {instance['location']}, the volume in {location}")
        instances.append(instance)
    for instance in instances:
        require_offline(instance)
    return instances


def unavailable_action(action: str) -> ApiError:
    return invalid(f"The action '{action}' is not available for volumes")


# -- business rules of the volume endpoints --------------------------------------------------------

# Statuses in the middle of an operation: no other action until it completes.
BUSY_STATUSES = frozenset({"ordered", "attaching", "detaching", "cloning", "canceling", "restoring", "deleting"})
# A delete is accepted while one of these transitions is pending (clients create a volume and
# delete it at once); the pending transition then no longer matches and never lands.
DELETABLE_WHILE_PENDING = frozenset({"ordered", "attaching", "detaching", "cloning"})


def _audit(state: Domain, caller: Principal, action: str, volume: Record, **extra: Any) -> None:
    record_event(
        state, caller, "volume", action, volume["id"], location_code=volume["location"], volume=view(state, volume), **extra
    )


def _require_not_deleted(volume: Record) -> None:
    if volume["status"] == "deleted":
        raise invalid(f"Volume {volume['id']} is deleted")


def _require_idle(volume: Record, action: str) -> None:
    _require_not_deleted(volume)
    if volume["status"] in BUSY_STATUSES:
        raise invalid(f"Cannot {action} volume {volume['id']} while it is {volume['status']}")


def create(state: Domain, caller: Principal, body: VolumeCreate) -> Record:
    """A new volume, ``ordered``, linked to the instances named (each shut down, in its location)."""
    check_location(body.location_code)
    check_standalone_type(body.type)
    tags.check_inputs(body.tags)
    instance_ids = ([body.instance_id] if body.instance_id else []) + (body.instance_ids or [])
    instances = find_instances_for_attach(state, caller.project_id, instance_ids, body.location_code) if instance_ids else []
    check_attachable(body.type, len(instances))
    volume = new_record(
        state, caller.project_id, name=body.name, size=body.size, volume_type=body.type,
        location=body.location_code, status="ordered", user_id=caller.user_id,
        tag_ids=tags.resolve_inputs(state, caller.project_id, body.tags),
    )
    state.store.insert(kinds.VOLUMES, volume)
    for instance in instances:
        link(state, volume, instance)
    schedule(state, volume, "volume.ordered", hook="volume.settle_attachment")
    _audit(state, caller, "create", volume)
    return volume


# -- actions ------------------------------------------------------------------------------------


def _attach(state: Domain, caller: Principal, targets: list[Record], body: VolumeAction) -> None:
    instance_ids = ([body.instance_id] if body.instance_id else []) + (body.instance_ids or [])
    if not instance_ids:
        raise invalid("instance_id or instance_ids is required for attach")
    plans = []
    for volume in targets:
        _require_not_deleted(volume)
        require_not_on_cluster(volume, "attach")
        if volume["status"] == "attached" and set(instance_ids) <= set(volume["instance_ids"]):
            continue  # already attached there
        if volume["status"] not in ("detached", "attached"):
            raise invalid(f"Cannot attach volume {volume['id']} while it is {volume['status']}")
        instances = find_instances_for_attach(state, caller.project_id, instance_ids, volume["location"])
        check_attachable(volume["type"], len(set(volume["instance_ids"]) | set(instance_ids)))
        plans.append((volume, instances))
    for volume, instances in plans:
        for instance in instances:
            link(state, volume, instance)
        volume["status"] = "attaching"
        state.store.save(kinds.VOLUMES, volume)
        schedule(state, volume, "volume.attach", hook="volume.settle_attachment")
        _audit(state, caller, "attach", volume)


def _detach(state: Domain, caller: Principal, targets: list[Record], body: VolumeAction) -> None:
    named = ([body.instance_id] if body.instance_id else []) + (body.instance_ids or [])
    instance_table = state.store.table(kinds.INSTANCES)
    plans = []
    for volume in targets:
        _require_not_deleted(volume)
        if volume["status"] == "detached":
            continue
        require_not_on_cluster(volume, "detach")
        if volume["status"] != "attached":
            raise invalid(f"Cannot detach volume {volume['id']} while it is {volume['status']}")
        stray = [instance_id for instance_id in named if instance_id not in volume["instance_ids"]]
        if stray:
            raise invalid(f"Volume {volume['id']} is not attached to instance {stray[0]}")
        chosen = named or list(volume["instance_ids"])
        for instance_id in chosen:
            if instance_id in instance_table:
                require_offline(instance_table[instance_id])
        plans.append((volume, chosen))
    for volume, chosen in plans:
        for instance_id in chosen:
            unlink(state, volume, instance_table.get(instance_id), instance_id)
        volume["status"] = "detaching"
        state.store.save(kinds.VOLUMES, volume)
        schedule(state, volume, "volume.detach", hook="volume.settle_attachment")
        _audit(state, caller, "detach", volume)


def _rename(state: Domain, caller: Principal, targets: list[Record], body: VolumeAction) -> None:
    if not body.name:
        raise invalid("name is required for rename")
    for volume in targets:
        _require_not_deleted(volume)
    for volume in targets:
        volume["name"] = body.name
        state.store.save(kinds.VOLUMES, volume)
        _audit(state, caller, "rename", volume)


def _resize(state: Domain, caller: Principal, targets: list[Record], body: VolumeAction) -> None:
    if body.size is None:
        raise invalid("size is required for resize")
    for volume in targets:
        _require_idle(volume, "resize")
        if body.size <= volume["size"]:
            raise invalid(f"size: a volume can only grow (volume {volume['id']} has {volume['size']} GB)")
    for volume in targets:
        close_charges(state, kinds.VOLUMES, volume)
        volume["size"] = body.size
        volume["base_hourly_cost"] = catalog.volume_hourly_cost(volume["type"], body.size)
        state.store.save(kinds.VOLUMES, volume)
        _audit(state, caller, "resize", volume)


def _clone(state: Domain, caller: Principal, targets: list[Record], body: VolumeAction) -> list[str]:
    if body.location_code is not None:
        check_location(body.location_code)
    if body.type is not None:
        check_standalone_type(body.type)
    for volume in targets:
        _require_idle(volume, "clone")
    clone_ids = []
    for source in targets:
        location = body.location_code or source["location"]
        clone = new_record(
            state, caller.project_id, name=body.name or f"{source['name']}-clone", size=source["size"],
            volume_type=body.type or source["type"], location=location, status="cloning",
            user_id=caller.user_id, is_os_volume=source["is_os_volume"], os_image=source["os_image"],
            ssh_key_ids=source["ssh_key_ids"],
        )
        state.store.insert(kinds.VOLUMES, clone)
        step = "volume.clone" if location == source["location"] else "volume.clone_cross_location"
        schedule(state, clone, step, to_status="detached")
        _audit(state, caller, "clone", clone, source_volume_id=source["id"])
        clone_ids.append(clone["id"])
    return clone_ids


def _cancel(state: Domain, caller: Principal, targets: list[Record], _body: VolumeAction) -> None:
    for volume in targets:
        if volume["status"] != "cloning":
            raise invalid(f"Only a volume being cloned can be canceled (volume {volume['id']} is {volume['status']})")
    for volume in targets:
        volume["status"] = "canceling"
        state.store.save(kinds.VOLUMES, volume)
        schedule(state, volume, "volume.cancel", to_status="canceled")
        _audit(state, caller, "cancel", volume)


def _check_deletable(volume: Record) -> None:
    if volume["status"] == "deleted":
        return
    require_not_on_cluster(volume, "delete")
    if volume["status"] in DELETABLE_WHILE_PENDING:
        return
    if volume["instance_ids"]:
        raise invalid(f"Volume {volume['id']} is attached to an instance: detach it first")
    if volume["status"] in BUSY_STATUSES:
        raise invalid(f"Cannot delete volume {volume['id']} while it is {volume['status']}")


def delete(state: Domain, caller: Principal, targets: list[Record], permanently: bool) -> bool:
    """Delete (to the trash, or permanently); True when anything changed."""
    for volume in targets:
        _check_deletable(volume)
    changed = False
    for volume in targets:
        if volume["is_permanently_deleted"] or (is_in_trash(volume) and not permanently):
            continue
        if permanently:
            delete_permanently(state, volume)
            _audit(state, caller, "delete", volume)
        else:
            move_to_trash(state, volume)
            _audit(state, caller, "trash", volume)
        changed = True
    return changed


def _delete(state: Domain, caller: Principal, targets: list[Record], body: VolumeAction) -> None:
    delete(state, caller, targets, bool(body.is_permanent))


def _restore(state: Domain, caller: Principal, targets: list[Record], _body: VolumeAction) -> None:
    for volume in targets:
        if volume["is_permanently_deleted"]:
            raise invalid(f"Volume {volume['id']} was deleted permanently and cannot be restored")
        if not is_in_trash(volume):
            raise invalid(f"Only a deleted volume can be restored (volume {volume['id']} is {volume['status']})")
    for volume in targets:
        volume["status"] = "restoring"
        volume["deleted_at"] = None
        state.store.save(kinds.VOLUMES, volume)
        schedule(state, volume, "volume.restore", to_status="detached")
        _audit(state, caller, "restore", volume)


VOLUME_ACTIONS: dict[str, Callable[[Domain, Principal, list[Record], VolumeAction], list[str] | None]] = {
    "attach": _attach,
    "detach": _detach,
    "rename": _rename,
    "resize": _resize,
    "clone": _clone,
    "cancel": _cancel,
    "delete": _delete,
    "restore": _restore,
}


def act(state: Domain, caller: Principal, body: VolumeAction) -> list[str]:
    """One action on the volumes ``body.id`` names, all or nothing; the new ids for a clone."""
    handler = VOLUME_ACTIONS.get(body.action)
    if handler is None:
        raise unavailable_action(body.action)
    volume_ids = [body.id] if isinstance(body.id, str) else body.id
    if not volume_ids:
        raise invalid("id: at least one volume id is required")
    targets = [get_owned(state, kinds.VOLUMES, volume_id, caller.project_id) for volume_id in dict.fromkeys(volume_ids)]
    for volume in targets:
        if volume["is_permanently_deleted"] and body.action != "delete":
            raise not_found(f"Volume {volume['id']}")
    return handler(state, caller, targets, body) or []


def listed(state: Domain, project_id: str, status: str | None = None) -> list[Record]:
    """The project's volumes in ``status``, or every one not deleted."""
    return [
        volume
        for volume in state.store.records(kinds.VOLUMES, project_id)
        if (volume["status"] != "deleted" if status is None else volume["status"] == status)
        and not volume["is_permanently_deleted"]
    ]


def trash(state: Domain, project_id: str) -> list[Record]:
    return [volume for volume in state.store.records(kinds.VOLUMES, project_id) if is_in_trash(volume)]


def check_taggable(volume: Record) -> None:
    if volume["status"] == "deleted":
        raise forbidden(f"Volume {volume['id']} is deleted and cannot be tagged")


TRANSITION_HOOKS = {
    "volume.settle_attachment": _settle_attachment,
    "volume.purge": _purge,
}
