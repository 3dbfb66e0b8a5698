"""Write docs/docsite/rst/<name>.rst from docs/<name>.md for every page extra-docs.yml lists
(pandoc and tools/guide_to_rst.lua), or with --check, fail naming the pages whose committed
.rst differs from what the Markdown gives. Usage: guides_rst.py [--check] <collection root>"""

import os
import subprocess
import sys
import tempfile

import yaml

TOOLS = os.path.dirname(os.path.abspath(__file__))


def pages(root):
    with open(os.path.join(root, "docs", "docsite", "extra-docs.yml")) as stream:
        sections = yaml.safe_load(stream)["sections"]
    return [name for section in sections for name in section["toctree"]]


def convert(root, name, destination):
    subprocess.run(["pandoc", "--from", "gfm", "--to", "rst", "--columns", "100",
                    "--lua-filter", os.path.join(TOOLS, "guide_to_rst.lua"),
                    "--output", destination, os.path.join(root, "docs", name + ".md")], check=True)


def main(argv):
    check = "--check" in argv
    root = [arg for arg in argv if arg != "--check"][0]
    rst = os.path.join(root, "docs", "docsite", "rst")
    stale = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in pages(root):
            fresh = os.path.join(scratch, name + ".rst")
            convert(root, name, fresh)
            committed = os.path.join(rst, name + ".rst")
            with open(fresh) as stream:
                text = stream.read()
            if check:
                if not os.path.exists(committed) or open(committed).read() != text:
                    stale.append(committed)
            else:
                os.makedirs(rst, exist_ok=True)
                with open(committed, "w") as stream:
                    stream.write(text)
    if stale:
        sys.exit("out of date (run make docs and commit the result): " + ", ".join(stale))


if __name__ == "__main__":
    main(sys.argv[1:])
