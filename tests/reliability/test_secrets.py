"""The client secret and every access and refresh token the emulator issued appear nowhere a
user or a log collector could see them: not in the output of the whole demo run with -vvvv and
--diff (tools/demo.sh, exactly as `make demo` runs it, inventory plugin included), not in the
raw task results, diffs, Ansible's log, inventory output or cache, nor in any file the run left
behind. The token cache is the one place tokens may be, and it must be readable by its owner
only.

The emulator records every token it issues (--issued-tokens-file, a test-only option), so the
search covers tokens that were refreshed away during the run, not just the last ones.
"""

import json
import os
import pathlib
import stat
import subprocess

from cloudcompute_emulator.testing import run_emulator
from conftest import CALLBACK_PLUGINS, ansible_command, playbook_environment, report

DEMO_TIMEOUT = 900


def issued_tokens(path):
    with open(path) as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return [value for record in records for value in (record["access_token"], record["refresh_token"])]


def read_text(path):
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


def files_under(directory, skip=()):
    """Every regular file below ``directory`` but those under the ``skip`` paths."""
    skipped = [os.path.abspath(path) for path in skip]
    for root, _dirs, names in os.walk(directory):
        for name in names:
            path = os.path.abspath(os.path.join(root, name))
            if not any(path == other or path.startswith(other + os.sep) for other in skipped) and os.path.isfile(path):
                yield path


def leaks(secrets, artifacts):
    """[(secret label, artifact label)] for every secret found in an artifact's text."""
    return [(label, where) for label, value in secrets for where, text in artifacts if value and value in text]


def check_token_cache(directory):
    """Every token cache file is 0600 in a directory only its owner can enter."""
    problems = []
    if not os.path.isdir(directory):
        return [f"no token cache at {directory}"]
    if stat.S_IMODE(os.stat(directory).st_mode) & 0o077:
        problems.append(f"{directory} is mode {stat.S_IMODE(os.stat(directory).st_mode):o}")
    for path in files_under(directory):
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & 0o077:
            problems.append(f"{path} is mode {mode:o}")
    return problems


def without_banner(emulator_log, secret):
    """The emulator's own log prints its demo credential in its start-up banner, on purpose:
    that line is the emulator talking, not the collection. Everything else is searched."""
    return "\n".join(line for line in emulator_log.splitlines() if not line.strip().startswith("client_secret:"))


