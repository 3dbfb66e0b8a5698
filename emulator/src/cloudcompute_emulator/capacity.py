"""Capacity per (instance type, location, spot): deploys beyond it answer 503, and the
availability endpoints report the same numbers (decisions.md "Capacity").

A combination's capacity is its catalog default (catalog.py) unless the control API set it.
Every instance that exists and is not being deleted holds one unit, so capacity comes back
when an instance goes away.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from cloudcompute_emulator import kinds
from cloudcompute_emulator.catalog import INSTANCE_TYPES_BY_CODE, default_capacity

if TYPE_CHECKING:
    from cloudcompute_emulator.state import EmulatorState

# Statuses of instances that no longer hold capacity.
RELEASED_STATUSES = frozenset({"deleting", "discontinued"})

Slot = tuple[str, str, bool]  # (instance type, location code, is_spot)


def _key(slot: Slot) -> str:
    instance_type, location_code, is_spot = slot
    return f"{instance_type}|{location_code}|{'spot' if is_spot else 'on-demand'}"


def usage(state: EmulatorState) -> Counter[Slot]:
    """Units held per slot, over all projects (capacity is the datacenter's, not a project's)."""
    held: Counter[Slot] = Counter()
    for instance in state.store.table(kinds.INSTANCES).values():
        if instance["status"] not in RELEASED_STATUSES:
            held[(instance["instance_type"], instance["location"], instance["is_spot"])] += 1
    return held


def total(state: EmulatorState, slot: Slot) -> int:
    override = state.store.get(kinds.CAPACITY, _key(slot))
    if override is not None:
        return override["total"]
    return default_capacity(INSTANCE_TYPES_BY_CODE[slot[0]], slot[1], slot[2])


def available(state: EmulatorState, slot: Slot, held: Counter[Slot] | None = None) -> int:
    held = usage(state) if held is None else held
    return max(0, total(state, slot) - held[slot])


def set_available(state: EmulatorState, slot: Slot, units: int) -> dict:
    """Make ``units`` more instances deployable in ``slot`` from now (0 makes it sold out)."""
    held = usage(state)[slot]
    record = {"id": _key(slot), "instance_type": slot[0], "location_code": slot[1], "is_spot": slot[2], "total": held + units}
    state.store.insert(kinds.CAPACITY, record)
    return {**record, "in_use": held, "available": units}
