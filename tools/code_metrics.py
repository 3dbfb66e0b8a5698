"""Size and repetition of the collection's Python code (plugins/), for before/after comparisons.

Prints:

- code lines: lines of Python that are neither blank, nor comments, nor documentation (docstrings,
  any other statement that is only a string, the DOCUMENTATION, EXAMPLES and RETURN strings of a
  plugin, and every string attribute of a doc fragment), in total and per directory;
- repeated runs: every run of at least --min-lines consecutive code lines (compared with their
  indentation stripped) that two different files share, as ``file:lines ~ file:lines``; counted
  in all, and separately between two files of plugins/modules/;
- the largest functions: qualified name, file and code lines (nested functions included).

Usage (stdlib only; any Python 3.9+):

    .venv/bin/python tools/code_metrics.py                 # the working tree
    .venv/bin/python tools/code_metrics.py --rev cd952c8   # a commit, read with git archive
    .venv/bin/python tools/code_metrics.py --rev cd952c8 --formatted

--formatted measures the files as tools/format.sh leaves them (formatted in a scratch copy), so
that code written before the formatter and code written after it compare on one layout.
"""

from __future__ import annotations

import argparse
import ast
import collections
import io
import pathlib
import subprocess
import sys
import tarfile
import tempfile
import tokenize
from dataclasses import dataclass

REPO = pathlib.Path(__file__).resolve().parent.parent
SCOPE = "plugins"
MODULES_DIR = "plugins/modules/"
DOC_FRAGMENTS_DIR = "plugins/doc_fragments/"
# The module and plugin documentation Ansible reads (ansible-doc), not code.
DOC_CONSTANTS = {"DOCUMENTATION", "EXAMPLES", "RETURN"}
NOT_CODE_TOKENS = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                   tokenize.ENCODING, tokenize.ENDMARKER}


