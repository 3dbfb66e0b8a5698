"""Deployed serverless endpoints: ``{endpoint_base_url}/...`` = ``/inference/<deployment name>/...``.

Not part of ``/v1`` (production serves them from another host): called with the project's
inference API key (spec section 2, "Deployed endpoints are called with a bearer inference API
key"). A container deployment answers every method with a JSON echo while it runs (``healthy``,
``degraded``, ``version_updating``) and 503 otherwise; a job deployment
queues a job on ``POST`` (202 ``{id, status: "queued"}``) while ``running``, 503 otherwise.
Not in the request log, not rate limited.
"""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Depends, Request

from cloudcompute_emulator import kinds
from cloudcompute_emulator.auth import InferenceCaller, require_inference_key
from cloudcompute_emulator.clock import new_id
from cloudcompute_emulator.errors import ApiError, not_found
from cloudcompute_emulator.resources import serverless
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.state import EmulatorState

router = APIRouter(include_in_schema=False)
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def _deployment(state: EmulatorState, project_id: str, name: str) -> dict:
    for kind in (kinds.CONTAINER_DEPLOYMENTS, kinds.JOB_DEPLOYMENTS):
        for record in state.store.records(kind, project_id):
            if record["name"] == name and not record["deleting"]:
                return record
    raise not_found(f"Deployment {name}")


@router.api_route("/inference/{name}", methods=METHODS)
@router.api_route("/inference/{name}/{path:path}", methods=METHODS)
async def call_deployment(
    request: Request, name: str, caller: Annotated[InferenceCaller, Depends(require_inference_key)], path: str = ""
):
    state: EmulatorState = request.app.state.emulator
    record = _deployment(state, caller.project_id, name)
    raw = await request.body()
    try:
        payload = json.loads(raw) if raw else None
    except ValueError:
        payload = raw.decode("utf-8", "replace")
    if record["kind"] == kinds.JOB_DEPLOYMENTS:
        if record["status"] != "running":
            raise ApiError(503, f"Job deployment {name} is {record['status']}")
        if request.method == "POST":
            return _responses.json({"id": new_id(), "status": "queued"}, status_code=202)
        return _responses.json({"deployment": name, "status": record["status"]})
    if record["status"] not in serverless.RUNNING_STATUSES:
        raise ApiError(503, f"Container deployment {name} has no running replica (it is {record['status']})")
    replicas = serverless.replicas(record)  # none when scaled to zero: the request would start one
    return _responses.json(
        {"deployment": name, "method": request.method, "path": "/" + path, "query": request.url.query,
         "replica": replicas[0]["id"] if replicas else None, "body": payload}
    )
