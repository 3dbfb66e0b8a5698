"""Catalog response shapes: instance types, images, locations, volume types, periods."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from cloudcompute_emulator.schemas.common import Currency


class CpuSpec(BaseModel):
    description: str
    number_of_cores: int
    model: str


class GpuSpec(BaseModel):
    description: str
    number_of_gpus: int


class MemorySpec(BaseModel):
    description: str
    size_in_gigabytes: int


class StorageSpec(BaseModel):
    description: str


class InstanceType(BaseModel):
    id: str
    instance_type: str
    name: str
    display_name: str
    description: str
    model: str
    manufacturer: str
    best_for: list[str]
    cpu: CpuSpec
    gpu: GpuSpec
    gpu_memory: MemorySpec
    memory: MemorySpec
    storage: StorageSpec
    p2p: str
    currency: Currency
    price_per_hour: str
    spot_price: str
    dynamic_price: str | None = None
    max_dynamic_price: str
    serverless_price: str | None = None
    serverless_spot_price: str | None = None
    deploy_warning: str | None = None
    supported_os: list[str]


class Image(BaseModel):
    id: str
    image_type: str
    name: str
    category: str
    details: list[str]
    is_cluster: bool
    is_default: bool


class Location(BaseModel):
    code: str
    name: str
    country_code: str


class VolumeTypePrice(BaseModel):
    price_per_month_per_gb: float
    cps_per_gb: float
    currency: Currency


class VolumeType(BaseModel):
    type: str
    price: VolumeTypePrice
    is_shared_fs: bool
    iops: str
    throughput_gbps: float
    burst_bandwidth: float
    continuous_bandwidth: float
    internal_network_speed: float


class LongTermPeriod(BaseModel):
    code: str
    name: str
    unit_name: Literal["hour", "day", "week", "month", "year"]
    unit_value: int
    discount_percentage: int
    is_enabled: bool


class InstanceAvailability(BaseModel):
    location_code: str
    availabilities: list[str]


class ContainerType(BaseModel):
    id: str
    instance_type: str
    model: str
    name: str
    manufacturer: str
    cpu: CpuSpec
    gpu: GpuSpec
    gpu_memory: MemorySpec
    memory: MemorySpec
    currency: Currency
    serverless_price: str
    serverless_spot_price: str


ManagedEndpointUnit = Literal[
    "generation", "image", "video", "input_token", "output_token", "token", "audio_second", "video_second",
    "inference_second", "hour", "second", "minute", "undefined", "gpu_hour", "gb_hour", "gb_month", "request",
]


class ManagedEndpointPrice(BaseModel):
    currency: Currency
    external_id: str
    resource: str
    unit_name: ManagedEndpointUnit
    unit_price: float


class ContainerRegistryPrice(BaseModel):
    currency: Currency
    price_per_month_per_gb: float


class Balance(BaseModel):
    amount: float
    currency: Currency
