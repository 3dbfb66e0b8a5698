"""Cluster endpoints: list, deploy, discontinue, read, node actions, tags."""

from __future__ import annotations

from fastapi import APIRouter

from cloudcompute_emulator import kinds
from cloudcompute_emulator.context import Context, UserAgent
from cloudcompute_emulator.resources import clusters
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.routes.tags import add_tag_routes
from cloudcompute_emulator.schemas.clusters import Cluster, ClusterActions, ClusterCreated, ClusterDeploy, NodeAction

router = APIRouter(tags=["Clusters"])


@router.get("/v1/clusters", response_model=list[Cluster], summary="Clusters")
async def list_clusters(ctx: Context):
    return _responses.json([clusters.view(ctx.state, cluster) for cluster in ctx.store.records(kinds.CLUSTERS, ctx.project_id)])


# -- deploy -------------------------------------------------------------------------------------


@router.post(
    "/v1/clusters",
    status_code=202,
    response_model=ClusterCreated,
    responses=_responses.errors(402, 503),
    summary="Deploy a cluster",
)
async def deploy_cluster(ctx: Context, _user_agent: UserAgent, body: ClusterDeploy):
    cluster = clusters.deploy(ctx.state, ctx.caller, body)
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
    clusters.discontinue_all(ctx.state, ctx.caller, [item.id for item in body.actions])
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
    clusters.act_on_node(ctx.state, ctx.caller, clusterId, nodeId, body.action)
    return _responses.empty(202)


add_tag_routes(
    router, prefix="/v1/clusters", kind=kinds.CLUSTERS, label="cluster", object_type="compute",
    view=clusters.view,
)
