"""Startup scripts: paginated list, create within the project quota, delete."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from cloudcompute_emulator import kinds
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.context import ApiContext, Context
from cloudcompute_emulator.errors import forbidden
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.keys_scripts import StartupScript, StartupScriptCreate, StartupScriptDelete
from cloudcompute_emulator.store import Record

router = APIRouter(tags=["Startup scripts"])

PAGE_SIZE_DEFAULT = 10
PAGE_SIZE_MAX = 100


def _view(record: Record) -> dict:
    return {"id": record["id"], "name": record["name"], "script": record["script"], "created_at": record["created_at"]}


def _delete(ctx: ApiContext, records: list[Record]) -> None:
    for record in records:
        ctx.store.retire(kinds.SCRIPTS, record["id"], isoformat(ctx.now()))
        ctx.audit("startup_script", "delete", record["id"], startup_script=_view(record))


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
    records = list(ctx.store.records(kinds.SCRIPTS, ctx.project_id))
    if name:
        wanted = name.lower()
        records = [record for record in records if wanted in record["name"].lower()]
    # seq breaks ties between scripts created within the same millisecond
    records.sort(key=lambda record: (record["created_ts"], record["seq"]), reverse=orderDirection == "desc")
    start = (page - 1) * pageSize
    headers = {"X-Page": str(page), "X-Page-Size": str(pageSize), "X-Total-Count": str(len(records))}
    return _responses.json([_view(record) for record in records[start : start + pageSize]], headers=headers)


@router.post(
    "/v1/scripts",
    status_code=201,
    response_model=str,
    responses={201: _responses.TEXT_ID, **_responses.errors(403)},
    summary="Add a startup script (answers the new id as text; 403 beyond the project quota)",
)
async def create_script(ctx: Context, body: StartupScriptCreate):
    quota = ctx.state.settings.startup_script_quota
    if sum(1 for _ in ctx.store.records(kinds.SCRIPTS, ctx.project_id)) >= quota:
        raise forbidden(f"Startup script quota exceeded: the project already has {quota} scripts")
    now = ctx.now()
    record = ctx.store.insert(
        kinds.SCRIPTS,
        {
            "id": new_id(),
            "seq": ctx.store.next_counter("script_seq"),
            "project_id": ctx.project_id,
            "name": body.name,
            "script": body.script,
            "created_at": isoformat(now),
            "created_ts": now,
        },
    )
    ctx.audit("startup_script", "create", record["id"], startup_script=_view(record))
    return _responses.created_id(record["id"], 201)


@router.delete(
    "/v1/scripts", status_code=200, response_class=_responses.Response, responses=_responses.errors(404),
    summary="Delete several startup scripts",
)
async def delete_scripts(ctx: Context, body: StartupScriptDelete):
    _delete(ctx, [ctx.get_owned(kinds.SCRIPTS, script_id) for script_id in dict.fromkeys(body.scripts)])
    return _responses.empty(200)


@router.get(
    "/v1/scripts/{scriptId}", response_model=list[StartupScript], responses=_responses.errors(404),
    summary="One startup script (as a one-element array)",
)
async def get_script(ctx: Context, scriptId: str):  # noqa: N803
    return _responses.json([_view(ctx.get_owned(kinds.SCRIPTS, scriptId))])


@router.delete(
    "/v1/scripts/{scriptId}", status_code=200, response_class=_responses.Response,
    responses=_responses.errors(404), summary="Delete a startup script",
)
async def delete_script(ctx: Context, scriptId: str):  # noqa: N803
    _delete(ctx, [ctx.get_owned(kinds.SCRIPTS, scriptId)])
    return _responses.empty(200)
