"""Serverless supporting resources: secrets, file secrets and container registry credentials.

Names are the identity; nothing is updated in place (a change is a delete and a create), and
no value is ever returned.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from cloudcompute_emulator.schemas.common import RequestModel

SECRET_NAME_PATTERN = r"^[a-z][a-z0-9-]*$"
SecretName = Annotated[
    str, Field(min_length=1, max_length=63, pattern=SECRET_NAME_PATTERN, description="1-63 of [a-z0-9-], starting with a letter")
]
# at most 1 MiB of file content in all, as standard padded base64
FILE_SECRET_MAX_BYTES = 1024 * 1024
REGISTRY_TYPES = ("dockerhub", "ghcr", "gcr", "aws-ecr", "custom", "scaleway")
# the fields each registry type takes, all required
REGISTRY_FIELDS: dict[str, tuple[str, ...]] = {
    "dockerhub": ("username", "access_token"),
    "ghcr": ("username", "access_token"),
    "gcr": ("service_account_key",),
    "aws-ecr": ("access_key_id", "secret_access_key", "region", "ecr_repo"),
    "custom": ("docker_config_json",),
    "scaleway": ("scaleway_domain", "scaleway_uuid"),
}
NonEmpty = Annotated[str, Field(min_length=1)]


class SecretCreate(RequestModel):
    name: SecretName
    value: str = Field(min_length=1, max_length=65_536, description="never returned")


class SecretFileInput(RequestModel):
    file_name: str = Field(min_length=1, max_length=255, pattern=r"^[^/\\]+$", description="a base name")
    base64_content: str = Field(description="standard padded base64 of the file's bytes")


class FileSecretCreate(RequestModel):
    name: SecretName
    files: list[SecretFileInput] = Field(min_length=1, max_length=100)


class RegistryCredentialCreate(RequestModel):
    name: SecretName
    type: Literal["dockerhub", "ghcr", "gcr", "aws-ecr", "custom", "scaleway"]
    username: NonEmpty | None = None
    access_token: NonEmpty | None = None
    service_account_key: NonEmpty | None = None
    access_key_id: NonEmpty | None = None
    secret_access_key: NonEmpty | None = None
    region: NonEmpty | None = None
    ecr_repo: NonEmpty | None = None
    docker_config_json: NonEmpty | None = None
    scaleway_domain: NonEmpty | None = None
    scaleway_uuid: NonEmpty | None = None


# -- responses ------------------------------------------------------------------------------------


class Secret(BaseModel):
    name: str
    created_at: str
    secret_type: Literal["generic", "file-secret"]


class FileSecret(BaseModel):
    name: str
    created_at: str
    secret_type: Literal["file-secret"]
    file_names: list[str]


class RegistryCredential(BaseModel):
    name: str
    created_at: str
