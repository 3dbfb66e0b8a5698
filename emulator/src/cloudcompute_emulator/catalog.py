"""The emulator's catalog: locations, instance types, OS images, volume types, long-term periods
and the default capacity of every (instance type, location, spot) combination.

All data of the catalog endpoints lives here (and only here), in production-like shapes. Prices
are USD; ``eur`` views are derived with :data:`EUR_PER_USD`. The README lists the codes.
Cluster types and images, container types and serverless compute resources, and the prices of
managed endpoints and the container registry live here too.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

EUR_PER_USD = 0.92
CATALOG_NAMESPACE = uuid.UUID("7d4b4a52-2c1e-4f4e-9a53-5a1f4c0de001")


def catalog_id(code: str) -> str:
    """Stable ids for catalog entries: the same code gets the same id on every run."""
    return str(uuid.uuid5(CATALOG_NAMESPACE, code))


def price_text(amount: float) -> str:
    """Catalog prices are numeric strings, as the API sends them."""
    return f"{amount:.4f}".rstrip("0").rstrip(".") if amount else "0"


def convert_price(amount_usd: float, currency: str) -> float:
    return round(amount_usd * EUR_PER_USD, 4) if currency == "eur" else amount_usd


# -- locations -------------------------------------------------------------------------------

LOCATIONS: list[dict[str, str]] = [
    {"code": "FIN-01", "name": "Finland 1 (Helsinki)", "country_code": "FI"},
    {"code": "FIN-02", "name": "Finland 2 (Helsinki)", "country_code": "FI"},
    {"code": "FIN-03", "name": "Finland 3 (Tuusula)", "country_code": "FI"},
    {"code": "ICE-01", "name": "Iceland 1 (Keflavik)", "country_code": "IS"},
]
LOCATION_CODES = [location["code"] for location in LOCATIONS]

# -- OS images -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Image:
    image_type: str
    name: str
    category: str
    os_name: str
    details: tuple[str, ...]
    is_cluster: bool = False

    @property
    def id(self) -> str:
        return catalog_id(f"image:{self.image_type}")


IMAGES: list[Image] = [
    Image(
        "ubuntu-24.04-cuda-12.8-open-docker",
        "Ubuntu 24.04 + CUDA 12.8 Open + Docker",
        "ubuntu",
        "Ubuntu 24.04",
        ("Ubuntu 24.04 LTS", "CUDA 12.8", "NVIDIA driver 570 (open kernel modules)", "Docker, NVIDIA Container Toolkit"),
    ),
    Image(
        "ubuntu-24.04-cuda-12.6-docker",
        "Ubuntu 24.04 + CUDA 12.6 + Docker",
        "ubuntu",
        "Ubuntu 24.04",
        ("Ubuntu 24.04 LTS", "CUDA 12.6", "NVIDIA driver 560", "Docker, NVIDIA Container Toolkit"),
    ),
    Image(
        "ubuntu-22.04-cuda-12.4-docker",
        "Ubuntu 22.04 + CUDA 12.4 + Docker",
        "ubuntu",
        "Ubuntu 22.04",
        ("Ubuntu 22.04 LTS", "CUDA 12.4", "NVIDIA driver 550", "Docker, NVIDIA Container Toolkit"),
    ),
    Image("ubuntu-24.04", "Ubuntu 24.04", "ubuntu", "Ubuntu 24.04", ("Ubuntu 24.04 LTS", "no GPU drivers")),
    Image("ubuntu-22.04", "Ubuntu 22.04", "ubuntu", "Ubuntu 22.04", ("Ubuntu 22.04 LTS", "no GPU drivers")),
    Image("ubuntu-24.04-docker", "Ubuntu 24.04 + Docker", "docker", "Ubuntu 24.04", ("Ubuntu 24.04 LTS", "Docker")),
    Image(
        "ubuntu-24.04-cuda-12.8-open-cc",
        "Ubuntu 24.04 + CUDA 12.8 Confidential Computing",
        "confidentialComputing",
        "Ubuntu 24.04",
        ("Ubuntu 24.04 LTS", "CUDA 12.8", "NVIDIA driver 570 (open kernel modules)", "confidential computing mode"),
    ),
]
IMAGES_BY_TYPE = {image.image_type: image for image in IMAGES}
DEFAULT_GPU_IMAGE = "ubuntu-24.04-cuda-12.8-open-docker"
DEFAULT_CPU_IMAGE = "ubuntu-24.04"

CUDA_IMAGES = ("ubuntu-24.04-cuda-12.8-open-docker", "ubuntu-24.04-cuda-12.6-docker", "ubuntu-22.04-cuda-12.4-docker")
PLAIN_IMAGES = ("ubuntu-24.04", "ubuntu-22.04", "ubuntu-24.04-docker")
CONFIDENTIAL_IMAGES = ("ubuntu-24.04-cuda-12.8-open-cc",)

# -- instance types --------------------------------------------------------------------------


@dataclass(frozen=True)
class GpuFamily:
    """One GPU model; instance types of 1/2/4/8 GPUs are derived from it."""

    model: str
    name: str  # e.g. "H100 SXM5 80GB"
    vram_gb: int
    price_per_gpu_hour: float
    # number of GPUs -> (instance type code, vCPUs, RAM GB)
    sizes: dict[int, tuple[str, int, int]]
    supported_os: tuple[str, ...]
    p2p: str
    best_for: tuple[str, ...]
    deploy_warning: str | None = None
    cpu_model: str = "AMD EPYC 9454"
    # location -> how many instances of each size can run at once (on-demand; spot gets half)
    capacity: dict[str, int] = field(default_factory=dict)


GPU_FAMILIES: list[GpuFamily] = [
    GpuFamily(
        "B200", "B200 SXM6 180GB", 180, 4.99,
        {1: ("1B200.180S.30V", 30, 184), 2: ("2B200.180S.60V", 60, 368),
         4: ("4B200.180S.120V", 120, 736), 8: ("8B200.180S.240V", 240, 1472)},
        ("ubuntu-24.04-cuda-12.8-open-docker", "ubuntu-24.04", "ubuntu-24.04-docker", "ubuntu-24.04-cuda-12.8-open-cc"),
        "1800 GB/s", ("Frontier model training", "Large-scale inference"),
        deploy_warning="B200 instances require the CUDA 12.8 (driver 570) images.",
        # deliberately scarce: 503 paths are testable with one deploy (see README)
        capacity={"FIN-03": 1},
    ),
    GpuFamily(
        "H200", "H200 SXM5 141GB", 141, 3.59,
        {1: ("1H200.141S.44V", 44, 185), 2: ("2H200.141S.88V", 88, 370),
         4: ("4H200.141S.176V", 176, 740), 8: ("8H200.141S.176V", 176, 1450)},
        CUDA_IMAGES + PLAIN_IMAGES + CONFIDENTIAL_IMAGES,
        "900 GB/s", ("Large model training", "Long-context LLM inference"),
        capacity={"FIN-01": 16, "FIN-03": 8},
    ),
    GpuFamily(
        "H100", "H100 SXM5 80GB", 80, 2.29,
        {1: ("1H100.80S.30V", 30, 120), 2: ("2H100.80S.60V", 60, 240),
         4: ("4H100.80S.120V", 120, 480), 8: ("8H100.80S.176V", 176, 960)},
        CUDA_IMAGES + PLAIN_IMAGES + CONFIDENTIAL_IMAGES,
        "900 GB/s", ("Large model training", "LLM inference", "HPC"),
        cpu_model="Intel Xeon Platinum 8480+",
        capacity={"FIN-01": 64, "FIN-02": 32, "FIN-03": 16, "ICE-01": 2},
    ),
    GpuFamily(
        "A100", "A100 SXM4 40GB", 40, 1.29,
        {1: ("1A100.22V", 22, 120), 2: ("2A100.44V", 44, 240),
         4: ("4A100.88V", 88, 480), 8: ("8A100.176V", 176, 960)},
        CUDA_IMAGES + PLAIN_IMAGES,
        "600 GB/s", ("Model training", "Fine-tuning", "Inference"),
        capacity={"FIN-01": 32, "FIN-02": 32, "ICE-01": 8},
    ),
    GpuFamily(
        "L40S", "L40S 48GB", 48, 0.91,
        {1: ("1L40S.20V", 20, 60), 2: ("2L40S.40V", 40, 120),
         4: ("4L40S.80V", 80, 240), 8: ("8L40S.160V", 160, 480)},
        CUDA_IMAGES + PLAIN_IMAGES,
        "PCIe", ("Inference", "Rendering", "Fine-tuning small models"),
        capacity={"FIN-02": 16, "ICE-01": 16},
    ),
    GpuFamily(
        "V100", "Tesla V100 16GB", 16, 0.39,
        # V100 (Volta) has no open kernel module support: no "-open" image.
        {1: ("1V100.6V", 6, 23), 2: ("2V100.10V", 10, 45),
         4: ("4V100.20V", 20, 90), 8: ("8V100.48V", 48, 180)},
        ("ubuntu-24.04-cuda-12.6-docker", "ubuntu-22.04-cuda-12.4-docker") + PLAIN_IMAGES,
        "NVLink 300 GB/s", ("Legacy CUDA workloads", "Small experiments"),
        cpu_model="Intel Xeon Gold 6148",
        capacity={"FIN-01": 8, "FIN-02": 8},
    ),
]

# (code, vCPUs, RAM GB); price per vCPU-hour below. Generous capacity everywhere.
CPU_SIZES: list[tuple[str, int, int]] = [
    ("CPU.4V.16G", 4, 16),
    ("CPU.8V.32G", 8, 32),
    ("CPU.16V.64G", 16, 64),
    ("CPU.32V.128G", 32, 128),
    ("CPU.64V.256G", 64, 256),
]
CPU_PRICE_PER_VCPU_HOUR = 0.0299
CPU_CAPACITY_PER_LOCATION = 100_000


@dataclass(frozen=True)
class InstanceType:
    code: str
    model: str
    name: str
    manufacturer: str
    gpus: int
    vram_gb: int
    vcpus: int
    ram_gb: int
    price_per_hour: float
    supported_os: tuple[str, ...]
    p2p: str
    best_for: tuple[str, ...]
    deploy_warning: str | None
    capacity: dict[str, int]
    default_os_volume_gb: int
    cpu_model: str

    @property
    def id(self) -> str:
        return catalog_id(f"instance-type:{self.code}")

    @property
    def is_gpu(self) -> bool:
        return self.gpus > 0

    @property
    def spot_price(self) -> float:
        return round(self.price_per_hour * 0.35, 4)

    @property
    def category(self) -> str:
        return "GPU" if self.is_gpu else "CPU"

    def cpu(self) -> dict[str, Any]:
        return {"description": f"{self.vcpus} CPU", "number_of_cores": self.vcpus, "model": self.cpu_model}

    def gpu(self) -> dict[str, Any]:
        return {"description": f"{self.gpus}x {self.name}" if self.gpus else "", "number_of_gpus": self.gpus}

    def gpu_memory(self) -> dict[str, Any]:
        total = self.gpus * self.vram_gb
        return {"description": f"{total}GB GPU RAM" if total else "", "size_in_gigabytes": total}

    def memory(self) -> dict[str, Any]:
        return {"description": f"{self.ram_gb}GB RAM", "size_in_gigabytes": self.ram_gb}

    def storage(self) -> dict[str, str]:
        return {"description": "Dynamic"}

    def default_image(self) -> str:
        return DEFAULT_GPU_IMAGE if DEFAULT_GPU_IMAGE in self.supported_os else DEFAULT_CPU_IMAGE


def _build_instance_types() -> list[InstanceType]:
    types = []
    for family in GPU_FAMILIES:
        for gpus, (code, vcpus, ram_gb) in family.sizes.items():
            types.append(
                InstanceType(
                    code=code, model=family.model, name=family.name, manufacturer="NVIDIA",
                    gpus=gpus, vram_gb=family.vram_gb, vcpus=vcpus, ram_gb=ram_gb,
                    price_per_hour=round(family.price_per_gpu_hour * gpus, 4),
                    supported_os=family.supported_os, p2p=family.p2p if gpus > 1 else "",
                    best_for=family.best_for, deploy_warning=family.deploy_warning,
                    capacity=family.capacity, default_os_volume_gb=100, cpu_model=family.cpu_model,
                )
            )
    for code, vcpus, ram_gb in CPU_SIZES:
        types.append(
            InstanceType(
                code=code, model="CPU Node", name=f"{vcpus} vCPU AMD EPYC", manufacturer="AMD",
                gpus=0, vram_gb=0, vcpus=vcpus, ram_gb=ram_gb,
                price_per_hour=round(CPU_PRICE_PER_VCPU_HOUR * vcpus, 4),
                supported_os=PLAIN_IMAGES, p2p="", best_for=("Web services", "CI runners", "Data preprocessing"),
                deploy_warning=None,
                capacity={location: CPU_CAPACITY_PER_LOCATION for location in LOCATION_CODES},
                default_os_volume_gb=50, cpu_model="AMD EPYC 9654",
            )
        )
    return types


INSTANCE_TYPES: list[InstanceType] = _build_instance_types()
INSTANCE_TYPES_BY_CODE = {instance_type.code: instance_type for instance_type in INSTANCE_TYPES}


def default_capacity(instance_type: InstanceType, location_code: str, is_spot: bool) -> int:
    on_demand = instance_type.capacity.get(location_code, 0)
    return on_demand // 2 if is_spot else on_demand


# -- volume types ----------------------------------------------------------------------------


@dataclass(frozen=True)
class VolumeType:
    type: str
    price_per_month_per_gb: float
    is_shared_fs: bool
    iops: str
    throughput_gbps: float
    burst_bandwidth: int
    continuous_bandwidth: int
    internal_network_speed: int
    # Can it be created on its own with POST /v1/volumes (the others belong to clusters or
    # to an instance's local disk)?
    standalone: bool


VOLUME_TYPES: list[VolumeType] = [
    VolumeType("NVMe", 0.2, False, "100000", 2.0, 2000, 1000, 25, True),
    VolumeType("HDD", 0.05, False, "1000", 0.25, 250, 125, 25, True),
    VolumeType("NVMe_Shared", 0.28, True, "50000", 1.5, 1500, 750, 50, True),
    VolumeType("HDD_Shared", 0.08, True, "2000", 0.4, 400, 200, 50, True),
    VolumeType("NVMe_Local_Storage", 0.0, False, "500000", 6.0, 6000, 5000, 0, False),
    VolumeType("NVMe_Shared_Cluster", 0.3, True, "200000", 4.0, 4000, 3000, 400, False),
    VolumeType("NVMe_OS_Cluster", 0.2, False, "100000", 2.0, 2000, 1000, 400, False),
]
VOLUME_TYPES_BY_NAME = {volume_type.type: volume_type for volume_type in VOLUME_TYPES}
OS_VOLUME_TYPE = "NVMe"
HOURS_PER_MONTH = 730
VOLUME_SIZE_MIN_GB = 1
VOLUME_SIZE_MAX_GB = 100_000


def volume_hourly_cost(volume_type: str, size_gb: int) -> float:
    monthly = VOLUME_TYPES_BY_NAME[volume_type].price_per_month_per_gb * size_gb
    return round(monthly / HOURS_PER_MONTH, 6)


def volume_monthly_price(volume_type: str, size_gb: int) -> float:
    return round(VOLUME_TYPES_BY_NAME[volume_type].price_per_month_per_gb * size_gb, 4)


# -- long-term periods -------------------------------------------------------------------------

LONG_TERM_PERIODS_INSTANCES: list[dict[str, Any]] = [
    {"code": "1_MONTH", "name": "1 month", "unit_name": "month", "unit_value": 1, "discount_percentage": 5, "is_enabled": True},
    {"code": "3_MONTHS", "name": "3 months", "unit_name": "month", "unit_value": 3, "discount_percentage": 10, "is_enabled": True},
    {"code": "6_MONTHS", "name": "6 months", "unit_name": "month", "unit_value": 6, "discount_percentage": 15, "is_enabled": True},
    {"code": "12_MONTHS", "name": "1 year", "unit_name": "year", "unit_value": 1, "discount_percentage": 25, "is_enabled": True},
    {"code": "24_MONTHS", "name": "2 years", "unit_name": "year", "unit_value": 2, "discount_percentage": 30, "is_enabled": False},
]
LONG_TERM_PERIODS_CLUSTERS: list[dict[str, Any]] = [
    {"code": "3_MONTHS", "name": "3 months", "unit_name": "month", "unit_value": 3, "discount_percentage": 12, "is_enabled": True},
    {"code": "6_MONTHS", "name": "6 months", "unit_name": "month", "unit_value": 6, "discount_percentage": 18, "is_enabled": True},
    {"code": "12_MONTHS", "name": "1 year", "unit_name": "year", "unit_value": 1, "discount_percentage": 28, "is_enabled": True},
]


# -- cluster images and cluster types ---------------------------------------------------------------

CLUSTER_IMAGES: list[Image] = [
    Image(
        "ubuntu-24.04-cuda-12.8-cluster",
        "Ubuntu 24.04 + CUDA 12.8 Open + Slurm (cluster)",
        "ubuntu",
        "Ubuntu 24.04",
        ("Ubuntu 24.04 LTS", "CUDA 12.8", "NVIDIA driver 570 (open kernel modules)", "Slurm", "InfiniBand (OFED)"),
        is_cluster=True,
    ),
    Image(
        "ubuntu-24.04-cuda-12.8-docker-cluster",
        "Ubuntu 24.04 + CUDA 12.8 Open + Docker (cluster)",
        "docker",
        "Ubuntu 24.04",
        ("Ubuntu 24.04 LTS", "CUDA 12.8", "NVIDIA driver 570 (open kernel modules)", "Docker, NVIDIA Container Toolkit",
         "InfiniBand (OFED)"),
        is_cluster=True,
    ),
    Image(
        "ubuntu-22.04-cuda-12.4-cluster",
        "Ubuntu 22.04 + CUDA 12.4 + Slurm (cluster)",
        "ubuntu",
        "Ubuntu 22.04",
        ("Ubuntu 22.04 LTS", "CUDA 12.4", "NVIDIA driver 550", "Slurm", "InfiniBand (OFED)"),
        is_cluster=True,
    ),
]
CLUSTER_IMAGES_BY_TYPE = {image.image_type: image for image in CLUSTER_IMAGES}
IMAGES_BY_TYPE.update(CLUSTER_IMAGES_BY_TYPE)
DEFAULT_CLUSTER_IMAGE = "ubuntu-24.04-cuda-12.8-cluster"
CUDA_12_8_CLUSTER_IMAGES = ("ubuntu-24.04-cuda-12.8-cluster", "ubuntu-24.04-cuda-12.8-docker-cluster")
ALL_CLUSTER_IMAGES = tuple(image.image_type for image in CLUSTER_IMAGES)
# the shared file system every cluster gets at /home
CLUSTER_SHARED_VOLUME_TYPE = "NVMe_Shared_Cluster"
CLUSTER_SHARED_MOUNT_POINT = "/home"


@dataclass(frozen=True)
class ClusterType:
    """A cluster of identical GPU nodes (workers) behind a jump host."""

    code: str  # e.g. "16H100": 16 GPUs in all
    node_type: InstanceType
    nodes: int
    supported_os: tuple[str, ...]
    # location -> how many clusters of this type can run at once (no spot clusters)
    capacity: dict[str, int]
    interconnect: str

    @property
    def id(self) -> str:
        return catalog_id(f"cluster-type:{self.code}")

    @property
    def gpus(self) -> int:
        return self.nodes * self.node_type.gpus

    @property
    def model(self) -> str:
        return self.node_type.model

    @property
    def name(self) -> str:
        return f"{self.gpus}x {self.node_type.name} cluster"

    @property
    def manufacturer(self) -> str:
        return self.node_type.manufacturer

    @property
    def price_per_hour(self) -> float:
        return round(self.node_type.price_per_hour * self.nodes, 4)

    def node_details(self) -> list[str]:
        # the first entry gives the number of worker nodes
        return [
            f"{self.nodes}x {self.node_type.gpus} GPU nodes",
            f"{self.node_type.gpus}x {self.node_type.name} per node ({self.node_type.code})",
            f"{self.interconnect} node interconnect",
            "1 jump host",
        ]

    def cpu(self) -> dict[str, Any]:
        cores = self.nodes * self.node_type.vcpus
        return {"description": f"{cores} CPU", "number_of_cores": cores, "model": self.node_type.cpu_model}

    def gpu(self) -> dict[str, Any]:
        return {"description": f"{self.gpus}x {self.node_type.name}", "number_of_gpus": self.gpus}

    def gpu_memory(self) -> dict[str, Any]:
        total = self.gpus * self.node_type.vram_gb
        return {"description": f"{total}GB GPU RAM", "size_in_gigabytes": total}

    def memory(self) -> dict[str, Any]:
        total = self.nodes * self.node_type.ram_gb
        return {"description": f"{total}GB RAM", "size_in_gigabytes": total}

    def default_image(self) -> str:
        return DEFAULT_CLUSTER_IMAGE


CLUSTER_TYPES: list[ClusterType] = [
    ClusterType("16H100", INSTANCE_TYPES_BY_CODE["8H100.80S.176V"], 2, ALL_CLUSTER_IMAGES,
                {"FIN-01": 8, "FIN-02": 4, "FIN-03": 2}, "3200 Gbit/s InfiniBand"),
    ClusterType("32H100", INSTANCE_TYPES_BY_CODE["8H100.80S.176V"], 4, ALL_CLUSTER_IMAGES,
                {"FIN-01": 4, "FIN-02": 2}, "3200 Gbit/s InfiniBand"),
    ClusterType("16H200", INSTANCE_TYPES_BY_CODE["8H200.141S.176V"], 2, ALL_CLUSTER_IMAGES,
                {"FIN-01": 4, "FIN-03": 2}, "3200 Gbit/s InfiniBand"),
    ClusterType("32H200", INSTANCE_TYPES_BY_CODE["8H200.141S.176V"], 4, ALL_CLUSTER_IMAGES,
                {"FIN-03": 1}, "3200 Gbit/s InfiniBand"),
    # deliberately scarce, like the B200 instances: one deploy in FIN-03, then 503
    ClusterType("16B200", INSTANCE_TYPES_BY_CODE["8B200.180S.240V"], 2, CUDA_12_8_CLUSTER_IMAGES,
                {"FIN-03": 1}, "3200 Gbit/s InfiniBand"),
]
CLUSTER_TYPES_BY_CODE = {cluster_type.code: cluster_type for cluster_type in CLUSTER_TYPES}
CLUSTER_SHARED_VOLUME_DEFAULT_GB = 1000


def default_cluster_capacity(cluster_type: ClusterType, location_code: str, is_spot: bool) -> int:
    return 0 if is_spot else cluster_type.capacity.get(location_code, 0)


# -- serverless: compute resources, container types, deployment templates ------------------------------

SERVERLESS_FAMILIES = ("B200", "H200", "H100", "A100", "L40S")
SERVERLESS_SIZES = (1, 2, 4, 8)
# B200 is scarce (as for instances): listed, but not available
SERVERLESS_UNAVAILABLE = frozenset({"B200"})


def serverless_prices(instance_type: InstanceType, currency: str) -> tuple[float, float]:
    """(serverless price, serverless spot price) per hour, as instance and container types show them."""
    price = convert_price(instance_type.price_per_hour, currency)
    return round(price * 1.1, 4), round(price * 0.45, 4)


@dataclass(frozen=True)
class ServerlessCompute:
    """A serverless compute resource ``{name, size}``: ``size`` GPUs of model ``name``."""

    name: str
    size: int
    instance_type: InstanceType
    is_available: bool


def _build_serverless_compute() -> list[ServerlessCompute]:
    resources = []
    for family in GPU_FAMILIES:
        if family.model not in SERVERLESS_FAMILIES:
            continue
        for size in SERVERLESS_SIZES:
            code = family.sizes[size][0]
            resources.append(
                ServerlessCompute(family.model, size, INSTANCE_TYPES_BY_CODE[code], family.model not in SERVERLESS_UNAVAILABLE)
            )
    return resources


SERVERLESS_COMPUTE: list[ServerlessCompute] = _build_serverless_compute()
SERVERLESS_COMPUTE_BY_KEY = {(resource.name, resource.size): resource for resource in SERVERLESS_COMPUTE}


@dataclass(frozen=True)
class TemplateVariant:
    code: str
    name: str
    description: str
    image_tag: str
    model: str
    recommended_compute: tuple[str, int]


@dataclass(frozen=True)
class TemplateFeature:
    code: str
    name: str
    description: str
    enabled_by_default: bool
    env: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class DeploymentTemplate:
    code: str
    name: str
    description: str
    category: str
    image: str
    exposed_port: int
    healthcheck_path: str
    variants: tuple[TemplateVariant, ...]
    features: tuple[TemplateFeature, ...]
    # environment variable that names the model to serve (the variant's model)
    model_env: str

    @property
    def id(self) -> str:
        return catalog_id(f"container-template:{self.code}")

    @property
    def default_variant(self) -> TemplateVariant:
        return self.variants[0]


DEPLOYMENT_TEMPLATES: list[DeploymentTemplate] = [
    DeploymentTemplate(
        "vllm", "vLLM", "OpenAI-compatible LLM inference server", "llm", "vllm/vllm-openai", 8000, "/health",
        (
            TemplateVariant("llama-3.1-8b-instruct", "Llama 3.1 8B Instruct", "Meta Llama 3.1, 8B, instruction tuned",
                            "v0.8.5", "meta-llama/Llama-3.1-8B-Instruct", ("L40S", 1)),
            TemplateVariant("llama-3.3-70b-instruct", "Llama 3.3 70B Instruct", "Meta Llama 3.3, 70B, instruction tuned",
                            "v0.8.5", "meta-llama/Llama-3.3-70B-Instruct", ("H100", 4)),
            TemplateVariant("qwen2.5-7b-instruct", "Qwen 2.5 7B Instruct", "Qwen 2.5, 7B, instruction tuned",
                            "v0.8.5", "Qwen/Qwen2.5-7B-Instruct", ("L40S", 1)),
        ),
        (
            TemplateFeature("prefix-caching", "Prefix caching", "Reuse the KV cache of shared prompt prefixes", True,
                            (("VLLM_ENABLE_PREFIX_CACHING", "1"),)),
            TemplateFeature("tool-calling", "Tool calling", "OpenAI-style function calling", False,
                            (("VLLM_ENABLE_AUTO_TOOL_CHOICE", "1"), ("VLLM_TOOL_CALL_PARSER", "hermes"))),
        ),
        "MODEL_NAME",
    ),
    DeploymentTemplate(
        "sglang", "SGLang", "Fast serving framework for LLMs and vision-language models", "llm", "lmsysorg/sglang", 30000,
        "/health",
        (
            TemplateVariant("deepseek-r1-distill-llama-8b", "DeepSeek R1 Distill Llama 8B", "Reasoning model, 8B",
                            "v0.4.6", "deepseek-ai/DeepSeek-R1-Distill-Llama-8B", ("L40S", 1)),
            TemplateVariant("deepseek-v3", "DeepSeek V3", "Mixture-of-experts model, 671B", "v0.4.6",
                            "deepseek-ai/DeepSeek-V3", ("H200", 8)),
        ),
        (
            TemplateFeature("torch-compile", "torch.compile", "Compile the model for faster decoding", False,
                            (("SGLANG_ENABLE_TORCH_COMPILE", "1"),)),
        ),
        "MODEL_PATH",
    ),
    DeploymentTemplate(
        "comfyui", "ComfyUI", "Node-based image generation", "image", "comfyanonymous/comfyui", 8188, "/system_stats",
        (
            TemplateVariant("flux.1-dev", "FLUX.1 [dev]", "Text-to-image, 12B", "v0.3.30", "black-forest-labs/FLUX.1-dev",
                            ("H100", 1)),
            TemplateVariant("sdxl", "Stable Diffusion XL", "Text-to-image, base 1.0", "v0.3.30",
                            "stabilityai/stable-diffusion-xl-base-1.0", ("L40S", 1)),
        ),
        (
            TemplateFeature("preview", "Live previews", "Stream intermediate images", True, (("COMFYUI_PREVIEW", "auto"),)),
        ),
        "MODEL_ID",
    ),
    DeploymentTemplate(
        "text-embeddings-inference", "Text Embeddings Inference", "Embedding and reranking models", "embedding",
        "ghcr.io/huggingface/text-embeddings-inference", 80, "/health",
        (
            TemplateVariant("bge-m3", "BGE M3", "Multilingual embeddings", "1.7", "BAAI/bge-m3", ("L40S", 1)),
        ),
        (),
        "MODEL_ID",
    ),
]
DEPLOYMENT_TEMPLATES_BY_KEY = {key: template for template in DEPLOYMENT_TEMPLATES for key in (template.id, template.code)}

# -- prices of managed endpoints and the container registry ----------------------------------------------

# (resource, unit name, unit price in USD)
MANAGED_ENDPOINT_PRICES: list[tuple[str, str, float]] = [
    ("meta-llama/Llama-3.3-70B-Instruct", "input_token", 0.00000035),
    ("meta-llama/Llama-3.3-70B-Instruct", "output_token", 0.0000004),
    ("meta-llama/Llama-3.1-8B-Instruct", "input_token", 0.00000003),
    ("meta-llama/Llama-3.1-8B-Instruct", "output_token", 0.00000005),
    ("deepseek-ai/DeepSeek-R1", "input_token", 0.0000005),
    ("deepseek-ai/DeepSeek-R1", "output_token", 0.00000218),
    ("BAAI/bge-m3", "token", 0.00000001),
    ("black-forest-labs/FLUX.1-dev", "image", 0.025),
    ("black-forest-labs/FLUX.1-schnell", "image", 0.003),
    ("openai/whisper-large-v3", "audio_second", 0.0001),
    ("serverless-containers/gpu", "gpu_hour", 2.49),
    ("serverless-containers/storage", "gb_month", 0.2),
]
CONTAINER_REGISTRY_PRICE_PER_MONTH_PER_GB = 0.1
