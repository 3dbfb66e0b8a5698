"""Response helpers shared by the route modules.

Handlers return these ready-made responses instead of letting FastAPI validate and serialise
the return value: lists of 10,000 instances stay fast, and the declared ``response_model``s
still document the shapes in OpenAPI.
"""

from __future__ import annotations

from typing import Any

from fastapi import Response  # noqa: F401 - re-exported for response_class=
from fastapi.responses import JSONResponse, PlainTextResponse

from cloudcompute_emulator.schemas.common import ErrorBody

# OpenAPI: a create endpoint answering the new id as a bare text body, as the production service does.
TEXT_ID = {"content": {"text/plain": {"schema": {"type": "string", "description": "the new id"}}}}


def created_id(resource_id: str, status_code: int) -> PlainTextResponse:
    return PlainTextResponse(resource_id, status_code=status_code)


def json(content: Any, status_code: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(content, status_code=status_code, headers=headers)


def empty(status_code: int) -> Response:
    return Response(status_code=status_code)


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for error statuses an endpoint answers beyond the common ones."""
    return {status: {"model": ErrorBody} for status in statuses}
