"""Catalog endpoints: instance, cluster and container types, OS and cluster images, locations,
volume types, long-term periods, prices of managed endpoints and the container registry,
instance and cluster availability (the data is in catalog.py, the capacity in capacity.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from cloudcompute_emulator import capacity, catalog
from cloudcompute_emulator.context import Context
from cloudcompute_emulator.errors import invalid, not_found
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.catalog import (
    ContainerRegistryPrice,
    ContainerType,
    Image,
    InstanceAvailability,
    InstanceType,
    Location,
    LongTermPeriod,
    ManagedEndpointPrice,
    VolumeType,
)
from cloudcompute_emulator.schemas.clusters import ClusterAvailability, ClusterType
from cloudcompute_emulator.schemas.common import Currency
from cloudcompute_emulator.state import EmulatorState

router = APIRouter(tags=["Catalogs"])

CurrencyQuery = Annotated[Currency, Query(description="usd or eur")]
LocationQuery = Annotated[str | None, Query(description="all locations when omitted")]
LocationAliasQuery = Annotated[str | None, Query(alias="locationCode", deprecated=True, description="use location_code")]
SpotQuery = Annotated[str | None, Query(description="'true' or 'false' (default)")]
SpotAliasQuery = Annotated[str | None, Query(alias="isSpot", deprecated=True, description="use is_spot")]


def instance_type_view(instance_type: catalog.InstanceType, currency: str) -> dict[str, Any]:
    price = catalog.convert_price(instance_type.price_per_hour, currency)
    view = {
        "id": instance_type.id,
        "instance_type": instance_type.code,
        "name": instance_type.name,
        "display_name": f"{instance_type.gpus}x {instance_type.name}" if instance_type.is_gpu else instance_type.name,
        "description": f"Dedicated {instance_type.category} instance: {instance_type.code}",
        "model": instance_type.model,
        "manufacturer": instance_type.manufacturer,
        "best_for": list(instance_type.best_for),
        "cpu": instance_type.cpu(),
        "gpu": instance_type.gpu(),
        "gpu_memory": instance_type.gpu_memory(),
        "memory": instance_type.memory(),
        "storage": instance_type.storage(),
        "p2p": instance_type.p2p,
        "currency": currency,
        "price_per_hour": catalog.price_text(price),
        "spot_price": catalog.price_text(catalog.convert_price(instance_type.spot_price, currency)),
        "dynamic_price": catalog.price_text(round(price * 0.85, 4)),
        "max_dynamic_price": catalog.price_text(round(price * 1.5, 4)),
        "supported_os": list(instance_type.supported_os),
    }
    if instance_type.is_gpu:
        serverless_price, serverless_spot_price = catalog.serverless_prices(instance_type, currency)
        view["serverless_price"] = catalog.price_text(serverless_price)
        view["serverless_spot_price"] = catalog.price_text(serverless_spot_price)
    if instance_type.deploy_warning:
        view["deploy_warning"] = instance_type.deploy_warning
    return view


def _instance_types(currency: str) -> list[dict[str, Any]]:
    return [instance_type_view(instance_type, currency) for instance_type in catalog.INSTANCE_TYPES]


@router.get("/v1/instance-types", response_model=list[InstanceType], summary="Instance types (public)")
async def list_instance_types(currency: CurrencyQuery = "usd"):
    return _responses.json(_instance_types(currency))


@router.get(
    "/v1/instance-types/price-history",
    response_model=dict[str, Any],
    deprecated=True,
    summary="Price history (public; no longer supported: always an empty object, with Deprecation and Warning headers)",
)
async def price_history():
    return _responses.json(
        {}, headers={"Deprecation": "true", "Warning": '299 - "GET /v1/instance-types/price-history is no longer supported"'}
    )


@router.get(
    "/v1/instance-types/{instance_type}", response_model=InstanceType, responses=_responses.errors(404),
    summary="One instance type (public)",
)
async def get_instance_type(instance_type: str, currency: CurrencyQuery = "usd"):
    found = catalog.INSTANCE_TYPES_BY_CODE.get(instance_type)
    if found is None:
        raise not_found(f"Instance type {instance_type}")
    return _responses.json(instance_type_view(found, currency))


@router.get("/v1/instances/types", response_model=list[InstanceType], deprecated=True, summary="Instance types (use /v1/instance-types)")
async def list_instance_types_deprecated(_ctx: Context, currency: CurrencyQuery = "usd"):
    return _responses.json(_instance_types(currency))


def _image_view(image: catalog.Image, default_type: str) -> dict[str, Any]:
    return {
        "id": image.id,
        "image_type": image.image_type,
        "name": image.name,
        "category": image.category,
        "details": list(image.details),
        "is_cluster": image.is_cluster,
        "is_default": image.image_type == default_type,
    }


@router.get("/v1/images", response_model=list[Image], responses=_responses.errors(404), summary="OS images")
async def list_images(_ctx: Context, instance_type: Annotated[str | None, Query()] = None):
    images = [image for image in catalog.IMAGES if not image.is_cluster]
    default_type = catalog.DEFAULT_GPU_IMAGE
    if instance_type is not None:
        known = catalog.INSTANCE_TYPES_BY_CODE.get(instance_type)
        if known is None:
            raise not_found(f"Instance type {instance_type}")
        images = [image for image in images if image.image_type in known.supported_os]
        default_type = known.default_image()
    return _responses.json([_image_view(image, default_type) for image in images])


@router.get(
    "/v1/images/cluster",
    response_model=list[Image],
    responses=_responses.errors(404),
    summary="Cluster images (instance_type: a cluster type, or the instance type of its nodes)",
)
async def list_cluster_images(_ctx: Context, instance_type: Annotated[str | None, Query()] = None):
    images = catalog.CLUSTER_IMAGES
    if instance_type is not None:
        if instance_type in catalog.CLUSTER_TYPES_BY_CODE:
            supported = set(catalog.CLUSTER_TYPES_BY_CODE[instance_type].supported_os)
        elif instance_type in catalog.INSTANCE_TYPES_BY_CODE:
            supported = {
                image_type
                for cluster_type in catalog.CLUSTER_TYPES
                if cluster_type.node_type.code == instance_type
                for image_type in cluster_type.supported_os
            }
        else:
            raise not_found(f"Instance type {instance_type}")
        images = [image for image in images if image.image_type in supported]
    return _responses.json([_image_view(image, catalog.DEFAULT_CLUSTER_IMAGE) for image in images])


def cluster_type_view(cluster_type: catalog.ClusterType, currency: str) -> dict[str, Any]:
    return {
        "id": cluster_type.id,
        "cluster_type": cluster_type.code,
        "model": cluster_type.model,
        "name": cluster_type.name,
        "manufacturer": cluster_type.manufacturer,
        "cpu": cluster_type.cpu(),
        "gpu": cluster_type.gpu(),
        "gpu_memory": cluster_type.gpu_memory(),
        "memory": cluster_type.memory(),
        "price_per_hour": catalog.price_text(catalog.convert_price(cluster_type.price_per_hour, currency)),
        "currency": currency,
        "node_details": cluster_type.node_details(),
        "supported_os": list(cluster_type.supported_os),
    }


@router.get("/v1/cluster-types", response_model=list[ClusterType], summary="Cluster types (public)")
async def list_cluster_types(currency: CurrencyQuery = "usd"):
    return _responses.json([cluster_type_view(cluster_type, currency) for cluster_type in catalog.CLUSTER_TYPES])


@router.get("/v1/container-types", response_model=list[ContainerType], summary="Container types for serverless deployments (public)")
async def list_container_types(currency: CurrencyQuery = "usd"):
    types = []
    for resource in catalog.SERVERLESS_COMPUTE:
        instance_type = resource.instance_type
        price, spot_price = catalog.serverless_prices(instance_type, currency)
        types.append(
            {
                "id": catalog.catalog_id(f"container-type:{instance_type.code}"),
                "instance_type": instance_type.code,
                "model": instance_type.model,
                "name": instance_type.name,
                "manufacturer": instance_type.manufacturer,
                "cpu": instance_type.cpu(),
                "gpu": instance_type.gpu(),
                "gpu_memory": instance_type.gpu_memory(),
                "memory": instance_type.memory(),
                "currency": currency,
                "serverless_price": catalog.price_text(price),
                "serverless_spot_price": catalog.price_text(spot_price),
            }
        )
    return _responses.json(types)


@router.get("/v1/managed-endpoints/pricing", response_model=list[ManagedEndpointPrice], summary="Prices of managed inference endpoints")
async def list_managed_endpoint_prices(_ctx: Context, currency: CurrencyQuery = "usd"):
    return _responses.json(
        [
            {
                "currency": currency,
                "external_id": catalog.catalog_id(f"managed-endpoint:{resource}:{unit}"),
                "resource": resource,
                "unit_name": unit,
                "unit_price": round(unit_price * catalog.EUR_PER_USD, 10) if currency == "eur" else unit_price,
            }
            for resource, unit, unit_price in catalog.MANAGED_ENDPOINT_PRICES
        ]
    )


@router.get("/v1/container-registry/pricing", response_model=ContainerRegistryPrice, summary="Container registry storage price")
async def container_registry_price(_ctx: Context, currency: CurrencyQuery = "usd"):
    return _responses.json(
        {"currency": currency, "price_per_month_per_gb": catalog.convert_price(catalog.CONTAINER_REGISTRY_PRICE_PER_MONTH_PER_GB, currency)}
    )


@router.get("/v1/locations", response_model=list[Location], summary="Datacenter locations")
async def list_locations(_ctx: Context):
    return _responses.json(catalog.LOCATIONS)


@router.get("/v1/volume-types", response_model=list[VolumeType], summary="Volume types (public)")
async def list_volume_types():
    return _responses.json(
        [
            {
                "type": volume_type.type,
                "price": {
                    "price_per_month_per_gb": volume_type.price_per_month_per_gb,
                    "cps_per_gb": round(volume_type.price_per_month_per_gb / catalog.HOURS_PER_MONTH / 3600, 12),
                    "currency": "usd",
                },
                "is_shared_fs": volume_type.is_shared_fs,
                "iops": volume_type.iops,
                "throughput_gbps": volume_type.throughput_gbps,
                "burst_bandwidth": volume_type.burst_bandwidth,
                "continuous_bandwidth": volume_type.continuous_bandwidth,
                "internal_network_speed": volume_type.internal_network_speed,
            }
            for volume_type in catalog.VOLUME_TYPES
        ]
    )


@router.get("/v1/long-term/periods", response_model=list[LongTermPeriod], deprecated=True, summary="Long-term periods (public; use /instances)")
async def list_long_term_periods():
    return _responses.json(catalog.LONG_TERM_PERIODS_INSTANCES)


@router.get("/v1/long-term/periods/instances", response_model=list[LongTermPeriod], summary="Long-term periods for instances (public)")
async def list_long_term_periods_instances():
    return _responses.json(catalog.LONG_TERM_PERIODS_INSTANCES)


@router.get("/v1/long-term/periods/clusters", response_model=list[LongTermPeriod], summary="Long-term periods for clusters (public)")
async def list_long_term_periods_clusters():
    return _responses.json(catalog.LONG_TERM_PERIODS_CLUSTERS)


# -- availability ----------------------------------------------------------------------------


def parse_spot_flag(value: str | None) -> bool:
    if value is None or value == "":
        return False
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise invalid(f"query parameter 'is_spot': expected 'true' or 'false', got '{value}'")


def resolve_locations(location_code: str | None, alias: str | None) -> list[str]:
    wanted = location_code or alias  # an empty value counts as omitted
    if not wanted:
        return list(catalog.LOCATION_CODES)
    if wanted not in catalog.LOCATION_CODES:
        raise invalid(f"query parameter 'location_code': unknown location '{wanted}'")
    return [wanted]


def _is_available(state: EmulatorState, code: str, location_codes: list[str], is_spot: bool) -> bool:
    if code not in catalog.INSTANCE_TYPES_BY_CODE:
        raise not_found(f"Instance type {code}")
    held = capacity.usage(state)
    return any(capacity.available(state, (code, location, is_spot), held) > 0 for location in location_codes)


async def availability_query(
    location_code: LocationQuery = None,
    location_code_alias: LocationAliasQuery = None,
    is_spot: SpotQuery = None,
    is_spot_alias: SpotAliasQuery = None,
) -> tuple[list[str], bool]:
    """(locations to look at, spot or not), from the query and its deprecated aliases."""
    spot = parse_spot_flag(is_spot if is_spot is not None else is_spot_alias)
    return resolve_locations(location_code, location_code_alias), spot


AvailabilityQuery = Annotated[tuple[list[str], bool], Depends(availability_query)]


@router.get("/v1/instance-availability", response_model=list[InstanceAvailability], summary="Deployable instance types per location")
async def list_instance_availability(ctx: Context, query: AvailabilityQuery):
    locations, spot = query
    held = capacity.usage(ctx.state)
    return _responses.json(
        [
            {
                "location_code": location,
                "availabilities": [
                    instance_type.code
                    for instance_type in catalog.INSTANCE_TYPES
                    if capacity.available(ctx.state, (instance_type.code, location, spot), held) > 0
                ],
            }
            for location in locations
        ]
    )


_BOOLEAN = {200: {"content": {"application/json": {"schema": {"type": "boolean"}}}}}


@router.get(
    "/v1/instance-availability/{instance_type}",
    response_model=bool,
    responses={**_BOOLEAN, **_responses.errors(404)},
    summary="Is the instance type deployable (in the location, or anywhere)",
)
async def instance_type_availability(ctx: Context, instance_type: str, query: AvailabilityQuery):
    return _responses.json(_is_available(ctx.state, instance_type, *query))


@router.get(
    "/v1/instances/availability/{instanceType}",
    response_model=bool,
    responses={**_BOOLEAN, **_responses.errors(404)},
    deprecated=True,
    summary="Availability of an instance type (use /v1/instance-availability/{instance_type})",
)
async def instance_type_availability_deprecated(ctx: Context, instanceType: str, query: AvailabilityQuery):  # noqa: N803
    return _responses.json(_is_available(ctx.state, instanceType, *query))


async def cluster_availability_query(location_code: LocationQuery = None, location_code_alias: LocationAliasQuery = None) -> list[str]:
    """The locations to look at (clusters have no spot variant)."""
    return resolve_locations(location_code, location_code_alias)


ClusterAvailabilityQuery = Annotated[list[str], Depends(cluster_availability_query)]


@router.get("/v1/cluster-availability", response_model=list[ClusterAvailability], summary="Deployable cluster types per location")
async def list_cluster_availability(ctx: Context, locations: ClusterAvailabilityQuery):
    held = capacity.usage(ctx.state)
    return _responses.json(
        [
            {
                "location_code": location,
                "availabilities": [
                    cluster_type.code
                    for cluster_type in catalog.CLUSTER_TYPES
                    if capacity.available(ctx.state, (cluster_type.code, location, False), held) > 0
                ],
            }
            for location in locations
        ]
    )


@router.get(
    "/v1/cluster-availability/{cluster_type}",
    response_model=bool,
    responses={**_BOOLEAN, **_responses.errors(404)},
    summary="Is the cluster type deployable (in the location, or anywhere)",
)
async def cluster_type_availability(ctx: Context, cluster_type: str, locations: ClusterAvailabilityQuery):
    if cluster_type not in catalog.CLUSTER_TYPES_BY_CODE:
        raise not_found(f"Cluster type {cluster_type}")
    held = capacity.usage(ctx.state)
    return _responses.json(any(capacity.available(ctx.state, (cluster_type, location, False), held) > 0 for location in locations))
