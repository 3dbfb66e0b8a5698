"""Volume endpoints: list, create, every action of PUT /v1/volumes, trash, read, delete, tags.

Parse, call resources/volumes.py (where the rules are), render.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from cloudcompute_emulator import kinds
from cloudcompute_emulator.context import Context, UserAgent
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

router = APIRouter(tags=["Volumes"])

# -- list / create -----------------------------------------------------------------------------


@router.get("/v1/volumes", response_model=list[Volume], responses=_responses.errors(400), summary="Active volumes")
async def list_volumes(ctx: Context, status: Annotated[VolumeStatus | None, Query(description="a volume status")] = None):
    selected = volumes.listed(ctx.state, ctx.project_id, status)
    return _responses.json([volumes.view(ctx.state, volume) for volume in selected])


@router.post(
    "/v1/volumes",
    status_code=202,
    response_model=str,
    responses={202: _responses.TEXT_ID, **_responses.errors(403, 404)},
    summary="Create a volume (answers the new id as text)",
)
async def create_volume(ctx: Context, _user_agent: UserAgent, body: VolumeCreate):
    volume = volumes.create(ctx.state, ctx.caller, body)
    return _responses.created_id(volume["id"], 202)


@router.put(
    "/v1/volumes",
    status_code=202,
    response_model=list[str],
    responses={202: {"description": "accepted: the new volume ids for clone, an empty array otherwise"}, **_responses.errors(403, 404)},
    summary="Act on one or several volumes",
)
async def volume_action(ctx: Context, _user_agent: UserAgent, body: VolumeAction):
    return _responses.json(volumes.act(ctx.state, ctx.caller, body), status_code=202)


# -- trash / read / delete ----------------------------------------------------------------------


@router.get("/v1/volumes/trash", response_model=list[DeletedVolume], summary="Deleted volumes still in the trash")
async def list_trash(ctx: Context):
    return _responses.json([volumes.view(ctx.state, volume) for volume in volumes.trash(ctx.state, ctx.project_id)])


@router.get(
    "/v1/volumes/{volume_id}",
    response_model=Volume | DeletedVolume,
    responses=_responses.errors(404),
    summary="One volume (active or deleted shape)",
)
async def get_volume(ctx: Context, volume_id: str):
    return _responses.json(volumes.view(ctx.state, ctx.get_owned(kinds.VOLUMES, volume_id)))


@router.delete(
    "/v1/volumes/{volume_id}",
    status_code=202,
    response_class=_responses.Response,
    responses={204: {"description": "already deleted, nothing changed"}, **_responses.errors(404)},
    summary="Delete a volume (to the trash, or permanently)",
)
async def delete_volume(ctx: Context, _user_agent: UserAgent, volume_id: str, body: VolumeDelete | None = None):
    volume = ctx.get_owned(kinds.VOLUMES, volume_id)
    changed = volumes.delete(ctx.state, ctx.caller, [volume], bool(body and body.is_permanent))
    return _responses.empty(202 if changed else 204)


add_tag_routes(
    router, prefix="/v1/volumes", kind=kinds.VOLUMES, label="volume", object_type="volume",
    view=volumes.view, check_taggable=volumes.check_taggable,
)
