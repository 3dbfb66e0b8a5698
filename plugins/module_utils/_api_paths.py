# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""URL path building.

Every value that goes into a URL path (an id, a name, a tag key, a type code), whether the
user gave it or the API returned it, goes through ``api_path()``: validated for what it is and
percent-encoded as exactly one segment. Without this a value such as ``../ssh-keys`` reads (and
then deletes) another resource, ``?a=b`` adds a query and ``#`` cuts the path. Query values go
through the ``params`` of the request methods, never into the path.

    api_path("/instances", path_value(instance_id, "id"), "tags")
    api_path("/container-deployments", path_value(name, "name", NAME), "status")

Like the rest of the client this file imports nothing from Ansible.
"""

import json
import re
from urllib.parse import quote

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import InvalidPathValue

ID = "id"
NAME = "name"
KEY = "key"
CODE = "code"
PATH_VALUE_RULES = {
    # The API's ids: UUIDs, and a few combined ids of letters, digits and ``_.:-``.
    ID: (re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"), "an id (letters, digits and _.:-)"),
    # Serverless deployment, secret and credential names: DNS labels.
    NAME: (
        re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"),
        "a name of 1 to 63 lowercase letters, digits and hyphens, not starting or ending with a hyphen",
    ),
    # Catalog codes (instance and volume types, locations, templates).
    CODE: (re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,127}$"), "a code (letters, digits and _.:+-)"),
    # Tag keys: any text, encoded; only what cannot be one segment is refused.
    KEY: (re.compile(r"^.{1,255}$", re.S), "a non-empty key of at most 255 characters"),
}


class PathValue:
    """One dynamic segment of an API path: ``value``, what it must be (``ID``, ``NAME``,
    ``CODE``, ``KEY``) and the option to name when it is refused."""

    def __init__(self, value, option, kind=ID):
        self.value = value
        self.option = option
        self.kind = kind

    def encoded(self):
        value = self.value
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise InvalidPathValue(f"{self.option} must be a string, not {type(value).__name__}", self.option)
        value = str(value)
        pattern, description = PATH_VALUE_RULES[self.kind]
        if value in ("", ".", "..") or not pattern.match(value):
            shown = json.dumps(value[:80])
            raise InvalidPathValue(f"{self.option} is not {description}: {shown}", self.option)
        return quote(value, safe="")


def path_value(value, option, kind=ID):
    return PathValue(value, option, kind)


def api_path(*parts):
    """A request path from fixed parts (plain strings written in the code, slashes allowed) and
    ``path_value()`` segments (validated and encoded as one segment each). Raises
    ``InvalidPathValue`` naming the option before anything is sent."""
    segments = []
    for part in parts:
        if isinstance(part, PathValue):
            segments.append(part.encoded())
        else:
            segments.append(str(part).strip("/"))
    return "/" + "/".join(segment for segment in segments if segment)


_ID_PATTERN = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def looks_like_id(value):
    """Resource ids are UUIDs; names given where an id is accepted are anything else."""
    return bool(value) and bool(_ID_PATTERN.match(str(value)))
