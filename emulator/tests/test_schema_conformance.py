"""Schema conformance: schemathesis against /v1/openapi.json with a valid token.

Every check runs (no 500s, statuses, content types and bodies as documented, invalid input
refused, Allow headers, stateful sequences) except ``positive_data_acceptance``: a request can
be schema-valid and still name an unknown instance type or location, which the API refuses.

With 106 operations this is most of the suite's CPU time (the coverage phase alone sends some
5,000 requests), hence few fuzzing examples per operation.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from cloudcompute_emulator.testing import run_emulator

pytest.importorskip("schemathesis")

MAX_EXAMPLES = 5
SEED = 7


def test_api_conforms_to_its_openapi_document(tmp_path) -> None:
    with run_emulator(profile="test", rate_limits={"enabled": False}) as emulator:
        command = [
            sys.executable, "-c", "from schemathesis.cli import schemathesis; schemathesis()",
            "run", f"{emulator.api_url}/openapi.json",
            "--header", f"Authorization: Bearer {emulator.access_token()}",
            "--checks", "all", "--exclude-checks", "positive_data_acceptance",
            "--phases", "examples,coverage,fuzzing,stateful",
            "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED), "--workers", "2",
            "--request-timeout", "30",
        ]
        result = subprocess.run(command, capture_output=True, text=True, timeout=480, cwd=tmp_path)
        server_log = emulator.log()
    assert result.returncode == 0, result.stdout[-12000:] + result.stderr[-3000:]
    assert " passed" in result.stdout
    assert "Traceback" not in server_log, server_log[-5000:]
