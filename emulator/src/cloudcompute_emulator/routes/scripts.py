"""Startup scripts: paginated list, create within the project quota, delete."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from cloudcompute_emulator import kinds
from cloudcompute_emulator.context import Context
from cloudcompute_emulator.resources import keys_scripts
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.keys_scripts import StartupScript, StartupScriptCreate, StartupScriptDelete

router = APIRouter(tags=["Startup scripts"])

PAGE_SIZE_DEFAULT = 10
PAGE_SIZE_MAX = 100


@router.get(
    "/v1/scripts",
    response_model=list[StartupScript],
    summary="List startup scripts (paginated; X-Page, X-Page-Size, X-Total-Count headers)",
    responses={200: {"headers": {name: {"schema": {"type": "integer"}} for name in ("X-Page", "X-Page-Size", "X-Total-Count")}}},
)
async def list_scripts(
    ctx: Context,
    page: Annotated[int, Query(ge=1)] = 1,
    pageSize: Annotated[int, Query(ge=1, le=PAGE_SIZE_MAX)] = PAGE_SIZE_DEFAULT,  # noqa: N803
    name: Annotated[str | None, Query(description="part of the name, case-insensitive")] = None,
    orderBy: Annotated[Literal["created_at"], Query()] = "created_at",  # noqa: N803
    orderDirection: Annotated[Literal["asc", "desc"], Query()] = "desc",  # noqa: N803
):
    records = keys_scripts.scripts(ctx.state, ctx.project_id, name, descending=orderDirection == "desc")
    start = (page - 1) * pageSize
    headers = {"X-Page": str(page), "X-Page-Size": str(pageSize), "X-Total-Count": str(len(records))}
    return _responses.json([keys_scripts.script_view(record) for record in records[start : start + pageSize]], headers=headers)


@router.post(
    "/v1/scripts",
    status_code=201,
    response_model=str,
    responses={201: _responses.TEXT_ID, **_responses.errors(403)},
    summary="Add a startup script (answers the new id as text; 403 beyond the project quota)",
)
async def create_script(ctx: Context, body: StartupScriptCreate):
    record = keys_scripts.create_script(ctx.state, ctx.caller, body.name, body.script)
    return _responses.created_id(record["id"], 201)


@router.delete(
    "/v1/scripts", status_code=200, response_class=_responses.Response, responses=_responses.errors(404),
    summary="Delete several startup scripts",
)
async def delete_scripts(ctx: Context, body: StartupScriptDelete):
    keys_scripts.delete(ctx.state, ctx.caller, kinds.SCRIPTS, body.scripts)
    return _responses.empty(200)


@router.get(
    "/v1/scripts/{scriptId}", response_model=list[StartupScript], responses=_responses.errors(404),
    summary="One startup script (as a one-element array)",
)
async def get_script(ctx: Context, scriptId: str):  # noqa: N803
    return _responses.json([keys_scripts.script_view(ctx.get_owned(kinds.SCRIPTS, scriptId))])


@router.delete(
    "/v1/scripts/{scriptId}", status_code=200, response_class=_responses.Response,
    responses=_responses.errors(404), summary="Delete a startup script",
)
async def delete_script(ctx: Context, scriptId: str):  # noqa: N803
    keys_scripts.delete(ctx.state, ctx.caller, kinds.SCRIPTS, [scriptId])
    return _responses.empty(200)
