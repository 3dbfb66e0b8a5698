"""Checks of the records a request refers to (SSH keys, startup scripts): each must exist in the
caller's project, else 400 naming the field. Shared by instance and cluster deploys and
instance group templates."""

from __future__ import annotations

from cloudcompute_emulator import kinds
from cloudcompute_emulator.errors import invalid
from cloudcompute_emulator.ports import Records
from cloudcompute_emulator.resources.ownership import find_owned


def ssh_key_ids(state: Records, project_id: str, value: str | list[str] | None, field: str = "ssh_key_ids") -> list[str]:
    """The SSH key ids of a request (a single id or a list; duplicates dropped), each checked."""
    wanted = [value] if isinstance(value, str) else list(dict.fromkeys(value or []))
    for key_id in wanted:
        if find_owned(state, kinds.SSH_KEYS, key_id, project_id) is None:
            raise invalid(f"{field}: SSH key {key_id} not found")
    return wanted


def startup_script_id(state: Records, project_id: str, script_id: str | None, field: str = "startup_script_id") -> str | None:
    if script_id is not None and find_owned(state, kinds.SCRIPTS, script_id, project_id) is None:
        raise invalid(f"{field}: startup script {script_id} not found")
    return script_id
