"""Audit log shapes (CloudEvents 1.0)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from cloudcompute_emulator.schemas.common import RequestModel


class AuditEvent(BaseModel):
    specversion: str
    id: str
    source: str = Field(description="/projects/<project_id>")
    type: str = Field(description="com.service.api.public-api.<object_type>.<action>.v1")
    subject: str
    time: str
    data: dict[str, Any]


class AuditLogPage(BaseModel):
    data: list[AuditEvent]
    cursor: str | None = Field(None, description="present when more results exist")


class AuditDownloadRequest(RequestModel):
    action: str | None = None
    object_type: str | None = None
    start_date: str | None = Field(None, json_schema_extra={"format": "date-time"})
    end_date: str | None = Field(None, json_schema_extra={"format": "date-time"})


class AuditDownload(BaseModel):
    url: str
    expires_at: str
