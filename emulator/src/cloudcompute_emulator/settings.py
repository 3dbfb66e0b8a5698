"""Run-time settings of the emulator (``GET|PUT /_emulator/settings``, CLI options).

Settings are pydantic models so that a ``PUT`` with a bad value answers a clear 400 and the
values survive a restart in the state file as plain JSON.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from cloudcompute_emulator.timing import UNSCALED_STEPS, step_seconds

TimingProfile = Literal["realistic", "demo", "test", "client"]
InstanceIpMode = Literal["public", "loopback"]

# Spec section 8: the two routes with their own policy.
DEFAULT_ROUTE_OVERRIDES = {"GET /v1/instances": 120, "GET /v1/volumes": 120}


class RateLimitSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    project_quota: int = Field(500, ge=1)
    endpoint_quota: int = Field(60, ge=1)
    window_seconds: int = Field(60, ge=1)
    # "METHOD /full/path" -> endpoint quota replacing endpoint_quota for that exact path.
    overrides: dict[str, int] = Field(default_factory=lambda: dict(DEFAULT_ROUTE_OVERRIDES))

    @field_validator("overrides")
    @classmethod
    def _check_overrides(cls, overrides: dict[str, int]) -> dict[str, int]:
        normalised = {}
        for route, quota in overrides.items():
            method, _, path = route.strip().partition(" ")
            if not path.startswith("/") or quota < 1:
                raise ValueError(f"override {route!r} must look like 'GET /v1/path' with a quota >= 1")
            normalised[f"{method.upper()} {path.strip()}"] = quota
        return normalised


class EmulatorSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: TimingProfile = "demo"
    # Every step of the profile lasts this many times its duration: a benchmark that scales the
    # rate-limit windows (window / 60) scales the steps by the same factor, so waiting keeps its
    # production ratio to the quota.
    timing_scale: float = Field(1.0, gt=0, le=1000, description="factor applied to every step duration")
    token_ttl: int = Field(3600, ge=1, description="access token lifetime in seconds")
    instance_ip_mode: InstanceIpMode = "public"
    balance: float = Field(10_000.0, description="balance (usd) of every project after a reset")
    startup_script_quota: int = Field(100, ge=0, le=10_000)
    request_log_limit: int = Field(100_000, ge=1, description="entries kept in the request log")
    rate_limits: RateLimitSettings = Field(default_factory=RateLimitSettings)

    def step_seconds(self, step: str) -> float:
        """How long ``step`` lasts in this profile and scale (fixed retentions are not scaled)."""
        seconds = step_seconds(step, self.profile)
        return seconds if step in UNSCALED_STEPS else seconds * self.timing_scale

    def merged(self, patch: dict[str, Any]) -> EmulatorSettings:
        """A validated copy with ``patch`` applied (nested ``rate_limits`` merged key by key)."""
        data = self.model_dump()
        for key, value in patch.items():
            if key == "rate_limits" and isinstance(value, dict):
                data["rate_limits"] = {**data["rate_limits"], **value}
            else:
                data[key] = value
        return EmulatorSettings.model_validate(data)
