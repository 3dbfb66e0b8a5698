"""Volume endpoints: list, create, every action of PUT /v1/volumes, trash, read, delete, tags.

A PUT naming several volumes is all or nothing: every volume is checked before any changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Query

from cloudcompute_emulator import kinds, tags
from cloudcompute_emulator.catalog import volume_hourly_cost
from cloudcompute_emulator.context import ApiContext, Context, UserAgent
from cloudcompute_emulator.errors import forbidden, invalid, not_found
from cloudcompute_emulator.projects import close_charges
from cloudcompute_emulator.resources import volumes
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.routes.tags import add_tag_routes
from cloudcompute_emulator.schemas.volumes import (
    DeletedVolume,
    Volume,
    VolumeAction,
    VolumeCreate,
    VolumeDelete,
    VolumeStatus,
)
from cloudcompute_emulator.store import Record

router = APIRouter(tags=["Volumes"])

# Statuses in the middle of an operation: no other action until it completes.
BUSY_STATUSES = frozenset({"ordered", "attaching", "detaching", "cloning", "canceling", "restoring", "deleting"})
# A delete is accepted while one of these transitions is pending (clients create a volume and
# delete it at once); the pending transition then no longer matches and never lands.
DELETABLE_WHILE_PENDING = frozenset({"ordered", "attaching", "detaching", "cloning"})


def _audit(ctx: ApiContext, action: str, volume: Record, **extra) -> None:
    ctx.audit("volume", action, volume["id"], location_code=volume["location"], volume=volumes.view(ctx.state, volume), **extra)


def _require_not_deleted(volume: Record) -> None:
    if volume["status"] == "deleted":
        raise invalid(f"Volume {volume['id']} is deleted")


def _require_idle(volume: Record, action: str) -> None:
    _require_not_deleted(volume)
    if volume["status"] in BUSY_STATUSES:
        raise invalid(f"Cannot {action} volume {volume['id']} while it is {volume['status']}")


# -- list / create -----------------------------------------------------------------------------


@router.get("/v1/volumes", response_model=list[Volume], responses=_responses.errors(400), summary="Active volumes")
async def list_volumes(ctx: Context, status: Annotated[VolumeStatus | None, Query(description="a volume status")] = None):
    selected = [
        volume
        for volume in ctx.store.records(kinds.VOLUMES, ctx.project_id)
        if (volume["status"] != "deleted" if status is None else volume["status"] == status)
        and not volume["is_permanently_deleted"]
    ]
    return _responses.json([volumes.view(ctx.state, volume) for volume in selected])


@router.post(
    "/v1/volumes",
    status_code=202,
    response_model=str,
    responses={202: _responses.TEXT_ID, **_responses.errors(403, 404)},
    summary="Create a volume (answers the new id as text)",
)
async def create_volume(ctx: Context, _user_agent: UserAgent, body: VolumeCreate):
    volumes.check_location(body.location_code)
    volumes.check_standalone_type(body.type)
    tags.check_inputs(body.tags)
    instance_ids = ([body.instance_id] if body.instance_id else []) + (body.instance_ids or [])
    instances = volumes.find_instances_for_attach(ctx, instance_ids, body.location_code) if instance_ids else []
    volumes.check_attachable(body.type, len(instances))
    volume = volumes.new_record(
        ctx.state, ctx.project_id, name=body.name, size=body.size, volume_type=body.type,
        location=body.location_code, status="ordered", user_id=ctx.caller.user_id,
        tag_ids=tags.resolve_inputs(ctx.state, ctx.project_id, body.tags),
    )
    ctx.store.insert(kinds.VOLUMES, volume)
    for instance in instances:
        volumes.link(ctx.state, volume, instance)
    volumes.schedule(ctx.state, volume, "volume.ordered", hook="volume.settle_attachment")
    _audit(ctx, "create", volume)
    return _responses.created_id(volume["id"], 202)


# -- actions ------------------------------------------------------------------------------------


def _attach(ctx: ApiContext, targets: list[Record], body: VolumeAction) -> None:
    instance_ids = ([body.instance_id] if body.instance_id else []) + (body.instance_ids or [])
    if not instance_ids:
        raise invalid("instance_id or instance_ids is required for attach")
    plans = []
    for volume in targets:
        _require_not_deleted(volume)
        volumes.require_not_on_cluster(volume, "attach")
        if volume["status"] == "attached" and set(instance_ids) <= set(volume["instance_ids"]):
            continue  # already attached there
        if volume["status"] not in ("detached", "attached"):
            raise invalid(f"Cannot attach volume {volume['id']} while it is {volume['status']}")
        instances = volumes.find_instances_for_attach(ctx, instance_ids, volume["location"])
        volumes.check_attachable(volume["type"], len(set(volume["instance_ids"]) | set(instance_ids)))
        plans.append((volume, instances))
    for volume, instances in plans:
        for instance in instances:
            volumes.link(ctx.state, volume, instance)
        volume["status"] = "attaching"
        ctx.store.save(kinds.VOLUMES, volume)
        volumes.schedule(ctx.state, volume, "volume.attach", hook="volume.settle_attachment")
        _audit(ctx, "attach", volume)


def _detach(ctx: ApiContext, targets: list[Record], body: VolumeAction) -> None:
    named = ([body.instance_id] if body.instance_id else []) + (body.instance_ids or [])
    instance_table = ctx.store.table(kinds.INSTANCES)
    plans = []
    for volume in targets:
        _require_not_deleted(volume)
        if volume["status"] == "detached":
            continue
        volumes.require_not_on_cluster(volume, "detach")
        if volume["status"] != "attached":
            raise invalid(f"Cannot detach volume {volume['id']} while it is {volume['status']}")
        stray = [instance_id for instance_id in named if instance_id not in volume["instance_ids"]]
        if stray:
            raise invalid(f"Volume {volume['id']} is not attached to instance {stray[0]}")
        chosen = named or list(volume["instance_ids"])
        for instance_id in chosen:
            if instance_id in instance_table:
                volumes.require_offline(instance_table[instance_id])
        plans.append((volume, chosen))
    for volume, chosen in plans:
        for instance_id in chosen:
            volumes.unlink(ctx.state, volume, instance_table.get(instance_id), instance_id)
        volume["status"] = "detaching"
        ctx.store.save(kinds.VOLUMES, volume)
        volumes.schedule(ctx.state, volume, "volume.detach", hook="volume.settle_attachment")
        _audit(ctx, "detach", volume)


def _rename(ctx: ApiContext, targets: list[Record], body: VolumeAction) -> None:
    if not body.name:
        raise invalid("name is required for rename")
    for volume in targets:
        _require_not_deleted(volume)
    for volume in targets:
        volume["name"] = body.name
        ctx.store.save(kinds.VOLUMES, volume)
        _audit(ctx, "rename", volume)


def _resize(ctx: ApiContext, targets: list[Record], body: VolumeAction) -> None:
    if body.size is None:
        raise invalid("size is required for resize")
    for volume in targets:
        _require_idle(volume, "resize")
        if body.size <= volume["size"]:
            raise invalid(f"size: a volume can only grow (volume {volume['id']} has {volume['size']} GB)")
    for volume in targets:
        close_charges(ctx.state, kinds.VOLUMES, volume)
        volume["size"] = body.size
        volume["base_hourly_cost"] = volume_hourly_cost(volume["type"], body.size)
        ctx.store.save(kinds.VOLUMES, volume)
        _audit(ctx, "resize", volume)


def _clone(ctx: ApiContext, targets: list[Record], body: VolumeAction) -> list[str]:
    if body.location_code is not None:
        volumes.check_location(body.location_code)
    if body.type is not None:
        volumes.check_standalone_type(body.type)
    for volume in targets:
        _require_idle(volume, "clone")
    clone_ids = []
    for source in targets:
        location = body.location_code or source["location"]
        clone = volumes.new_record(
            ctx.state, ctx.project_id, name=body.name or f"{source['name']}-clone", size=source["size"],
            volume_type=body.type or source["type"], location=location, status="cloning",
            user_id=ctx.caller.user_id, is_os_volume=source["is_os_volume"], os_image=source["os_image"],
            ssh_key_ids=source["ssh_key_ids"],
        )
        ctx.store.insert(kinds.VOLUMES, clone)
        step = "volume.clone" if location == source["location"] else "volume.clone_cross_location"
        volumes.schedule(ctx.state, clone, step, to_status="detached")
        _audit(ctx, "clone", clone, source_volume_id=source["id"])
        clone_ids.append(clone["id"])
    return clone_ids


def _cancel(ctx: ApiContext, targets: list[Record], _body: VolumeAction) -> None:
    for volume in targets:
        if volume["status"] != "cloning":
            raise invalid(f"Only a volume being cloned can be canceled (volume {volume['id']} is {volume['status']})")
    for volume in targets:
        volume["status"] = "canceling"
        ctx.store.save(kinds.VOLUMES, volume)
        volumes.schedule(ctx.state, volume, "volume.cancel", to_status="canceled")
        _audit(ctx, "cancel", volume)


def _check_deletable(volume: Record) -> None:
    if volume["status"] == "deleted":
        return
    volumes.require_not_on_cluster(volume, "delete")
    if volume["status"] in DELETABLE_WHILE_PENDING:
        return
    if volume["instance_ids"]:
        raise invalid(f"Volume {volume['id']} is attached to an instance: detach it first")
    if volume["status"] in BUSY_STATUSES:
        raise invalid(f"Cannot delete volume {volume['id']} while it is {volume['status']}")


def delete_volume_records(ctx: ApiContext, targets: list[Record], permanently: bool) -> bool:
    """Delete (to the trash, or permanently); True when anything changed."""
    for volume in targets:
        _check_deletable(volume)
    changed = False
    for volume in targets:
        if volume["is_permanently_deleted"] or (volumes.is_in_trash(volume) and not permanently):
            continue
        if permanently:
            volumes.delete_permanently(ctx.state, volume)
            _audit(ctx, "delete", volume)
        else:
            volumes.move_to_trash(ctx.state, volume)
            _audit(ctx, "trash", volume)
        changed = True
    return changed


def _delete(ctx: ApiContext, targets: list[Record], body: VolumeAction) -> None:
    delete_volume_records(ctx, targets, bool(body.is_permanent))


def _restore(ctx: ApiContext, targets: list[Record], _body: VolumeAction) -> None:
    for volume in targets:
        if volume["is_permanently_deleted"]:
            raise invalid(f"Volume {volume['id']} was deleted permanently and cannot be restored")
        if not volumes.is_in_trash(volume):
            raise invalid(f"Only a deleted volume can be restored (volume {volume['id']} is {volume['status']})")
    for volume in targets:
        volume["status"] = "restoring"
        volume["deleted_at"] = None
        ctx.store.save(kinds.VOLUMES, volume)
        volumes.schedule(ctx.state, volume, "volume.restore", to_status="detached")
        _audit(ctx, "restore", volume)


VOLUME_ACTIONS: dict[str, Callable[[ApiContext, list[Record], VolumeAction], list[str] | None]] = {
    "attach": _attach,
    "detach": _detach,
    "rename": _rename,
    "resize": _resize,
    "clone": _clone,
    "cancel": _cancel,
    "delete": _delete,
    "restore": _restore,
}


@router.put(
    "/v1/volumes",
    status_code=202,
    response_model=list[str],
    responses={202: {"description": "accepted: the new volume ids for clone, an empty array otherwise"}, **_responses.errors(403, 404)},
    summary="Act on one or several volumes",
)
async def volume_action(ctx: Context, _user_agent: UserAgent, body: VolumeAction):
    handler = VOLUME_ACTIONS.get(body.action)
    if handler is None:
        raise volumes.unavailable_action(body.action)
    volume_ids = [body.id] if isinstance(body.id, str) else body.id
    if not volume_ids:
        raise invalid("id: at least one volume id is required")
    targets = [volumes.find(ctx, volume_id) for volume_id in dict.fromkeys(volume_ids)]
    for volume in targets:
        if volume["is_permanently_deleted"] and body.action != "delete":
            raise not_found(f"Volume {volume['id']}")
    clone_ids = handler(ctx, targets, body)
    return _responses.json(clone_ids or [], status_code=202)


# -- trash / read / delete ----------------------------------------------------------------------


@router.get("/v1/volumes/trash", response_model=list[DeletedVolume], summary="Deleted volumes still in the trash")
async def list_trash(ctx: Context):
    return _responses.json(
        [volumes.view(ctx.state, volume) for volume in ctx.store.records(kinds.VOLUMES, ctx.project_id) if volumes.is_in_trash(volume)]
    )


@router.get(
    "/v1/volumes/{volume_id}",
    response_model=Volume | DeletedVolume,
    responses=_responses.errors(404),
    summary="One volume (active or deleted shape)",
)
async def get_volume(ctx: Context, volume_id: str):
    return _responses.json(volumes.view(ctx.state, volumes.find(ctx, volume_id)))


@router.delete(
    "/v1/volumes/{volume_id}",
    status_code=202,
    response_class=_responses.Response,
    responses={204: {"description": "already deleted, nothing changed"}, **_responses.errors(404)},
    summary="Delete a volume (to the trash, or permanently)",
)
async def delete_volume(ctx: Context, _user_agent: UserAgent, volume_id: str, body: VolumeDelete | None = None):
    volume = volumes.find(ctx, volume_id)
    changed = delete_volume_records(ctx, [volume], bool(body and body.is_permanent))
    return _responses.empty(202 if changed else 204)


def _check_taggable(volume: Record) -> None:
    if volume["status"] == "deleted":
        raise forbidden(f"Volume {volume['id']} is deleted and cannot be tagged")


add_tag_routes(
    router, prefix="/v1/volumes", kind=kinds.VOLUMES, label="volume", object_type="volume",
    find=volumes.find, view=volumes.view, check_taggable=_check_taggable,
)
