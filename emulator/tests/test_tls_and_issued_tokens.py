"""The options tests of clients need: HTTPS with a given certificate (--ssl-certfile /
--ssl-keyfile) and the test-only record of issued tokens (--issued-tokens-file)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess

import pytest
import requests

from cloudcompute_emulator.testing import run_emulator


@pytest.fixture
def self_signed(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return str(cert), str(key)


def test_https_with_a_given_certificate(self_signed) -> None:
    cert, key = self_signed
    with run_emulator(profile="test", ssl_certfile=cert, ssl_keyfile=key) as emulator:
        assert emulator.api_url.startswith("https://127.0.0.1:")
        with pytest.raises(requests.exceptions.SSLError):
            requests.get(f"{emulator.api_url}/instance-types", timeout=10)
        assert requests.get(f"{emulator.api_url}/instance-types", timeout=10, verify=cert).status_code == 200
        assert emulator.control.health()["status"] == "ok"


def test_issued_tokens_are_recorded_only_when_asked(tmp_path) -> None:
    record = tmp_path / "issued.jsonl"
    with run_emulator(profile="test", issued_tokens_file=str(record)) as emulator:
        first = requests.post(f"{emulator.api_url}/oauth2/token", timeout=10, json={
            "grant_type": "client_credentials", "client_id": emulator.client_id, "client_secret": emulator.client_secret}).json()
        second = requests.post(f"{emulator.api_url}/oauth2/token", timeout=10, json={
            "grant_type": "refresh_token", "refresh_token": first["refresh_token"]}).json()
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert [(line["access_token"], line["refresh_token"]) for line in lines] == [
        (first["access_token"], first["refresh_token"]), (second["access_token"], second["refresh_token"])]
    assert {line["client_id"] for line in lines} == {emulator.client_id}
    assert stat.S_IMODE(os.stat(record).st_mode) == 0o600
