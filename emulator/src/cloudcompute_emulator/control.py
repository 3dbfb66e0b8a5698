"""A client of the emulator's control API (``/_emulator``), for tests and scripts.

    from cloudcompute_emulator.control import EmulatorControl
    control = EmulatorControl("http://127.0.0.1:8400")
    control.reset()
    control.add_fault(method="POST", path="/v1/instances", status=503, count=1)
    calls = control.requests(path="/v1/*")["count"]
"""

from __future__ import annotations

import warnings
from typing import Any

import requests


class EmulatorControlError(RuntimeError):
    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body
        message = body.get("message") if isinstance(body, dict) else body
        super().__init__(f"control API answered {status}: {message}")


class EmulatorControl:
    def __init__(
        self, base_url: str, timeout: float = 30.0, session: requests.Session | None = None, verify: bool | str = True
    ) -> None:
        # accept the API URL too (".../v1")
        self.base_url = base_url.rstrip("/").removesuffix("/v1")
        self.timeout = timeout
        self.session = session or requests.Session()
        # Per request, not on the session: requests lets REQUESTS_CA_BUNDLE override a
        # session-level verify=False, never a per-request one.
        self.verify = verify

    def _call(self, method: str, path: str, json: Any = None, params: dict[str, Any] | None = None) -> Any:
        with warnings.catch_warnings():
            if self.verify is False:
                warnings.simplefilter("ignore")  # InsecureRequestWarning: unverified on purpose
            response = self.session.request(
                method, f"{self.base_url}/_emulator{path}", json=json, params=params, timeout=self.timeout, verify=self.verify
            )
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = response.text
            raise EmulatorControlError(response.status_code, body)
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    @staticmethod
    def _given(**values: Any) -> dict[str, Any]:
        return {key: value for key, value in values.items() if value is not None}

    # -- lifecycle ---------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self._call("GET", "/health")

    def reset(self, credentials: bool = False, settings: bool = False, requests: bool = True) -> dict[str, Any]:
        return self._call("POST", "/reset", {"credentials": credentials, "settings": settings, "requests": requests})

    # -- credentials -----------------------------------------------------------------------------

    def create_credentials(
        self, role: str = "owner", project_id: str | None = None, client_id: str | None = None, client_secret: str | None = None
    ) -> dict[str, str]:
        body = self._given(role=role, project_id=project_id, client_id=client_id, client_secret=client_secret)
        return self._call("POST", "/credentials", body)

    def credentials(self) -> dict[str, Any]:
        return self._call("GET", "/credentials")

    def create_inference_key(self, project_id: str | None = None) -> str:
        return self._call("POST", "/inference-keys", self._given(project_id=project_id))["key"]

    # -- data ------------------------------------------------------------------------------------

    def seed(self, **options: Any) -> dict[str, Any]:
        """``instances``, ``volumes``, ``clusters`` counts plus options (see README)."""
        return self._call("POST", "/seed", options)

    def resources(self, kind: str) -> list[dict[str, Any]]:
        """Raw stored records of a kind, deleted ones included."""
        return self._call("GET", f"/resources/{kind}")

    def kinds(self) -> dict[str, int]:
        return self._call("GET", "/resources")

    # -- faults ----------------------------------------------------------------------------------

    def add_fault(self, **spec: Any) -> str:
        return self._call("POST", "/faults", spec)["id"]

    def faults(self) -> dict[str, Any]:
        return self._call("GET", "/faults")

    def delete_fault(self, fault_id: str) -> None:
        self._call("DELETE", f"/faults/{fault_id}")

    def clear_faults(self) -> None:
        self._call("DELETE", "/faults")

    # -- capacity, eviction, clock, balance ------------------------------------------------------

    def set_capacity(
        self, instance_type: str, location_code: str, available: int, is_spot: bool = False, after_seconds: float | None = None
    ) -> dict[str, Any]:
        """``available`` more deployable now, or ``after_seconds`` from now on the emulator clock."""
        body = {"instance_type": instance_type, "location_code": location_code, "is_spot": is_spot, "available": available}
        if after_seconds is not None:
            body["after_seconds"] = after_seconds
        return self._call("PUT", "/capacity", body)

    def schedule_capacity(
        self, instance_type: str, location_code: str, schedule: list[tuple[float, int]], is_spot: bool = False
    ) -> dict[str, Any]:
        """Several changes of one slot: ``[(after_seconds, available), ...]``."""
        body = {
            "instance_type": instance_type, "location_code": location_code, "is_spot": is_spot,
            "schedule": [{"after_seconds": after, "available": units} for after, units in schedule],
        }
        return self._call("PUT", "/capacity", body)

    def capacity(self, instance_type: str, location_code: str, is_spot: bool = False) -> dict[str, Any]:
        params = {"instance_type": instance_type, "location_code": location_code, "is_spot": str(is_spot).lower()}
        return self._call("GET", "/capacity", params=params)

    def set_cluster_capacity(
        self, cluster_type: str, location_code: str, available: int, after_seconds: float | None = None
    ) -> dict[str, Any]:
        body = {"cluster_type": cluster_type, "location_code": location_code, "available": available}
        if after_seconds is not None:
            body["after_seconds"] = after_seconds
        return self._call("PUT", "/capacity", body)

    def cluster_capacity(self, cluster_type: str, location_code: str) -> dict[str, Any]:
        return self._call("GET", "/capacity", params={"cluster_type": cluster_type, "location_code": location_code})

    def evict(self, instance_id: str) -> dict[str, Any]:
        return self._call("POST", f"/instances/{instance_id}/evict")

    def fail_setup(self, instance_id: str, status: str = "error") -> dict[str, Any]:
        return self._call("POST", f"/instances/{instance_id}/fail", json={"status": status})

    def clock(self) -> dict[str, Any]:
        return self._call("GET", "/clock")

    def advance_clock(self, seconds: float) -> dict[str, Any]:
        return self._call("POST", "/clock/advance", {"seconds": seconds})

    def balance(self, project_id: str | None = None) -> dict[str, Any]:
        return self._call("GET", "/balance", params=self._given(project_id=project_id))

    def set_balance(self, amount: float, project_id: str | None = None) -> dict[str, Any]:
        return self._call("PUT", "/balance", self._given(amount=amount, project_id=project_id))

    # -- request log and settings ----------------------------------------------------------------

    def requests(
        self, since: int = 0, method: str | None = None, path: str | None = None, client_id: str | None = None
    ) -> dict[str, Any]:
        """``{total, dropped, count, requests: [...]}``; ``path`` is a glob like ``/v1/instances*``."""
        params = self._given(since=since, method=method, path=path, client_id=client_id)
        return self._call("GET", "/requests", params=params)

    def clear_requests(self) -> None:
        self._call("DELETE", "/requests")

    def settings(self) -> dict[str, Any]:
        return self._call("GET", "/settings")

    def update_settings(self, **patch: Any) -> dict[str, Any]:
        return self._call("PUT", "/settings", patch)
