"""Checks of the records a request refers to (SSH keys, startup scripts): each must exist in the
caller's project, else 400 naming the field. Shared by instance and cluster deploys and
instance group templates."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cloudcompute_emulator import kinds
from cloudcompute_emulator.errors import invalid

if TYPE_CHECKING:
    from cloudcompute_emulator.context import ApiContext


def _owned(ctx: ApiContext, kind: str, record_id: str) -> bool:
    record = ctx.store.get(kind, record_id)
    return record is not None and record["project_id"] == ctx.project_id


def ssh_key_ids(ctx: ApiContext, value: str | list[str] | None, field: str = "ssh_key_ids") -> list[str]:
    """The SSH key ids of a request (a single id or a list; duplicates dropped), each checked."""
    wanted = [value] if isinstance(value, str) else list(dict.fromkeys(value or []))
    for key_id in wanted:
        if not _owned(ctx, kinds.SSH_KEYS, key_id):
            raise invalid(f"{field}: SSH key {key_id} not found")
    return wanted


def startup_script_id(ctx: ApiContext, script_id: str | None, field: str = "startup_script_id") -> str | None:
    if script_id is not None and not _owned(ctx, kinds.SCRIPTS, script_id):
        raise invalid(f"{field}: startup script {script_id} not found")
    return script_id
