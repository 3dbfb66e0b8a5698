"""The emulator's clock: wall time plus an offset that the control API can only move forward.

Every timestamp the API shows, every token expiry and every scheduled state transition reads
this clock, so advancing it makes minutes of production behaviour happen in an instant.
Rate-limit windows deliberately do not use it (they measure real time, see ratelimit.py).
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone


class Clock:
    def __init__(self, offset: float = 0.0) -> None:
        self.offset = offset

    def now(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self.offset += seconds


def isoformat(timestamp: float) -> str:
    """RFC 3339 UTC with milliseconds, the one timestamp format of the API."""
    moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_timestamp(text: str) -> float:
    """Parse an RFC 3339 / ISO 8601 timestamp (``Z`` or an offset; a date alone is midnight UTC)."""
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def new_id() -> str:
    return str(uuid.uuid4())
