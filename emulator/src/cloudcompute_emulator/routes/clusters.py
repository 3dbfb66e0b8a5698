"""Cluster endpoints: list, deploy, discontinue, read, node actions, tags."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from cloudcompute_emulator import capacity, catalog, kinds, projects, tags
from cloudcompute_emulator.context import ApiContext, Context, UserAgent
from cloudcompute_emulator.errors import ApiError, invalid
from cloudcompute_emulator.resources import clusters, instances, references, volumes
from cloudcompute_emulator.resources.ownership import find_owned
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.routes.tags import add_tag_routes
from cloudcompute_emulator.schemas.clusters import Cluster, ClusterActions, ClusterCreated, ClusterDeploy, NodeAction
from cloudcompute_emulator.store import Record

router = APIRouter(tags=["Clusters"])

# audit action recorded per node action
NODE_AUDIT_ACTION = {"boot": "start", "shutdown": "shutdown", "force_shutdown": "shutdown"}


def _audit(ctx: ApiContext, action: str, cluster: Record, **extra: Any) -> None:
    # clusters are compute objects in the audit log (its object types have no "cluster")
    ctx.audit("compute", action, cluster["id"], location_code=cluster["location"], compute=clusters.view(ctx.state, cluster), **extra)


@router.get("/v1/clusters", response_model=list[Cluster], summary="Clusters")
async def list_clusters(ctx: Context):
    return _responses.json([clusters.view(ctx.state, cluster) for cluster in ctx.store.records(kinds.CLUSTERS, ctx.project_id)])


# -- deploy -------------------------------------------------------------------------------------


def _resolve_existing_volumes(ctx: ApiContext, body: ClusterDeploy) -> list[Record]:
    found = []
    for volume_id in dict.fromkeys(ref.id for ref in body.existing_volumes or []):
        volume = find_owned(ctx.state, kinds.VOLUMES, volume_id, ctx.project_id)
        if volume is None or volume["is_permanently_deleted"]:
            raise invalid(f"existing_volumes: volume {volume_id} not found")
        if not catalog.VOLUME_TYPES_BY_NAME[volume["type"]].is_shared_fs:
            raise invalid(f"existing_volumes: volume {volume_id} is a {volume['type']} volume, not a shared file system")
        if volume["status"] != "detached":
            raise invalid(f"existing_volumes: volume {volume_id} must be detached (it is {volume['status']})")
        if volume["location"] != body.location_code:
            raise invalid(f"existing_volumes: volume {volume_id} is in {volume['location']}, not {body.location_code}")
        found.append(volume)
    return found


def _extension_settings(body: ClusterDeploy) -> str:
    """``extension_settings`` wins over the deprecated flags; neither flag set ends the contract."""
    if body.extension_settings is not None:
        return body.extension_settings
    if body.turn_to_pay_as_you_go:
        return "pay_as_you_go"
    if body.auto_rental_extension:
        return "auto_renew"
    return "end_contract"


def _check_deploy_request(ctx: ApiContext, body: ClusterDeploy) -> dict[str, Any]:
    """Everything a deploy needs, validated before anything is created (400/402/503)."""
    volumes.check_location(body.location_code)
    cluster_type = catalog.CLUSTER_TYPES_BY_CODE.get(body.cluster_type)
    if cluster_type is None:
        raise invalid(f"cluster_type: unknown cluster type '{body.cluster_type}' (see GET /v1/cluster-types)")
    if not instances.HOSTNAME.match(body.hostname):
        raise invalid("hostname: letters, digits, '-' and '.' only, starting and ending with a letter or digit")
    if body.image not in cluster_type.supported_os:
        if body.image in catalog.CLUSTER_IMAGES_BY_TYPE:
            raise invalid(f"image: '{body.image}' is not supported by cluster type {cluster_type.code}")
        raise invalid(f"image: '{body.image}' is not a cluster image type from GET /v1/images/cluster")
    if body.contract == "LONG_TERM":
        raise invalid("contract: only PAY_AS_YOU_GO is currently supported for clusters")
    ssh_key_ids = references.ssh_key_ids(ctx.state, ctx.project_id, body.ssh_key_ids)
    if not ssh_key_ids:
        raise invalid("ssh_key_ids: at least one SSH key is required for the jump host")
    references.startup_script_id(ctx.state, ctx.project_id, body.startup_script_id)
    existing = _resolve_existing_volumes(ctx, body)
    tags.check_inputs(body.tags)
    if projects.balance(ctx.state, ctx.project_id) <= 0:
        raise ApiError(402, "Not enough funds to deploy: the project balance is not positive")
    if capacity.available(ctx.state, (cluster_type.code, body.location_code, False)) < 1:
        raise ApiError(503, f"No capacity for cluster type {cluster_type.code} in {body.location_code}; retry later or choose another location")
    return {"cluster_type": cluster_type, "ssh_key_ids": ssh_key_ids, "existing": existing}


@router.post(
    "/v1/clusters",
    status_code=202,
    response_model=ClusterCreated,
    responses=_responses.errors(402, 503),
    summary="Deploy a cluster",
)
async def deploy_cluster(ctx: Context, _user_agent: UserAgent, body: ClusterDeploy):
    plan = _check_deploy_request(ctx, body)
    cluster = clusters.new_record(
        ctx.state, ctx.project_id, hostname=body.hostname, cluster_type=plan["cluster_type"], image=body.image,
        location=body.location_code, user_id=ctx.caller.user_id, description=body.description or "",
        ssh_key_ids=plan["ssh_key_ids"], startup_script_id=body.startup_script_id,
        tag_ids=tags.resolve_inputs(ctx.state, ctx.project_id, body.tags), extension_settings=_extension_settings(body),
    )
    ctx.store.insert(kinds.CLUSTERS, cluster)
    shared = volumes.new_record(
        ctx.state, ctx.project_id, name=body.shared_volume.name, size=body.shared_volume.size,
        volume_type=catalog.CLUSTER_SHARED_VOLUME_TYPE, location=body.location_code, status="attached",
        user_id=ctx.caller.user_id,
    )
    ctx.store.insert(kinds.VOLUMES, shared)
    clusters.attach_shared_volume(ctx.state, cluster, shared, catalog.CLUSTER_SHARED_MOUNT_POINT)
    for volume in plan["existing"]:
        clusters.attach_shared_volume(ctx.state, cluster, volume, volumes.default_mount_point(volume))
    clusters.start_lifecycle(ctx.state, cluster)
    _audit(ctx, "create", cluster)
    ctx.audit("volume", "create", shared["id"], location_code=shared["location"], volume=volumes.view(ctx.state, shared))
    return _responses.json({"id": cluster["id"]}, status_code=202)


# -- discontinue, read, node actions --------------------------------------------------------------


@router.put(
    "/v1/clusters",
    status_code=202,
    response_class=_responses.Response,
    responses={202: {"description": "accepted: each cluster is being discontinued"}, **_responses.errors(404)},
    summary="Discontinue clusters (shared volumes are detached and kept)",
)
async def cluster_action(ctx: Context, body: ClusterActions):
    # all or nothing: every cluster is looked up before any is discontinued
    targets = {item.id: ctx.get_owned(kinds.CLUSTERS, item.id) for item in body.actions}
    for cluster in targets.values():
        if clusters.discontinue(ctx.state, cluster):
            _audit(ctx, "delete", cluster, operation="discontinue")
    return _responses.empty(202)


@router.get("/v1/clusters/{id}", response_model=Cluster, responses=_responses.errors(404), summary="One cluster")
async def get_cluster(ctx: Context, id: str):  # noqa: A002 - the spec's parameter name
    return _responses.json(clusters.view(ctx.state, ctx.get_owned(kinds.CLUSTERS, id)))


@router.post(
    "/v1/clusters/{clusterId}/nodes/{nodeId}/actions",
    status_code=202,
    response_class=_responses.Response,
    responses={202: {"description": "dispatched"}, **_responses.errors(404)},
    summary="Power action on a worker node, or on the jump host (nodeId = the cluster id)",
)
async def node_action(ctx: Context, clusterId: str, nodeId: str, body: NodeAction):  # noqa: N803
    cluster = ctx.get_owned(kinds.CLUSTERS, clusterId)
    role = clusters.node_action(ctx.state, cluster, nodeId, body.action)
    _audit(ctx, NODE_AUDIT_ACTION[body.action], cluster, node_id=nodeId, node_role=role, operation=body.action)
    return _responses.empty(202)


add_tag_routes(
    router, prefix="/v1/clusters", kind=kinds.CLUSTERS, label="cluster", object_type="compute",
    view=clusters.view,
)
