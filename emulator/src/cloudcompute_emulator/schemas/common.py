"""Shared request base, error body and tag models."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Currency = Literal["usd", "eur"]

TAG_KEY_MAX = 63
TAG_VALUE_MAX = 127
MAX_TAGS_PER_RESOURCE = 10


class RequestModel(BaseModel):
    """Unknown keys are ignored and ``null`` means absent (as the production service treats request noise).

    Strict types: ``"10"`` is not a size and ``0`` is not ``false``, as in a JSON schema.
    """

    model_config = ConfigDict(extra="ignore", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _null_means_absent(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if value is not None}
        return data


class ErrorBody(BaseModel):
    code: str = Field(description="invalid_request, unauthorized_request, insufficient_funds, forbidden_action, "
                      "not_found, conflict, rate_limit_exceeded, server_error or service_unavailable")
    message: str


class TagInput(RequestModel):
    key: str = Field(min_length=1, max_length=TAG_KEY_MAX, description="normalised to lowercase")
    value: str | None = Field(None, max_length=TAG_VALUE_MAX, description="omit for a freeform tag")


class Tag(BaseModel):
    id: str
    key: str
    value: str
