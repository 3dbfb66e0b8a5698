"""The secrets domain without a server: a Store and a Clock are all it needs."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from cloudcompute_emulator import kinds
from cloudcompute_emulator.clock import Clock
from cloudcompute_emulator.errors import ApiError
from cloudcompute_emulator.resources import secrets
from cloudcompute_emulator.schemas.secrets import SecretFileInput
from cloudcompute_emulator.store import Store

PROJECT = "p1"


@dataclass
class Records:
    store: Store = field(default_factory=Store)
    clock: Clock = field(default_factory=Clock)


def deployment(name: str, secret: str, credentials: str | None = None) -> dict:
    return {"id": name, "project_id": PROJECT, "name": name,
            "containers": [{"env": [{"type": "secret", "name": "X", "value_or_reference_to_secret": secret}], "volume_mounts": []}],
            "container_registry_settings": {"is_private": bool(credentials), "credentials": {"name": credentials} if credentials else None}}


def test_names_are_one_namespace_per_project_and_values_are_not_kept() -> None:
    state = Records()
    record = secrets.create_secret(state, PROJECT, "token")
    assert "value" not in record and record["created_at"]
    with pytest.raises(ApiError) as refused:
        secrets.create_file_secret(state, PROJECT, "token", [SecretFileInput(file_name="a", base64_content="eA==")])
    assert refused.value.status == 409
    secrets.create_secret(state, "p2", "token")  # another project: its own names


def test_in_use_is_refused_unless_forced() -> None:
    state = Records()
    secrets.create_secret(state, PROJECT, "token")
    secrets.create_registry_credential(state, PROJECT, "hub", "dockerhub", {"username", "access_token"})
    state.store.insert(kinds.CONTAINER_DEPLOYMENTS, deployment("web", "token", "hub"))
    state.store.insert(kinds.JOB_DEPLOYMENTS, deployment("batch", "token"))
    assert secrets.users(state, PROJECT, kinds.SECRETS, "token") == ["container deployment web", "job deployment batch"]
    with pytest.raises(ApiError) as refused:
        secrets.delete(state, PROJECT, kinds.REGISTRY_CREDENTIALS, "hub", force=False)
    assert refused.value.status == 409 and "container deployment web" in refused.value.message
    secrets.delete(state, PROJECT, kinds.REGISTRY_CREDENTIALS, "hub", force=True)
    assert secrets.find(state, PROJECT, kinds.REGISTRY_CREDENTIALS, "hub") is None


@pytest.mark.parametrize(("fields", "words"), [({"username"}, "access_token"), ({"username", "access_token", "region"}, "region")])
def test_registry_fields_per_type(fields: set[str], words: str) -> None:
    with pytest.raises(ApiError) as refused:
        secrets.create_registry_credential(Records(), PROJECT, "hub", "dockerhub", fields)
    assert refused.value.status == 400 and words in refused.value.message
