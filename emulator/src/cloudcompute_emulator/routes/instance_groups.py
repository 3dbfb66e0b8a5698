"""Instance group endpoints: list, create, read, patch, delete (rules in resources/instance_groups.py)."""

from __future__ import annotations

from fastapi import APIRouter

from cloudcompute_emulator.context import Context
from cloudcompute_emulator.resources import instance_groups
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.instance_groups import InstanceGroup, InstanceGroupCreate, InstanceGroupPatch

router = APIRouter(tags=["Instance groups"])


@router.get("/v1/instance-groups", response_model=list[InstanceGroup], summary="Live instance groups, oldest first")
async def list_instance_groups(ctx: Context):
    return _responses.json([instance_groups.view(group) for group in instance_groups.live(ctx.state, ctx.project_id)])


@router.post(
    "/v1/instance-groups", status_code=201, response_model=InstanceGroup, responses=_responses.errors(409),
    summary="Create an instance group",
)
async def create_instance_group(ctx: Context, body: InstanceGroupCreate):
    group = instance_groups.create(ctx.state, ctx.caller, body)
    return _responses.json(instance_groups.view(group), status_code=201)


@router.get("/v1/instance-groups/{instance_group_id}", response_model=InstanceGroup, responses=_responses.errors(404),
            summary="One instance group")
async def get_instance_group(ctx: Context, instance_group_id: str):
    return _responses.json(instance_groups.view(instance_groups.find(ctx.state, ctx.project_id, instance_group_id)))


@router.patch(
    "/v1/instance-groups/{instance_group_id}", response_model=InstanceGroup, responses=_responses.errors(404, 409),
    summary="Update name, description, template SSH keys and startup script",
)
async def patch_instance_group(ctx: Context, instance_group_id: str, body: InstanceGroupPatch):
    group = instance_groups.patch(ctx.state, ctx.caller, instance_group_id, body)
    return _responses.json(instance_groups.view(group))


@router.delete(
    "/v1/instance-groups/{instance_group_id}", status_code=204, response_class=_responses.Response,
    responses=_responses.errors(404), summary="Delete an instance group (its name can be reused)",
)
async def delete_instance_group(ctx: Context, instance_group_id: str):
    instance_groups.delete(ctx.state, ctx.caller, instance_group_id)
    return _responses.empty(204)
