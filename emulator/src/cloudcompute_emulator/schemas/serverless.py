"""Serverless shapes: container deployments, job
deployments, deployment templates, compute resources."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from cloudcompute_emulator.schemas.common import RequestModel

DEPLOYMENT_NAME_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
DeploymentName = Annotated[
    str, Field(min_length=1, max_length=63, pattern=DEPLOYMENT_NAME_PATTERN, description="a DNS label; immutable")
]
Port = Annotated[int, Field(ge=1, le=65535)]
ReplicaCount = Annotated[int, Field(ge=0, le=100)]
ContainerStatus = Literal[
    "initializing", "healthy", "degraded", "unhealthy", "paused", "quota_reached", "image_pulling", "version_updating"
]
JobStatus = Literal["running", "paused", "terminating"]
DELETE_TIMEOUT_DEFAULT_MS = 60_000
DELETE_TIMEOUT_MAX_MS = 300_000

# -- requests ----------------------------------------------------------------------------------------


class HealthcheckInput(RequestModel):
    enabled: bool = True
    port: Port | None = Field(None, description="default: the exposed port")
    path: str | None = Field(None, min_length=1, description="default /health")


class EntrypointOverridesInput(RequestModel):
    enabled: bool = False
    entrypoint: list[str] | None = None
    cmd: list[str] | None = None


class EnvVarInput(RequestModel):
    type: Literal["plain", "secret"] = "plain"
    name: str = Field(min_length=1, max_length=255, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    value_or_reference_to_secret: str = Field(description="the value, or the name of a secret when type is secret")


class VolumeMountInput(RequestModel):
    type: Literal["scratch", "secret", "shared", "memory"]
    mount_path: str | None = Field(None, pattern=r"^/", description="default /data (/dev/shm for memory)")
    secret_name: str | None = Field(None, description="required for a secret mount")
    volume_id: str | None = Field(None, description="a shared file system volume of the project, for a shared mount")
    size_in_mb: int | None = Field(None, ge=1, le=1_048_576, description="for a memory mount (default 64)")


class ImageReference(RequestModel):
    """The response's image object, accepted back on PATCH (read-modify-write clients)."""

    image: str = Field(min_length=1)
    last_updated_at: str | None = None


class ContainerInput(RequestModel):
    image: Annotated[str, Field(min_length=1)] | ImageReference
    exposed_port: Port = Field(8000)
    name: str | None = Field(None, min_length=1, max_length=63, pattern=DEPLOYMENT_NAME_PATTERN, description="default container-<n>")
    healthcheck: HealthcheckInput | None = None
    entrypoint_overrides: EntrypointOverridesInput | None = None
    env: list[EnvVarInput] | None = None
    volume_mounts: list[VolumeMountInput] | None = None


class ContainerPatchInput(ContainerInput):
    """On PATCH the name identifies the container being updated, so it is required."""

    name: str = Field(min_length=1, max_length=63, pattern=DEPLOYMENT_NAME_PATTERN, description="the container to update")


class RegistryCredentialsReference(RequestModel):
    name: str = Field(min_length=1)


class RegistrySettingsInput(RequestModel):
    is_private: bool
    credentials: RegistryCredentialsReference | None = Field(None, description="required when is_private")


class ComputeInput(RequestModel):
    name: str = Field(min_length=1, description="see GET /v1/serverless-compute-resources")
    size: int = Field(ge=1, le=64)


class DelayPolicyInput(RequestModel):
    delay_seconds: int = Field(ge=0, le=86_400)


class QueueLoadTriggerInput(RequestModel):
    threshold: float = Field(gt=0, le=10_000)


class UtilizationTriggerInput(RequestModel):
    enabled: bool
    threshold: float | None = Field(None, ge=1, le=100)


class ScalingTriggersInput(RequestModel):
    queue_load: QueueLoadTriggerInput | None = None
    cpu_utilization: UtilizationTriggerInput | None = None
    gpu_utilization: UtilizationTriggerInput | None = None


class ContainerScalingInput(RequestModel):
    """Every member is optional; the defaults fill the rest (min 1, max 1, ...)."""

    min_replica_count: ReplicaCount | None = None
    max_replica_count: Annotated[int, Field(ge=1, le=100)] | None = None
    scale_down_policy: DelayPolicyInput | None = None
    scale_up_policy: DelayPolicyInput | None = None
    queue_message_ttl_seconds: int | None = Field(None, ge=1, le=604_800)
    concurrent_requests_per_replica: int | None = Field(None, ge=1, le=1000)
    scaling_triggers: ScalingTriggersInput | None = None


class ContainerDeploymentCreate(RequestModel):
    name: DeploymentName
    containers: list[ContainerInput] = Field(min_length=1, max_length=10)
    compute: ComputeInput
    scaling: ContainerScalingInput | None = None
    container_registry_settings: RegistrySettingsInput | None = Field(None, description="default: a public registry")
    is_spot: bool | None = None


class ContainerDeploymentPatch(RequestModel):
    """The given top-level fields replace the deployment's; ``name`` may only repeat the current one."""

    name: DeploymentName | None = None
    containers: list[ContainerPatchInput] | None = Field(None, min_length=1, max_length=10)
    compute: ComputeInput | None = None
    scaling: ContainerScalingInput | None = None
    container_registry_settings: RegistrySettingsInput | None = None
    is_spot: bool | None = None


