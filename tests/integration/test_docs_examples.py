"""Every YAML example of the README, the guides (docs/*.md) and the roles' READMEs that is a
task list, a play, an inventory source or a rulebook runs against the emulator, as written:
documentation that cannot rot.

Examples are read from the Markdown's fenced ``yaml`` blocks. A block is

- an inventory source (a mapping with ``plugin: cloudcompute.cloud.cloudcompute``): listed with
  ``ansible-inventory --list``, with ``strict`` as the example sets it;
- a play (a list of mappings with ``hosts``) or a task list (a list of mappings naming a module
  or ``block``): run with ``ansible-playbook`` on localhost, a task list inside one play;
- a rulebook (a list of mappings with ``sources`` and ``rules``): checked by ansible-rulebook's
  own schema (running one needs an event source that ends, tests/eda runs the shipped one);
- anything else (a variables file, a fragment of options, an event, an EE definition): not an
  example that runs on its own, and not run.

An example that cannot run here says so with an HTML comment on a line of its own just before
the block, giving the reason: ``<!-- docs-example: not runnable: <reason> -->``. An example that
shows a refusal says what its failure carries: ``<!-- docs-example: fails with: <text> -->``.

The documented placeholders become real values: ``https://api.example.com/v1`` the emulator's
URL, the variables of ``placeholder_vars`` the emulator's credentials or a test value, ``~`` a
scratch home with an SSH key pair. Each example gets a reset emulator holding what the examples
say must exist already (``PREREQUISITES``: SSH keys, a startup script, detached volumes). An
example that reads ``ansible_eda`` (a playbook ansible-rulebook runs) gets it as ansible-rulebook
passes it, an extra variable holding the rule and the event (``rulebook_extra_vars``).
"""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest
import requests
import yaml

