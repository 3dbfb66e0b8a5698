"""Release hygiene: the changelog fragments lint, and a release can be cut from them.

The practice (docs/releasing.md): fragments accumulate in changelogs/fragments/ between
releases; ``antsibull-changelog release`` moves them into changelogs/changelog.yaml and writes
CHANGELOG.rst, which is committed with the release. So CHANGELOG.rst exists exactly when a
release does, and it is always antsibull-changelog's output, never edited by hand.
"""

import pathlib
import shutil
import subprocess
import sys

import docutils.core
import docutils.utils
import pytest
import yaml

BIN = pathlib.Path(sys.executable).parent
COLLECTION = pathlib.Path(__file__).resolve().parents[2]


def changelog_tool(*args, cwd, env):
    return subprocess.run(
        [str(BIN / "antsibull-changelog"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def collection_copy(tmp_path):
    """A copy of the collection (the tests run in tools/lib.sh's staged copy of the git-visible
    files) under ansible_collections/cloudcompute/cloud, where ansible-doc finds its plugins."""
    root = tmp_path / "ansible_collections" / "cloudcompute" / "cloud"
    shutil.copytree(COLLECTION, root, ignore=shutil.ignore_patterns("output", "__pycache__"))
    return root


def fragment_entries(fragments_dir):
    """(section, text) of every entry in the fragments, whitespace-normalised."""
    entries = []
    for path in sorted(fragments_dir.glob("*.yml")) + sorted(fragments_dir.glob("*.yaml")):
        for section, content in yaml.safe_load(path.read_text()).items():
            for text in content if isinstance(content, list) else [content]:
                entries.append((section, " ".join(text.split())))
    return entries


def test_fragments_lint(ansible_env):
    result = changelog_tool("lint", cwd=COLLECTION, env=ansible_env())
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_a_release_changelog_is_generated_from_the_fragments(collection_copy, ansible_env):
    galaxy = yaml.safe_load((collection_copy / "galaxy.yml").read_text())
    runtime = yaml.safe_load((collection_copy / "meta" / "runtime.yml").read_text())
    entries = fragment_entries(collection_copy / "changelogs" / "fragments")
    assert entries, "no changelog fragments"
    env = ansible_env(ANSIBLE_COLLECTIONS_PATH=collection_copy.parents[2], ANSIBLE_COLLECTIONS_SCAN_SYS_PATH="false")

    result = changelog_tool("release", "--date", "2026-12-01", cwd=collection_copy, env=env)
    assert result.returncode == 0, result.stdout + result.stderr

    changelog = (collection_copy / "CHANGELOG.rst").read_text()
    flat = " ".join(changelog.split())
    assert "v{}".format(galaxy["version"]) in changelog
    for section, text in entries:
        if section == "trivial":  # antsibull-changelog leaves these out of the release notes by design
            continue
        assert text in flat, f"fragment entry ({section}) missing from CHANGELOG.rst: {text[:80]}"
    for module in runtime["action_groups"]["all"]:
        assert f"- cloudcompute.cloud.{module} - " in changelog, module
    assert "- cloudcompute.cloud.cloudcompute - " in changelog  # the inventory plugin
    # valid reStructuredText: docutils reports nothing at warning level or above
    docutils.core.publish_doctree(
        changelog,
        settings_overrides={
            "halt_level": docutils.utils.Reporter.WARNING_LEVEL,
            "report_level": docutils.utils.Reporter.WARNING_LEVEL,
        },
    )

    # the fragments moved into changelog.yaml, which lints
    assert not list((collection_copy / "changelogs" / "fragments").glob("*.y*ml"))
    changes = yaml.safe_load((collection_copy / "changelogs" / "changelog.yaml").read_text())
    assert str(galaxy["version"]) in changes["releases"]
    result = changelog_tool("lint-changelog-yaml", "changelogs/changelog.yaml", cwd=collection_copy, env=env)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_committed_changelog_is_the_generated_one(collection_copy, ansible_env):
    """CHANGELOG.rst is committed with each release and only then; it is generated, never edited."""
    changes = yaml.safe_load((collection_copy / "changelogs" / "changelog.yaml").read_text())
    committed = collection_copy / "CHANGELOG.rst"
    if not changes.get("releases"):
        assert not committed.exists(), "CHANGELOG.rst exists but changelogs/changelog.yaml has no release"
        return
    assert committed.exists(), "a release is recorded in changelog.yaml but CHANGELOG.rst is missing"
    expected = committed.read_text()
    env = ansible_env(ANSIBLE_COLLECTIONS_PATH=collection_copy.parents[2], ANSIBLE_COLLECTIONS_SCAN_SYS_PATH="false")
    result = changelog_tool("generate", cwd=collection_copy, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert committed.read_text() == expected, "CHANGELOG.rst differs from `antsibull-changelog generate`"
