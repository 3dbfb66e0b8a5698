"""Serverless supporting resources: secrets, file secrets and container registry credentials,
and the deployments' references to them.

Plain functions of the store, the clock and the project (:class:`~cloudcompute_emulator.ports.Records`):
no HTTP and no emulator state here. Names are the identity
(secrets and file secrets share one namespace, since ``GET /v1/secrets`` lists both); values are
checked and then dropped, never stored, so nothing can ever return them.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from typing import Any

from cloudcompute_emulator import kinds
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.errors import conflict, invalid, not_found
from cloudcompute_emulator.ports import Records
from cloudcompute_emulator.schemas.secrets import FILE_SECRET_MAX_BYTES, REGISTRY_FIELDS, SecretFileInput
from cloudcompute_emulator.store import Record

SECRET_KINDS = (kinds.SECRETS, kinds.FILE_SECRETS)
LABEL = {kinds.SECRETS: "Secret", kinds.FILE_SECRETS: "File secret", kinds.REGISTRY_CREDENTIALS: "Container registry credentials"}
DEPLOYMENT_KINDS = {kinds.CONTAINER_DEPLOYMENTS: "container deployment", kinds.JOB_DEPLOYMENTS: "job deployment"}


def find(state: Records, project_id: str, kind: str, name: str) -> Record | None:
    return next((record for record in state.store.records(kind, project_id) if record["name"] == name), None)


def get(state: Records, project_id: str, kind: str, name: str) -> Record:
    record = find(state, project_id, kind, name)
    if record is None:
        raise not_found(f"{LABEL[kind]} {name}")
    return record


def _namespace(kind: str) -> tuple[str, ...]:
    return SECRET_KINDS if kind in SECRET_KINDS else (kind,)


def _insert(state: Records, project_id: str, kind: str, name: str, **fields: Any) -> Record:
    for other in _namespace(kind):
        if find(state, project_id, other, name) is not None:
            raise conflict(f"A {LABEL[other].lower()} named '{name}' already exists")
    record = {"id": new_id(), "project_id": project_id, "name": name, "created_at": isoformat(state.clock.now()), **fields}
    return state.store.insert(kind, record)


def create_secret(state: Records, project_id: str, name: str) -> Record:
    return _insert(state, project_id, kinds.SECRETS, name)


def _decoded_size(index: int, file: SecretFileInput) -> int:
    try:
        return len(base64.b64decode(file.base64_content, validate=True))
    except (binascii.Error, ValueError):
        raise invalid(f"files.{index}.base64_content: not standard padded base64") from None


def create_file_secret(state: Records, project_id: str, name: str, files: list[SecretFileInput]) -> Record:
    file_names = [file.file_name for file in files]
    duplicate = next((file_name for file_name in file_names if file_names.count(file_name) > 1), None)
    if duplicate is not None:
        raise invalid(f"files: {duplicate} is given more than once")
    if sum(_decoded_size(index, file) for index, file in enumerate(files)) > FILE_SECRET_MAX_BYTES:
        raise invalid(f"files: at most {FILE_SECRET_MAX_BYTES} bytes of content in all")
    return _insert(state, project_id, kinds.FILE_SECRETS, name, file_names=file_names)


def create_registry_credential(state: Records, project_id: str, name: str, registry_type: str, fields: set[str]) -> Record:
    """``fields``: the type-specific fields the request gave."""
    wanted = REGISTRY_FIELDS[registry_type]
    missing = [field for field in wanted if field not in fields]
    if missing:
        raise invalid(f"{missing[0]}: required for type {registry_type}")
    unknown = sorted(fields - set(wanted))
    if unknown:
        raise invalid(f"{unknown[0]}: not a field of type {registry_type}")
    return _insert(state, project_id, kinds.REGISTRY_CREDENTIALS, name, type=registry_type)


def secret_view(record: Record, kind: str) -> dict[str, Any]:
    view = {"name": record["name"], "created_at": record["created_at"],
            "secret_type": "generic" if kind == kinds.SECRETS else "file-secret"}
    if kind == kinds.FILE_SECRETS:
        view["file_names"] = list(record["file_names"])
    return view


def registry_credential_view(record: Record) -> dict[str, Any]:
    return {"name": record["name"], "created_at": record["created_at"]}


# -- references from deployments ---------------------------------------------------------------------


def references(deployment: Record) -> Iterator[tuple[str, str]]:
    """(kind, name) of every secret, file secret and registry credential a deployment uses."""
    for container in deployment["containers"]:
        for variable in container.get("env") or []:
            if variable["type"] == "secret":
                yield kinds.SECRETS, variable["value_or_reference_to_secret"]
        for mount in container.get("volume_mounts") or []:
            if mount["type"] == "secret" and mount.get("secret_name"):
                yield kinds.FILE_SECRETS, mount["secret_name"]
    credentials = (deployment.get("container_registry_settings") or {}).get("credentials")
    if credentials:
        yield kinds.REGISTRY_CREDENTIALS, credentials["name"]


def require_exists(state: Records, project_id: str, kind: str, name: str, field: str) -> None:
    """A deployment's reference: 400 naming the field and the missing name."""
    if find(state, project_id, kind, name) is None:
        raise invalid(f"{field}: {LABEL[kind].lower()} '{name}' not found")


def users(state: Records, project_id: str, kind: str, name: str) -> list[str]:
    """'<kind> <name>' of each deployment referring to the record."""
    return [
        f"{label} {deployment['name']}"
        for deployment_kind, label in DEPLOYMENT_KINDS.items()
        for deployment in state.store.records(deployment_kind, project_id)
        if (kind, name) in set(references(deployment))
    ]


def delete(state: Records, project_id: str, kind: str, name: str, force: bool) -> Record:
    """Refused (409, naming the deployments) while in use unless ``force``; a forced delete
    leaves the deployments running with what they had."""
    record = get(state, project_id, kind, name)
    in_use = users(state, project_id, kind, name)
    if in_use and not force:
        raise conflict(f"{LABEL[kind]} {name} is used by {', '.join(in_use)} (delete with force=true to remove it anyway)")
    state.store.retire(kind, record["id"], isoformat(state.clock.now()))
    return record
