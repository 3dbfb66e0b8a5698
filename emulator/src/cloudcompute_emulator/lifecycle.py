"""Scheduled state transitions, applied lazily by the emulator clock.

A transition is a stored job: "at time T, if record (kind, id) still matches ``expect``, set its
status to ``to_status`` and/or run hook ``hook``". Jobs are applied in due order before every
request (and when the clock is advanced), each at its own due time, so advancing the clock by an
hour runs a whole chain (ordered -> provisioning -> running) with the right timestamps.

Jobs are records of kind ``jobs``, so a state file restores pending transitions too. A job whose
record changed in the meantime (deleted, or moved to another status) is skipped: that is how a
later action cancels an earlier pending one.

Resource modules register hooks with :func:`transition_hook` and schedule with
:meth:`Scheduler.schedule_step`.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cloudcompute_emulator.clock import new_id
from cloudcompute_emulator.store import Record, Store
from cloudcompute_emulator.timing import step_seconds

if TYPE_CHECKING:
    from cloudcompute_emulator.state import EmulatorState

JOB_KIND = "jobs"

TransitionHook = Callable[["EmulatorState", Record, float, dict[str, Any]], None]
HOOKS: dict[str, TransitionHook] = {}


def transition_hook(name: str) -> Callable[[TransitionHook], TransitionHook]:
    """Register a function run when a job naming it comes due: ``fn(state, record, at, params)``."""

    def register(function: TransitionHook) -> TransitionHook:
        HOOKS[name] = function
        return function

    return register


class Scheduler:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._heap: list[tuple[float, int, str]] = []
        self.rebuild()

    def rebuild(self) -> None:
        self._heap = [(job["due"], job["seq"], job["id"]) for job in self.store.table(JOB_KIND).values()]
        heapq.heapify(self._heap)

    def schedule(
        self,
        kind: str,
        record: Record,
        due: float,
        *,
        to_status: str | None = None,
        hook: str | None = None,
        expect: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
    ) -> Record:
        if hook is not None and hook not in HOOKS:
            raise KeyError(f"unknown transition hook {hook!r}")
        job = {
            "id": new_id(),
            "seq": self.store.next_counter("job_seq"),
            "due": due,
            "kind": kind,
            "record_id": record["id"],
            "expect": expect if expect is not None else {"status": record.get("status")},
            "to_status": to_status,
            "hook": hook,
            "params": params or {},
        }
        self.store.insert(JOB_KIND, job)
        heapq.heappush(self._heap, (due, job["seq"], job["id"]))
        return job

    def schedule_step(
        self,
        state: EmulatorState,
        kind: str,
        record: Record,
        step: str,
        *,
        start: float | None = None,
        **job: Any,
    ) -> Record:
        """Schedule a job due one ``step`` of the current timing profile after ``start`` (now)."""
        begin = state.clock.now() if start is None else start
        return self.schedule(kind, record, begin + step_seconds(step, state.settings.profile), **job)

    def next_due(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def apply_due(self, state: EmulatorState, now: float) -> int:
        applied = 0
        heap = self._heap
        while heap and heap[0][0] <= now:
            due, _seq, job_id = heapq.heappop(heap)
            job = self.store.delete(JOB_KIND, job_id)
            if job is None:
                continue
            record = self.store.get(job["kind"], job["record_id"])
            if record is None or any(record.get(key) != value for key, value in job["expect"].items()):
                continue
            if job["to_status"] is not None:
                record["status"] = job["to_status"]
                self.store.save(job["kind"], record)
            if job["hook"] is not None:
                HOOKS[job["hook"]](state, record, due, job["params"])
            applied += 1
        return applied
