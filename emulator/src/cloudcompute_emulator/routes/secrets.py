"""Serverless supporting resources: ``/v1/secrets``, ``/v1/file-secrets`` and
``/v1/container-registry-credentials``. Parse, call the domain (resources/secrets.py), render.

Creates answer 201 with an empty object; a delete answers 200, or 409 while a deployment uses
the record unless ``force=true``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from cloudcompute_emulator import kinds
from cloudcompute_emulator.context import ApiContext, Context
from cloudcompute_emulator.resources import secrets
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.secrets import (
    FileSecret,
    FileSecretCreate,
    RegistryCredential,
    RegistryCredentialCreate,
    Secret,
    SecretCreate,
)
from cloudcompute_emulator.store import Record

router = APIRouter(tags=["Serverless secrets"])

Force = Annotated[bool, Query(description="delete even while a deployment uses it")]
AUDIT_TYPE = {kinds.SECRETS: "secret", kinds.FILE_SECRETS: "file_secret", kinds.REGISTRY_CREDENTIALS: "container_registry_credentials"}


def _created(ctx: ApiContext, kind: str, record: Record):
    ctx.audit(AUDIT_TYPE[kind], "create", record["name"])
    return _responses.json({}, status_code=201)


def _deleted(ctx: ApiContext, kind: str, name: str, force: bool):
    secrets.delete(ctx.state, ctx.project_id, kind, name, force)
    ctx.audit(AUDIT_TYPE[kind], "delete", name, force=force)
    return _responses.empty(200)


_CREATE_RESPONSES = {201: {"description": "created (empty object)"}, **_responses.errors(409)}
_DELETE_RESPONSES = {200: {"description": "deleted"}, **_responses.errors(404, 409)}


@router.get("/v1/secrets", response_model=list[Secret], summary="Secrets and file secrets (never their values)")
async def list_secrets(ctx: Context):
    return _responses.json([
        secrets.secret_view(record, kind)
        for kind in secrets.SECRET_KINDS for record in ctx.store.records(kind, ctx.project_id)
    ])


@router.post("/v1/secrets", status_code=201, response_model=dict, responses=_CREATE_RESPONSES, summary="Create a secret")
async def create_secret(ctx: Context, body: SecretCreate):
    return _created(ctx, kinds.SECRETS, secrets.create_secret(ctx.state, ctx.project_id, body.name))


@router.delete("/v1/secrets/{name}", status_code=200, response_class=_responses.Response, responses=_DELETE_RESPONSES,
               summary="Delete a secret")
async def delete_secret(ctx: Context, name: str, force: Force = False):
    return _deleted(ctx, kinds.SECRETS, name, force)


@router.get("/v1/file-secrets", response_model=list[FileSecret], summary="File secrets (file names, never contents)")
async def list_file_secrets(ctx: Context):
    return _responses.json([secrets.secret_view(record, kinds.FILE_SECRETS)
                            for record in ctx.store.records(kinds.FILE_SECRETS, ctx.project_id)])


@router.post("/v1/file-secrets", status_code=201, response_model=dict, responses=_CREATE_RESPONSES, summary="Create a file secret")
async def create_file_secret(ctx: Context, body: FileSecretCreate):
    return _created(ctx, kinds.FILE_SECRETS, secrets.create_file_secret(ctx.state, ctx.project_id, body.name, body.files))


@router.delete("/v1/file-secrets/{name}", status_code=200, response_class=_responses.Response, responses=_DELETE_RESPONSES,
               summary="Delete a file secret")
async def delete_file_secret(ctx: Context, name: str, force: Force = False):
    return _deleted(ctx, kinds.FILE_SECRETS, name, force)


@router.get("/v1/container-registry-credentials", response_model=list[RegistryCredential],
            summary="Container registry credentials (never their secrets)")
async def list_registry_credentials(ctx: Context):
    return _responses.json([secrets.registry_credential_view(record)
                            for record in ctx.store.records(kinds.REGISTRY_CREDENTIALS, ctx.project_id)])


@router.post("/v1/container-registry-credentials", status_code=201, response_model=dict, responses=_CREATE_RESPONSES,
             summary="Create container registry credentials")
async def create_registry_credential(ctx: Context, body: RegistryCredentialCreate):
    fields = body.model_fields_set - {"name", "type"}
    record = secrets.create_registry_credential(ctx.state, ctx.project_id, body.name, body.type, fields)
    return _created(ctx, kinds.REGISTRY_CREDENTIALS, record)


@router.delete("/v1/container-registry-credentials/{name}", status_code=200, response_class=_responses.Response,
               responses=_DELETE_RESPONSES, summary="Delete container registry credentials")
async def delete_registry_credential(ctx: Context, name: str, force: Force = False):
    return _deleted(ctx, kinds.REGISTRY_CREDENTIALS, name, force)
