"""What the domain needs from the emulator, as a leaf protocol: a record store and a clock.

Domain modules type their state argument with :class:`Records` instead of the whole
``EmulatorState``, so they import nothing above them (``EmulatorState`` satisfies it, and so
does any small object a unit test builds around a ``Store`` and a ``Clock``).
"""

from __future__ import annotations

from typing import Protocol

from cloudcompute_emulator.clock import Clock
from cloudcompute_emulator.store import Store


class Records(Protocol):
    @property
    def store(self) -> Store: ...

    @property
    def clock(self) -> Clock: ...
