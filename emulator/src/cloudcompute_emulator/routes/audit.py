"""Audit log: GET /v1/audit/log (paged by cursor) and POST /v1/audit/log/download.

Owner and admin only (403 for members). The download URL is served by the emulator itself
(``/_emulator/downloads/<token>.json``, no token needed, valid 15 minutes).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from cloudcompute_emulator import audit
from cloudcompute_emulator.context import Context
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.audit import AuditDownload, AuditDownloadRequest, AuditLogPage

router = APIRouter(tags=["Audit log"])

AUDIT_ROLES = ("owner", "admin")


@router.get("/v1/audit/log", response_model=AuditLogPage, responses=_responses.errors(403), summary="Audit events, newest first")
async def list_audit_log(
    ctx: Context,
    action: Annotated[str | None, Query(description="e.g. create, delete, start")] = None,
    object_type: Annotated[str | None, Query(description="e.g. compute, volume, ssh_key")] = None,
    start_date: Annotated[str | None, Query(description="events at or after (RFC 3339)", json_schema_extra={"format": "date-time"})] = None,
    end_date: Annotated[str | None, Query(description="events at or before (RFC 3339)", json_schema_extra={"format": "date-time"})] = None,
    page_size: Annotated[int, Query(ge=1, le=audit.MAX_PAGE_SIZE)] = audit.DEFAULT_PAGE_SIZE,
    cursor: Annotated[str | None, Query(description="from the previous page")] = None,
):
    ctx.caller.require_role(*AUDIT_ROLES)
    page = audit.list_page(
        ctx.state,
        ctx.project_id,
        page_size,
        cursor,
        action=action,
        object_type=object_type,
        start=audit.parse_date("start_date", start_date),
        end=audit.parse_date("end_date", end_date),
    )
    return _responses.json(page)


@router.post("/v1/audit/log/download", response_model=AuditDownload, responses=_responses.errors(403), summary="Export audit events as a JSON file")
async def download_audit_log(ctx: Context, body: AuditDownloadRequest | None = None):
    ctx.caller.require_role(*AUDIT_ROLES)
    body = body or AuditDownloadRequest()
    export = audit.create_export(
        ctx.state,
        ctx.project_id,
        str(ctx.request.base_url),
        body.action,
        body.object_type,
        audit.parse_date("start_date", body.start_date),
        audit.parse_date("end_date", body.end_date),
    )
    return _responses.json(export)
