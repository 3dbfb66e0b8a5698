# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the serverless secret modules (container_secret, container_file_secret,
container_registry_credential, serverless_secret_info) share.

These records are named, not numbered, and the API never returns or updates a value: a create
answers with an empty body, and the only way to change a value is to delete the record and
create it again. So an existing record is left alone unless the user asks for
``update_secret: always``, and a diff can only say that the value changed, never what it is.
"""

import re

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import NAME
from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import hinted
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import Resource, Step

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9-]{0,62}$")

# What a diff shows in place of a value the API never returns.
VALUE_KEPT = "(unchanged, not shown)"
VALUE_REPLACED = "(value changed, not shown)"

SECRET_OPTIONS = dict(
    name=dict(type="str", required=True),
    state=dict(type="str", choices=["present", "absent"], default="present"),
    update_secret=dict(type="str", choices=["on_create", "always"], default="on_create", no_log=False),
    force=dict(type="bool", default=False),
)

# kind (serverless_secret_info) -> collection path and, where the list mixes kinds, the
# ``secret_type`` of this kind's records.
KINDS = {
    "secret": ("/secrets", "generic"),
    "file_secret": ("/file-secrets", None),
    "registry_credential": ("/container-registry-credentials", None),
}
# The API refuses to delete a record a deployment uses, unless forced.
IN_USE_HINTS = {
    409: "set force: true to delete it while a deployment uses it (the deployment keeps running with what it had)"
}


def check_name(name):
    if not NAME_PATTERN.match(name or ""):
        raise ModuleFailure(
            f"name {name!r} is not valid: 1 to 63 characters of lowercase letters, digits and hyphens, "
            "starting with a letter"
        )


def list_records(client, kind):
    collection, secret_type = KINDS[kind]
    records = client.get_list(collection)
    if secret_type is not None:
        records = [record for record in records if record.get("secret_type") == secret_type]
    return records


class SecretRecord(Resource):
    """One named secret, file secret or registry credential, kept as ``state`` and
    ``update_secret`` ask. Subclasses set ``key`` and ``kind`` and build the create ``body()``.

    A record is found by its name in the list of its kind; it has no update: with
    ``update_secret: always`` the plan replaces it (delete, then create, as the name is its
    identity), otherwise an existing record is left alone."""

    kind = None  # a key of KINDS
    id_field = "name"
    id_kind = NAME

    def __init__(self, module):
        super().__init__(module)
        self.name = self.params["name"]
        self.path = KINDS[self.kind][0]

    def validate(self):
        """Refuse what can be refused locally, before any request; subclasses add their fields."""
        check_name(self.name)

    def body(self):
        """The create request's body (values included)."""
        raise NotImplementedError

    def find(self):
        # Tasks on this machine creating the same name wait for each other from their lookup to
        # the confirmed create, so the second one finds the first one's record, not a conflict.
        if self.params["state"] == "present":
            self.hold_create_lock(self.name)
        record = self.find_record()
        if record is not None:
            self.release_create_lock()
        return record

    def find_record(self):
        return next(
            (record for record in list_records(self.client, self.kind) if record.get("name") == self.name), None
        )

    def field_changes(self, current):
        if self.params["update_secret"] != "always":
            return []
        return [Step("replace", self.replace, self.predicted)]

    def create(self, template=None, exclude_id=None):
        try:
            self.client.create(self.path, self.body(), find_existing=self.find_record, returns_resource=True)
            return self.find_record() or {"name": self.name}
        finally:
            self.release_create_lock()

    def replace(self, current):
        # The API cannot change a value: delete, then create with the new one.
        self.delete(current)
        return self.create()

    def delete_query(self):
        return {"force": str(self.params["force"]).lower()}

    def delete(self, current):
        with hinted(None if self.params["force"] else IN_USE_HINTS):
            super().delete(current)  # gone meanwhile is what we wanted

    def predicted(self, current=None):
        return {"name": self.name, "created_at": None}

    def diff(self, before, after):
        """The name, and whether the value changed: never the value, which the API never returns."""
        replaced = bool(before and after) and self.params["update_secret"] == "always"
        return {
            "before": {"name": self.name, "value": VALUE_KEPT} if before else {},
            "after": {"name": self.name, "value": VALUE_REPLACED if replaced else VALUE_KEPT} if after else {},
        }
