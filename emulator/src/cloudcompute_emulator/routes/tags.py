"""Tag endpoints, the same pair for every taggable resource:

``POST {prefix}/{id}/tags`` (201 Tag; 409 when the key is already on the resource) and
``DELETE {prefix}/{id}/tags/{tagId}`` (204; ``tagId`` may be a tag id or a key; 404 when the
resource or the tag is missing). Instances, volumes and clusters call :func:`add_tag_routes`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter

from cloudcompute_emulator import tags
from cloudcompute_emulator.context import ApiContext, Context
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.common import Tag, TagInput
from cloudcompute_emulator.store import Record


def add_tag_routes(
    router: APIRouter,
    *,
    prefix: str,
    kind: str,
    label: str,
    object_type: str,
    view: Callable[[Any, Record], dict],
    check_taggable: Callable[[Record], None] | None = None,
) -> None:
    """``label`` names the resource in summaries; ``object_type`` is the audit event's (and the
    key the object is stored under in the event data); ``check_taggable`` may refuse (403)."""

    refusals = (403,) if check_taggable is not None else ()

    def _resource(ctx: ApiContext, resource_id: str) -> Record:
        resource = ctx.get_owned(kind, resource_id)
        if check_taggable is not None:
            check_taggable(resource)
        return resource

    def _audit(ctx: ApiContext, resource: Record) -> None:
        ctx.audit(object_type, "update", resource["id"], location_code=resource.get("location"), **{object_type: view(ctx.state, resource)})

    @router.post(
        prefix + "/{resource_id}/tags",
        status_code=201,
        response_model=Tag,
        responses=_responses.errors(*refusals, 404, 409),
        summary=f"Add a tag to a {label}",
    )
    async def add_tag(ctx: Context, resource_id: str, body: TagInput):
        resource = _resource(ctx, resource_id)
        tag = tags.add(ctx.state, kind, resource, body)
        _audit(ctx, resource)
        return _responses.json(tag, status_code=201)

    @router.delete(
        prefix + "/{resource_id}/tags/{tagId}",
        status_code=204,
        response_class=_responses.Response,
        responses=_responses.errors(*refusals, 404),
        summary=f"Remove a tag (by id or key) from a {label}",
    )
    async def remove_tag(ctx: Context, resource_id: str, tagId: str):  # noqa: N803
        resource = _resource(ctx, resource_id)
        tags.remove(ctx.state, kind, resource, tagId)
        _audit(ctx, resource)
        return _responses.empty(204)
