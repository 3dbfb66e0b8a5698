"""ee/execution-environment.yml: ansible-builder makes a complete build context of it.

The image itself needs podman or docker. What can be checked without them is checked: the
context ansible-builder creates (Containerfile, the files it copies), and the two stages that
bring the collection in, run here as the Containerfile runs them: the galaxy stage installs the
collection from the context's requirements.yml (no Galaxy), and the builder stage's
introspection finds the collection's Python and system requirements.
"""

import ast
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
import yaml

BIN = pathlib.Path(sys.executable).parent
COLLECTION = pathlib.Path(__file__).resolve().parents[2]


def requirement_lines(path):
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def dev_pin(package):
    for line in requirement_lines(COLLECTION / "requirements-dev.txt"):
        if line.lower().startswith(package + "=="):
            return line
    raise AssertionError(f"{package} is not pinned in requirements-dev.txt")


@pytest.fixture(scope="module")
def definition(collection_source):
    return yaml.safe_load((collection_source / "ee" / "execution-environment.yml").read_text())


@pytest.fixture(scope="module")
def context(collection_source, collection_tarball, ansible_env, tmp_path_factory):
    """`ansible-builder create` of the definition, next to the tarball `make build` would make."""
    tree = tmp_path_factory.mktemp("ee-source")
    (tree / "ee").mkdir()
    shutil.copy2(collection_source / "ee" / "execution-environment.yml", tree / "ee")
    (tree / "dist").mkdir()
    shutil.copy2(collection_tarball, tree / "dist" / "cloudcompute-cloud.tar.gz")
    context = tree / "context"
    result = subprocess.run(
        [
            str(BIN / "ansible-builder"),
            "create",
            "--file",
            str(tree / "ee" / "execution-environment.yml"),
            "--context",
            str(context),
            "--output-filename",
            "Containerfile",
        ],
        env=ansible_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return context


def test_ansible_versions_are_the_tested_ones(definition):
    assert definition["dependencies"]["ansible_core"]["package_pip"] == dev_pin("ansible-core")
    assert definition["dependencies"]["ansible_runner"]["package_pip"] == dev_pin("ansible-runner")


def test_containerfile_is_complete(context, definition):
    containerfile = (context / "Containerfile").read_text()
    assert 'ARG EE_BASE_IMAGE="{}"'.format(definition["images"]["base_image"]["name"]) in containerfile
    assert 'ARG PYCMD="{}"'.format(definition["dependencies"]["python_interpreter"]["python_path"]) in containerfile
    assert (
        'ARG ANSIBLE_INSTALL_REFS="{} {}"'.format(dev_pin("ansible-core"), dev_pin("ansible-runner")) in containerfile
    )
    stages = re.findall(r"^FROM \S+ AS (\w+)$", containerfile, re.MULTILINE)
    assert stages == ["base", "galaxy", "builder", "final"]
    assert re.search(r"^RUN .*ansible-galaxy collection install .*-r requirements.yml", containerfile, re.MULTILINE)
    assert re.search(r"^RUN \$PYCMD /output/scripts/introspect.py introspect ", containerfile, re.MULTILINE)
    assert "LABEL ansible-execution-environment=true" in containerfile
    # every file the Containerfile copies from the context is there
    sources = re.findall(r"^(?:COPY|ADD) (?!--from)(\S+) \S+$", containerfile, re.MULTILINE)
    assert sources
    for source in sources:
        assert (context / source).exists(), f"the Containerfile copies {source}, which is not in the context"


def test_context_installs_the_collection_from_the_tarball(context, collection_tarball):
    requirements = yaml.safe_load((context / "_build" / "requirements.yml").read_text())
    assert requirements == {"collections": [{"name": "collections/cloudcompute-cloud.tar.gz", "type": "file"}]}
    bundled = context / "_build" / "collections" / "cloudcompute-cloud.tar.gz"
    assert bundled.read_bytes() == collection_tarball.read_bytes()


def test_galaxy_and_builder_stages_find_the_collection_requirements(context, collection_source, ansible_env, tmp_path):
    """The galaxy stage's install (WORKDIR /build holds _build), then the builder stage's introspection."""
    collections = tmp_path / "usr-share-ansible-collections"
    result = subprocess.run(
        [
            str(BIN / "ansible-galaxy"),
            "collection",
            "install",
            "--offline",
            "-r",
            "requirements.yml",
            "--collections-path",
            str(collections),
        ],
        cwd=context / "_build",
        env=ansible_env(ANSIBLE_COLLECTIONS_PATH=collections),  # as empty as the image's
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    installed = collections / "ansible_collections" / "cloudcompute" / "cloud"
    assert (installed / "MANIFEST.json").is_file()
    # the metadata ansible-builder introspects ships with the collection and names both files
    metadata = yaml.safe_load((installed / "meta" / "execution-environment.yml").read_text())
    assert metadata["dependencies"] == {"python": "requirements.txt", "system": "bindep.txt"}

    result = subprocess.run(
        [
            sys.executable,
            str(context / "_build" / "scripts" / "introspect.py"),
            "introspect",
            str(collections),
            "--write-pip",
            str(tmp_path / "requirements.txt"),
            "--write-bindep",
            str(tmp_path / "bindep.txt"),
        ],
        env=ansible_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for kind, declared in (("requirements.txt", "requirements.txt"), ("bindep.txt", "bindep.txt")):
        found = requirement_lines(tmp_path / kind)
        expected = [
            f"{line}  # from collection cloudcompute.cloud" for line in requirement_lines(collection_source / declared)
        ]
        assert expected and found == expected, kind


def test_collection_requirements_are_complete(collection_source):
    """requirements.txt names every third-party package the plugins import (the rest is stdlib or ansible)."""
    imported = set()
    for path in (collection_source / "plugins").rglob("*.py"):
        # the import statements themselves, never words of a docstring that happen to start a line
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    third_party = {
        name
        for name in imported
        if name not in sys.stdlib_module_names and name not in ("ansible", "ansible_collections", "__future__")
    }
    declared = {
        re.split(r"[<>=!~; \[]", line)[0].lower() for line in requirement_lines(collection_source / "requirements.txt")
    }
    assert third_party == declared
