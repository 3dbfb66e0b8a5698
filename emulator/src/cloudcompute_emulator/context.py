"""What a route handler gets: the emulator state and the authenticated caller.

The HTTP middleware (middleware.py) authenticates every ``/v1`` request before routing and
leaves the :class:`~cloudcompute_emulator.ports.Principal` in the request state; the
:func:`api_context` dependency hands it to the handler together with the state. Declaring the
bearer scheme here is what puts the security requirement into the OpenAPI document.

This is the HTTP side only: handlers pass ``ctx.state`` and ``ctx.caller`` (or
``ctx.project_id``) on to the domain as plain arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from cloudcompute_emulator.audit import record_event
from cloudcompute_emulator.errors import invalid, unauthorized
from cloudcompute_emulator.ports import Principal
from cloudcompute_emulator.resources.ownership import get_owned
from cloudcompute_emulator.state import EmulatorState
from cloudcompute_emulator.store import Record, Store

bearer_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="bearer",
    description="Access token from POST /v1/oauth2/token (client credentials or refresh grant)",
)


@dataclass
class ApiContext:
    state: EmulatorState
    caller: Principal
    request: Request

    @property
    def store(self) -> Store:
        return self.state.store

    @property
    def project_id(self) -> str:
        return self.caller.project_id

    def now(self) -> float:
        return self.state.clock.now()

    def audit(self, object_type: str, action: str, subject: str, **data: Any) -> None:
        record_event(self.state, self.caller, object_type, action, subject, **data)

    def get_owned(self, kind: str, record_id: str) -> Record:
        """The caller's record of ``kind`` (404 when missing or another project's)."""
        return get_owned(self.state, kind, record_id, self.project_id)


async def api_context(
    request: Request,
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)] = None,
) -> ApiContext:
    principal = getattr(request.state, "principal", None)
    if principal is None:
        raise unauthorized("Access token missing or invalid")
    return ApiContext(request.app.state.emulator, principal, request)


inference_key_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="inference_key",
    description="An inference API key, accepted in place of an access token on the serverless endpoints",
)


async def serverless_context(
    request: Request,
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)] = None,
    _inference_key: Annotated[HTTPAuthorizationCredentials | None, Depends(inference_key_scheme)] = None,
) -> ApiContext:
    """As :func:`api_context`; declaring both schemes documents that either credential works
    (the middleware accepts an inference key on these paths, see scopes.INFERENCE_KEY_PATHS)."""
    return await api_context(request)


def emulator_state(request: Request) -> EmulatorState:
    """For public endpoints, which have no caller."""
    return request.app.state.emulator


async def require_user_agent(
    user_agent: Annotated[
        str | None,
        Header(alias="user-agent", min_length=1, description="required by the service: any non-empty value"),
    ] = None,
) -> str:
    """Volume create/action/delete and instance deploy require a User-Agent, as the production service does.

    Documented as optional in OpenAPI on purpose: every HTTP client adds a User-Agent of its own,
    so a schema-driven test cannot really omit it; a missing or empty one still answers 400.
    """
    if not user_agent or not user_agent.strip():
        raise invalid("header 'User-Agent' is required and must not be empty")
    return user_agent


Context = Annotated[ApiContext, Depends(api_context)]
ServerlessContext = Annotated[ApiContext, Depends(serverless_context)]
PublicState = Annotated[EmulatorState, Depends(emulator_state)]
UserAgent = Annotated[str, Depends(require_user_agent)]
