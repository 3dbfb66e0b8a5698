"""Volume request bodies and response shapes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from cloudcompute_emulator.schemas.common import RequestModel, Tag, TagInput

VolumeStatus = Literal[
    "ordered", "attached", "attaching", "detached", "deleted", "cloning", "detaching",
    "deleting", "restoring", "created", "exported", "canceled", "canceling",
]
VOLUME_STATUSES: tuple[str, ...] = VolumeStatus.__args__  # type: ignore[attr-defined]
VolumeActionName = Literal[
    "attach", "detach", "delete", "rename", "resize", "restore", "clone", "cancel", "create", "export", "transfer",
]
SpotDiscontinuePolicy = Literal["keep_detached", "move_to_trash", "delete_permanently"]
Size = Field(ge=1, le=100_000, description="GB")


class VolumeCreate(RequestModel):
    location_code: str = Field(min_length=1)
    name: str = Field(min_length=1, max_length=255)
    size: int = Size
    type: str = Field(min_length=1, description="a volume type from GET /v1/volume-types")
    instance_id: str | None = None
    instance_ids: list[str] | None = None
    tags: list[TagInput] | None = None


class VolumeAction(RequestModel):
    action: VolumeActionName
    id: Annotated[str, Field(min_length=1)] | Annotated[list[str], Field(min_length=1)]
    instance_id: str | None = None
    instance_ids: list[str] | None = None
    is_permanent: bool | None = None
    location_code: str | None = None
    name: str | None = Field(None, min_length=1, max_length=255)
    size: int | None = Field(None, ge=1, le=100_000)
    type: str | None = None


class VolumeDelete(RequestModel):
    is_permanent: bool | None = None


class InstanceTemplate(BaseModel):
    instance_type: str
    cpu_cores: int
    gpu_number: int
    gpu_vram_gb: int
    ram_gb: int


class InstanceModel(BaseModel):
    code: str
    manufacturer: str
    category: str
    cluster_model_code: str | None


class AttachedInstance(BaseModel):
    id: str
    auto_rental_extension: bool | None
    ip: str | None
    instance_type: str
    status: str
    os_volume_id: str | None
    hostname: str
    instance_template: InstanceTemplate
    instance_model: InstanceModel


class LongTerm(BaseModel):
    end_date: str | None
    long_term_period: str | None
    discount_percentage: int | None
    auto_rental_extension: bool | None
    next_period_price: float | None
    current_period_price: float | None


class Volume(BaseModel):
    id: str
    name: str
    status: VolumeStatus
    size: int
    type: str
    location: str
    is_os_volume: bool
    created_at: str
    target: str | None = Field(description="device name while attached (vda for an OS volume), else null")
    instance_id: str | None
    instances: list[AttachedInstance]
    ssh_key_ids: list[str]
    tags: list[Tag]
    contract: str
    long_term: LongTerm | None
    base_hourly_cost: float
    monthly_price: float
    currency: Literal["usd", "eur"]
    pseudo_path: str
    mount_command: str
    create_directory_command: str
    filesystem_to_fstab_command: str
    created_by_user_id: str | None = None


class DeletedVolume(Volume):
    deleted_at: str
    is_permanently_deleted: bool
