# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Sphinx configuration of the documentation site (``make docs``, tools/docs.sh).

The module and plugin reference comes from antsibull-docs, the guides from docs/*.md (MyST).
The site is built offline: instead of intersphinx (which downloads Ansible's inventory), the
few references into the Ansible documentation are resolved to docs.ansible.com by the rules
below; any other unresolved reference stays a warning, and warnings fail the build.
"""

from __future__ import annotations

import re

from docutils import nodes

project = "cloudcompute.cloud"
copyright = "cloudcompute.cloud contributors"  # pylint: disable=redefined-builtin
title = "cloudcompute.cloud"
html_short_title = "cloudcompute.cloud"
html_title = "cloudcompute.cloud documentation"

extensions = ["sphinx_antsibull_ext", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]

pygments_style = "ansible"
highlight_language = "YAML+Jinja"
default_role = "any"
nitpicky = True
myst_heading_anchors = 3

html_theme = "sphinx_ansible_theme"
html_theme_options = {
    "documentation_home_url": "index.html",
    "topbar_links": {
        "Repository": "https://github.com/cloudcompute/cloudcompute.cloud",
        "Issues": "https://github.com/cloudcompute/cloudcompute.cloud/issues",
    },
    "show_extranav": False,
    "show_rtd_ethical_ads": False,
}
html_show_sphinx = False
html_copy_source = False
html_use_index = False
display_version = False

ANSIBLE_DOCS = "https://docs.ansible.com/projects/ansible/devel/"
# Labels of the Ansible documentation that antsibull-docs output refers to.
ANSIBLE_LABELS = {
    "common_return_values": "reference_appendices/common_return_values.html",
    "ansible_configuration_settings": "reference_appendices/config.html",
}
# ansible_collections.<namespace>.<collection>.<plugin>_<type>, for collections not in this site.
COLLECTION_PLUGIN_LABEL = re.compile(r"^ansible_collections\.(\w+)\.(\w+)\.(\w+)$")


def ansible_docs_url(domain, reftype, target):
    """The docs.ansible.com URL of a reference into the Ansible documentation, or None."""
    if domain == "std" and reftype in ("ref", "any") and target in ANSIBLE_LABELS:
        return ANSIBLE_DOCS + ANSIBLE_LABELS[target]
    if domain == "std" and reftype in ("ref", "any"):
        match = COLLECTION_PLUGIN_LABEL.match(target)
        if match and match.group(1, 2) != ("cloudcompute", "cloud"):
            return ANSIBLE_DOCS + "collections/%s/%s/%s.html" % match.group(1, 2, 3)
    if domain == "std" and reftype == "envvar" and target.startswith("ANSIBLE_"):
        return ANSIBLE_DOCS + "reference_appendices/config.html#envvar-" + target
    return None


def resolve_ansible_reference(app, env, node, contnode):  # pylint: disable=unused-argument
    """``missing-reference`` handler: link what belongs to docs.ansible.com there."""
    url = ansible_docs_url(node.get("refdomain") or "std", node.get("reftype"), node.get("reftarget", ""))
    if url is None:
        return None
    reference = nodes.reference("", "", internal=False, refuri=url)
    if node.get("refexplicit") or contnode is not None:
        reference += contnode
    else:
        reference += nodes.Text(node["reftarget"])
    return reference


def setup(app):
    app.connect("missing-reference", resolve_ansible_reference)
