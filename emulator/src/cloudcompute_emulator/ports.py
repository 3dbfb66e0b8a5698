"""What the domain needs from the emulator, as a leaf protocol, and who is calling.

Domain modules (``resources``, ``projects``, ``tags``, ``audit``, ``capacity``, ``lifecycle``)
type their state argument with :class:`Domain` (or the smaller :class:`Records`) instead of the
whole ``EmulatorState``, and take the calling :class:`Principal` as a plain argument instead of
the HTTP-side request context, so they import nothing above them: no state, no routes, no HTTP.
``EmulatorState`` satisfies :class:`Domain`, and so does any small object a unit test builds
around a ``Store``, a ``Clock`` and a ``Scheduler``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from cloudcompute_emulator.clock import Clock
from cloudcompute_emulator.errors import forbidden
from cloudcompute_emulator.settings import EmulatorSettings
from cloudcompute_emulator.store import Record, Store

# A billable kind's price per hour of one record, or None once the record no longer bills.
RateFunction = Callable[[Record], "float | None"]


class Records(Protocol):
    @property
    def store(self) -> Store: ...

    @property
    def clock(self) -> Clock: ...


class Scheduler(Protocol):
    """Scheduled transitions (implemented by :class:`cloudcompute_emulator.lifecycle.Scheduler`)."""

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
    ) -> Record: ...

    def schedule_step(
        self, state: Domain, kind: str, record: Record, step: str, *, start: float | None = None, **job: Any
    ) -> Record: ...


class Domain(Records, Protocol):
    """Store, clock, scheduler, settings and the billable kinds: all a domain function reaches."""

    @property
    def scheduler(self) -> Scheduler: ...

    @property
    def settings(self) -> EmulatorSettings: ...

    @property
    def billables(self) -> Mapping[str, RateFunction]: ...


@dataclass(frozen=True)
class Principal:
    """Who is calling: the credential behind the access token, or (on the serverless endpoints)
    an inference API key, which has no client id and the least role."""

    client_id: str | None
    project_id: str
    role: str
    user_id: str
    auth: str = "bearer"

    def require_role(self, *roles: str) -> None:
        if self.role not in roles:
            raise forbidden(f"This action requires one of the roles: {', '.join(roles)}")


# Makes ``count`` records of one kind in a project for ``POST /_emulator/seed``; returns their ids.
Seeder = Callable[[Domain, str, int, dict[str, Any]], list[str]]
