"""Credentials, OAuth 2.0 tokens, roles and inference API keys.

- A credential (client id + secret) belongs to a project user with role owner, admin or member.
- ``POST /v1/oauth2/token`` exchanges it (client_credentials grant) for an access token of
  ``settings.token_ttl`` seconds and a refresh token of 30 days; a refresh token works once.
- Tokens expire on the emulator clock, so advancing the clock expires them.
- Inference API keys are a separate key kind: the serverless management endpoints accept one in
  place of an access token (scopes.INFERENCE_KEY_PATHS), and the deployed endpoints
  (``/inference/...``) require one (:func:`require_inference_key`).
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from typing import Protocol

from fastapi import Request

from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.errors import ApiError, unauthorized
from cloudcompute_emulator.ports import Domain, Principal
from cloudcompute_emulator.projects import ensure_project
from cloudcompute_emulator.store import Record


class Accounts(Domain, Protocol):
    """The domain plus where credentials go by default and the test-only token log."""

    @property
    def default_project_id(self) -> str: ...

    @property
    def issued_tokens_file(self) -> str | None: ...


ROLES = ("owner", "admin", "member")
SCOPE = "cloud-api-v1"
TOKEN_TYPE = "Bearer"
REFRESH_TOKEN_TTL = 30 * 24 * 3600

CREDENTIAL_KIND = "credentials"
TOKEN_KIND = "tokens"
INFERENCE_KEY_KIND = "inference_keys"
AUTH_KINDS = (CREDENTIAL_KIND, TOKEN_KIND, INFERENCE_KEY_KIND)

# Expired and spent tokens are swept every so many issued tokens.
SWEEP_EVERY = 200


@dataclass(frozen=True)
class InferenceCaller:
    key_id: str
    project_id: str


def create_credential(
    state: Accounts,
    role: str = "owner",
    project_id: str | None = None,
    client_id: str | None = None,
    client_secret: str | None = None,
) -> Record:
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    project_id = project_id or state.default_project_id
    ensure_project(state, project_id)
    client_id = client_id or f"cc-{secrets.token_hex(10)}"
    existing = state.store.get(CREDENTIAL_KIND, client_id)
    if existing is not None and existing["project_id"] != project_id:
        raise ValueError(f"client id {client_id} already belongs to another project")
    record = {
        "id": client_id,
        "client_secret": client_secret or secrets.token_urlsafe(32),
        "project_id": project_id,
        "role": role,
        "user_id": existing["user_id"] if existing else new_id(),
        "created_at": isoformat(state.clock.now()),
    }
    return state.store.insert(CREDENTIAL_KIND, record)


def describe_credential(record: Record) -> dict[str, str]:
    return {
        "client_id": record["id"],
        "client_secret": record["client_secret"],
        "project_id": record["project_id"],
        "role": record["role"],
        "user_id": record["user_id"],
    }


def create_inference_key(state: Accounts, project_id: str | None = None, key: str | None = None) -> Record:
    project_id = project_id or state.default_project_id
    ensure_project(state, project_id)
    key = key or f"ccik-{secrets.token_urlsafe(32)}"
    return state.store.insert(
        INFERENCE_KEY_KIND,
        {"id": key, "key_id": new_id(), "project_id": project_id, "created_at": isoformat(state.clock.now())},
    )


def _issue_tokens(state: Accounts, credential: Record) -> dict:
    now = state.clock.now()
    ttl = state.settings.token_ttl
    access_token = secrets.token_urlsafe(32)
    refresh_token = secrets.token_urlsafe(40)
    state.store.insert(
        TOKEN_KIND,
        {"id": access_token, "type": "access", "client_id": credential["id"], "expires_at": now + ttl},
    )
    state.store.insert(
        TOKEN_KIND,
        {"id": refresh_token, "type": "refresh", "client_id": credential["id"], "expires_at": now + REFRESH_TOKEN_TTL},
    )
    if state.store.next_counter("tokens_issued") % SWEEP_EVERY == 0:
        _sweep_tokens(state, now)
    if state.issued_tokens_file:
        _record_issued(state.issued_tokens_file, credential["id"], access_token, refresh_token, now)
    return {
        "access_token": access_token,
        "refresh_token": refresh_token,
        "token_type": TOKEN_TYPE,
        "expires_in": ttl,
        "scope": SCOPE,
    }


def _record_issued(path: str, client_id: str, access_token: str, refresh_token: str, now: float) -> None:
    """Append one JSON line (mode 0600) for ``--issued-tokens-file``, a test-only option."""
    line = json.dumps({"client_id": client_id, "access_token": access_token, "refresh_token": refresh_token, "issued_at": now})
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(descriptor, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def _sweep_tokens(state: Accounts, now: float) -> None:
    stale = [token["id"] for token in state.store.table(TOKEN_KIND).values() if token["expires_at"] <= now]
    for token_id in stale:
        state.store.delete(TOKEN_KIND, token_id)


def exchange_client_credentials(state: Accounts, client_id: str, client_secret: str) -> tuple[dict, Record]:
    credential = state.store.get(CREDENTIAL_KIND, client_id)
    if credential is None or not secrets.compare_digest(credential["client_secret"], client_secret):
        raise unauthorized("Invalid client id or secret")
    return _issue_tokens(state, credential), credential


def exchange_refresh_token(
    state: Accounts, refresh_token: str, client_id: str | None, client_secret: str | None
) -> tuple[dict, Record]:
    token = state.store.get(TOKEN_KIND, refresh_token)
    if token is None or token["type"] != "refresh" or token["expires_at"] <= state.clock.now():
        raise unauthorized("Invalid or expired refresh token")
    credential = state.store.get(CREDENTIAL_KIND, token["client_id"])
    if credential is None:
        raise unauthorized("Invalid or expired refresh token")
    if client_id is not None and client_id != credential["id"]:
        raise unauthorized("The refresh token was not issued to this client")
    if client_secret is not None and not secrets.compare_digest(credential["client_secret"], client_secret):
        raise unauthorized("Invalid client id or secret")
    # Single use: the presented refresh token is gone once exchanged.
    state.store.delete(TOKEN_KIND, refresh_token)
    return _issue_tokens(state, credential), credential


def resolve_access_token(state: Accounts, access_token: str) -> Principal | str:
    """The principal behind a bearer token, or the reason it is refused (for the request log)."""
    token = state.store.get(TOKEN_KIND, access_token)
    if token is None or token["type"] != "access":
        return "invalid_token"
    if token["expires_at"] <= state.clock.now():
        return "expired_token"
    credential = state.store.get(CREDENTIAL_KIND, token["client_id"])
    if credential is None:
        return "invalid_token"
    return Principal(credential["id"], credential["project_id"], credential["role"], credential["user_id"])


def resolve_inference_key(state: Accounts, key: str) -> Principal | None:
    record = state.store.get(INFERENCE_KEY_KIND, key)
    if record is None:
        return None
    return Principal(None, record["project_id"], "member", record["key_id"], auth="inference_key")


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


async def require_inference_key(request: Request) -> InferenceCaller:
    """FastAPI dependency for serverless endpoints: ``Authorization: Bearer <inference key>``."""
    state: Accounts = request.app.state.emulator
    key = bearer_token(request.headers.get("authorization"))
    if key is None:
        raise ApiError(401, "Missing inference API key")
    record = state.store.get(INFERENCE_KEY_KIND, key)
    if record is None:
        raise ApiError(401, "Invalid inference API key")
    return InferenceCaller(record["key_id"], record["project_id"])
