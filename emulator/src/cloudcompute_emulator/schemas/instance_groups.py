"""Instance group request bodies and response shape."""

from __future__ import annotations

from pydantic import BaseModel, Field

from cloudcompute_emulator.schemas.common import RequestModel
from cloudcompute_emulator.schemas.volumes import Size

IMMUTABLE = "immutable: 400 when it differs from the group's"


class OsVolumeTemplate(RequestModel):
    size: int = Size
    type: str | None = Field(None, description="a volume type; default NVMe, the location's default")


class GroupTemplate(RequestModel):
    image: str = Field(min_length=1, description="an image type the instance type supports (GET /v1/images)")
    os_volume: OsVolumeTemplate | None = Field(None, description="default: the instance type's OS volume size, NVMe")
    ssh_key_ids: list[str] | None = None
    startup_script_id: str | None = None


class InstanceGroupCreate(RequestModel):
    instance_type: str = Field(min_length=1)
    location_code: str = Field(min_length=1)
    name: str = Field(min_length=1, max_length=255, description="unique among the project's live groups (409)")
    template: GroupTemplate
    description: str | None = Field(None, max_length=1000)


class TemplatePatch(RequestModel):
    ssh_key_ids: list[str] | None = None
    startup_script_id: str | None = Field(None, description="an empty string removes the startup script")
    image: str | None = Field(None, description=IMMUTABLE)
    os_volume: OsVolumeTemplate | None = Field(None, description=IMMUTABLE)


class InstanceGroupPatch(RequestModel):
    name: str | None = Field(None, min_length=1, max_length=255)
    description: str | None = Field(None, max_length=1000)
    template: TemplatePatch | None = None
    location_code: str | None = Field(None, description=IMMUTABLE)
    instance_type: str | None = Field(None, description=IMMUTABLE)


class OsVolumeTemplateView(BaseModel):
    size: int
    type: str


class GroupTemplateView(BaseModel):
    image: str
    os_volume: OsVolumeTemplateView
    ssh_key_ids: list[str]
    startup_script_id: str | None


class InstanceGroup(BaseModel):
    id: str
    project_id: str
    name: str
    description: str
    location_code: str
    instance_type: str
    template: GroupTemplateView
    created_at: str = Field(json_schema_extra={"format": "date-time"})
    updated_at: str = Field(json_schema_extra={"format": "date-time"})
    deleted_at: str | None = Field(description="set only on a retired group, which reads never return")
