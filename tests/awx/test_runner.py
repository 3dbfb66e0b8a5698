"""A job and an inventory update as AWX runs them: through ansible-runner, in an EE-like process,
with the Cloud Compute settings injected only by the "Cloud Compute API" credential type.

AWX calls ``ansible_runner.interface.run`` with the job's environment (its own settings plus
what the credential types inject) and ``suppress_env_files`` so that no secret is written to
``env/``; it consumes the job events through ``event_handler``. An inventory update is
``ansible-inventory --list --export -i <project file> --output <artifacts>/output.json`` with
AWX's standard inventory update environment. Both run here against the emulator:

- the job is the demo playbook (playbooks/demo.yml) with the extra variables tools/demo.sh
  gives it, whatever the demo grows into; its events must show every task of the collection's
  modules ok and no failure;
- the inventory update uses the inventory source shipped in docs/awx/cloudcompute.yml.

The client secret and the access tokens must appear in no event and no artifact. One file is
the exception by design: ansible-runner records the environment it launched the process with
in ``artifacts/<ident>/command``; AWX keeps that directory private to the job and deletes it,
and shows the job's environment with secrets masked (``safe_env`` in ``test_credential_type``).
"""

import io
import json
import os
import pathlib
import shutil
import subprocess
import sys

import ansible_runner
import pytest
from ansible_runner.utils.streaming import unstream_dir

COLLECTION = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
# AWX's environment for every inventory update (awx.main.constants.STANDARD_INVENTORY_UPDATE_ENV).
STANDARD_INVENTORY_UPDATE_ENV = {
    "ANSIBLE_INVENTORY_UNPARSED_FAILED": "True",
    "ANSIBLE_INVENTORY_EXPORT": "True",
    "ANSIBLE_VERBOSE_TO_STDERR": "True",
    "ANSIBLE_HOST_PATTERN_MISMATCH": "error",
}
JOB_TIMEOUT = 900


@pytest.fixture
def private_data_dir(tmp_path):
    """ansible-runner's private data directory with the project checked out in project/ (the
    repository's git-visible files: the tests run in tools/lib.sh's staged copy of them)."""
    directory = tmp_path / "private"
    shutil.copytree(COLLECTION, directory / "project", ignore=shutil.ignore_patterns("output", "__pycache__"))
    return directory


def secrets_of(emulator, credential):
    """The client secret and every access and refresh token the emulator issued."""
    values = {credential["inputs"]["client_secret"]}
    values.update(token["id"] for token in emulator.control.resources("tokens"))
    assert len(values) > 1, "the emulator issued no token"
    return values


def assert_no_secret_in_artifacts(private_data_dir, secrets, injected_env):
    """No secret in any file under artifacts/, but for the launch environment in ``command``."""
    assert_no_secret_in_files(private_data_dir / "artifacts", secrets, injected_env)
    assert not (private_data_dir / "env").exists() or not any((private_data_dir / "env").iterdir())


def assert_no_secret_in_files(artifacts, secrets, injected_env):
    """No secret in any file under ``artifacts``; ``command`` files hold exactly the injected
    variables in their launch environment and no secret elsewhere."""
    files = [path for path in artifacts.rglob("*") if path.is_file()]
    assert files, "no artifacts written"
    for path in files:
        text = path.read_text(errors="replace")
        if path.name == "command":
            launch = json.loads(text)
            assert {key: launch["env"][key] for key in injected_env} == injected_env
            for key in injected_env:
                launch["env"].pop(key)
            text = json.dumps(launch)
        leaked = [secret for secret in secrets if secret in text]
        assert not leaked, f"a secret is in {path.relative_to(artifacts)}"


