"""Key/value tags of instances, volumes and clusters.

A tag is a project-wide record ``{id, key, value}``: the same key/value pair has the same id
everywhere in a project. A tagged resource stores the ids in ``tag_ids``. Keys
are lowercased; a freeform tag has the value ``""``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


from cloudcompute_emulator import kinds
from cloudcompute_emulator.clock import new_id
from cloudcompute_emulator.errors import conflict, invalid, not_found
from cloudcompute_emulator.ports import Domain
from cloudcompute_emulator.schemas.common import MAX_TAGS_PER_RESOURCE, TagInput
from cloudcompute_emulator.store import Record

TagFilter = tuple[str, "str | None"]  # (key, value); value None matches any value


def normalise_key(key: str) -> str:
    return key.strip().lower()


def _tag_record(state: Domain, project_id: str, key: str, value: str) -> Record:
    for tag in state.store.records(kinds.TAGS, project_id):
        if tag["key"] == key and tag["value"] == value:
            return tag
    return state.store.insert(kinds.TAGS, {"id": new_id(), "project_id": project_id, "key": key, "value": value})


def resolve_inputs(state: Domain, project_id: str, inputs: Sequence[TagInput] | None) -> list[str]:
    """Tag ids for the tags given on create; 400 beyond the limit or on a repeated key.

    Every tag is checked before any tag record is made, so a refused request leaves nothing.
    """
    check_inputs(inputs)
    return [
        _tag_record(state, project_id, normalise_key(tag_input.key), tag_input.value or "")["id"]
        for tag_input in inputs or ()
    ]


def check_inputs(inputs: Sequence[TagInput] | None) -> None:
    """Validate tags without creating anything (for requests that validate everything first)."""
    if not inputs:
        return
    if len(inputs) > MAX_TAGS_PER_RESOURCE:
        raise invalid(f"tags: at most {MAX_TAGS_PER_RESOURCE} tags per resource")
    keys = [normalise_key(tag_input.key) for tag_input in inputs]
    if not all(keys):
        raise invalid("tags: a tag key must not be blank")
    if len(set(keys)) != len(keys):
        raise invalid("tags: a key is given more than once")


def views(state: Domain, tag_ids: Iterable[str]) -> list[dict[str, str]]:
    table = state.store.table(kinds.TAGS)
    result = []
    for tag_id in tag_ids:
        tag = table.get(tag_id)
        if tag is not None:
            result.append({"id": tag["id"], "key": tag["key"], "value": tag["value"]})
    return result


def add(state: Domain, kind: str, resource: Record, tag_input: TagInput) -> dict[str, str]:
    key = normalise_key(tag_input.key)
    if not key:
        raise invalid("key: a tag key must not be blank")
    current = views(state, resource["tag_ids"])
    if any(tag["key"] == key for tag in current):
        raise conflict(f"The resource already has a tag with key '{key}'")
    if len(current) >= MAX_TAGS_PER_RESOURCE:
        raise invalid(f"A resource can have at most {MAX_TAGS_PER_RESOURCE} tags")
    tag = _tag_record(state, resource["project_id"], key, tag_input.value or "")
    resource["tag_ids"].append(tag["id"])
    state.store.save(kind, resource)
    return {"id": tag["id"], "key": tag["key"], "value": tag["value"]}


def remove(state: Domain, kind: str, resource: Record, tag_id_or_key: str) -> dict[str, str]:
    """Unlink a tag given by id or by key; 404 when the resource lacks it."""
    wanted_key = normalise_key(tag_id_or_key)
    for tag in views(state, resource["tag_ids"]):
        if tag["id"] == tag_id_or_key or tag["key"] == wanted_key:
            resource["tag_ids"].remove(tag["id"])
            state.store.save(kind, resource)
            return tag
    raise not_found(f"Tag {tag_id_or_key} on this resource")


def parse_filters(raw_filters: Iterable[str]) -> list[TagFilter]:
    """``key`` matches any value, ``key=value`` exactly; split at the first ``=``."""
    filters = []
    for raw in raw_filters:
        key, separator, value = raw.partition("=")
        filters.append((normalise_key(key), value if separator else None))
    return filters


def matches(state: Domain, tag_ids: Iterable[str], filters: Sequence[TagFilter]) -> bool:
    if not filters:
        return True
    table = state.store.table(kinds.TAGS)
    present = {(tag["key"], tag["value"]) for tag in (table.get(tag_id) for tag_id in tag_ids) if tag}
    present_keys = {key for key, _value in present}
    return all((key in present_keys) if value is None else ((key, value) in present) for key, value in filters)
