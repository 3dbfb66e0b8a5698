"""Instance endpoints: list with filters, deploy, actions (single and bulk), read, tags."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from cloudcompute_emulator import kinds, tags
from cloudcompute_emulator.context import ApiContext, Context, UserAgent
from cloudcompute_emulator.resources import instances
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.routes.tags import add_tag_routes
from cloudcompute_emulator.schemas.instances import (
    Instance,
    InstanceAction,
    InstanceActionResult,
    InstanceDeploy,
    InstanceStatus,
)

router = APIRouter(tags=["Instances"])

# -- list -----------------------------------------------------------------------------------------


@router.get("/v1/instances", response_model=list[Instance], responses=_responses.errors(400), summary="Instances")
async def list_instances(
    ctx: Context,
    status: Annotated[InstanceStatus | None, Query(description="an instance status")] = None,
    computeId: Annotated[str | None, Query(description="one instance id")] = None,  # noqa: N803
    tag: Annotated[list[str], Query(description="repeatable: key (any value) or key=value")] = [],  # noqa: B006 - FastAPI copies defaults
):
    filters = tags.parse_filters(tag)
    state = ctx.state
    selected = [
        instance
        for instance in state.store.records(kinds.INSTANCES, ctx.project_id)
        if (status is None or instance["status"] == status)
        and (computeId is None or instance["id"] == computeId)
        and tags.matches(state, instance["tag_ids"], filters)
    ]
    return _responses.json([instances.view(state, instance) for instance in selected])


# -- deploy -------------------------------------------------------------------------------------


@router.post(
    "/v1/instances",
    status_code=202,
    response_model=str,
    responses={202: _responses.TEXT_ID, **_responses.errors(402, 503)},
    summary="Deploy an instance (answers the new id as text)",
)
async def deploy_instance(ctx: Context, _user_agent: UserAgent, body: InstanceDeploy):
    instance = instances.deploy(ctx.state, ctx.caller, body)
    return _responses.created_id(instance["id"], 202)


# -- actions ------------------------------------------------------------------------------------


async def _instance_action(ctx: ApiContext, body: InstanceAction):
    if isinstance(body.id, list) and len(body.id) == 1:
        # the official clients always send an array: one id is a single action all the same
        body = body.model_copy(update={"id": body.id[0]})
    if isinstance(body.id, str):
        # a single action: errors are the response's status; 204 when nothing was to be done
        if not instances.act_on_one(ctx.state, ctx.caller, body):
            return _responses.empty(204)
        return _responses.json([{"action": body.action, "instanceId": body.id, "status": "success"}], status_code=202)
    results = instances.act_on_many(ctx.state, ctx.caller, body)
    all_succeeded = all(result["status"] == "success" for result in results)
    return _responses.json(results, status_code=202 if all_succeeded else 207)


_ACTION_RESPONSES = {
    202: {"description": "every action accepted"},
    204: {"description": "single action, instance already in the requested state"},
    207: {"model": list[InstanceActionResult], "description": "some actions failed (see each item)"},
    **_responses.errors(404),
}


@router.put(
    "/v1/instances", status_code=202, response_model=list[InstanceActionResult], responses=_ACTION_RESPONSES,
    summary="Act on one instance (id string) or several (id array)",
)
async def instance_action(ctx: Context, body: InstanceAction):
    return await _instance_action(ctx, body)


@router.post(
    "/v1/instances/action", status_code=202, response_model=list[InstanceActionResult], responses=_ACTION_RESPONSES,
    deprecated=True, summary="Act on instances (use PUT /v1/instances)",
)
async def instance_action_deprecated(ctx: Context, body: InstanceAction):
    return await _instance_action(ctx, body)


@router.get("/v1/instances/{instance_id}", response_model=Instance, responses=_responses.errors(404), summary="One instance")
async def get_instance(ctx: Context, instance_id: str):
    return _responses.json(instances.view(ctx.state, ctx.get_owned(kinds.INSTANCES, instance_id)))


add_tag_routes(
    router, prefix="/v1/instances", kind=kinds.INSTANCES, label="instance", object_type="compute",
    view=instances.view,
)
