"""A long playbook against an emulator whose access tokens live 5 seconds (the demo timing
profile, so that waits take seconds): it must finish with no authentication failure. Tasks and
forks share the token cache, renew before expiry and spend each single-use refresh token once."""

import collections

from cloudcompute_emulator.testing import run_emulator
from conftest import PLAYBOOKS, api_requests, report, run_playbook

TOKEN_TTL = 5
HOSTS = 3
CYCLES = 1


def test_long_playbook_outlives_many_tokens(tmp_path):
    with run_emulator(profile="demo", token_ttl=TOKEN_TTL) as emulator:
        run = run_playbook(
            PLAYBOOKS / "long.yml",
            emulator,
            tmp_path,
            forks=HOSTS + 1,
            extra_vars={"long_prefix": "ttl", "long_hosts": HOSTS, "long_cycles": CYCLES},
        )
        log = api_requests(emulator.control)
        leftovers = [
            record
            for record in emulator.control.resources("instances") + emulator.control.resources("clusters")
            if not record.get("removed_at")
        ]

    exchanges = collections.Counter(entry["grant_type"] for entry in log if entry["path"] == "/v1/oauth2/token")
    refused = [entry for entry in log if entry["status"] == 401]
    tasks = run.module_tasks
    report(
        "token expiry",
        "%d module tasks in %.0f s (%.1f token lifetimes of %d s), %d API requests"
        % (len(tasks), run.seconds, run.seconds / TOKEN_TTL, TOKEN_TTL, len(log)),
    )
    report(
        "token expiry",
        "token exchanges: %s; requests refused 401: %d; tasks failed: %d"
        % (", ".join("%s %d" % item for item in sorted(exchanges.items())), len(refused), len(run.failed)),
    )

    assert run.returncode == 0 and not run.failed, run.describe_failures()
    assert exchanges["refresh_token"] >= 2, exchanges
    # renewed before expiry: no request was ever sent with an expired token
    assert refused == [], refused
    assert leftovers == []