def test_the_demo_leaks_no_secret(tmp_path):
    repo = os.environ.get("REPO")
    assert repo, "run this suite through tools/test.sh (it names the checkout in REPO)"
    workdir = tmp_path / "demo"
    issued = tmp_path / "issued-tokens.jsonl"
    results = tmp_path / "results.jsonl"
    extra = {
        "DEMO_WORKDIR": str(workdir),
        # the test timing profile: the same demo, without waiting on realistic delays; tokens of
        # 5 seconds, so that many are issued and refreshed while it runs
        "DEMO_EMULATOR_ARGS": f"--profile test --token-ttl 5 --issued-tokens-file {issued}",
        # demo.sh stages its own copy of the collection, away from the one this suite runs from
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "ANSIBLE_LOG_PATH": str(tmp_path / "ansible.log"),
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "ansible-local"),
        "ANSIBLE_INVENTORY_CACHE": "true",
        "ANSIBLE_INVENTORY_CACHE_PLUGIN": "ansible.builtin.jsonfile",
        "ANSIBLE_INVENTORY_CACHE_CONNECTION": str(tmp_path / "inventory-cache"),
        "ANSIBLE_CALLBACK_PLUGINS": str(CALLBACK_PLUGINS),
        "ANSIBLE_CALLBACKS_ENABLED": "reliability_results",
        "RELIABILITY_RESULTS_FILE": str(results),
        "ANSIBLE_NOCOLOR": "1",
    }
    env = dict(os.environ, **extra)
    for variable in (
        "CLOUDCOMPUTE_API_URL",
        "CLOUDCOMPUTE_CLIENT_ID",
        "CLOUDCOMPUTE_CLIENT_SECRET",
        "CLOUDCOMPUTE_TOKEN_CACHE",
    ):
        env.pop(variable, None)
    demo = subprocess.run(
        [os.path.join(repo, "tools", "demo.sh"), "-vvvv", "--diff"],
        env=env,
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT,
        check=False,
    )
    assert demo.returncode == 0, f"the demo failed:\n{demo.stdout[-15000:]}\n{demo.stderr[-5000:]}"

    credentials = json.loads(read_text(workdir / "emulator-credentials.json"))
    tokens = issued_tokens(issued)
    assert tokens, "the emulator issued no token: nothing was searched for"
    secrets = [("client secret", credentials["client_secret"])] + [
        ("token %d" % number, token) for number, token in enumerate(tokens)
    ]
    token_cache = workdir / "token-cache"
    emulator_log = workdir / "emulator.log"
    artifacts = [("demo stdout", demo.stdout), ("demo stderr", demo.stderr)]
    skip = [workdir / "emulator-credentials.json", token_cache, emulator_log]
    for directory in (workdir, tmp_path / "inventory-cache", tmp_path / "ansible-local"):
        artifacts += [(path, read_text(path)) for path in files_under(directory, skip)]
    artifacts += [(path, read_text(path)) for path in (results, tmp_path / "ansible.log") if os.path.exists(path)]
    artifacts.append((emulator_log, without_banner(read_text(emulator_log), credentials["client_secret"])))

    found = leaks(secrets, artifacts)
    cache_problems = check_token_cache(token_cache)
    task_results = read_text(results).splitlines()
    diffs = [line for line in task_results if '"diff": {' in line]
    report(
        "secrets",
        "demo with -vvvv --diff (%d task results, %d with a diff, %d KB of output, %d files) searched for "
        "the client secret and %d issued tokens: %d found; token cache: %s"
        % (
            len(task_results),
            len(diffs),
            (len(demo.stdout) + len(demo.stderr)) // 1024,
            len(artifacts) - 2,
            len(tokens),
            len(found),
            "0600/0700" if not cache_problems else "; ".join(cache_problems),
        ),
    )
    assert found == [], f"secrets found: {found}"
    assert cache_problems == []
    # what was searched was the real thing: verbose output, diffs, tokens renewed during the run
    assert "ESTABLISH" in demo.stdout and diffs and len(tokens) >= 4, (len(diffs), len(tokens))


def test_the_inventory_plugin_leaks_no_secret(tmp_path):
    issued = tmp_path / "issued-tokens.jsonl"
    with run_emulator(profile="test", issued_tokens_file=str(issued)) as emulator:
        emulator.control.seed(instances=5, clusters=1, hostname_prefix="inv")
        config = tmp_path / "secrets.cloudcompute.yml"
        config.write_text(
            "plugin: cloudcompute.cloud.cloudcompute\ncache: true\ncache_plugin: ansible.builtin.jsonfile\n"
            "cache_connection: %s\n" % (tmp_path / "inventory-cache")
        )
        env = playbook_environment(emulator, tmp_path, {"ANSIBLE_LOG_PATH": str(tmp_path / "ansible.log")})
        outputs = []
        for arguments in (["--list", "--yaml"], ["--graph", "--vars"]):
            process = subprocess.run(
                [ansible_command("ansible-inventory"), "-i", str(config), "-vvvv"] + arguments,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert process.returncode == 0, process.stderr[-3000:]
            outputs += [
                (f"ansible-inventory {arguments[0]} stdout", process.stdout),
                (f"ansible-inventory {arguments[0]} stderr", process.stderr),
            ]
        secrets = [("client secret", emulator.client_secret)] + [("token", token) for token in issued_tokens(issued)]
    assert "inv-00001" in outputs[0][1]
    token_cache = pathlib.Path(env["CLOUDCOMPUTE_TOKEN_CACHE"])
    artifacts = outputs + [(path, read_text(path)) for path in files_under(tmp_path, [issued, token_cache])]
    found = leaks(secrets, artifacts)
    report(
        "secrets",
        "ansible-inventory --list/--graph -vvvv with a cache, %d files: %d secrets found"
        % (len(artifacts) - len(outputs), len(found)),
    )
    assert found == []
    assert check_token_cache(token_cache) == []
