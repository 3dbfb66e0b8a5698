#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: audit_log_info
short_description: Read or export the audit log of a Cloud Compute project
version_added: 0.1.0
description:
  - Reads the project's audit log, newest event first, following the API's cursor from page to
    page until O(limit) events are read or no more match.
  - With O(export=true), asks the API for an export of the matching events instead and returns
    its short-lived download link (RV(url), RV(expires_at)); with O(fetch_export=true) it also
    downloads the export and returns its events.
  - Events are CloudEvents 1.0 JSON objects; their C(type) has the form
    C(com.service.api.<producer>.<object_type>.<action>.v1).
  - Only the project owner and members with the admin role may read the audit log; other
    credentials fail with HTTP 403 and a message that says so.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
attributes:
  check_mode:
    details: An export (O(export=true)) only creates a download link; it changes nothing in the project.
options:
  action:
    description:
      - Only events of this action, such as V(create), V(delete), V(start) or V(authenticate).
    type: str
  object_type:
    description:
      - Only events about this type of object, such as V(compute), V(volume), V(ssh_key),
        V(startup_script) or V(cloud_api_credential).
    type: str
  start_date:
    description:
      - Only events at or after this time (RFC 3339, such as V(2026-11-01T00:00:00Z)).
      - An export cannot reach back more than 90 days, and starts 90 days ago when this is not set.
    type: str
  end_date:
    description:
      - Only events at or before this time (RFC 3339).
    type: str
  page_size:
    description:
      - Events per API request, 1 to 100. Fewer, larger pages make fewer requests.
    type: int
    default: 100
  limit:
    description:
      - Stop after this many events (the newest ones). V(0) reads every matching event.
      - When more events match, RV(cursor) tells where to go on.
    type: int
    default: 1000
  cursor:
    description:
      - Go on from this cursor, the RV(cursor) of an earlier run, instead of from the newest event.
    type: str
  export:
    description:
      - Request an export of the matching events (O(action), O(object_type), O(start_date),
        O(end_date)) and return its download link instead of reading pages.
        O(page_size), O(limit) and O(cursor) do not apply.
    type: bool
    default: false
  fetch_export:
    description:
      - With O(export=true), also download the export and return its events in RV(events).
        The link is fetched without the access token.
    type: bool
    default: false
notes:
  - The events an action records, and their C(data), depend on the object type; see the API
    documentation.
"""

EXAMPLES = r"""
- name: The 50 newest events
  cloudcompute.cloud.audit_log_info:
    limit: 50
  register: recent

- name: Every instance deletion since November
  cloudcompute.cloud.audit_log_info:
    object_type: compute
    action: delete
    start_date: "2026-11-01T00:00:00Z"
    limit: 0
  register: deletions

- name: Who deleted them
  ansible.builtin.debug:
    msg: "{{ deletions.events | map(attribute='data.actor_id') | unique | list }}"

- name: Export the last 90 days of SSH key events and keep the link
  cloudcompute.cloud.audit_log_info:
    object_type: ssh_key
    export: true
  register: ssh_key_export

- name: Download the export
  ansible.builtin.get_url:
    url: "{{ ssh_key_export.url }}"
    dest: /tmp/ssh-key-events.json
    mode: "0600"
"""

RETURN = r"""
events:
  description:
    - The matching events, newest first (CloudEvents 1.0).
    - With O(export=true), the events of the export; returned only with O(fetch_export=true).
  returned: unless O(export=true) without O(fetch_export=true)
  type: list
  elements: dict
  contains:
    specversion:
      description: CloudEvents version, V(1.0).
      type: str
    id:
      description: Id of the event.
      type: str
    source:
      description: The project, C(/projects/<project id>).
      type: str
    type:
      description: Kind of event, C(com.service.api.<producer>.<object_type>.<action>.v1).
      type: str
      sample: com.service.api.public-api.ssh_key.create.v1
    subject:
      description: Usually the id of the object the event is about.
      type: str
    time:
      description: When it happened (RFC 3339).
      type: str
    data:
      description: >-
        Details; typically C(location_code), C(request_origin), C(actor_id) and the object
        itself under its type's name (C(compute), C(volume), C(ssh_key), ...).
      type: dict
cursor:
  description: >-
    Where to go on reading (give it as O(cursor)) when more events match than O(limit);
    null when every matching event was read.
  returned: unless O(export=true)
  type: str
url:
  description: Pre-signed, short-lived link to the export, a JSON file of the events.
  returned: when O(export=true)
  type: str
expires_at:
  description: When the link expires (RFC 3339).
  returned: when O(export=true)
  type: str
"""

import json

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import hinted, read, run_info, set_only
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure

MAX_PAGE_SIZE = 100
FILTER_OPTIONS = ("action", "object_type", "start_date", "end_date")
ROLE_HINTS = {
    403: "The audit log can only be read by the project owner or a member with the admin role; "
    "the user of this credential has neither. Use a credential of an owner or admin."
}


def events_of(body):
    """An export file or a page holds the events as a list, or under ``data``."""
    if isinstance(body, str):
        body = json.loads(body) if body.strip() else []
    if isinstance(body, dict):
        body = body.get("data")
    return body if isinstance(body, list) else []


def validate(params):
    if not 1 <= params["page_size"] <= MAX_PAGE_SIZE:
        raise ModuleFailure("page_size must be between 1 and %d" % MAX_PAGE_SIZE)
    if params["limit"] < 0:
        raise ModuleFailure("limit must be 0 (no limit) or more")
    if params["fetch_export"] and not params["export"]:
        raise ModuleFailure("fetch_export needs export: true")


def export(client, params, filters):
    """The link to a file of the events the filters select, and with ``fetch_export`` its events."""
    with hinted(ROLE_HINTS):
        link = client.post("/audit/log/download", json_body=set_only(filters), idempotent=True) or {}
    result = {"url": link.get("url"), "expires_at": link.get("expires_at")}
    if params["fetch_export"]:
        try:
            result["events"] = events_of(client.get_url(result["url"]))
        except ValueError as error:
            raise ModuleFailure("the export at {} is not JSON: {}".format(result["url"], error), **result)
    return result


def read_pages(client, params, filters):
    """The events the filters select, page after page from ``cursor``, up to ``limit``."""
    events, cursor, limit = [], params["cursor"], params["limit"]
    while True:
        size = min(params["page_size"], limit - len(events)) if limit else params["page_size"]
        page = read(client, "/audit/log", query=dict(filters, page_size=size, cursor=cursor), hints=ROLE_HINTS)
        events.extend(events_of(page))
        previous, cursor = cursor, page.get("cursor") if isinstance(page, dict) else None
        if cursor and cursor == previous:
            raise ModuleFailure("the API answered the same cursor twice; stopping after %d events" % len(events))
        if not cursor or (limit and len(events) >= limit):
            return {"events": events, "cursor": cursor}


def read_audit_log(module):
    """The events, or the export, that the options ask for."""
    params = module.params
    validate(params)
    filters = {name: params[name] for name in FILTER_OPTIONS}
    return (export if params["export"] else read_pages)(module.client, params, filters)


def main():
    argument_spec = dict(
        action=dict(type="str"),
        object_type=dict(type="str"),
        start_date=dict(type="str"),
        end_date=dict(type="str"),
        page_size=dict(type="int", default=MAX_PAGE_SIZE),
        limit=dict(type="int", default=1000),
        cursor=dict(type="str"),
        export=dict(type="bool", default=False),
        fetch_export=dict(type="bool", default=False),
    )
    run_info(argument_spec, read_audit_log)


if __name__ == "__main__":
    main()
