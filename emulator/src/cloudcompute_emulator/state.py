"""The emulator's whole state: settings, clock, store, scheduler, rate limiter, faults and the
request log, plus the launch credentials. One instance per running server; route handlers
reach it through :func:`cloudcompute_emulator.context.api_context`. It satisfies the domain's
protocol (:class:`cloudcompute_emulator.ports.Domain`); the resource families' transition hooks,
billable kinds and seeders are registered on it by the app factory.
"""

from __future__ import annotations

from typing import Any

from cloudcompute_emulator import auth
from cloudcompute_emulator.clock import Clock, new_id
from cloudcompute_emulator.faults import FaultRegistry
from cloudcompute_emulator.lifecycle import Scheduler
from cloudcompute_emulator.ports import RateFunction, Seeder
from cloudcompute_emulator.projects import PROJECT_KIND, ensure_project, set_balance
from cloudcompute_emulator.ratelimit import RateLimiter
from cloudcompute_emulator.requestlog import RequestLog
from cloudcompute_emulator.settings import EmulatorSettings
from cloudcompute_emulator.store import META_KIND, Store, graveyard

# Counters restarted by a reset, so that a fresh state hands out the same addresses again.
RESET_COUNTERS = ("instance_ip_counter", "private_ip_counter")


class EmulatorState:
    def __init__(self, settings_patch: dict[str, Any] | None = None, state_file: str | None = None) -> None:
        self.store = Store(state_file)
        stored_settings = self.store.meta("settings")
        base = EmulatorSettings.model_validate(stored_settings) if stored_settings else EmulatorSettings()
        self.settings = base.merged(settings_patch or {})
        # What a reset with {"settings": true} returns to.
        self.launch_settings = self.settings
        self.store.set_meta("settings", self.settings.model_dump())
        self.clock = Clock(self.store.meta("clock_offset", 0.0))
        self.scheduler = Scheduler(self.store)
        # Registered by the app factory (app.register_domain), with the scheduler's hooks.
        self.billables: dict[str, RateFunction] = {}
        self.seeders: dict[str, Seeder] = {}
        self.rate_limiter = RateLimiter(lambda: self.settings.rate_limits)
        self.faults = FaultRegistry()
        self.request_log = RequestLog(self.settings.request_log_limit)
        # Test-only (``--issued-tokens-file``): where every issued token is appended, so a test can
        # search what a client left behind (output, logs, caches) for tokens it must not leak.
        self.issued_tokens_file: str | None = None
        self.default_project_id: str = self.store.meta("default_project_id") or new_id()
        self.store.set_meta("default_project_id", self.default_project_id)
        ensure_project(self, self.default_project_id)
        self.launch_credential: dict[str, str] = {}
        self.store.flush()

    # -- launch credentials ----------------------------------------------------------------------

    def bootstrap(
        self, client_id: str | None = None, client_secret: str | None = None, inference_key: str | None = None
    ) -> dict[str, str]:
        """Make sure the launch (demo) credential and inference key exist; return them.

        Explicit ``client_id``/``client_secret`` win; otherwise the ones a state file remembers
        are reused, otherwise random ones are made.
        """
        remembered = self.store.meta("launch_credential") or {}
        client_id = client_id or remembered.get("client_id")
        credential = self.store.get(auth.CREDENTIAL_KIND, client_id) if client_id else None
        if credential is None or (client_secret and credential["client_secret"] != client_secret):
            credential = auth.create_credential(
                self, "owner", self.default_project_id, client_id, client_secret or remembered.get("client_secret")
            )
        inference_key = inference_key or remembered.get("inference_api_key")
        if not inference_key or self.store.get(auth.INFERENCE_KEY_KIND, inference_key) is None:
            inference_key = auth.create_inference_key(self, self.default_project_id, inference_key)["id"]
        self.launch_credential = {
            "client_id": credential["id"],
            "client_secret": credential["client_secret"],
            "project_id": credential["project_id"],
            "inference_api_key": inference_key,
        }
        self.store.set_meta("launch_credential", self.launch_credential)
        self.store.flush()
        return self.launch_credential

    # -- time ------------------------------------------------------------------------------------

    def advance(self) -> None:
        """Apply every state transition that is due (called before serving each request)."""
        self.scheduler.apply_due(self, self.clock.now())

    def advance_clock(self, seconds: float) -> None:
        self.advance()
        self.clock.advance(seconds)
        self.store.set_meta("clock_offset", self.clock.offset)
        self.advance()

    def commit(self) -> None:
        self.store.flush()

    # -- settings and reset ------------------------------------------------------------------------

    def update_settings(self, patch: dict[str, Any]) -> EmulatorSettings:
        settings = self.settings.merged(patch)
        self._apply_settings(settings)
        if "balance" in patch:
            for project_id in list(self.store.table(PROJECT_KIND)):
                set_balance(self, project_id, settings.balance)
        return settings

    def _apply_settings(self, settings: EmulatorSettings) -> None:
        if settings.rate_limits != self.settings.rate_limits:
            self.rate_limiter.reset()
        self.settings = settings
        self.request_log.resize(settings.request_log_limit)
        self.store.set_meta("settings", settings.model_dump())

    def reset(self, credentials: bool = False, settings: bool = False, requests: bool = True) -> None:
        kept = {META_KIND, PROJECT_KIND}
        if not credentials:
            kept.update(auth.AUTH_KINDS)
        self.store.clear(keep=kept)
        if credentials:
            for project_id in list(self.store.table(PROJECT_KIND)):
                if project_id != self.default_project_id:
                    self.store.delete(PROJECT_KIND, project_id)
        for counter in RESET_COUNTERS:
            self.store.set_meta(counter, 0)
        self.clock = Clock(0.0)
        self.store.set_meta("clock_offset", 0.0)
        self.scheduler.rebuild()
        self.faults.clear()
        self.rate_limiter.reset()
        if settings:
            self._apply_settings(self.launch_settings)
        if requests:
            self.request_log.clear()
        for project_id in list(self.store.table(PROJECT_KIND)):
            set_balance(self, project_id, self.settings.balance)
        if credentials:
            launch = self.launch_credential
            self.store.set_meta("launch_credential", {})
            self.bootstrap(launch.get("client_id"), launch.get("client_secret"), launch.get("inference_api_key"))
        self.store.flush()

    def dump(self, kind: str) -> list[dict[str, Any]]:
        """Every stored row of a kind, removed ones (with ``removed_at``) included."""
        return [*self.store.table(kind).values(), *self.store.table(graveyard(kind)).values()]
