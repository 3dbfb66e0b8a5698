"""POST /v1/oauth2/token: client-credentials and refresh grants, JSON or form-encoded."""

from __future__ import annotations

import json as jsonlib
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from pydantic import ValidationError

from cloudcompute_emulator import auth
from cloudcompute_emulator.context import ApiContext, PublicState
from cloudcompute_emulator.errors import describe_validation_errors, invalid
from cloudcompute_emulator.ports import Principal
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.auth import AccessToken, TokenRequest

router = APIRouter(tags=["Authentication"])

_token_request_schema = TokenRequest.model_json_schema()


def _parse_body(raw: bytes, content_type: str) -> dict:
    if "application/x-www-form-urlencoded" in content_type:
        return dict(parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))
    try:
        parsed = jsonlib.loads(raw or b"null")
    except ValueError:
        if "json" in content_type:
            raise invalid("request body is not valid JSON") from None
        # no or another content type: accept a form body too
        return dict(parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))
    if not isinstance(parsed, dict):
        raise invalid("request body: expected a JSON object")
    return parsed


@router.post(
    "/v1/oauth2/token",
    response_model=AccessToken,
    summary="Exchange client credentials or a refresh token for an access token",
    responses=_responses.errors(401),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": _token_request_schema},
                "application/x-www-form-urlencoded": {"schema": _token_request_schema},
            },
        }
    },
)
async def issue_token(request: Request, state: PublicState):
    body = _parse_body(await request.body(), request.headers.get("content-type", ""))
    grant_type = body.get("grant_type")
    request.state.log_grant_type = grant_type if isinstance(grant_type, str) else None
    if grant_type not in (None, "client_credentials", "refresh_token"):
        raise invalid(f"grant_type: unsupported grant type '{grant_type}'")
    try:
        token_request = TokenRequest.model_validate(body)
    except ValidationError as error:
        raise invalid(describe_validation_errors(list(error.errors()))) from None
    if token_request.grant_type == "client_credentials":
        if not token_request.client_id or not token_request.client_secret:
            raise invalid("client_id and client_secret are required for grant_type client_credentials")
        tokens, credential = auth.exchange_client_credentials(state, token_request.client_id, token_request.client_secret)
    else:
        if not token_request.refresh_token:
            raise invalid("refresh_token is required for grant_type refresh_token")
        tokens, credential = auth.exchange_refresh_token(
            state, token_request.refresh_token, token_request.client_id, token_request.client_secret
        )
    request.state.log_client_id = credential["id"]
    caller = Principal(credential["id"], credential["project_id"], credential["role"], credential["user_id"])
    ApiContext(state, caller, request).audit(
        "cloud_api_credential", "authenticate", credential["id"], grant_type=token_request.grant_type
    )
    return _responses.json(tokens)