COLLECTION = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
PAGES = sorted(
    [COLLECTION / "README.md", *(COLLECTION / "docs").glob("*.md"), *(COLLECTION / "roles").glob("*/README.md")]
)
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[^\s`]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*docs-example:\s*not runnable:\s*(?P<reason>.*?)\s*-->\s*$")
FAILS_WITH = re.compile(r"^\s*<!--\s*docs-example:\s*fails with:\s*(?P<text>.*?)\s*-->\s*$")
PLACEHOLDER_URL = "https://api.example.com/v1"
RUNNABLE_KINDS = ("inventory", "play", "tasks", "rulebook")
# What the examples name as already there: (API path, body), created before each example.
PREREQUISITES = (
    *(
        (
            "/ssh-keys",
            {
                "name": name,
                "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q docs@example",
            },
        )
        for name in ("alice", "ci", "deploy")
    ),
    ("/scripts", {"name": "bootstrap", "script": "#!/bin/sh\necho ready\n"}),
    ("/volumes", {"name": "db-data", "size": 50, "type": "NVMe", "location_code": "FIN-01"}),
    ("/volumes", {"name": "datasets", "size": 1000, "type": "NVMe_Shared", "location_code": "FIN-01"}),
)


class Example:
    def __init__(self, page, line, lang, text, not_runnable, fails_with=None):
        self.page = page
        self.line = line
        self.lang = lang
        self.text = text
        self.not_runnable = not_runnable  # the reason, or None
        self.fails_with = fails_with  # what the output of an example showing a refusal holds
        self.kind = kind_of(text)

    @property
    def name(self):
        return f"{self.page.relative_to(COLLECTION)}:{self.line}"


def kind_of(text):
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return "other"
    if isinstance(data, dict) and data.get("plugin") == "cloudcompute.cloud.cloudcompute":
        return "inventory"
    if isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
        if all("sources" in item and "rules" in item for item in data):
            return "rulebook"
        if all("hosts" in item for item in data):
            return "play"
        if all(any("." in key or key in ("block", "include_role") for key in item) for item in data):
            return "tasks"
    return "other"


def read_examples():
    examples = []
    for page in PAGES:
        lines = page.read_text().splitlines()
        index = 0
        while index < len(lines):
            fence = FENCE.match(lines[index])
            if not fence:
                index += 1
                continue
            indent = len(fence["indent"])
            end = next(number for number in range(index + 1, len(lines)) if lines[number].strip().startswith("```"))
            if fence["lang"] in ("yaml", "yaml+jinja"):
                before = [line for line in lines[max(0, index - 2) : index] if line.strip()]
                marker = MARKER.match(before[-1]) if before else None
                failure = FAILS_WITH.match(before[-1]) if before else None
                # a block inside a list item is indented as the item's text
                text = "\n".join(line[indent:] for line in lines[index + 1 : end]) + "\n"
                examples.append(
                    Example(
                        page,
                        index + 1,
                        fence["lang"],
                        text,
                        marker["reason"] if marker else None,
                        failure["text"] if failure else None,
                    )
                )
            index = end + 1
    return examples


EXAMPLES = read_examples()
RUNNABLE = [example for example in EXAMPLES if example.kind in RUNNABLE_KINDS and not example.not_runnable]


def placeholder_vars(emulator):
    """The documented placeholder variables, as the examples' users would set them."""
    return {
        "cloudcompute_client_id": emulator.client_id,
        "vault_cloudcompute_secret": emulator.client_secret,
        "vault_sentiment_db_password": "example-password",
        "emulator_base_url": emulator.base_url,
        "my_fleet": [{"hostname": "web-1"}, {"hostname": "web-2"}],
    }


def rulebook_extra_vars():
    """What ansible-rulebook's run_playbook action passes a playbook as extra variables (its
    ``collect_extra_vars``): ``ansible_eda`` with the rule set, the rule and the matching event,
    here one of the ``cloudcompute.cloud.instances`` source with the ``meta`` ansible-rulebook
    adds. Its description is Jinja, as any project member may write it: an example that
    templated the event would fail on the undefined variable."""
    instance = {
        "id": "0b0c9b7e-6a1f-4c55-9d3e-2f5a1c7d8e90",
        "hostname": "train-2",
        "description": "{{ templated_from_the_event }}",
        "status": "discontinued",
        "is_spot": True,
        "location": "FIN-01",
        "instance_type": "1H100.80S.30V",
        "image": "ubuntu-24.04-cuda-12.8-open-docker",
        "tags": [{"key": "fleet", "value": "train"}],
    }
    event = {
        "change": "status_changed",
        "kind": "instance",
        "instance": instance,
        "previous_status": "running",
        "status": "discontinued",
        "evicted": True,
        "volume_ids": [],
        "meta": {
            "source": {"name": "cloudcompute.cloud.instances", "type": "cloudcompute.cloud.instances"},
            "received_at": "2026-11-28T10:00:00.000000Z",
            "uuid": "5d1f7c2a-3b4e-4f60-8a9b-0c1d2e3f4a5b",
        },
    }
    return {"ansible_eda": {"ruleset": "Spot recovery", "rule": "An evicted spot instance is gone", "event": event}}


def create_prerequisites(emulator):
    session = requests.Session()
    session.headers.update({"Authorization": f"Bearer {emulator.access_token()}", "User-Agent": "docs-examples"})
    for path, body in PREREQUISITES:
        response = session.post(emulator.api_url + path, json=body, timeout=30)
        assert response.status_code in (200, 201, 202), (path, response.status_code, response.text)


@pytest.fixture
def scratch_home(tmp_path):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "docs@example", "-f", str(home / ".ssh" / "id_ed25519")],
        check=True,
    )
    return home


def example_environment(emulator, home, workdir):
    return dict(
        os.environ,
        HOME=str(home),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        ANSIBLE_LOCALHOST_WARNING="0",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="0",
        CLOUDCOMPUTE_API_URL=emulator.api_url,
        CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
        CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
        CLOUDCOMPUTE_TOKEN_CACHE=str(workdir / "tokens"),
        # async tasks (the fleet role) and async_status must agree on it whatever HOME is
        ANSIBLE_ASYNC_DIR=str(workdir / "async"),
    )


