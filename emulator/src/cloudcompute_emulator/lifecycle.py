"""Scheduled state transitions, applied lazily by the emulator clock.

A transition is a stored job: "at time T, if record (kind, id) still matches ``expect``, set its
status to ``to_status`` and/or run hook ``hook``". Jobs are applied in due order before every
request (and when the clock is advanced), each at its own due time, so advancing the clock by an
hour runs a whole chain (ordered -> provisioning -> running) with the right timestamps.

Jobs are records of kind ``jobs``, so a state file restores pending transitions too. A job whose
record changed in the meantime (deleted, or moved to another status) is skipped: that is how a
later action cancels an earlier pending one.

Each resource module lists its hooks in ``TRANSITION_HOOKS`` and schedules with
:meth:`Scheduler.schedule_step`; the app factory registers the hooks on the state's scheduler
(:meth:`Scheduler.register`), so a job restored from a state file finds its hook.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping
from typing import Any

from cloudcompute_emulator.clock import new_id
from cloudcompute_emulator.ports import Domain
from cloudcompute_emulator.store import Record, Store

JOB_KIND = "jobs"

# Run when a job naming it comes due: ``hook(state, record, at, params)``.
TransitionHook = Callable[[Domain, Record, float, dict[str, Any]], None]


class Scheduler:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.hooks: dict[str, TransitionHook] = {}
        self._heap: list[tuple[float, int, str]] = []
        self.rebuild()

    def register(self, hooks: Mapping[str, TransitionHook]) -> None:
        self.hooks.update(hooks)

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
        if hook is not None and hook not in self.hooks:
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
        state: Domain,
        kind: str,
        record: Record,
        step: str,
        *,
        start: float | None = None,
        **job: Any,
    ) -> Record:
        """Schedule a job due one ``step`` of the current timing profile after ``start`` (now)."""
        begin = state.clock.now() if start is None else start
        return self.schedule(kind, record, begin + state.settings.step_seconds(step), **job)

    def next_due(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def apply_due(self, state: Domain, now: float) -> int:
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
                self.hooks[job["hook"]](state, record, due, job["params"])
            applied += 1
        return applied
