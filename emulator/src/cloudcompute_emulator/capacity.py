"""Capacity per (instance type, location, spot) and per (cluster type, location): deploys
beyond it answer 503, and the availability endpoints report the same numbers.

A combination's capacity is its catalog default (catalog.py) unless the control API set it.
Every instance and cluster that exists and is not being deleted holds one unit of its slot, so
capacity comes back when it goes away. A change can also be scheduled on the emulator clock
(:func:`schedule_available`), so a test can sell a slot out now and release it "in ten minutes"
and then advance the clock: waiting for capacity becomes deterministic. Instance and cluster type codes never collide
(``1H100.80S.30V`` vs ``16H100``), so one slot key space serves both; clusters are never spot.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from cloudcompute_emulator import kinds
from cloudcompute_emulator.catalog import (
    CLUSTER_TYPES_BY_CODE,
    INSTANCE_TYPES_BY_CODE,
    default_capacity,
    default_cluster_capacity,
)
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.ports import Domain

if TYPE_CHECKING:
    from cloudcompute_emulator.store import Record

# Statuses of instances and clusters that no longer hold capacity.
RELEASED_STATUSES = frozenset({"deleting", "discontinued"})

Slot = tuple[str, str, bool]  # (instance or cluster type, location code, is_spot)


def _key(slot: Slot) -> str:
    instance_type, location_code, is_spot = slot
    return f"{instance_type}|{location_code}|{'spot' if is_spot else 'on-demand'}"


def _type_field(slot: Slot) -> str:
    return "cluster_type" if slot[0] in CLUSTER_TYPES_BY_CODE else "instance_type"


def usage(state: Domain) -> Counter[Slot]:
    """Units held per slot, over all projects (capacity is the datacenter's, not a project's)."""
    held: Counter[Slot] = Counter()
    for instance in state.store.table(kinds.INSTANCES).values():
        if instance["status"] not in RELEASED_STATUSES:
            held[(instance["instance_type"], instance["location"], instance["is_spot"])] += 1
    for cluster in state.store.table(kinds.CLUSTERS).values():
        if cluster["status"] not in RELEASED_STATUSES:
            held[(cluster["cluster_type"], cluster["location"], False)] += 1
    return held


def total(state: Domain, slot: Slot) -> int:
    override = state.store.get(kinds.CAPACITY, _key(slot))
    if override is not None:
        return override["total"]
    code, location_code, is_spot = slot
    if code in CLUSTER_TYPES_BY_CODE:
        return default_cluster_capacity(CLUSTER_TYPES_BY_CODE[code], location_code, is_spot)
    return default_capacity(INSTANCE_TYPES_BY_CODE[code], location_code, is_spot)


def available(state: Domain, slot: Slot, held: Counter[Slot] | None = None) -> int:
    held = usage(state) if held is None else held
    return max(0, total(state, slot) - held[slot])


def set_available(state: Domain, slot: Slot, units: int) -> dict:
    """Make ``units`` more instances (or clusters) deployable in ``slot`` from now (0: sold out)."""
    held = usage(state)[slot]
    type_field = _type_field(slot)
    record = {"id": _key(slot), type_field: slot[0], "location_code": slot[1], "is_spot": slot[2], "total": held + units}
    state.store.insert(kinds.CAPACITY, record)
    return {**record, "in_use": held, "available": units}


def schedule_available(state: Domain, slot: Slot, units: int, after_seconds: float) -> dict:
    """Set ``units`` deployable in ``slot`` at ``after_seconds`` from now on the emulator clock.

    The change is a stored record plus a lifecycle job, so a state file keeps it pending across
    restarts and a reset drops it. ``units`` is counted against what is held *then*.
    """
    type_field = _type_field(slot)
    due = state.clock.now() + after_seconds
    change = {
        "id": new_id(), type_field: slot[0], "location_code": slot[1], "is_spot": slot[2],
        "available": units, "due": due,
    }
    state.store.insert(kinds.CAPACITY_CHANGES, change)
    state.scheduler.schedule(kinds.CAPACITY_CHANGES, change, due, hook="capacity.apply_change", expect={})
    return {type_field: slot[0], "location_code": slot[1], "is_spot": slot[2], "available": units,
            "after_seconds": after_seconds, "at": isoformat(due)}


def pending_changes(state: Domain, slot: Slot) -> list[dict]:
    """The scheduled changes of ``slot`` not yet applied, earliest first: ``[{at, available}]``."""
    type_field = _type_field(slot)
    changes = [
        change for change in state.store.table(kinds.CAPACITY_CHANGES).values()
        if (change[type_field] if type_field in change else None, change["location_code"], change["is_spot"]) == slot
    ]
    return [{"at": isoformat(change["due"]), "available": change["available"]} for change in sorted(changes, key=lambda c: c["due"])]


def _apply_change(state: Domain, change: Record, _at: float, _params: dict) -> None:
    code = change.get("instance_type") or change["cluster_type"]
    set_available(state, (code, change["location_code"], change["is_spot"]), change["available"])
    state.store.delete(kinds.CAPACITY_CHANGES, change["id"])


TRANSITION_HOOKS = {
    "capacity.apply_change": _apply_change,
}