def run(command, env, workdir, fails_with=None):
    result = subprocess.run(command, env=env, cwd=workdir, capture_output=True, text=True, timeout=600, check=False)
    if fails_with is not None:
        assert result.returncode != 0 and fails_with in result.stdout + result.stderr, result.stdout[-8000:]
        return result
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout[-8000:]}\n{result.stderr[-4000:]}"
    return result


def run_playbook(example, emulator, home, workdir):
    text = example.text.replace(PLACEHOLDER_URL, emulator.api_url)
    if example.kind == "tasks":
        tasks = yaml.safe_load(text)
        play = [{"name": f"Example {example.name}", "hosts": "localhost", "gather_facts": False, "tasks": tasks}]
        text = yaml.safe_dump(play, sort_keys=False)
    playbook = workdir / "example.yml"
    playbook.write_text(text)
    extra_vars = workdir / "vars.json"
    extra_vars.write_text(json.dumps(placeholder_vars(emulator)))
    command = [str(BIN / "ansible-playbook"), str(playbook), "-i", "localhost,", "-c", "local", "-e", f"@{extra_vars}"]
    if "ansible_eda" in text:
        rulebook_vars = workdir / "rulebook_vars.json"
        rulebook_vars.write_text(json.dumps(rulebook_extra_vars()))
        command += ["-e", f"@{rulebook_vars}"]
    run(command, example_environment(emulator, home, workdir), workdir, fails_with=example.fails_with)


def run_inventory(example, emulator, control, home, workdir):
    # hosts to group: one carrying a role tag, one without any (a keyed group must cope)
    control.seed(instances=1, tags={"role": "web", "env": "prod"}, hostname_prefix="web")
    control.seed(instances=1, hostname_prefix="untagged")
    source = workdir / "example.cloudcompute.yml"
    source.write_text(example.text.replace(PLACEHOLDER_URL, emulator.api_url))
    env = example_environment(emulator, home, workdir)
    result = run([str(BIN / "ansible-inventory"), "-i", str(source), "--list"], env, workdir)
    assert "[WARNING]" not in result.stderr, result.stderr
    listing = json.loads(result.stdout)
    assert listing["_meta"]["hostvars"], f"{example.name} listed no host"


def check_rulebook(example, workdir):
    # ansible-rulebook's own schema and parser (conditions included), in its Python
    check = (
        "import sys, yaml\n"
        "from ansible_rulebook import rules_parser\n"
        "from ansible_rulebook.validators import Validate\n"
        "data = yaml.safe_load(open(sys.argv[1]))\n"
        "Validate.rulebook(data)\n"
        "assert rules_parser.parse_rule_sets(data)\n"
    )
    rulebook = workdir / "rulebook.yml"
    rulebook.write_text(example.text)
    run([sys.executable, "-c", check, str(rulebook)], dict(os.environ), workdir)


@pytest.mark.parametrize("example", RUNNABLE, ids=[example.name for example in RUNNABLE])
def test_documented_example_runs(example, emulator, control, scratch_home, tmp_path):
    create_prerequisites(emulator)
    if example.kind == "inventory":
        run_inventory(example, emulator, control, scratch_home, tmp_path)
    elif example.kind == "rulebook":
        check_rulebook(example, tmp_path)
    else:
        run_playbook(example, emulator, scratch_home, tmp_path)


def test_examples_are_found_and_every_exception_says_why():
    assert len(RUNNABLE) >= 20, [example.name for example in RUNNABLE]
    for example in EXAMPLES:
        if example.not_runnable is not None:
            assert example.kind in RUNNABLE_KINDS, f"{example.name}: a marker on a block that would not run anyway"
            assert len(example.not_runnable) > 15, f"{example.name}: the marker gives no reason"


def test_one_page_says_how_to_install_and_start_the_emulator():
    """The guides start the emulator one way, in one place; the others link there."""
    starting = [
        page.relative_to(COLLECTION).as_posix()
        for page in PAGES
        if re.search(r"^\S*cloudcompute-emulator (--|\S+ --)", page.read_text(), re.MULTILINE)
    ]
    assert starting == ["docs/testing-with-the-emulator.md"]
