"""SSH key and startup script shapes."""

from __future__ import annotations

from pydantic import BaseModel, Field

from cloudcompute_emulator.schemas.common import RequestModel


class SshKeyCreate(RequestModel):
    name: str = Field(min_length=1, max_length=255)
    key: str = Field(min_length=1, max_length=16_384)


class SshKeyDelete(RequestModel):
    keys: list[str]


class SshKey(BaseModel):
    id: str
    name: str
    key: str
    fingerprint: str | None = Field(description="MD5 of the decoded key blob, colon-separated hex; null when unparsable")


class StartupScriptCreate(RequestModel):
    name: str = Field(min_length=1, max_length=255)
    script: str = Field(min_length=1, max_length=1_000_000)


class StartupScriptDelete(RequestModel):
    scripts: list[str]


class StartupScript(BaseModel):
    id: str
    name: str
    script: str
    created_at: str