def test_demo_playbook_as_an_awx_job(emulator_reset, credential, execution_environment, private_data_dir, tmp_path):
    # The job's inventory: the directory the demo adds the inventory plugin's file to before it
    # refreshes the inventory; empty until then, so the play runs on the implicit localhost.
    inventory = tmp_path / "demo" / "inventory"
    inventory.mkdir(parents=True)
    events = []
    result = ansible_runner.interface.run(
        private_data_dir=str(private_data_dir),
        ident="job",
        playbook="playbooks/demo.yml",
        inventory=str(inventory),
        extravars={"demo_workdir": str(tmp_path / "demo")},
        envvars=credential["env"],
        suppress_env_files=True,
        settings={"job_timeout": JOB_TIMEOUT, "suppress_ansible_output": True},
        event_handler=lambda event: events.append(event) or True,
        quiet=True,
    )
    stdout = (private_data_dir / "artifacts" / "job" / "stdout").read_text()
    assert result.status == "successful" and result.rc == 0, stdout[-20000:]

    by_type = {}
    for event in events:
        by_type.setdefault(event["event"], []).append(event)
    (stats,) = by_type["playbook_on_stats"]
    assert not stats["event_data"]["failures"] and not stats["event_data"]["dark"], stats["event_data"]
    assert not by_type.get("runner_on_failed") and not by_type.get("runner_on_unreachable"), stdout[-20000:]

    # every task of a collection module started in the job ended ok, or was skipped by its
    # condition (the roles' steps with nothing to do), and most of them ran
    module_tasks = {
        event["event_data"]["task_uuid"]: event["event_data"]["task"]
        for event in by_type["playbook_on_task_start"]
        if event["event_data"]["task_action"].startswith("cloudcompute.cloud.")
    }
    ok_tasks = {event["event_data"]["task_uuid"] for event in by_type.get("runner_on_ok", [])}
    skipped_tasks = {event["event_data"]["task_uuid"] for event in by_type.get("runner_on_skipped", [])}
    neither = sorted(name for task_uuid, name in module_tasks.items() if task_uuid not in ok_tasks | skipped_tasks)
    assert not neither, f"module tasks neither ok nor skipped: {neither}"
    assert len(ok_tasks & module_tasks.keys()) > len(module_tasks) / 2, "most of the demo's module tasks were skipped"

    secrets = secrets_of(emulator_reset, credential)
    for event in events:
        serialized = json.dumps(event)
        assert not [secret for secret in secrets if secret in serialized], "a secret is in the {} event of {!r}".format(
            event["event"], event.get("event_data", {}).get("task")
        )
    assert_no_secret_in_artifacts(private_data_dir, secrets, credential["env"])
    # the job found the API through the injected variables only: the emulator saw it authenticate
    assert emulator_reset.control.requests(path="/v1/oauth2/token")["count"] >= 1


def test_inventory_source_as_an_awx_inventory_update(
    emulator_reset, credential, execution_environment, private_data_dir
):
    control = emulator_reset.control
    control.seed(instances=3, status="running", tags={"role": "web"}, hostname_prefix="web")
    control.seed(instances=1, status="offline", hostname_prefix="stopped")
    control.seed(clusters=1, status="running", hostname_prefix="hpc")
    source = private_data_dir / "project" / "inventories" / "cloudcompute.yml"
    source.parent.mkdir()
    shutil.copy2(COLLECTION / "docs" / "awx" / "cloudcompute.yml", source)
    output = private_data_dir / "artifacts" / "update" / "output.json"

    response, error, rc = ansible_runner.interface.run_command(
        executable_cmd="ansible-inventory",
        cmdline_args=[
            "--list",
            "--export",
            "-i",
            str(source),
            "--output",
            str(output),
            "--playbook-dir",
            str(source.parent),
        ],
        private_data_dir=str(private_data_dir),
        ident="update",
        envvars=dict(STANDARD_INVENTORY_UPDATE_ENV, **credential["env"]),
        suppress_env_files=True,
        runner_mode="subprocess",
        timeout=JOB_TIMEOUT,
        quiet=True,
    )
    assert rc == 0, response + error

    # --export marks the API's strings as unsafe ({"__ansible_unsafe": ...}), which AWX's import reads
    inventory = json.loads(output.read_text(), object_hook=lambda value: value.get("__ansible_unsafe", value))
    hostvars = inventory["_meta"]["hostvars"]
    running = sorted(
        name for name, variables in hostvars.items() if variables.get("cloudcompute_host_kind") == "instance"
    )
    assert running == ["web-00001", "web-00002", "web-00003"]  # the offline instance is filtered out
    assert {variables["cloudcompute_host_kind"] for variables in hostvars.values()} == {
        "instance",
        "jump_host",
        "worker",
    }
    assert sorted(inventory["role_web"]["hosts"]) == running  # keyed_groups from the tags
    assert not [group for group in inventory if "omit" in group]  # hosts without the tag make no group
    for name in running:
        assert hostvars[name]["ansible_host"] == hostvars[name]["cloudcompute_ip"]
        assert hostvars[name]["cloudcompute_status"] == "running"

    secrets = secrets_of(emulator_reset, credential)
    assert not [secret for secret in secrets if secret in response + error]
    assert_no_secret_in_artifacts(private_data_dir, secrets, credential["env"])


