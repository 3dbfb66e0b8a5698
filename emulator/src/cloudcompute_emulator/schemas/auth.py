"""Token exchange shapes (the endpoint parses JSON or form bodies itself)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from cloudcompute_emulator.schemas.common import RequestModel


class TokenRequest(RequestModel):
    grant_type: Literal["client_credentials", "refresh_token"]
    client_id: str | None = None
    client_secret: str | None = None
    refresh_token: str | None = None


class AccessToken(BaseModel):
    access_token: str
    token_type: str = Field(description="always Bearer")
    expires_in: int = Field(description="seconds until the access token expires")
    refresh_token: str = Field(description="single use, valid 30 days")
    scope: str = Field(description="cloud-api-v1")