@dataclass
class SourceFile:
    path: str  # relative to the repository root
    text: str

    def __post_init__(self) -> None:
        self.tree = ast.parse(self.text, filename=self.path)
        self.code_line_numbers = sorted(self._token_lines() - self._documentation_lines())
        lines = self.text.splitlines()
        # what is compared between files: each code line without its indentation
        self.normalized = [lines[number - 1].strip() for number in self.code_line_numbers]

    def _token_lines(self) -> set[int]:
        numbers: set[int] = set()
        for token in tokenize.generate_tokens(io.StringIO(self.text).readline):
            if token.type not in NOT_CODE_TOKENS:
                numbers.update(range(token.start[0], token.end[0] + 1))
        return numbers

    def _documentation_lines(self) -> set[int]:
        numbers: set[int] = set()
        in_doc_fragment = self.path.startswith(DOC_FRAGMENTS_DIR)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Expr) and _is_string(node.value):
                numbers.update(range(node.lineno, node.end_lineno + 1))
            elif isinstance(node, ast.Assign) and _is_string(node.value):
                names = {target.id for target in node.targets if isinstance(target, ast.Name)}
                if names & DOC_CONSTANTS or in_doc_fragment:
                    numbers.update(range(node.lineno, node.end_lineno + 1))
        return numbers

    def functions(self):
        """(qualified name, code lines) of every function and method, nested ones too."""
        code = set(self.code_line_numbers)

        def visit(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = prefix + child.name
                    if not isinstance(child, ast.ClassDef):
                        yield name, len(code.intersection(range(child.lineno, child.end_lineno + 1)))
                    yield from visit(child, name + ".")
                else:
                    yield from visit(child, prefix)

        return visit(self.tree, "")


def _is_string(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def read_working_tree() -> list[tuple[str, str]]:
    return [(str(path.relative_to(REPO)), path.read_text(encoding="utf-8")) for path in sorted((REPO / SCOPE).rglob("*.py"))]


def formatted(sources: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The files as tools/format.sh leaves them (in a scratch tree: the files here are not touched)."""
    with tempfile.TemporaryDirectory(prefix="code-metrics-") as tree:
        for path, text in sources:
            (pathlib.Path(tree) / path).parent.mkdir(parents=True, exist_ok=True)
            (pathlib.Path(tree) / path).write_text(text, encoding="utf-8")
        # the formatter's own verdict on what it could not fix is not a measurement: ignore it
        subprocess.run([str(REPO / "tools" / "format.sh"), tree], stdout=subprocess.DEVNULL, check=False)
        return [(path, (pathlib.Path(tree) / path).read_text(encoding="utf-8")) for path, _ in sources]


def read_revision(revision: str) -> list[tuple[str, str]]:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", revision, SCOPE],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        sys.exit(f"git archive {revision} {SCOPE}: {archive.stderr.decode(errors='replace').strip()}")
    files = []
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        for member in sorted(tar.getmembers(), key=lambda member: member.name):
            if member.isfile() and member.name.endswith(".py"):
                files.append((member.name, tar.extractfile(member).read().decode("utf-8")))
    return files


@dataclass(frozen=True)
class RepeatedRun:
    first: SourceFile
    first_start: int  # index into first.code_line_numbers
    second: SourceFile
    second_start: int
    length: int

    def describe(self) -> str:
        def where(source, start):
            numbers = source.code_line_numbers
            return f"{source.path}:{numbers[start]}-{numbers[start + self.length - 1]}"

        return f"{where(self.first, self.first_start)} ~ {where(self.second, self.second_start)} ({self.length} lines)"

    @property
    def between_modules(self) -> bool:
        return self.first.path.startswith(MODULES_DIR) and self.second.path.startswith(MODULES_DIR)


def repeated_runs(files: list[SourceFile], min_lines: int) -> list[RepeatedRun]:
    """Every maximal run of at least min_lines equal code lines shared by two different files."""
    windows = collections.defaultdict(list)
    for file_index, source in enumerate(files):
        for start in range(len(source.normalized) - min_lines + 1):
            windows[tuple(source.normalized[start:start + min_lines])].append((file_index, start))
    runs = []
    for places in windows.values():
        for position, (first_index, first_start) in enumerate(places):
            for second_index, second_start in places[position + 1:]:
                if first_index == second_index:
                    continue
                first, second = files[first_index].normalized, files[second_index].normalized
                # count a run once, from its first line
                if first_start and second_start and first[first_start - 1] == second[second_start - 1]:
                    continue
                length = min_lines
                while (first_start + length < len(first) and second_start + length < len(second)
                       and first[first_start + length] == second[second_start + length]):
                    length += 1
                runs.append(RepeatedRun(files[first_index], first_start, files[second_index], second_start, length))
    return sorted(runs, key=lambda run: (run.first.path, run.first_start, run.second.path, run.second_start))


def report(files: list[SourceFile], min_lines: int, largest: int) -> str:
    out = []
    per_directory = collections.Counter()
    for source in files:
        per_directory[str(pathlib.PurePosixPath(source.path).parent)] += len(source.code_line_numbers)
    out.append(f"code lines in {SCOPE}/ (no blank lines, comments, docstrings or plugin documentation): "
               f"{sum(per_directory.values())} in {len(files)} files")
    for directory, count in sorted(per_directory.items()):
        out.append(f"  {directory + '/':<28} {count:6}")

    runs = repeated_runs(files, min_lines)
    between_modules = [run for run in runs if run.between_modules]
    out.append(f"\nrepeated runs of {min_lines}+ code lines between two files: {len(runs)} "
               f"({sum(run.length for run in runs)} lines); between two modules: {len(between_modules)}")
    out.extend("  " + run.describe() for run in runs)

    functions = sorted(((lines, name, source.path) for source in files for name, lines in source.functions()),
                       reverse=True)
    out.append("\nlargest functions (code lines):")
    out.extend(f"  {lines:5}  {name}  ({path})" for lines, name, path in functions[:largest])
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", metavar="REV", help="measure this git revision instead of the working tree")
    parser.add_argument("--min-lines", type=int, default=6, help="shortest repeated run reported (default 6)")
    parser.add_argument("--largest", type=int, default=5, metavar="N", help="how many of the largest functions (default 5)")
    parser.add_argument("--formatted", action="store_true", help="measure the files as tools/format.sh leaves them")
    args = parser.parse_args(argv)
    sources = read_revision(args.rev) if args.rev else read_working_tree()
    if args.formatted:
        sources = formatted(sources)
    files = [SourceFile(path, text) for path, text in sources]
    print(f"{SCOPE}/ at {args.rev or 'the working tree'}{', formatted by tools/format.sh' if args.formatted else ''}")
    print(report(files, args.min_lines, args.largest))


if __name__ == "__main__":
    main()
