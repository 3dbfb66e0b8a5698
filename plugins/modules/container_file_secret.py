#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: container_file_secret
short_description: Manage file secrets that serverless deployments mount as files
version_added: 0.1.0
description:
  - Create and delete the named file secrets of a Cloud Compute project. A container deployment
    mounts one by name with a C(volume_mounts) entry of C(type=secret) and C(secret_name)
    (see M(cloudcompute.cloud.container_deployment)).
  - The API never returns the files' contents and cannot change them. An existing file secret is
    left alone unless O(update_secret=always), which deletes it and creates it again on every run.
  - Contents are never returned, logged or shown in a diff; the result lists the file names only.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  name:
    description:
      - Name of the file secret, its identity. 1 to 63 characters of lowercase letters, digits and
        hyphens, starting with a letter; checked before any request. Secrets and file secrets
        share one set of names.
    type: str
    required: true
  files:
    description:
      - The files, as a mapping of file name (a base name, no directory) to its text content.
      - One of O(files) and O(src) is required with O(state=present). At most 1 MiB of content in all.
    type: dict
  src:
    description:
      - A file, or a directory whose regular files (not its subdirectories) make up the secret,
        read on the host the task runs on (the controller for a C(localhost) play).
    type: path
  state:
    description:
      - V(present) creates the file secret when it does not exist; V(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  update_secret:
    description:
      - V(on_create) sets the files only when the file secret is created; an existing one is kept
        as it is (the API cannot tell whether its files differ).
      - V(always) replaces an existing file secret on every run (reported as changed). While a
        deployment uses it, this needs O(force=true).
    type: str
    choices: [on_create, always]
    default: on_create
  force:
    description:
      - Delete (or replace) the file secret even while a deployment uses it; the deployment keeps
        running with what it had. Without it the API refuses, and the error names the deployment.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: The TLS key and certificate of the service, from the controller
  cloudcompute.cloud.container_file_secret:
    name: sentiment-tls
    src: "{{ playbook_dir }}/files/tls"

- name: A configuration file given inline
  cloudcompute.cloud.container_file_secret:
    name: sentiment-config
    files:
      config.yaml: "{{ lookup('ansible.builtin.template', 'config.yaml.j2') }}"
    update_secret: always
    force: true
"""

RETURN = r"""
container_file_secret:
  description: The file secret as the API lists it (never the contents); empty after O(state=absent).
  returned: always
  type: dict
  contains:
    name:
      description: Name of the file secret.
      type: str
      sample: sentiment-tls
    created_at:
      description: When it was created (null in check mode for one not created yet).
      type: str
      sample: "2026-11-24T17:40:00Z"
    secret_type:
      description: Always V(file-secret).
      type: str
      sample: file-secret
    file_names:
      description: Names of its files.
      type: list
      elements: str
      sample: [tls.crt, tls.key]
"""

import base64
import pathlib

from ansible.module_utils.common.text.converters import to_bytes

from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule, ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._secrets import SECRET_OPTIONS, SecretRecord

MAX_CONTENT_BYTES = 1024 * 1024


def read_src(src):
    """{file name: bytes} of a file, or of a directory's regular files."""
    source = pathlib.Path(src)
    if source.is_dir():
        files = [path for path in sorted(source.iterdir()) if path.is_file()]
    elif source.is_file():
        files = [source]
    else:
        raise ModuleFailure(f"src {src} is neither a file nor a directory")
    if not files:
        raise ModuleFailure(f"src {src} holds no files")
    return {path.name: path.read_bytes() for path in files}


class FileSecret(SecretRecord):
    key = "container_file_secret"
    kind = "file_secret"

    def validate(self):
        super().validate()
        if self.params["state"] != "present":
            return
        if self.params["src"]:
            self.contents = read_src(self.params["src"])
        else:
            self.contents = dict((name, to_bytes(content or "")) for name, content in self.params["files"].items())
        bad = ", ".join(repr(name) for name in sorted(self.contents) if not name or "/" in name or name in (".", ".."))
        if bad:
            raise ModuleFailure(f"file names must be base names without a directory: {bad}")
        if not self.contents:
            raise ModuleFailure("files is empty: give at least one file")
        size = sum(len(content) for content in self.contents.values())
        if size > MAX_CONTENT_BYTES:
            raise ModuleFailure(f"the files hold {size} bytes; a file secret holds at most {MAX_CONTENT_BYTES}")

    def body(self):
        return {
            "name": self.name,
            "files": [
                {"file_name": file_name, "base64_content": base64.b64encode(content).decode("ascii")}
                for file_name, content in sorted(self.contents.items())
            ],
        }

    def predicted(self, current=None):
        return dict(super().predicted(), secret_type="file-secret", file_names=sorted(self.contents))


def main():
    module = CloudComputeModule(
        argument_spec=dict(SECRET_OPTIONS, files=dict(type="dict", no_log=True), src=dict(type="path")),
        mutually_exclusive=[("files", "src")],
        required_if=[("state", "present", ("files", "src"), True)],
    )
    FileSecret(module).run()


if __name__ == "__main__":
    main()
