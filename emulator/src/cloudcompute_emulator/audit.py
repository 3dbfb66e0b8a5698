"""The audit log: a CloudEvents 1.0 event for every mutating API call.

``type`` is ``com.service.api.public-api.<object_type>.<action>.v1``, ``source`` is
``/projects/<project_id>``, ``subject`` the object's id, and ``data`` carries ``location_code``,
``request_origin`` (``api``), ``actor_id`` and the object itself under its type's name
(``compute``, ``volume``, ``ssh_key``, ``startup_script``, ...).

Domain functions record the events of the caller's changes with :func:`record_event` (routes
through ``ctx.audit(object_type, action, subject, location_code=..., <name>=view)``).
What the service does by itself (a spot eviction, an instance or volume finally gone) is recorded
with :func:`record_system_event`: ``request_origin`` ``system`` and no actor.
"""

from __future__ import annotations

import base64
import math
import secrets
from typing import Any

from cloudcompute_emulator import kinds
from cloudcompute_emulator.clock import isoformat, new_id, parse_timestamp
from cloudcompute_emulator.errors import invalid
from cloudcompute_emulator.ports import Domain, Principal


PRODUCER = "public-api"
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
EXPORT_WINDOW_SECONDS = 90 * 24 * 3600
DOWNLOAD_LINK_SECONDS = 15 * 60


def record_event(
    state: Domain,
    caller: Principal,
    object_type: str,
    action: str,
    subject: str,
    location_code: str | None = None,
    **objects: Any,
) -> None:
    origin = {"request_origin": "api", "actor_id": caller.user_id, "client_id": caller.client_id}
    _store_event(state, caller.project_id, object_type, action, subject, location_code, origin, objects)


def record_system_event(
    state: Domain,
    project_id: str,
    object_type: str,
    action: str,
    subject: str,
    location_code: str | None = None,
    at: float | None = None,
    **objects: Any,
) -> None:
    """An event of a change the service made by itself, at ``at`` (default now) on the emulator clock."""
    origin = {"request_origin": "system", "actor_id": None}
    _store_event(state, project_id, object_type, action, subject, location_code, origin, objects, at)


def _store_event(
    state: Domain,
    project_id: str,
    object_type: str,
    action: str,
    subject: str,
    location_code: str | None,
    origin: dict[str, Any],
    objects: dict[str, Any],
    at: float | None = None,
) -> None:
    # whole milliseconds, as the event's "time" shows it, so date filters agree with what clients see
    now = math.floor((state.clock.now() if at is None else at) * 1000) / 1000
    event = {
        "specversion": "1.0",
        "id": new_id(),
        "source": f"/projects/{project_id}",
        "type": f"com.service.api.{PRODUCER}.{object_type}.{action}.v1",
        "subject": subject,
        "time": isoformat(now),
        "data": {"location_code": location_code, **origin, **objects},
    }
    state.store.insert(
        kinds.AUDIT_EVENTS,
        {
            "id": event["id"],
            "seq": state.store.next_counter("audit_seq"),
            "project_id": project_id,
            "ts": now,
            "object_type": object_type,
            "action": action,
            "event": event,
        },
    )


def parse_date(name: str, value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return parse_timestamp(value)
    except ValueError as error:
        raise invalid(f"{name}: not an RFC 3339 timestamp ({error})") from None


def encode_cursor(seq: int) -> str:
    return base64.urlsafe_b64encode(f"seq:{seq}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        prefix, _, number = text.partition(":")
        if prefix != "seq":
            raise ValueError(text)
        return int(number)
    except (ValueError, UnicodeDecodeError):
        raise invalid("cursor: not a cursor returned by this endpoint") from None


def select_events(
    state: Domain,
    project_id: str,
    action: str | None = None,
    object_type: str | None = None,
    start: float | None = None,
    end: float | None = None,
    before_seq: int | None = None,
):
    """Matching event records of a project, newest first (a generator)."""
    for record in reversed(state.store.table(kinds.AUDIT_EVENTS).values()):
        if record["project_id"] != project_id:
            continue
        if before_seq is not None and record["seq"] >= before_seq:
            continue
        if action and record["action"] != action:
            continue
        if object_type and record["object_type"] != object_type:
            continue
        if start is not None and record["ts"] < start:
            continue
        if end is not None and record["ts"] > end:
            continue
        yield record


def list_page(state: Domain, project_id: str, page_size: int, cursor: str | None, **filters: Any) -> dict:
    before = decode_cursor(cursor) if cursor else None
    page = []
    more = False
    for record in select_events(state, project_id, before_seq=before, **filters):
        if len(page) == page_size:
            more = True
            break
        page.append(record)
    result: dict[str, Any] = {"data": [record["event"] for record in page]}
    if more:
        result["cursor"] = encode_cursor(page[-1]["seq"])
    return result


def create_export(
    state: Domain,
    project_id: str,
    base_url: str,
    action: str | None,
    object_type: str | None,
    start: float | None,
    end: float | None,
) -> dict:
    """A download link (under ``base_url``) to the matching events of the last 90 days."""
    now = state.clock.now()
    earliest = now - EXPORT_WINDOW_SECONDS
    if start is None:
        start = earliest
    elif start < earliest - 60:  # a minute of slack for client/emulator clock skew
        raise invalid("start_date: must not be earlier than 90 days ago")
    if end is not None and end < start:
        raise invalid("end_date: must not be before start_date")
    events = [record["event"] for record in select_events(state, project_id, action, object_type, start, end)]
    token = secrets.token_urlsafe(24)
    expires_at = now + DOWNLOAD_LINK_SECONDS
    state.store.insert(
        kinds.AUDIT_EXPORTS, {"id": token, "project_id": project_id, "expires_at": expires_at, "events": events}
    )
    return {"url": f"{base_url.rstrip('/')}/_emulator/downloads/{token}.json", "expires_at": isoformat(expires_at)}
