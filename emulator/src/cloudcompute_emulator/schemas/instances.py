"""Instance request bodies and response shapes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from cloudcompute_emulator.schemas.catalog import CpuSpec, GpuSpec, MemorySpec, StorageSpec
from cloudcompute_emulator.schemas.common import RequestModel, Tag, TagInput
from cloudcompute_emulator.schemas.volumes import Size, SpotDiscontinuePolicy

InstanceStatus = Literal[
    "running", "provisioning", "offline", "discontinued", "unknown", "ordered", "notfound", "new",
    "error", "deleting", "validating", "no_capacity", "installation_failed",
]
INSTANCE_STATUSES: tuple[str, ...] = InstanceStatus.__args__  # type: ignore[attr-defined]
Contract = Literal["LONG_TERM", "PAY_AS_YOU_GO", "SPOT"]
InstanceActionName = Literal[
    "boot", "start", "shutdown", "delete", "discontinue", "hibernate", "configure_spot",
    "force_shutdown", "delete_stuck", "deploy", "transfer",
]


class OsVolumeSpec(RequestModel):
    name: str = Field(min_length=1, max_length=255)
    size: int = Size
    on_spot_discontinue: SpotDiscontinuePolicy | None = None
    tags: list[TagInput] | None = None


class NewVolumeSpec(RequestModel):
    name: str = Field(min_length=1, max_length=255)
    size: int = Size
    type: str = Field(min_length=1)
    on_spot_discontinue: SpotDiscontinuePolicy | None = None
    tags: list[TagInput] | None = None


class InstanceDeploy(RequestModel):
    hostname: str = Field(min_length=1, max_length=63)
    image: str = Field(min_length=1, description="an image type from GET /v1/images, or the id of a detached OS volume")
    instance_type: str = Field(min_length=1)
    location_code: str = Field(min_length=1)
    description: str | None = Field(None, max_length=1000)
    contract: Contract | None = None
    coupon: str | None = None
    existing_volumes: list[str] | None = None
    is_spot: bool | None = None
    os_volume: OsVolumeSpec | None = None
    pricing: Literal["FIXED_PRICE", "DYNAMIC_PRICE"] | None = Field(None, deprecated=True)
    ssh_key_ids: str | list[str] | None = None
    startup_script_id: str | None = None
    tags: list[TagInput] | None = None
    volumes: list[NewVolumeSpec] | None = None


class InstanceAction(RequestModel):
    action: InstanceActionName
    id: Annotated[str, Field(min_length=1)] | Annotated[list[str], Field(min_length=1)]
    delete_permanently: bool | None = None
    volume_ids: list[str] | None = Field(None, description="volumes to delete; [] deletes none")


class InstanceActionResult(BaseModel):
    action: str
    instanceId: str
    status: Literal["success", "error"]
    error: str | None = None
    statusCode: int | None = None


class Instance(BaseModel):
    id: str
    instance_type: str
    image: str
    hostname: str
    description: str
    status: InstanceStatus
    created_at: str
    location: str
    ip: str | None
    private_ip: str | None
    cpu: CpuSpec
    gpu: GpuSpec
    gpu_memory: MemorySpec
    memory: MemorySpec
    storage: StorageSpec
    os_name: str
    os_volume_id: str | None
    price_per_hour: float
    pricing: Literal["DYNAMIC_PRICE", "FIXED_PRICE"]
    is_spot: bool
    contract: Contract
    jupyter_token: str
    ssh_key_ids: list[str]
    startup_script_id: str | None
    tags: list[Tag]
    volume_ids: list[str]
    created_by_user_id: str | None = None
