"""Instance groups: records, views and the rules of create, patch and soft delete.

A group is a named template for instances (instance type, location, image, OS volume, SSH keys,
startup script). Its template is checked against the catalog and the project (unknown instance
type, image, volume type, SSH key or script -> 400 naming the field). ``location_code``,
``instance_type``, ``template.image`` and ``template.os_volume`` are immutable: a PATCH giving a
different value is 400 (the same value is accepted, so a read-modify-write client works). A
name used by another live group is 409. Deleting keeps the row with ``deleted_at`` set: it is
hidden from every read and its name can be used again (spec section 3).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cloudcompute_emulator import catalog, kinds
from cloudcompute_emulator.audit import record_event
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.errors import conflict, invalid, not_found
from cloudcompute_emulator.ports import Domain, Principal
from cloudcompute_emulator.resources import references, volumes
from cloudcompute_emulator.resources.ownership import get_owned
from cloudcompute_emulator.schemas.instance_groups import (
    InstanceGroup,
    InstanceGroupCreate,
    InstanceGroupPatch,
    OsVolumeTemplate,
)
from cloudcompute_emulator.store import Record

# OS volumes are plain block volumes: the standalone, non-shared types
OS_VOLUME_TYPES = tuple(t.type for t in catalog.VOLUME_TYPES if t.standalone and not t.is_shared_fs)


def view(group: Record) -> dict[str, Any]:
    # copies: an audit event keeps the view as it was
    template = group["template"]
    return {
        **{key: group[key] for key in InstanceGroup.model_fields if key != "template"},
        "template": {**template, "os_volume": dict(template["os_volume"]), "ssh_key_ids": list(template["ssh_key_ids"])},
    }


def live(state: Domain, project_id: str) -> Iterator[Record]:
    return (group for group in state.store.records(kinds.INSTANCE_GROUPS, project_id) if group["deleted_at"] is None)


def find(state: Domain, project_id: str, group_id: str) -> Record:
    group = get_owned(state, kinds.INSTANCE_GROUPS, group_id, project_id)
    if group["deleted_at"] is not None:
        raise not_found(f"Instance group {group_id}")
    return group


def _require_free_name(state: Domain, project_id: str, name: str, group_id: str | None = None) -> None:
    if any(group["name"] == name and group["id"] != group_id for group in live(state, project_id)):
        raise conflict(f"An instance group named '{name}' already exists")


def _os_volume(spec: OsVolumeTemplate | None, instance_type: catalog.InstanceType) -> dict[str, Any]:
    volume_type = (spec.type if spec else None) or catalog.OS_VOLUME_TYPE
    if volume_type not in OS_VOLUME_TYPES:
        raise invalid(f"template.os_volume.type: '{volume_type}' is not an OS volume type (one of {', '.join(OS_VOLUME_TYPES)})")
    return {"size": spec.size if spec else instance_type.default_os_volume_gb, "type": volume_type}


def _audit(state: Domain, caller: Principal, action: str, group: Record) -> None:
    record_event(
        state, caller, "instance_group", action, group["id"], location_code=group["location_code"], instance_group=view(group)
    )


def create(state: Domain, caller: Principal, body: InstanceGroupCreate) -> Record:
    volumes.check_location(body.location_code)
    instance_type = catalog.INSTANCE_TYPES_BY_CODE.get(body.instance_type)
    if instance_type is None:
        raise invalid(f"instance_type: unknown instance type '{body.instance_type}'")
    template = body.template
    if template.image not in instance_type.supported_os:
        raise invalid(f"template.image: '{template.image}' is not an image type supported by instance type {instance_type.code}")
    os_volume = _os_volume(template.os_volume, instance_type)
    ssh_key_ids = references.ssh_key_ids(state, caller.project_id, template.ssh_key_ids, "template.ssh_key_ids")
    references.startup_script_id(state, caller.project_id, template.startup_script_id, "template.startup_script_id")
    _require_free_name(state, caller.project_id, body.name)
    now = isoformat(state.clock.now())
    group = state.store.insert(
        kinds.INSTANCE_GROUPS,
        {
            "id": new_id(),
            "project_id": caller.project_id,
            "name": body.name,
            "description": body.description or "",
            "location_code": body.location_code,
            "instance_type": instance_type.code,
            "template": {
                "image": template.image,
                "os_volume": os_volume,
                "ssh_key_ids": ssh_key_ids,
                "startup_script_id": template.startup_script_id,
            },
            "created_at": now,
            "updated_at": now,
            "deleted_at": None,
        },
    )
    _audit(state, caller, "create", group)
    return group


def _check_immutable(group: Record, body: InstanceGroupPatch) -> None:
    template = body.template
    instance_type = catalog.INSTANCE_TYPES_BY_CODE[group["instance_type"]]
    given = {
        "location_code": (body.location_code, group["location_code"]),
        "instance_type": (body.instance_type, group["instance_type"]),
        "template.image": (template.image if template else None, group["template"]["image"]),
    }
    if template is not None and template.os_volume is not None:
        given["template.os_volume"] = (_os_volume(template.os_volume, instance_type), group["template"]["os_volume"])
    for field, (value, current) in given.items():
        if value is not None and value != current:
            raise invalid(f"{field}: immutable after creation (the group has {current!r})")


def patch(state: Domain, caller: Principal, group_id: str, body: InstanceGroupPatch) -> Record:
    group = find(state, caller.project_id, group_id)
    _check_immutable(group, body)
    changes: dict[str, Any] = {}
    template_changes: dict[str, Any] = {}
    if body.name is not None and body.name != group["name"]:
        changes["name"] = body.name
    if body.description is not None and body.description != group["description"]:
        changes["description"] = body.description
    if body.template is not None:
        if body.template.ssh_key_ids is not None:
            ssh_key_ids = references.ssh_key_ids(state, caller.project_id, body.template.ssh_key_ids, "template.ssh_key_ids")
            if ssh_key_ids != group["template"]["ssh_key_ids"]:
                template_changes["ssh_key_ids"] = ssh_key_ids
        if body.template.startup_script_id is not None:
            script_id = body.template.startup_script_id or None  # "" removes it
            references.startup_script_id(state, caller.project_id, script_id, "template.startup_script_id")
            if script_id != group["template"]["startup_script_id"]:
                template_changes["startup_script_id"] = script_id
    if "name" in changes:
        _require_free_name(state, caller.project_id, changes["name"], group["id"])
    if changes or template_changes:
        group.update(changes)
        group["template"].update(template_changes)
        group["updated_at"] = isoformat(state.clock.now())
        state.store.save(kinds.INSTANCE_GROUPS, group)
        _audit(state, caller, "update", group)
    return group


def delete(state: Domain, caller: Principal, group_id: str) -> None:
    """Soft delete: the row stays with ``deleted_at``, hidden from reads; its name is free again."""
    group = find(state, caller.project_id, group_id)
    now = isoformat(state.clock.now())
    group["deleted_at"] = now
    group["updated_at"] = now
    state.store.save(kinds.INSTANCE_GROUPS, group)
    _audit(state, caller, "delete", group)
