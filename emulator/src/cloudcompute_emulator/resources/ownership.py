"""The one lookup of a record by id within the caller's project: a record of another project is
as absent as one that never existed (404, or ``None`` where the caller answers 400 naming its
field)."""

from __future__ import annotations

from cloudcompute_emulator import kinds
from cloudcompute_emulator.errors import not_found
from cloudcompute_emulator.ports import Records
from cloudcompute_emulator.store import Record

# What a 404 calls a record of each kind ("Volume <id> not found").
LABELS = {
    kinds.INSTANCES: "Instance",
    kinds.VOLUMES: "Volume",
    kinds.CLUSTERS: "Cluster",
    kinds.SSH_KEYS: "SSH key",
    kinds.SCRIPTS: "Startup script",
    kinds.INSTANCE_GROUPS: "Instance group",
}


def find_owned(state: Records, kind: str, record_id: str, project_id: str) -> Record | None:
    record = state.store.get(kind, record_id)
    return record if record is not None and record["project_id"] == project_id else None


def get_owned(state: Records, kind: str, record_id: str, project_id: str) -> Record:
    record = find_owned(state, kind, record_id, project_id)
    if record is None:
        raise not_found(f"{LABELS[kind]} {record_id}")
    return record