class EnvVarsChange(RequestModel):
    container_name: str = Field(min_length=1)
    env: list[EnvVarInput]


class EnvVarsDelete(RequestModel):
    container_name: str = Field(min_length=1)
    env: list[str] = Field(description="names of the variables to remove")


class JobScalingInput(RequestModel):
    max_replica_count: Annotated[int, Field(ge=1, le=100)] | None = None
    queue_message_ttl_seconds: int | None = Field(None, ge=1, le=604_800)
    deadline_seconds: int | None = Field(None, ge=1, le=604_800)


class JobDeploymentCreate(RequestModel):
    name: DeploymentName
    containers: list[ContainerInput] = Field(min_length=1, max_length=10)
    compute: ComputeInput
    scaling: JobScalingInput | None = None
    container_registry_settings: RegistrySettingsInput | None = None


class JobDeploymentPatch(RequestModel):
    name: DeploymentName | None = None
    containers: list[ContainerPatchInput] | None = Field(None, min_length=1, max_length=10)
    compute: ComputeInput | None = None
    scaling: JobScalingInput | None = None
    container_registry_settings: RegistrySettingsInput | None = None


class TemplateDeploymentCreate(RequestModel):
    name: DeploymentName
    variant: str | None = Field(None, description="a variant id of the template (default: its first)")
    features: list[str] | None = Field(None, description="feature ids to enable (default: the features enabled by default)")
    compute: ComputeInput | None = Field(None, description="default: the variant's recommended compute")
    scaling: ContainerScalingInput | None = None
    hugging_face_token_secret: str | None = Field(None, min_length=1, description="name of a secret holding a model-hub token (HF_TOKEN)")
    shared_memory_size_in_mb: int | None = Field(None, ge=1, le=1_048_576, description="a memory mount at /dev/shm")
    is_spot: bool | None = None


# -- responses ---------------------------------------------------------------------------------------


class Healthcheck(BaseModel):
    enabled: bool
    port: int
    path: str


class EntrypointOverrides(BaseModel):
    enabled: bool
    entrypoint: list[str]
    cmd: list[str]


class EnvVar(BaseModel):
    type: Literal["plain", "secret"]
    name: str
    value_or_reference_to_secret: str


class VolumeMount(BaseModel):
    type: Literal["scratch", "secret", "shared", "memory"]
    mount_path: str
    secret_name: str | None = None
    volume_id: str | None = None
    size_in_mb: int | None = None


class ContainerImage(BaseModel):
    image: str
    last_updated_at: str


class Container(BaseModel):
    name: str
    image: ContainerImage
    exposed_port: int
    healthcheck: Healthcheck
    entrypoint_overrides: EntrypointOverrides
    env: list[EnvVar]
    volume_mounts: list[VolumeMount]


class RegistryCredentials(BaseModel):
    name: str


class RegistrySettings(BaseModel):
    is_private: bool
    credentials: RegistryCredentials | None


class Compute(BaseModel):
    name: str
    size: int


class DelayPolicy(BaseModel):
    delay_seconds: int


class QueueLoadTrigger(BaseModel):
    threshold: float


class UtilizationTrigger(BaseModel):
    enabled: bool
    threshold: float


class ScalingTriggers(BaseModel):
    queue_load: QueueLoadTrigger
    cpu_utilization: UtilizationTrigger
    gpu_utilization: UtilizationTrigger


class ContainerScaling(BaseModel):
    min_replica_count: int
    max_replica_count: int
    scale_down_policy: DelayPolicy
    scale_up_policy: DelayPolicy
    queue_message_ttl_seconds: int
    concurrent_requests_per_replica: int
    scaling_triggers: ScalingTriggers


class ContainerDeployment(BaseModel):
    name: str
    container_registry_settings: RegistrySettings
    containers: list[Container]
    compute: Compute
    scaling: ContainerScaling
    is_spot: bool
    endpoint_base_url: str
    created_at: str


class ContainerDeploymentStatus(BaseModel):
    status: ContainerStatus


class Replica(BaseModel):
    id: str
    status: str
    started_at: str


class ReplicaList(BaseModel):
    list: list[Replica]


class ContainerEnvVars(BaseModel):
    container_name: str
    env: list[EnvVar]


class JobScaling(BaseModel):
    max_replica_count: int
    queue_message_ttl_seconds: int
    deadline_seconds: int


class JobDeployment(BaseModel):
    name: str
    container_registry_settings: RegistrySettings
    containers: list[Container]
    compute: Compute
    scaling: JobScaling
    endpoint_base_url: str
    created_at: str


class JobDeploymentStatus(BaseModel):
    status: JobStatus


class ComputeResource(BaseModel):
    name: str
    size: int
    is_available: bool


class TemplateVariant(BaseModel):
    id: str
    name: str
    description: str
    image: str
    model: str
    recommended_compute: Compute


class TemplateFeature(BaseModel):
    id: str
    name: str
    description: str
    enabled_by_default: bool
    env: list[EnvVar]


class ContainerTemplateSummary(BaseModel):
    id: str
    code: str = Field(description="accepted in place of the id in paths")
    name: str
    description: str
    category: str
    image: str
    exposed_port: int
    healthcheck_path: str
    default_variant: str
    recommended_compute: Compute


class ContainerTemplate(ContainerTemplateSummary):
    variants: list[TemplateVariant]
    features: list[TemplateFeature]
