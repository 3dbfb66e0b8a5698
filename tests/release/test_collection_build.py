"""The built collection: what the tarball holds, and that the installed copy works on its own.

The tarball is built by ansible-galaxy from the checkout's git-visible files plus planted
development leftovers (see ``tests/conftest.py``), so these tests see what a maintainer's
``ansible-galaxy collection build`` would ship.
"""

import fnmatch
import json
import pathlib
import subprocess
import sys
import tarfile
import textwrap

import yaml

BIN = pathlib.Path(sys.executable).parent
# Development tooling that must never be in the tarball, whatever build_ignore says.
NEVER_SHIPPED = (
    "emulator/",
    "tools/",
    "bench/",
    ".venv",
    ".tmp/",
    ".ci/",
    ".cache/",
    "tests/output/",
    "docs/site/",
    "docs/sphinx/",
    "dist/",
    "tests/integration/inventory",
    "ee/",
    "requirements-dev",
    "Makefile",
    "CONTRIBUTING.md",
    "changelogs/.plugin-cache.yaml",
)
MUST_SHIP = (
    "README.md",
    "meta/runtime.yml",
    "meta/execution-environment.yml",
    "requirements.txt",
    "bindep.txt",
    "plugins/modules/ssh_key.py",
    "plugins/inventory/cloudcompute.py",
    "plugins/module_utils/_api.py",
    "plugins/doc_fragments/common.py",
    "changelogs/changelog.yaml",
    "changelogs/config.yaml",
    "docs/awx.md",
    "docs/awx/credential_type_inputs.yml",
    "docs/awx/credential_type_injectors.yml",
    "docs/awx/cloudcompute.yml",
    "MANIFEST.json",
    "FILES.json",
)


def tarball_files(tarball):
    with tarfile.open(tarball) as archive:
        return sorted(member.name for member in archive.getmembers() if member.isfile())


def ignored(path, patterns):
    """ansible-galaxy's build_ignore: a pattern matches a file or any directory above it."""
    parts = path.split("/")
    candidates = ["/".join(parts[:length]) for length in range(1, len(parts) + 1)]
    return any(fnmatch.fnmatch(candidate, pattern) for candidate in candidates for pattern in patterns)


def test_tarball_leaves_development_files_out(collection_tarball):
    shipped = tarball_files(collection_tarball)
    leaked = [path for path in shipped if path.startswith(NEVER_SHIPPED)]
    assert not leaked, f"development files in the tarball: {leaked}"
    missing = [path for path in MUST_SHIP if path not in shipped]
    assert not missing, f"missing from the tarball: {missing}"


def test_tarball_ships_every_collection_file(collection_source, collection_tarball):
    """Exactly the git-visible files that build_ignore keeps, nothing more, nothing less."""
    galaxy = yaml.safe_load((collection_source / "galaxy.yml").read_text())
    expected = sorted(
        str(path.relative_to(collection_source))
        for path in collection_source.rglob("*")
        if path.is_file()
        and not ignored(str(path.relative_to(collection_source)), galaxy["build_ignore"])
        and "__pycache__" not in path.parts
        and path.name != "galaxy.yml"
    )
    shipped = [path for path in tarball_files(collection_tarball) if path not in ("MANIFEST.json", "FILES.json")]
    assert shipped == expected


def test_manifest_matches_galaxy_yml(collection_source, collection_tarball):
    galaxy = yaml.safe_load((collection_source / "galaxy.yml").read_text())
    with tarfile.open(collection_tarball) as archive:
        manifest = json.load(archive.extractfile("MANIFEST.json"))["collection_info"]
    for key in ("namespace", "name", "version", "license", "dependencies", "repository"):
        assert manifest[key] == galaxy[key], key
    assert collection_tarball.name == "cloudcompute-cloud-{}.tar.gz".format(galaxy["version"])


SMOKE_PLAYBOOK = textwrap.dedent("""\
    - name: Smoke test of the installed collection
      hosts: localhost
      gather_facts: false
      vars:
        key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q smoke@test
      tasks:
        - name: Register a key
          cloudcompute.cloud.ssh_key:
            name: smoke-key
            public_key: "{{ key }}"
          register: created

        - name: Register it again
          cloudcompute.cloud.ssh_key:
            name: smoke-key
            public_key: "{{ key }}"
          register: again

        - name: Read it back
          cloudcompute.cloud.ssh_key_info:
            name: smoke-key
          register: found

        - name: Delete it
          cloudcompute.cloud.ssh_key:
            name: smoke-key
            state: absent
          register: deleted

        - name: The installed modules did their job
          ansible.builtin.assert:
            that:
              - created is changed
              - again is not changed
              - found.ssh_keys | map(attribute='id') | list == [created.ssh_key.id]
              - deleted is changed
    """)


def test_installed_collection_runs_a_playbook(installed_collection, emulator, control, ansible_env, tmp_path):
    """ssh_key create/delete against the emulator, from the installed copy alone."""
    (tmp_path / "smoke.yml").write_text(SMOKE_PLAYBOOK)
    env = ansible_env(
        ANSIBLE_COLLECTIONS_PATH=installed_collection,
        ANSIBLE_COLLECTIONS_SCAN_SYS_PATH="false",
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        CLOUDCOMPUTE_API_URL=emulator.api_url,
        CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
        CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
        CLOUDCOMPUTE_TOKEN_CACHE=tmp_path / "tokens",
    )
    result = subprocess.run(
        [str(BIN / "ansible-playbook"), "-vvv", "smoke.yml"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-10000:] + result.stderr[-3000:]
    installed = installed_collection / "ansible_collections" / "cloudcompute" / "cloud"
    module_files = {
        line.split("Using module file ", 1)[1].strip()
        for line in result.stdout.splitlines()
        if "Using module file " in line
    }
    assert module_files == {
        str(installed / "plugins" / "modules" / "ssh_key.py"),
        str(installed / "plugins" / "modules" / "ssh_key_info.py"),
    }
    assert emulator.client_secret not in result.stdout + result.stderr

    listing = subprocess.run(
        [str(BIN / "ansible-galaxy"), "collection", "list", "cloudcompute.cloud", "--format", "json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert list(json.loads(listing.stdout)) == [str(installed_collection / "ansible_collections")]


def test_installed_collection_documents_its_plugins(installed_collection, ansible_env, tmp_path):
    env = ansible_env(ANSIBLE_COLLECTIONS_PATH=installed_collection, ANSIBLE_COLLECTIONS_SCAN_SYS_PATH="false")
    for plugin_type, name in (
        ("module", "cloudcompute.cloud.instance"),
        ("inventory", "cloudcompute.cloud.cloudcompute"),
    ):
        result = subprocess.run(
            [str(BIN / "ansible-doc"), "--json", "-t", plugin_type, name],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        doc = json.loads(result.stdout)[name]["doc"]
        assert doc["short_description"], name
        assert "client_secret" in doc["options"], name
