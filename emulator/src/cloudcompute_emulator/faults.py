"""Injected faults (``/_emulator/faults``): error answers, latency and dropped connections.

A fault matches requests by method and path glob (``fnmatch``: ``/v1/instances*`` matches the
collection, every id below it and the query-less path of any of them). It fires with
``probability`` and at most ``count`` times (unlimited when omitted). The matching active faults
are tried in creation order and the first one that fires is the one that acts: a fault that does
not fire by chance lets the next one try, so several faults on the same paths add up (10 % of
5xx plus 5 % of dropped connections fail about 15 % of the requests). What it does:

- ``latency_ms``: wait that long first (alone, the request then proceeds normally);
- ``status`` with ``after_commit: false`` (default): answer ``{code, message}`` with that status
  without running the handler, so nothing changes;
- ``status`` with ``after_commit: true``: run the handler (its change is committed), then answer
  the fault's status instead of the real response (a lost response);
- ``drop_connection``: close the TCP connection without any response, before the handler runs or,
  with ``after_commit: true``, after it committed its change.
"""

from __future__ import annotations

import fnmatch
import random
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from cloudcompute_emulator.clock import new_id


class FaultSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    method: str = "*"
    path: str = "*"
    status: int | None = Field(None, ge=400, le=599)
    code: str | None = None
    message: str | None = None
    probability: float = Field(1.0, ge=0.0, le=1.0)
    count: int | None = Field(None, ge=1)
    latency_ms: int = Field(0, ge=0, le=600_000)
    retry_after: int | None = Field(None, ge=0)
    drop_connection: bool = False
    after_commit: bool = False

    @model_validator(mode="after")
    def _does_something(self) -> FaultSpec:
        if self.status is None and not self.drop_connection and not self.latency_ms:
            raise ValueError("a fault needs a status, drop_connection or latency_ms")
        if self.status is not None and self.drop_connection:
            raise ValueError("status and drop_connection exclude each other")
        return self


class Fault:
    def __init__(self, spec: FaultSpec) -> None:
        self.id = new_id()
        self.spec = spec
        self.method = spec.method.upper()
        self.hits = 0

    @property
    def exhausted(self) -> bool:
        return self.spec.count is not None and self.hits >= self.spec.count

    @property
    def answers(self) -> bool:
        """Does it replace the response (status or dropped connection), not just delay it?"""
        return self.spec.status is not None or self.spec.drop_connection

    def matches(self, method: str, path: str) -> bool:
        return (
            not self.exhausted
            and self.method in ("*", method)
            and fnmatch.fnmatchcase(path, self.spec.path)
        )

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, **self.spec.model_dump(), "hits": self.hits, "exhausted": self.exhausted}


class FaultRegistry:
    def __init__(self, rng: random.Random | None = None) -> None:
        self._faults: dict[str, Fault] = {}
        self._rng = rng or random.Random()
        self.injected_total = 0

    def add(self, spec: FaultSpec) -> Fault:
        fault = Fault(spec)
        self._faults[fault.id] = fault
        return fault

    def remove(self, fault_id: str) -> bool:
        return self._faults.pop(fault_id, None) is not None

    def clear(self) -> None:
        self._faults.clear()
        self.injected_total = 0

    def describe(self) -> dict[str, Any]:
        return {"injected_total": self.injected_total, "faults": [fault.describe() for fault in self._faults.values()]}

    def fire(self, method: str, path: str) -> Fault | None:
        """The fault that fires for this request, counted as a hit; ``None`` for most requests."""
        if not self._faults:
            return None
        for fault in self._faults.values():
            if fault.matches(method, path):
                if self._rng.random() >= fault.spec.probability:
                    continue  # not this time: the next matching fault gets its chance
                fault.hits += 1
                self.injected_total += 1
                return fault
        return None
