"""The HTTP side of the error model: :class:`~cloudcompute_emulator.errors.ApiError` and FastAPI's
own errors as ``{code, message}`` JSON responses (400 naming the field for validation errors,
405 with ``Allow``, 500 ``server_error`` instead of a traceback page).
"""

from __future__ import annotations

import logging
import re

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from cloudcompute_emulator.errors import ApiError, describe_validation_errors, invalid

log = logging.getLogger("cloudcompute_emulator")


def error_response(error: ApiError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers)


def allowed_methods(request: Request) -> list[str]:
    """Every method documented at the request's path, from the OpenAPI document (each method
    is its own route in FastAPI, so Starlette's Allow header would name only one of them)."""
    table = getattr(request.app.state, "allowed_methods_table", None)
    if table is None:
        table = []
        for template, operations in request.app.openapi().get("paths", {}).items():
            pattern = re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "$")
            table.append((template.count("{"), pattern, sorted(method.upper() for method in operations)))
        request.app.state.allowed_methods_table = table
    matching = [(parameters, methods) for parameters, pattern, methods in table if pattern.match(request.url.path)]
    if not matching:
        return []
    # the most specific template wins: /v1/volumes/trash rather than /v1/volumes/{volume_id}
    fewest = min(parameters for parameters, _methods in matching)
    return sorted({method for parameters, methods in matching if parameters == fewest for method in methods})


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, error: ApiError) -> JSONResponse:
        return error_response(error)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, error: RequestValidationError) -> JSONResponse:
        return error_response(invalid(describe_validation_errors(list(error.errors()))))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        # Unknown paths and methods from the router. Messages keep "not found" for 404s.
        if error.status_code == 404:
            api_error = ApiError(404, "Path not found")
        elif error.status_code == 405:
            allowed = ", ".join(allowed_methods(request))
            api_error = ApiError(
                405, f"Method {request.method} not allowed; use {allowed}", headers={"Allow": allowed} if allowed else None
            )
        else:
            api_error = ApiError(error.status_code, str(error.detail))
        return error_response(api_error)

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected error while serving a request", exc_info=error)
        return error_response(ApiError(500, "Internal server error"))
