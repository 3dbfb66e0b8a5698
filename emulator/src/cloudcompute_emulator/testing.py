"""Run the emulator for a test suite: a real uvicorn subprocess on a free loopback port.

    from cloudcompute_emulator.testing import run_emulator

    with run_emulator(profile="test") as emulator:
        requests.post(f"{emulator.api_url}/oauth2/token", json={...})
        emulator.control.advance_clock(600)

Keyword arguments are settings (those of ``PUT /_emulator/settings``: ``profile``,
``token_ttl``, ``rate_limits={...}``, ``instance_ip_mode``, ``balance``, ...), plus
``state_file``, ``client_id``, ``client_secret``, ``port`` (to restart on the port a killed
emulator had), ``ssl_certfile``/``ssl_keyfile`` (HTTPS; the helper's own readiness probe and
control client then skip certificate checks) and ``issued_tokens_file`` (test-only, see the
README).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import requests

from cloudcompute_emulator.control import EmulatorControl


class EmulatorStartError(RuntimeError):
    pass


@dataclass
class RunningEmulator:
    base_url: str
    api_url: str
    client_id: str
    client_secret: str
    inference_api_key: str
    project_id: str
    process: subprocess.Popen
    log_path: str
    control: EmulatorControl = field(init=False)

    def __post_init__(self) -> None:
        # an HTTPS emulator's certificate is the concern of the client under test, not of the
        # test's own control channel
        self.control = EmulatorControl(self.base_url, verify=not self.base_url.startswith("https:"))

    @property
    def port(self) -> int:
        return int(self.base_url.rsplit(":", 1)[1])

    def access_token(self, client_id: str | None = None, client_secret: str | None = None) -> str:
        response = requests.post(
            f"{self.api_url}/oauth2/token",
            json={
                "grant_type": "client_credentials",
                "client_id": client_id or self.client_id,
                "client_secret": client_secret or self.client_secret,
            },
            timeout=10,
            verify=not self.base_url.startswith("https:"),
        )
        response.raise_for_status()
        return response.json()["access_token"]

    def log(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as handle:
            return handle.read()

    def stop(self, timeout: float = 10.0) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs (for durability tests)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _wait_until_ready(process: subprocess.Popen, credentials_path: str, log_path: str, timeout: float) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            with open(log_path, encoding="utf-8", errors="replace") as handle:
                raise EmulatorStartError(f"the emulator exited with {process.returncode}:\n{handle.read()}")
        if os.path.exists(credentials_path):
            with open(credentials_path, encoding="utf-8") as handle:
                published = json.load(handle)
            try:
                # a readiness probe on loopback: the certificate of an HTTPS emulator is not its concern
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if requests.get(f"{published['base_url']}/_emulator/health", timeout=2, verify=False).ok:
                        return published
            except (requests.ConnectionError, requests.Timeout):  # not listening yet, or a loaded machine
                pass
        time.sleep(0.02)
    process.kill()
    raise EmulatorStartError(f"the emulator did not become healthy within {timeout} s")


@contextmanager
def run_emulator(
    *,
    state_file: str | None = None,
    client_id: str | None = None,
    client_secret: str | None = None,
    port: int = 0,
    ssl_certfile: str | None = None,
    ssl_keyfile: str | None = None,
    issued_tokens_file: str | None = None,
    # generous: on a loaded CI runner importing FastAPI alone can take tens of seconds, and a
    # healthy emulator answers as soon as it is up, so the bound only matters when it fails
    startup_timeout: float = 60.0,
    python: str = sys.executable,
    **settings: Any,
) -> Iterator[RunningEmulator]:
    workdir = tempfile.mkdtemp(prefix="cloudcompute-emulator-")
    credentials_path = os.path.join(workdir, "credentials.json")
    log_path = os.path.join(workdir, "emulator.log")
    command = [python, "-m", "cloudcompute_emulator", "--host", "127.0.0.1", "--port", str(port), "--credentials-file", credentials_path]
    if settings:
        command += ["--settings-json", json.dumps(settings)]
    if state_file:
        command += ["--state-file", state_file]
    if client_id:
        command += ["--client-id", client_id]
    if client_secret:
        command += ["--client-secret", client_secret]
    if ssl_certfile:
        command += ["--ssl-certfile", ssl_certfile, "--ssl-keyfile", ssl_keyfile or ssl_certfile]
    if issued_tokens_file:
        command += ["--issued-tokens-file", issued_tokens_file]
    with open(log_path, "wb") as log_handle:
        process = subprocess.Popen(command, stdout=log_handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    emulator = None
    try:
        published = _wait_until_ready(process, credentials_path, log_path, startup_timeout)
        emulator = RunningEmulator(
            base_url=published["base_url"],
            api_url=published["api_url"],
            client_id=published["client_id"],
            client_secret=published["client_secret"],
            inference_api_key=published["inference_api_key"],
            project_id=published["project_id"],
            process=process,
            log_path=log_path,
        )
        yield emulator
    finally:
        if emulator is not None:
            emulator.stop()
        elif process.poll() is None:
            process.kill()
            process.wait()
        shutil.rmtree(workdir, ignore_errors=True)
