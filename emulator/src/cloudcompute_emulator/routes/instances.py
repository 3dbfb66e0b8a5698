"""Instance endpoints: list with filters, deploy, actions (single and bulk), read, tags."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Query

from cloudcompute_emulator import capacity, catalog, kinds, projects, tags
from cloudcompute_emulator.context import ApiContext, Context, UserAgent
from cloudcompute_emulator.errors import ApiError, invalid
from cloudcompute_emulator.resources import instances, references, volumes
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.routes.tags import add_tag_routes
from cloudcompute_emulator.schemas.instances import (
    Instance,
    InstanceAction,
    InstanceActionResult,
    InstanceDeploy,
    InstanceStatus,
)
from cloudcompute_emulator.store import Record

router = APIRouter(tags=["Instances"])

HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$")


def _audit(ctx: ApiContext, action: str, instance: Record, **extra: Any) -> None:
    ctx.audit(
        "compute", action, instance["id"], location_code=instance["location"],
        compute=instances.view(ctx.state, instance), **extra,
    )


# -- list -----------------------------------------------------------------------------------------


@router.get("/v1/instances", response_model=list[Instance], responses=_responses.errors(400), summary="Instances")
async def list_instances(
    ctx: Context,
    status: Annotated[InstanceStatus | None, Query(description="an instance status")] = None,
    computeId: Annotated[str | None, Query(description="one instance id")] = None,  # noqa: N803
    tag: Annotated[list[str], Query(description="repeatable: key (any value) or key=value")] = [],  # noqa: B006 - FastAPI copies defaults
):
    filters = tags.parse_filters(tag)
    state = ctx.state
    selected = [
        instance
        for instance in state.store.records(kinds.INSTANCES, ctx.project_id)
        if (status is None or instance["status"] == status)
        and (computeId is None or instance["id"] == computeId)
        and tags.matches(state, instance["tag_ids"], filters)
    ]
    return _responses.json([instances.view(state, instance) for instance in selected])


# -- deploy -------------------------------------------------------------------------------------


def _resolve_image(ctx: ApiContext, body: InstanceDeploy, instance_type: catalog.InstanceType) -> tuple[str, Record | None]:
    """(image type, customised OS volume to boot from or None)."""
    image = catalog.IMAGES_BY_TYPE.get(body.image)
    if image is not None:
        if image.is_cluster or image.image_type not in instance_type.supported_os:
            raise invalid(f"image: '{body.image}' is not supported by instance type {instance_type.code}")
        return image.image_type, None
    volume = ctx.store.get(kinds.VOLUMES, body.image)
    if volume is None or volume["project_id"] != ctx.project_id or not volume["is_os_volume"]:
        raise invalid(f"image: '{body.image}' is neither an image type from GET /v1/images nor an OS volume id")
    if volume["status"] != "detached":
        raise invalid(f"image: OS volume {volume['id']} must be detached (it is {volume['status']})")
    if volume["location"] != body.location_code:
        raise invalid(f"image: OS volume {volume['id']} is in {volume['location']}, not {body.location_code}")
    return volume["os_image"] or instance_type.default_image(), volume


def _resolve_ssh_keys(ctx: ApiContext, ssh_key_ids: str | list[str] | None) -> list[str]:
    if not any(True for _ in ctx.store.records(kinds.SSH_KEYS, ctx.project_id)):
        raise invalid("At least one SSH key must exist in the project before deploying")
    return references.ssh_key_ids(ctx, ssh_key_ids)


def _resolve_existing_volumes(ctx: ApiContext, volume_ids: list[str] | None, location: str) -> list[Record]:
    found = []
    for volume_id in dict.fromkeys(volume_ids or []):
        volume = ctx.store.get(kinds.VOLUMES, volume_id)
        if volume is None or volume["project_id"] != ctx.project_id:
            raise invalid(f"existing_volumes: volume {volume_id} not found")
        if volume["status"] != "detached" or volume["is_os_volume"]:
            raise invalid(f"existing_volumes: volume {volume_id} must be a detached data volume (it is {volume['status']})")
        if volume["location"] != location:
            raise invalid(f"existing_volumes: volume {volume_id} is in {volume['location']}, not {location}")
        found.append(volume)
    return found


def _check_deploy_request(ctx: ApiContext, body: InstanceDeploy) -> dict[str, Any]:
    """Everything a deploy needs, validated before anything is created (400/402/503)."""
    volumes.check_location(body.location_code)
    instance_type = catalog.INSTANCE_TYPES_BY_CODE.get(body.instance_type)
    if instance_type is None:
        raise invalid(f"instance_type: unknown instance type '{body.instance_type}'")
    if not HOSTNAME.match(body.hostname):
        raise invalid("hostname: letters, digits, '-' and '.' only, starting and ending with a letter or digit")
    is_spot = bool(body.is_spot) or body.contract == "SPOT"
    if is_spot and body.contract == "LONG_TERM":
        raise invalid("contract: a spot instance cannot have a LONG_TERM contract")
    if body.pricing == "DYNAMIC_PRICE":
        raise invalid("pricing: only FIXED_PRICE is supported")
    image_type, os_source = _resolve_image(ctx, body, instance_type)
    ssh_key_ids = _resolve_ssh_keys(ctx, body.ssh_key_ids)
    references.startup_script_id(ctx, body.startup_script_id)
    existing = _resolve_existing_volumes(ctx, body.existing_volumes, body.location_code)
    for spec in body.volumes or []:
        volumes.check_standalone_type(spec.type, "volumes[].type")
        tags.check_inputs(spec.tags)
    tags.check_inputs(body.tags)
    if body.os_volume is not None:
        tags.check_inputs(body.os_volume.tags)
    if projects.balance(ctx.state, ctx.project_id) <= 0:
        raise ApiError(402, "Not enough funds to deploy: the project balance is not positive")
    if capacity.available(ctx.state, (instance_type.code, body.location_code, is_spot)) < 1:
        kind = "spot " if is_spot else ""
        raise ApiError(503, f"No {kind}capacity for {instance_type.code} in {body.location_code}; retry later or choose another location")
    return {
        "instance_type": instance_type, "image_type": image_type, "os_source": os_source,
        "ssh_key_ids": ssh_key_ids, "existing": existing, "is_spot": is_spot,
        "contract": "SPOT" if is_spot else (body.contract or "PAY_AS_YOU_GO"),
    }


def _create_attached_volume(ctx: ApiContext, instance: Record, **fields: Any) -> Record:
    volume = volumes.new_record(
        ctx.state, ctx.project_id, location=instance["location"], status="attached", user_id=ctx.caller.user_id, **fields
    )
    ctx.store.insert(kinds.VOLUMES, volume)
    volumes.link(ctx.state, volume, instance)
    return volume


@router.post(
    "/v1/instances",
    status_code=202,
    response_model=str,
    responses={202: _responses.TEXT_ID, **_responses.errors(402, 503)},
    summary="Deploy an instance (answers the new id as text)",
)
async def deploy_instance(ctx: Context, _user_agent: UserAgent, body: InstanceDeploy):
    plan = _check_deploy_request(ctx, body)
    instance_type: catalog.InstanceType = plan["instance_type"]
    instance = instances.new_record(
        ctx.state, ctx.project_id, hostname=body.hostname, instance_type=instance_type, image=plan["image_type"],
        location=body.location_code, is_spot=plan["is_spot"], contract=plan["contract"], user_id=ctx.caller.user_id,
        description=body.description or "", ssh_key_ids=plan["ssh_key_ids"], startup_script_id=body.startup_script_id,
        tag_ids=tags.resolve_inputs(ctx.state, ctx.project_id, body.tags), coupon=body.coupon,
    )
    ctx.store.insert(kinds.INSTANCES, instance)
    new_volumes = []
    os_volume: Record | None = plan["os_source"]
    if os_volume is not None:
        volumes.link(ctx.state, os_volume, instance)
        os_volume["status"] = "attached"
    else:
        os_spec = body.os_volume
        os_volume = _create_attached_volume(
            ctx, instance,
            name=os_spec.name if os_spec else f"OS-NVMe-{body.hostname}"[:255],
            size=os_spec.size if os_spec else instance_type.default_os_volume_gb,
            volume_type=catalog.OS_VOLUME_TYPE, is_os_volume=True, os_image=plan["image_type"],
            ssh_key_ids=plan["ssh_key_ids"],
            on_spot_discontinue=(os_spec.on_spot_discontinue if os_spec else None) or "keep_detached",
            tag_ids=tags.resolve_inputs(ctx.state, ctx.project_id, os_spec.tags if os_spec else None),
        )
        new_volumes.append(os_volume)
    instance["os_volume_id"] = os_volume["id"]
    for spec in body.volumes or []:
        new_volumes.append(
            _create_attached_volume(
                ctx, instance, name=spec.name, size=spec.size, volume_type=spec.type,
                on_spot_discontinue=spec.on_spot_discontinue or "keep_detached",
                tag_ids=tags.resolve_inputs(ctx.state, ctx.project_id, spec.tags),
            )
        )
    for volume in plan["existing"]:
        volumes.link(ctx.state, volume, instance)
        volume["status"] = "attached"
    instances.start_lifecycle(ctx.state, instance)
    _audit(ctx, "create", instance)
    for volume in new_volumes:
        ctx.audit("volume", "create", volume["id"], location_code=volume["location"], volume=volumes.view(ctx.state, volume))
    return _responses.created_id(instance["id"], 202)


# -- actions ------------------------------------------------------------------------------------


def _result(action: str, instance_id: str, error: ApiError | None = None) -> dict[str, Any]:
    if error is None:
        return {"action": action, "instanceId": instance_id, "status": "success"}
    return {"action": action, "instanceId": instance_id, "status": "error", "error": error.message, "statusCode": error.status}


def _act(ctx: ApiContext, instance: Record, body: InstanceAction) -> bool:
    changed = instances.perform_action(ctx.state, instance, body.action, body.volume_ids, bool(body.delete_permanently))
    if changed:
        _audit(ctx, instances.AUDIT_ACTION[body.action], instance, operation=body.action)
    return changed


async def _instance_action(ctx: ApiContext, body: InstanceAction):
    if isinstance(body.id, list) and len(body.id) == 1:
        # the official clients always send an array: one id is a single action all the same
        body = body.model_copy(update={"id": body.id[0]})
    if isinstance(body.id, str):
        # a single action: errors are the response's status; 204 when nothing was to be done
        instance = instances.find(ctx, body.id)
        instances.check_volume_ids([instance], body.volume_ids)
        if not _act(ctx, instance, body):
            return _responses.empty(204)
        return _responses.json([_result(body.action, instance["id"])], status_code=202)
    if not body.id:
        raise invalid("id: at least one instance id is required")
    found = [ctx.store.get(kinds.INSTANCES, instance_id) for instance_id in body.id]
    instances.check_volume_ids([record for record in found if record and record["project_id"] == ctx.project_id], body.volume_ids)
    results = []
    for instance_id in body.id:
        try:
            _act(ctx, instances.find(ctx, instance_id), body)
            results.append(_result(body.action, instance_id))
        except ApiError as error:
            results.append(_result(body.action, instance_id, error))
    all_succeeded = all(result["status"] == "success" for result in results)
    return _responses.json(results, status_code=202 if all_succeeded else 207)


_ACTION_RESPONSES = {
    202: {"description": "every action accepted"},
    204: {"description": "single action, instance already in the requested state"},
    207: {"model": list[InstanceActionResult], "description": "some actions failed (see each item)"},
    **_responses.errors(404),
}


@router.put(
    "/v1/instances", status_code=202, response_model=list[InstanceActionResult], responses=_ACTION_RESPONSES,
    summary="Act on one instance (id string) or several (id array)",
)
async def instance_action(ctx: Context, body: InstanceAction):
    return await _instance_action(ctx, body)


@router.post(
    "/v1/instances/action", status_code=202, response_model=list[InstanceActionResult], responses=_ACTION_RESPONSES,
    deprecated=True, summary="Act on instances (use PUT /v1/instances)",
)
async def instance_action_deprecated(ctx: Context, body: InstanceAction):
    return await _instance_action(ctx, body)


@router.get("/v1/instances/{instance_id}", response_model=Instance, responses=_responses.errors(404), summary="One instance")
async def get_instance(ctx: Context, instance_id: str):
    return _responses.json(instances.view(ctx.state, instances.find(ctx, instance_id)))


add_tag_routes(
    router, prefix="/v1/instances", kind=kinds.INSTANCES, label="instance", object_type="compute",
    find=instances.find, view=instances.view,
)
