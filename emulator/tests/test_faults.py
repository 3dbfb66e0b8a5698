"""Injected faults: errors before and after commit, dropped connections, latency, matching."""

from __future__ import annotations

import time

import pytest
import requests
from conftest import ApiClient, assert_error

from cloudcompute_emulator.control import EmulatorControlError

KEY = {"name": "k", "key": "ssh-ed25519 AAAA"}


def test_error_before_commit_changes_nothing(api: ApiClient, control) -> None:
    fault_id = control.add_fault(method="POST", path="/v1/ssh-keys", status=503, count=1)
    assert_error(api.post("/ssh-keys", json=KEY), 503, "service_unavailable")
    assert api.ok("GET", "/ssh-keys").json() == []
    api.ok("POST", "/ssh-keys", 201, json=KEY)  # count 1: spent
    [fault] = control.faults()["faults"]
    assert fault["id"] == fault_id and fault["hits"] == 1 and fault["exhausted"] is True
    entry = control.requests(method="POST", path="/v1/ssh-keys")["requests"][0]
    assert entry["fault_id"] == fault_id and entry["status"] == 503


def test_error_after_commit_keeps_the_change(api: ApiClient, control) -> None:
    control.add_fault(method="POST", path="/v1/ssh-keys", status=500, after_commit=True, message="lost")
    response = api.post("/ssh-keys", json=KEY)
    assert response.json() == {"code": "server_error", "message": "lost"}
    assert len(api.ok("GET", "/ssh-keys").json()) == 1
    entry = control.requests(method="POST", path="/v1/ssh-keys")["requests"][0]
    assert entry["status"] == 500 and entry["handler_status"] == 201


def test_dropped_connection_before_commit(api: ApiClient, control) -> None:
    control.add_fault(method="POST", path="/v1/ssh-keys", drop_connection=True, count=1)
    with pytest.raises(requests.ConnectionError):
        api.post("/ssh-keys", json=KEY)
    assert api.ok("GET", "/ssh-keys").json() == []


def test_dropped_connection_after_commit(api: ApiClient, control, settle) -> None:
    api.ssh_key()
    control.add_fault(method="POST", path="/v1/instances", drop_connection=True, after_commit=True, count=1)
    with pytest.raises(requests.ConnectionError):
        api.deploy(hostname="ghost")
    # the change exists although the client never heard of it
    [instance] = api.ok("GET", "/instances").json()
    assert instance["hostname"] == "ghost"
    entry = control.requests(method="POST", path="/v1/instances")["requests"][0]
    assert entry["connection_dropped"] is True and entry["status"] is None and entry["handler_status"] == 202
    assert control.faults()["injected_total"] == 1


def test_rate_limit_fault_carries_retry_after(api: ApiClient, control) -> None:
    control.add_fault(path="/v1/instances*", status=429, retry_after=7, count=2)
    response = api.get("/instances/abc")
    assert_error(response, 429, "rate_limit_exceeded")
    assert response.headers["retry-after"] == "7"
    assert api.get("/instances").status_code == 429
    assert api.get("/instances").status_code == 200


def test_latency_probability_glob_and_removal(api: ApiClient, control) -> None:
    slow = control.add_fault(method="GET", path="/v1/locations", latency_ms=200)
    started = time.perf_counter()
    api.ok("GET", "/locations")
    assert time.perf_counter() - started >= 0.2
    control.delete_fault(slow)
    never = control.add_fault(path="/v1/*", status=500, probability=0)
    for _ in range(5):
        api.ok("GET", "/locations")
    assert control.faults()["faults"][0]["hits"] == 0
    control.delete_fault(never)
    control.add_fault(method="DELETE", path="/v1/*", status=404, code="not_found", message="gone away")
    assert api.delete("/ssh-keys/whatever").json() == {"code": "not_found", "message": "gone away"}
    api.ok("GET", "/ssh-keys")  # other methods unaffected
    control.clear_faults()
    assert control.faults() == {"injected_total": 0, "faults": []}
    with pytest.raises(EmulatorControlError):
        control.delete_fault("missing")
    with pytest.raises(EmulatorControlError):
        control.add_fault(path="/v1/x")  # does nothing: refused
    with pytest.raises(EmulatorControlError):
        control.add_fault(path="/v1/x", status=200)


def test_faults_on_the_same_paths_add_up(api: ApiClient, control) -> None:
    # A fault that does not fire by chance lets the next matching one try: a never-firing
    # fault first does not shadow the one behind it, and two partial ones both fire.
    control.add_fault(path="/v1/locations", status=500, probability=0)
    behind = control.add_fault(path="/v1/locations", status=502, count=1)
    assert_error(api.get("/locations"), 502, "server_error")
    control.clear_faults()
    control.add_fault(path="/v1/locations", status=500, probability=0.5)
    control.add_fault(path="/v1/locations", status=502, probability=0.5)
    statuses = [api.get("/locations").status_code for _ in range(200)]
    faults = control.faults()["faults"]
    assert statuses.count(500) == faults[0]["hits"] > 0 and statuses.count(502) == faults[1]["hits"] > 0
    assert 20 < statuses.count(200) < 90  # about a quarter
    assert behind
