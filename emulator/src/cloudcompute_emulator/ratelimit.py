"""Rate limits of spec section 8, as fixed windows.

Two counters apply to every authenticated request: the project's (all its requests) and the
endpoint's (project + HTTP method + full request path, e.g. ``GET /v1/instances/<id>``). A
window opens at the first request that counts against it and lasts ``window_seconds``; when
either counter is exhausted the request is answered 429 and counts against neither.

Windows run on real (monotonic) time, not on the emulator clock: advancing the clock to age
resources must not hand out fresh request quota.

Headers, IETF draft structured-field style (``draft-ietf-httpapi-ratelimit-headers``)::

    RateLimit-Policy: "project";q=500;w=60, "endpoint";q=60;w=60
    RateLimit: "project";r=499;t=59, "endpoint";r=59;t=59

``q`` quota, ``w`` window seconds, ``r`` requests remaining, ``t`` whole seconds until the
window resets (rounded down). ``Retry-After`` on a 429 is rounded up and at least 1.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from cloudcompute_emulator.settings import RateLimitSettings

# Expired windows are dropped every so many checks, so the table does not grow with every
# distinct resource path ever requested.
PRUNE_EVERY = 5000


@dataclass
class Window:
    started: float
    count: int = 0


@dataclass
class RateDecision:
    allowed: bool
    headers: list[tuple[bytes, bytes]]
    retry_after: int = 0


class RateLimiter:
    def __init__(self, settings: Callable[[], RateLimitSettings], monotonic: Callable[[], float] = time.monotonic):
        self._settings = settings
        self._monotonic = monotonic
        self._windows: dict[tuple, Window] = {}
        self._checks = 0

    def reset(self) -> None:
        self._windows.clear()

    def _window(self, key: tuple, now: float, length: int) -> Window:
        window = self._windows.get(key)
        if window is None or now >= window.started + length:
            window = Window(started=now)
            self._windows[key] = window
        return window

    def _prune(self, now: float, length: int) -> None:
        expired = [key for key, window in self._windows.items() if now >= window.started + length]
        for key in expired:
            del self._windows[key]

    def check(self, project_id: str, method: str, path: str) -> RateDecision | None:
        """Count one request; ``None`` when rate limiting is switched off."""
        settings = self._settings()
        if not settings.enabled:
            return None
        now = self._monotonic()
        length = settings.window_seconds
        self._checks += 1
        if self._checks % PRUNE_EVERY == 0:
            self._prune(now, length)
        endpoint_quota = settings.overrides.get(f"{method} {path}", settings.endpoint_quota)
        policies = (
            ("project", settings.project_quota, self._window(("project", project_id), now, length)),
            ("endpoint", endpoint_quota, self._window(("endpoint", project_id, method, path), now, length)),
        )
        exhausted = [window for _name, quota, window in policies if window.count >= quota]
        if not exhausted:
            for _name, _quota, window in policies:
                window.count += 1
        policy_header = ", ".join(f'"{name}";q={quota};w={length}' for name, quota, _window in policies)
        state_header = ", ".join(
            f'"{name}";r={max(0, quota - window.count)};t={max(0, int(window.started + length - now))}'
            for name, quota, window in policies
        )
        headers = [(b"ratelimit-policy", policy_header.encode()), (b"ratelimit", state_header.encode())]
        if not exhausted:
            return RateDecision(True, headers)
        retry_after = max(1, max(math.ceil(window.started + length - now) for window in exhausted))
        return RateDecision(False, headers, retry_after)
