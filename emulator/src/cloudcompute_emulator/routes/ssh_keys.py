"""SSH keys, at ``/v1/ssh-keys`` and the deprecated, equivalent ``/v1/sshkeys``."""

from __future__ import annotations

import base64
import binascii
import hashlib

from fastapi import APIRouter

from cloudcompute_emulator import kinds
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.context import ApiContext, Context
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.keys_scripts import SshKey, SshKeyCreate, SshKeyDelete
from cloudcompute_emulator.store import Record

router = APIRouter(tags=["SSH keys"])


def fingerprint(public_key: str) -> str | None:
    """MD5 of the decoded key blob as colon-separated hex, like ``ssh-keygen -E md5 -l``.

    The blob is the first field (after any options) that decodes to a length-prefixed key type
    name; ``None`` when there is none (the key cannot be parsed).
    """
    for field in public_key.split()[:4]:
        try:
            blob = base64.b64decode(field, validate=True)
        except (binascii.Error, ValueError):
            continue
        if len(blob) < 4:
            continue
        name_length = int.from_bytes(blob[:4], "big")
        name = blob[4 : 4 + name_length]
        if 0 < name_length < 64 and len(blob) > 4 + name_length and name.isascii() and b"-" in name:
            digest = hashlib.md5(blob, usedforsecurity=False).hexdigest()
            return ":".join(digest[index : index + 2] for index in range(0, len(digest), 2))
    return None


def _view(record: Record) -> dict:
    return {"id": record["id"], "name": record["name"], "key": record["key"], "fingerprint": record["fingerprint"]}


def _delete(ctx: ApiContext, records: list[Record]) -> None:
    for record in records:
        ctx.store.retire(kinds.SSH_KEYS, record["id"], isoformat(ctx.now()))
        ctx.audit("ssh_key", "delete", record["id"], ssh_key=_view(record))


def _register(prefix: str, deprecated: bool) -> None:
    """The same four endpoints under each prefix (no copies of the handlers)."""

    @router.get(prefix, response_model=list[SshKey], deprecated=deprecated, summary="List SSH keys")
    async def list_keys(ctx: Context):
        return _responses.json([_view(record) for record in ctx.store.records(kinds.SSH_KEYS, ctx.project_id)])

    @router.post(
        prefix, status_code=201, response_model=str, responses={201: _responses.TEXT_ID},
        deprecated=deprecated, summary="Add an SSH key (answers the new id as text)",
    )
    async def create_key(ctx: Context, body: SshKeyCreate):
        key = body.key.strip()
        record = ctx.store.insert(
            kinds.SSH_KEYS,
            {
                "id": new_id(),
                "project_id": ctx.project_id,
                "name": body.name,
                "key": key,
                "fingerprint": fingerprint(key),
                "created_at": isoformat(ctx.now()),
            },
        )
        ctx.audit("ssh_key", "create", record["id"], ssh_key=_view(record))
        return _responses.created_id(record["id"], 201)

    @router.delete(
        prefix, status_code=200, response_class=_responses.Response, responses=_responses.errors(404),
        deprecated=deprecated, summary="Delete several SSH keys",
    )
    async def delete_keys(ctx: Context, body: SshKeyDelete):
        records = [ctx.get_owned(kinds.SSH_KEYS, key_id) for key_id in dict.fromkeys(body.keys)]
        _delete(ctx, records)
        return _responses.empty(200)

    @router.get(
        prefix + "/{sshKeyId}", response_model=list[SshKey], responses=_responses.errors(404),
        deprecated=deprecated, summary="One SSH key (as a one-element array)",
    )
    async def get_key(ctx: Context, sshKeyId: str):  # noqa: N803 - the spec's parameter name
        return _responses.json([_view(ctx.get_owned(kinds.SSH_KEYS, sshKeyId))])

    @router.delete(
        prefix + "/{sshKeyId}", status_code=200, response_class=_responses.Response,
        responses=_responses.errors(404), deprecated=deprecated, summary="Delete an SSH key",
    )
    async def delete_key(ctx: Context, sshKeyId: str):  # noqa: N803
        _delete(ctx, [ctx.get_owned(kinds.SSH_KEYS, sshKeyId)])
        return _responses.empty(200)


_register("/v1/ssh-keys", deprecated=False)
_register("/v1/sshkeys", deprecated=True)
