"""Cluster request bodies and response shapes, and the cluster type catalog shape."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from cloudcompute_emulator.schemas.catalog import CpuSpec, GpuSpec, MemorySpec
from cloudcompute_emulator.schemas.common import Currency, RequestModel, Tag, TagInput
from cloudcompute_emulator.schemas.instances import InstanceStatus
from cloudcompute_emulator.schemas.volumes import Size

ExtensionSettings = Literal["auto_renew", "pay_as_you_go", "end_contract"]
NodeActionName = Literal["boot", "shutdown", "force_shutdown"]


class ClusterType(BaseModel):
    id: str
    cluster_type: str = Field(description="the code used on deploy, e.g. 16H100")
    model: str
    name: str
    manufacturer: str
    cpu: CpuSpec
    gpu: GpuSpec
    gpu_memory: MemorySpec
    memory: MemorySpec
    price_per_hour: str
    currency: Currency
    node_details: list[str] = Field(description="the first entry gives the number of worker nodes, e.g. '2x 8 GPU nodes'")
    supported_os: list[str] = Field(description="cluster image types (GET /v1/images/cluster)")


class ClusterAvailability(BaseModel):
    location_code: str
    availabilities: list[str]


class SharedVolumeSpec(RequestModel):
    name: str = Field(min_length=1, max_length=255)
    size: int = Size


class ExistingVolumeRef(RequestModel):
    id: str = Field(min_length=1)


class ClusterDeploy(RequestModel):
    cluster_type: str = Field(min_length=1)
    hostname: str = Field(min_length=1, max_length=63)
    image: str = Field(min_length=1, description="a cluster image type from GET /v1/images/cluster")
    location_code: str = Field(min_length=1)
    shared_volume: SharedVolumeSpec = Field(description="the shared file system mounted at /home")
    auto_rental_extension: bool | None = Field(None, deprecated=True, description="use extension_settings")
    contract: Literal["PAY_AS_YOU_GO", "LONG_TERM"] | None = Field(None, description="only PAY_AS_YOU_GO is supported")
    description: str | None = Field(None, max_length=1000)
    existing_volumes: list[ExistingVolumeRef] | None = Field(None, description="detached shared volumes in the same location")
    extension_settings: ExtensionSettings | None = Field(None, description="takes priority over the deprecated flags")
    ssh_key_ids: str | list[str] | None = Field(None, description="required: keys for the jump host")
    startup_script_id: str | None = None
    tags: list[TagInput] | None = None
    turn_to_pay_as_you_go: bool | None = Field(None, deprecated=True, description="use extension_settings")


class ClusterCreated(BaseModel):
    id: str


class ClusterActionItem(RequestModel):
    action: Literal["discontinue"]
    id: str = Field(min_length=1)


class ClusterActions(RequestModel):
    actions: list[ClusterActionItem] = Field(min_length=1)


class NodeAction(RequestModel):
    action: NodeActionName


class SharedVolumeView(BaseModel):
    id: str
    name: str
    mount_point: str
    size_in_gigabytes: int


class WorkerNode(BaseModel):
    id: str
    hostname: str = Field(description="reachable from the jump host by ssh")
    public_ip: str | None
    private_ip: str | None
    status: InstanceStatus


class Cluster(BaseModel):
    id: str
    hostname: str
    description: str
    status: InstanceStatus
    created_at: str
    location: str
    cluster_type: str
    image: str
    os_name: str
    ip: str | None = Field(description="the jump host's address; null until the cluster is running")
    cpu: CpuSpec
    gpu: GpuSpec
    gpu_memory: MemorySpec
    memory: MemorySpec
    price_per_hour: float
    contract: Literal["LONG_TERM", "PAY_AS_YOU_GO"]
    extension_settings: ExtensionSettings | None = None
    auto_rental_extension: bool | None = Field(None, deprecated=True)
    turn_to_pay_as_you_go: bool | None = Field(None, deprecated=True)
    long_term_period: str | None = None
    ssh_key_ids: list[str]
    startup_script_id: str | None = None
    tags: list[Tag]
    shared_volumes: list[SharedVolumeView] = Field(description="one of them is mounted at /home")
    worker_nodes: list[WorkerNode] = Field(description="empty until the cluster is running")
    created_by_user_id: str | None = None
