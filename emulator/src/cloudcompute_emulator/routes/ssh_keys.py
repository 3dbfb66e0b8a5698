"""SSH keys, at ``/v1/ssh-keys`` and the deprecated, equivalent ``/v1/sshkeys``."""

from __future__ import annotations

from fastapi import APIRouter

from cloudcompute_emulator import kinds
from cloudcompute_emulator.context import Context
from cloudcompute_emulator.resources import keys_scripts
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.keys_scripts import SshKey, SshKeyCreate, SshKeyDelete

router = APIRouter(tags=["SSH keys"])


def _register(prefix: str, deprecated: bool) -> None:
    """The same four endpoints under each prefix (no copies of the handlers)."""

    @router.get(prefix, response_model=list[SshKey], deprecated=deprecated, summary="List SSH keys")
    async def list_keys(ctx: Context):
        return _responses.json([keys_scripts.ssh_key_view(record) for record in ctx.store.records(kinds.SSH_KEYS, ctx.project_id)])

    @router.post(
        prefix, status_code=201, response_model=str, responses={201: _responses.TEXT_ID},
        deprecated=deprecated, summary="Add an SSH key (answers the new id as text)",
    )
    async def create_key(ctx: Context, body: SshKeyCreate):
        record = keys_scripts.create_ssh_key(ctx.state, ctx.caller, body.name, body.key)
        return _responses.created_id(record["id"], 201)

    @router.delete(
        prefix, status_code=200, response_class=_responses.Response, responses=_responses.errors(404),
        deprecated=deprecated, summary="Delete several SSH keys",
    )
    async def delete_keys(ctx: Context, body: SshKeyDelete):
        keys_scripts.delete(ctx.state, ctx.caller, kinds.SSH_KEYS, body.keys)
        return _responses.empty(200)

    @router.get(
        prefix + "/{sshKeyId}", response_model=list[SshKey], responses=_responses.errors(404),
        deprecated=deprecated, summary="One SSH key (as a one-element array)",
    )
    async def get_key(ctx: Context, sshKeyId: str):  # noqa: N803 - the spec's parameter name
        return _responses.json([keys_scripts.ssh_key_view(ctx.get_owned(kinds.SSH_KEYS, sshKeyId))])

    @router.delete(
        prefix + "/{sshKeyId}", status_code=200, response_class=_responses.Response,
        responses=_responses.errors(404), deprecated=deprecated, summary="Delete an SSH key",
    )
    async def delete_key(ctx: Context, sshKeyId: str):  # noqa: N803
        keys_scripts.delete(ctx.state, ctx.caller, kinds.SSH_KEYS, [sshKeyId])
        return _responses.empty(200)


_register("/v1/ssh-keys", deprecated=False)
_register("/v1/sshkeys", deprecated=True)
