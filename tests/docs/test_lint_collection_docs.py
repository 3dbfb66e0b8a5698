"""antsibull-docs' own checks of the collection documentation: the plugin docs too (schema,
markup, the RST they turn into) and their references into ansible.builtin. Offline: it reads the
docs with the ansible-doc of this toolchain."""

import pathlib
import subprocess
import sys

BIN = pathlib.Path(sys.executable).parent
COLLECTION = pathlib.Path(__file__).resolve().parents[2]


def test_lint_collection_docs_with_plugin_docs():
    result = subprocess.run(
        [
            str(BIN / "antsibull-docs"),
            "lint-collection-docs",
            "--plugin-docs",
            "--validate-collection-refs",
            "dependent",
            ".",
        ],
        cwd=COLLECTION,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr
