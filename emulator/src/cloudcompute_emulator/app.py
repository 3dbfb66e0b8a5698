"""The application factory: the FastAPI app with every route module, wrapped in the emulator
middleware. ``create_app(state)`` is what uvicorn serves (and what an in-process test client
can wrap)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from cloudcompute_emulator import __version__, capacity, control_api, docs_page, kinds, scopes
from cloudcompute_emulator.http_errors import install_error_handlers
from cloudcompute_emulator.middleware import EmulatorMiddleware
from cloudcompute_emulator.resources import clusters, instances, seeding, serverless, volumes
from cloudcompute_emulator.routes import API_ROUTERS, inference
from cloudcompute_emulator.schemas.common import ErrorBody
from cloudcompute_emulator.state import EmulatorState

API_DESCRIPTION = """\
The Cloud Compute public API, served by **cloudcompute-emulator**, a stateful local emulator.

Authenticate with `POST /v1/oauth2/token` (client credentials or refresh grant) and send
`Authorization: Bearer <access_token>`. Errors are `{code, message}`.

Authenticated responses carry rate-limit headers:
`RateLimit-Policy: "project";q=500;w=60, "endpoint";q=60;w=60` and
`RateLimit: "project";r=499;t=59, "endpoint";r=59;t=59`; a 429 carries `Retry-After` (seconds).
"""

# Statuses every operation may answer besides its own ones (documented for each operation).
COMMON_ERRORS = {
    400: "invalid_request: a missing or invalid property (the message names it)",
    405: "invalid_request: method not served at this path (see Allow)",
    429: "rate_limit_exceeded: see Retry-After",
    500: "server_error",
}
AUTHENTICATED_ERRORS = {
    401: "unauthorized_request: access token missing, invalid or expired",
    403: "forbidden_action",
}


def _build_openapi(app: FastAPI) -> dict[str, Any]:
    if app.openapi_schema:
        return app.openapi_schema
    document = get_openapi(
        title="Cloud Compute Public API (emulator)",
        version=__version__,
        openapi_version="3.1.0",
        description=API_DESCRIPTION,
        routes=app.routes,
    )
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas["ErrorBody"] = ErrorBody.model_json_schema()
    error_ref = {"$ref": "#/components/schemas/ErrorBody"}
    for path, operations in document.get("paths", {}).items():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            # FastAPI documents validation errors as 422; the API answers them as 400.
            responses.pop("422", None)
            extra = dict(COMMON_ERRORS)
            if not scopes.is_public(path):
                extra.update(AUTHENTICATED_ERRORS)
            for status, description in extra.items():
                responses.setdefault(
                    str(status), {"description": description, "content": {"application/json": {"schema": error_ref}}}
                )
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    app.openapi_schema = document
    return document


def register_domain(state: EmulatorState) -> None:
    """What the domain runs by itself: the transition hooks of every resource family (before any
    job restored from a state file comes due), the billable kinds and the seeders."""
    for family in (instances, volumes, clusters, serverless, capacity):
        state.scheduler.register(family.TRANSITION_HOOKS)
    state.billables.update(
        {kinds.INSTANCES: instances.hourly_rate, kinds.VOLUMES: volumes.hourly_rate, kinds.CLUSTERS: clusters.hourly_rate}
    )
    state.seeders.update(seeding.SEEDERS)


def create_fastapi_app(state: EmulatorState) -> FastAPI:
    app = FastAPI(
        title="Cloud Compute Public API (emulator)",
        version=__version__,
        openapi_url="/v1/openapi.json",
        docs_url=None,
        redoc_url=None,
        # /v1/instances/ is not /v1/instances: no redirect that would turn a read of an empty
        # id into a list
        redirect_slashes=False,
    )
    register_domain(state)
    app.state.emulator = state
    install_error_handlers(app)
    for router in API_ROUTERS:
        app.include_router(router)
    app.include_router(docs_page.router)
    app.include_router(inference.router)
    app.include_router(control_api.router)
    app.openapi = lambda: _build_openapi(app)  # type: ignore[method-assign]
    return app


def create_app(state: EmulatorState) -> EmulatorMiddleware:
    return EmulatorMiddleware(create_fastapi_app(state), state)