def test_the_job_needs_the_credential(emulator_reset, execution_environment, private_data_dir, tmp_path):
    """Without the credential type's variables the modules have no API to talk to: the check
    above proves the injection is what made the job work."""
    result = ansible_runner.interface.run(
        private_data_dir=str(private_data_dir),
        ident="nocredential",
        playbook="playbooks/demo.yml",
        extravars={"demo_workdir": str(tmp_path / "demo")},
        suppress_env_files=True,
        settings={"job_timeout": JOB_TIMEOUT},
        quiet=True,
    )
    assert result.status == "failed"
    assert emulator_reset.control.requests(path="/v1/*")["count"] == 0


def run_pipe(steps, timeout):
    """Run the commands of ``steps`` as one shell-less pipe (stdout of each into the next); returns
    [(returncode, stderr)] of each and the bytes that passed between the second and the third."""
    transmit, worker, process = steps
    first = subprocess.Popen(
        transmit["args"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=transmit["env"]
    )
    second = subprocess.Popen(
        worker["args"], stdin=first.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=worker["env"]
    )
    first.stdout.close()
    third = subprocess.Popen(
        process["args"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=process["env"]
    )
    first.stdin.write(transmit["input"])
    first.stdin.close()
    # tee the worker's stream into the third process, keeping a copy to inspect
    streamed = bytearray()
    for chunk in iter(lambda: second.stdout.read(65536), b""):
        streamed += chunk
        third.stdin.write(chunk)
    third.stdin.close()
    results = []
    for proc in (first, second, third):
        proc.wait(timeout=timeout)
        results.append((proc.returncode, proc.stderr.read().decode(errors="replace")))
    return results, bytes(streamed)


# The controller's side of a job AWX sends to an execution node: ansible_runner.interface.run with
# streamer="transmit" (AWX does this in its dispatcher, with the job's environment in memory).
TRANSMIT = "import json, sys, ansible_runner; ansible_runner.interface.run(streamer='transmit', _output=sys.stdout.buffer, **json.load(sys.stdin))"


def read_stream(stream, artifacts_dir):
    """The JSON records of a worker's stream; its artifacts zip is unpacked into ``artifacts_dir``
    by ansible-runner's own reader. Returns (records, {relative path: bytes})."""
    source = io.BytesIO(stream)
    records = []
    for line in iter(source.readline, b""):
        if not line.strip():
            continue
        record = json.loads(line)
        records.append(record)
        if "zipfile" in record:
            unstream_dir(source, record["zipfile"], str(artifacts_dir))
    files = {
        str(path.relative_to(artifacts_dir)): path.read_bytes() for path in artifacts_dir.rglob("*") if path.is_file()
    }
    return records, files


@pytest.mark.parametrize("kind", ["job", "inventory_update"])
def test_through_an_execution_node(kind, emulator_reset, credential, execution_environment, private_data_dir, tmp_path):
    """transmit | worker | process, three processes, as AWX runs a job on a remote execution node.

    The Cloud Compute settings reach the worker only as the credential type injects them (the
    job's ``envvars``); nothing is written to the private data directory's ``env/``. Every record
    the worker streams back (events, status, the artifacts zip) is checked for secrets.
    """
    control = emulator_reset.control
    if kind == "job":
        inventory = tmp_path / "demo" / "inventory"
        inventory.mkdir(parents=True)
        params = {
            "playbook": "playbooks/demo.yml",
            "inventory": str(inventory),
            "extravars": {"demo_workdir": str(tmp_path / "demo")},
        }
    else:
        control.seed(instances=2, status="running", tags={"role": "web"}, hostname_prefix="web")
        source = private_data_dir / "project" / "inventories" / "cloudcompute.yml"
        source.parent.mkdir()
        shutil.copy2(COLLECTION / "docs" / "awx" / "cloudcompute.yml", source)
        # AWX's inventory update on an execution node: ansible-inventory as the runner's binary,
        # run in the project directory, its output written into the artifacts that stream back
        params = {
            "binary": "ansible-inventory",
            "cmdline": f"--list --export -i inventories/cloudcompute.yml --output ../artifacts/{kind}/output.json",
        }
    envvars = dict(credential["env"], **(STANDARD_INVENTORY_UPDATE_ENV if kind != "job" else {}))
    params.update(
        private_data_dir=str(private_data_dir),
        ident=kind,
        envvars=envvars,
        suppress_env_files=True,
        settings={"job_timeout": JOB_TIMEOUT, "suppress_ansible_output": True},
    )
    node = tmp_path / "execution-node"
    env = dict(os.environ)
    results, stream = run_pipe(
        [
            {"args": [sys.executable, "-c", TRANSMIT], "input": json.dumps(params).encode(), "env": env},
            {"args": [str(BIN / "ansible-runner"), "worker", "--private-data-dir", str(node), "--delete"], "env": env},
            {"args": [str(BIN / "ansible-runner"), "process", str(private_data_dir), "--ident", kind], "env": env},
        ],
        JOB_TIMEOUT,
    )
    assert [result[0] for result in results] == [0, 0, 0], results

    records, artifacts = read_stream(stream, tmp_path / "streamed-artifacts")
    statuses = [record["status"] for record in records if "status" in record]
    assert statuses[-1] == "successful", (statuses, results)
    events = [record for record in records if "event" in record]
    # ansible-inventory writes its answer into the artifacts (--output), not as events
    assert artifacts and (events or kind != "job")
    secrets = secrets_of(emulator_reset, credential)
    for record in records:
        if record.get("status") == "starting":
            # the launch environment, like the command artifact: AWX stores it only masked (safe_env)
            record = dict(record, env={key: value for key, value in record["env"].items() if key not in envvars})
        serialized = json.dumps(record)
        assert not [secret for secret in secrets if secret in serialized], f"a secret is streamed in {serialized[:200]}"
    # the streamed artifacts as the worker sent them, then as `process` wrote them on the controller
    assert_no_secret_in_files(tmp_path / "streamed-artifacts", secrets, envvars)
    assert_no_secret_in_artifacts(private_data_dir, secrets, envvars)

    if kind == "job":
        failed = [event for event in events if event["event"] in ("runner_on_failed", "runner_on_unreachable")]
        assert not failed, failed[:1]
        (stats,) = [event for event in events if event["event"] == "playbook_on_stats"]
        assert not stats["event_data"]["failures"] and not stats["event_data"]["dark"]
        assert any(
            event["event"] == "runner_on_ok" and event["event_data"]["task_action"].startswith("cloudcompute.cloud.")
            for event in events
        )
    else:
        output = private_data_dir / "artifacts" / kind / "output.json"
        inventory = json.loads(output.read_text(), object_hook=lambda value: value.get("__ansible_unsafe", value))
        hosts = sorted(
            name
            for name, variables in inventory["_meta"]["hostvars"].items()
            if variables.get("cloudcompute_host_kind") == "instance"
        )
        assert hosts == ["web-00001", "web-00002"]
    assert control.requests(path="/v1/oauth2/token")["count"] >= 1
