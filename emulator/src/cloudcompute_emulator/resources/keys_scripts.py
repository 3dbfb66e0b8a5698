"""SSH keys and startup scripts: records, views, the startup script quota and deletion.

Both are plain project records addressed by id; a delete naming several is all or nothing
(every id is looked up first) and keeps the rows for raw dumps (``store.retire``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib

from cloudcompute_emulator import kinds
from cloudcompute_emulator.audit import record_event
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.errors import forbidden
from cloudcompute_emulator.ports import Domain, Principal
from cloudcompute_emulator.resources.ownership import get_owned
from cloudcompute_emulator.store import Record

# the audit log's object type of each kind
OBJECT_TYPE = {kinds.SSH_KEYS: "ssh_key", kinds.SCRIPTS: "startup_script"}


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


def ssh_key_view(record: Record) -> dict:
    return {"id": record["id"], "name": record["name"], "key": record["key"], "fingerprint": record["fingerprint"]}


def script_view(record: Record) -> dict:
    return {"id": record["id"], "name": record["name"], "script": record["script"], "created_at": record["created_at"]}


VIEW = {kinds.SSH_KEYS: ssh_key_view, kinds.SCRIPTS: script_view}


def _audit(state: Domain, caller: Principal, kind: str, action: str, record: Record) -> None:
    record_event(state, caller, OBJECT_TYPE[kind], action, record["id"], **{OBJECT_TYPE[kind]: VIEW[kind](record)})


def create_ssh_key(state: Domain, caller: Principal, name: str, key: str) -> Record:
    key = key.strip()
    record = state.store.insert(
        kinds.SSH_KEYS,
        {
            "id": new_id(),
            "project_id": caller.project_id,
            "name": name,
            "key": key,
            "fingerprint": fingerprint(key),
            "created_at": isoformat(state.clock.now()),
        },
    )
    _audit(state, caller, kinds.SSH_KEYS, "create", record)
    return record


def create_script(state: Domain, caller: Principal, name: str, script: str) -> Record:
    """403 beyond the project's startup script quota (a setting)."""
    quota = state.settings.startup_script_quota
    if sum(1 for _ in state.store.records(kinds.SCRIPTS, caller.project_id)) >= quota:
        raise forbidden(f"Startup script quota exceeded: the project already has {quota} scripts")
    now = state.clock.now()
    record = state.store.insert(
        kinds.SCRIPTS,
        {
            "id": new_id(),
            "seq": state.store.next_counter("script_seq"),
            "project_id": caller.project_id,
            "name": name,
            "script": script,
            "created_at": isoformat(now),
            "created_ts": now,
        },
    )
    _audit(state, caller, kinds.SCRIPTS, "create", record)
    return record


def scripts(state: Domain, project_id: str, name: str | None = None, descending: bool = True) -> list[Record]:
    """The project's scripts whose name contains ``name`` (case-insensitive), by creation."""
    records = list(state.store.records(kinds.SCRIPTS, project_id))
    if name:
        wanted = name.lower()
        records = [record for record in records if wanted in record["name"].lower()]
    # seq breaks ties between scripts created within the same millisecond
    records.sort(key=lambda record: (record["created_ts"], record["seq"]), reverse=descending)
    return records


def delete(state: Domain, caller: Principal, kind: str, record_ids: list[str]) -> None:
    """Delete SSH keys or scripts, all or nothing: 404 for any id not the caller's."""
    records = [get_owned(state, kind, record_id, caller.project_id) for record_id in dict.fromkeys(record_ids)]
    for record in records:
        state.store.retire(kind, record["id"], isoformat(state.clock.now()))
        _audit(state, caller, kind, "delete", record)
