"""The control API under ``/_emulator`` (no auth, never rate limited, not in the request log).

It is a stable interface: users' CI calls it. Every endpoint is documented with examples in
emulator/README.md; :class:`cloudcompute_emulator.control.EmulatorControl` wraps it.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from cloudcompute_emulator import __version__, auth, capacity, catalog, kinds, projects
from cloudcompute_emulator.clock import isoformat
from cloudcompute_emulator.errors import describe_validation_errors, forbidden, invalid, not_found
from cloudcompute_emulator.faults import FaultSpec
from cloudcompute_emulator.resources import instances as instance_resources
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.common import TagInput
from cloudcompute_emulator.state import EmulatorState

router = APIRouter(prefix="/_emulator", include_in_schema=False)
STARTED = time.monotonic()


class ControlModel(BaseModel):
    # typos in a test's control call should fail loudly, not be ignored
    model_config = ConfigDict(extra="forbid")


class ResetRequest(ControlModel):
    credentials: bool = False
    settings: bool = False
    requests: bool = True


class CredentialRequest(ControlModel):
    role: Literal["owner", "admin", "member"] = "owner"
    project_id: str | None = None
    client_id: str | None = None
    client_secret: str | None = None


class InferenceKeyRequest(ControlModel):
    project_id: str | None = None


class SeedRequest(ControlModel):
    instances: int = Field(0, ge=0, le=100_000)
    volumes: int = Field(0, ge=0, le=100_000)
    clusters: int = Field(0, ge=0, le=10_000)
    status: str = "running"
    location_code: str = "FIN-01"
    instance_type: str = "CPU.4V.16G"
    image: str | None = None
    cluster_type: str = "16H100"
    cluster_image: str | None = None
    workers_per_cluster: int | None = Field(None, ge=0, le=64, description="default: the cluster type's node count")
    is_spot: bool = False
    tags: dict[str, str] | list[TagInput] | None = None
    hostname_prefix: str = "seed"
    volume_size: int = Field(50, ge=1, le=100_000)
    volume_type: str = "NVMe"
    project_id: str | None = None

    @field_validator("tags")
    @classmethod
    def _tags_as_inputs(cls, value: Any) -> list[TagInput] | None:
        if isinstance(value, dict):
            return [TagInput(key=key, value=tag_value) for key, tag_value in value.items()]
        return value


class CapacityChange(ControlModel):
    after_seconds: float = Field(ge=0, description="seconds from now on the emulator clock")
    available: int = Field(ge=0, description="how many more can be deployed from then on")


class CapacityRequest(ControlModel):
    instance_type: str | None = None
    cluster_type: str | None = Field(None, description="instead of instance_type")
    location_code: str
    is_spot: bool = False
    available: int | None = Field(None, ge=0, description="how many more instances can be deployed from now on")
    after_seconds: float | None = Field(None, ge=0, description="apply `available` this many emulator-clock seconds from now")
    schedule: list[CapacityChange] | None = Field(None, description="changes at later moments, instead of `available`")

    @model_validator(mode="after")
    def _one_form(self) -> CapacityRequest:
        if (self.available is None) == (self.schedule is None):
            raise ValueError("give either available (with an optional after_seconds) or schedule")
        if self.schedule is not None and self.after_seconds is not None:
            raise ValueError("after_seconds goes with available; each schedule entry has its own")
        return self


class ClockAdvanceRequest(ControlModel):
    seconds: float = Field(ge=0)


class BalanceRequest(ControlModel):
    amount: float
    project_id: str | None = None


def _state(request: Request) -> EmulatorState:
    return request.app.state.emulator


async def _body(request: Request, model: type[ControlModel]) -> Any:
    raw = await request.body()
    try:
        return model.model_validate_json(raw or b"{}")
    except ValidationError as error:
        raise invalid(describe_validation_errors([{**item, "loc": ("body", *item["loc"])} for item in error.errors()])) from None


def _slot(
    state: EmulatorState, instance_type: str | None, cluster_type: str | None, location_code: str, is_spot: bool
) -> tuple[str, str, bool]:
    """A capacity slot: an instance type, or a cluster type (never spot)."""
    if (instance_type is None) == (cluster_type is None):
        raise invalid("give either instance_type or cluster_type")
    if instance_type is not None and instance_type not in catalog.INSTANCE_TYPES_BY_CODE:
        raise invalid(f"instance_type: unknown instance type '{instance_type}'")
    if cluster_type is not None:
        if cluster_type not in catalog.CLUSTER_TYPES_BY_CODE:
            raise invalid(f"cluster_type: unknown cluster type '{cluster_type}'")
        if is_spot:
            raise invalid("is_spot: clusters have no spot capacity")
    if location_code not in catalog.LOCATION_CODES:
        raise invalid(f"location_code: unknown location '{location_code}'")
    return instance_type or cluster_type, location_code, is_spot


# -- health, reset, credentials -------------------------------------------------------------------


@router.get("/health")
async def health(request: Request):
    state = _state(request)
    return _responses.json(
        {
            "status": "ok",
            "version": __version__,
            "profile": state.settings.profile,
            "uptime_seconds": round(time.monotonic() - STARTED, 3),
            "persistent": state.store.path is not None,
        }
    )


@router.post("/reset")
async def reset(request: Request):
    body: ResetRequest = await _body(request, ResetRequest)
    _state(request).reset(credentials=body.credentials, settings=body.settings, requests=body.requests)
    return _responses.json({"reset": True, **body.model_dump()})


@router.post("/credentials", status_code=201)
async def create_credentials(request: Request):
    body: CredentialRequest = await _body(request, CredentialRequest)
    state = _state(request)
    try:
        record = auth.create_credential(state, body.role, body.project_id, body.client_id, body.client_secret)
    except ValueError as error:
        raise invalid(str(error)) from None
    return _responses.json(auth.describe_credential(record), status_code=201)


@router.get("/credentials")
async def list_credentials(request: Request):
    state = _state(request)
    return _responses.json(
        {
            "default_project_id": state.default_project_id,
            "launch": state.launch_credential,
            "credentials": [auth.describe_credential(record) for record in state.store.table(auth.CREDENTIAL_KIND).values()],
        }
    )


@router.post("/inference-keys", status_code=201)
async def create_inference_key(request: Request):
    body: InferenceKeyRequest = await _body(request, InferenceKeyRequest)
    record = auth.create_inference_key(_state(request), body.project_id)
    return _responses.json({"key": record["id"], "project_id": record["project_id"]}, status_code=201)


# -- seed ----------------------------------------------------------------------------------------


@router.post("/seed", status_code=201)
async def seed(request: Request):
    body: SeedRequest = await _body(request, SeedRequest)
    state = _state(request)
    if body.instance_type not in catalog.INSTANCE_TYPES_BY_CODE:
        raise invalid(f"instance_type: unknown instance type '{body.instance_type}'")
    if body.location_code not in catalog.LOCATION_CODES:
        raise invalid(f"location_code: unknown location '{body.location_code}'")
    if body.volume_type not in catalog.VOLUME_TYPES_BY_NAME:
        raise invalid(f"volume_type: unknown volume type '{body.volume_type}'")
    if body.image is not None and body.image not in catalog.IMAGES_BY_TYPE:
        raise invalid(f"image: unknown image type '{body.image}'")
    if body.cluster_type not in catalog.CLUSTER_TYPES_BY_CODE:
        raise invalid(f"cluster_type: unknown cluster type '{body.cluster_type}'")
    if body.cluster_image is not None and body.cluster_image not in catalog.CLUSTER_IMAGES_BY_TYPE:
        raise invalid(f"cluster_image: unknown cluster image type '{body.cluster_image}'")
    project_id = body.project_id or state.default_project_id
    projects.ensure_project(state, project_id)
    options = body.model_dump()
    options["tags"] = body.tags
    started = time.perf_counter()
    result: dict[str, Any] = {}
    for kind, count in (("instances", body.instances), ("volumes", body.volumes), ("clusters", body.clusters)):
        seed_kind = state.seeders.get(kind)
        result[f"{kind[:-1]}_ids"] = seed_kind(state, project_id, count, options) if seed_kind and count else []
    result["unsupported"] = [kind for kind, count in (("clusters", body.clusters),) if count and kind not in state.seeders]
    result["seconds"] = round(time.perf_counter() - started, 3)
    return _responses.json(result, status_code=201)


# -- faults --------------------------------------------------------------------------------------


@router.post("/faults", status_code=201)
async def add_fault(request: Request):
    raw = await request.body()
    try:
        spec = FaultSpec.model_validate_json(raw or b"{}")
    except ValidationError as error:
        raise invalid(describe_validation_errors([{**item, "loc": ("body", *item["loc"])} for item in error.errors()])) from None
    fault = _state(request).faults.add(spec)
    return _responses.json({"id": fault.id}, status_code=201)


@router.get("/faults")
async def list_faults(request: Request):
    return _responses.json(_state(request).faults.describe())


@router.delete("/faults")
async def clear_faults(request: Request):
    _state(request).faults.clear()
    return _responses.empty(204)


@router.delete("/faults/{fault_id}")
async def delete_fault(request: Request, fault_id: str):
    if not _state(request).faults.remove(fault_id):
        raise not_found(f"Fault {fault_id}")
    return _responses.empty(204)


# -- capacity, eviction, clock, balance ----------------------------------------------------------


@router.put("/capacity")
async def set_capacity(request: Request):
    body: CapacityRequest = await _body(request, CapacityRequest)
    state = _state(request)
    slot = _slot(state, body.instance_type, body.cluster_type, body.location_code, body.is_spot)
    if body.schedule is not None:
        changes = [capacity.schedule_available(state, slot, change.available, change.after_seconds) for change in body.schedule]
        return _responses.json({"scheduled": changes})
    if body.after_seconds:
        return _responses.json({"scheduled": [capacity.schedule_available(state, slot, body.available, body.after_seconds)]})
    return _responses.json(capacity.set_available(state, slot, body.available))


@router.get("/capacity")
async def get_capacity(
    request: Request,
    location_code: Annotated[str, Query()],
    instance_type: Annotated[str | None, Query()] = None,
    cluster_type: Annotated[str | None, Query()] = None,
    is_spot: Annotated[bool, Query()] = False,
):
    state = _state(request)
    slot = _slot(state, instance_type, cluster_type, location_code, is_spot)
    held = capacity.usage(state)
    type_field = "instance_type" if instance_type is not None else "cluster_type"
    return _responses.json(
        {
            type_field: slot[0], "location_code": location_code, "is_spot": is_spot,
            "total": capacity.total(state, slot), "in_use": held[slot], "available": capacity.available(state, slot, held),
            "scheduled": capacity.pending_changes(state, slot),
        }
    )


@router.post("/instances/{instance_id}/evict")
async def evict_instance(request: Request, instance_id: str):
    state = _state(request)
    instance = state.store.get(kinds.INSTANCES, instance_id)
    if instance is None:
        raise not_found(f"Instance {instance_id}")
    instance_resources.evict(state, instance)
    return _responses.json({"id": instance_id, "status": instance["status"]})


class SetupFailure(ControlModel):
    status: str = "error"


@router.post("/instances/{instance_id}/fail")
async def fail_instance_setup(request: Request, instance_id: str):
    """End the setup of an instance being set up in ``error``, ``installation_failed`` or
    ``no_capacity`` (what a client waiting for it must report)."""
    body: SetupFailure = await _body(request, SetupFailure)
    state = _state(request)
    instance = state.store.get(kinds.INSTANCES, instance_id)
    if instance is None:
        raise not_found(f"Instance {instance_id}")
    instance_resources.fail_setup(state, instance, body.status)
    return _responses.json({"id": instance_id, "status": instance["status"]})


def _clock_view(state: EmulatorState) -> dict[str, Any]:
    return {"now": isoformat(state.clock.now()), "offset_seconds": state.clock.offset, "profile": state.settings.profile}


@router.get("/clock")
async def get_clock(request: Request):
    return _responses.json(_clock_view(_state(request)))


@router.post("/clock/advance")
async def advance_clock(request: Request):
    body: ClockAdvanceRequest = await _body(request, ClockAdvanceRequest)
    state = _state(request)
    state.advance_clock(body.seconds)
    return _responses.json(_clock_view(state))


@router.get("/balance")
async def get_balance(request: Request, project_id: str | None = None):
    state = _state(request)
    project_id = project_id or state.default_project_id
    return _responses.json({"project_id": project_id, "amount": projects.balance(state, project_id), "currency": projects.CURRENCY})


@router.put("/balance")
async def set_balance(request: Request):
    body: BalanceRequest = await _body(request, BalanceRequest)
    state = _state(request)
    project_id = body.project_id or state.default_project_id
    projects.set_balance(state, project_id, body.amount)
    return _responses.json({"project_id": project_id, "amount": projects.balance(state, project_id), "currency": projects.CURRENCY})


# -- request log, settings, raw resources --------------------------------------------------------


@router.get("/requests")
async def list_requests(
    request: Request,
    since: int = 0,
    method: str | None = None,
    path: str | None = None,
    client_id: str | None = None,
):
    return _responses.json(_state(request).request_log.query(since, method, path, client_id))


@router.delete("/requests")
async def clear_requests(request: Request):
    _state(request).request_log.clear()
    return _responses.empty(204)


@router.get("/settings")
async def get_settings(request: Request):
    return _responses.json(_state(request).settings.model_dump())


@router.put("/settings")
async def put_settings(request: Request):
    try:
        patch = await request.json()
    except ValueError:
        raise invalid("request body is not valid JSON") from None
    if not isinstance(patch, dict):
        raise invalid("request body: expected a JSON object")
    try:
        settings = _state(request).update_settings(patch)
    except ValidationError as error:
        raise invalid(describe_validation_errors([{**item, "loc": ("body", *item["loc"])} for item in error.errors()])) from None
    return _responses.json(settings.model_dump())


@router.get("/resources")
async def list_kinds(request: Request):
    state = _state(request)
    return _responses.json({kind: len(state.store.table(kind)) for kind in state.store.kinds()})


@router.get("/resources/{kind}")
async def dump_resources(request: Request, kind: str):
    return _responses.json(_state(request).dump(kind))


@router.get("/downloads/{name}")
async def download(request: Request, name: str):
    """The pre-signed audit export link returned by POST /v1/audit/log/download."""
    state = _state(request)
    export = state.store.get(kinds.AUDIT_EXPORTS, name.removesuffix(".json"))
    if export is None:
        raise not_found("Download")
    if export["expires_at"] <= state.clock.now():
        raise forbidden("The download link has expired")
    return _responses.json(export["events"])
