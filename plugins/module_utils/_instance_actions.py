# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Instance actions (``PUT /instances``), for one instance and for many at once.

The API takes ``id`` as a string (a single action: an error is the response's status, 204 when
the instance already is in the requested state) or as an array (a bulk action: 202 when every
item succeeded, 207 when some failed, each item carrying its own ``status``, ``error`` and
``statusCode``). ``act_on_one`` serves the ``instance`` module, ``act_on_many`` the
``instance_state`` module; both read the per-item results the same way.
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError

PATH = "/instances"
# Per-item failures worth sending again: the API was busy or rate limited, not refusing.
RETRYABLE_ITEM_STATUSES = (409, 429, 500, 502, 503, 504)


class ItemFailure:
    """One instance of a bulk action that the API did not carry out."""

    def __init__(self, instance_id, action, error, status_code):
        self.instance_id = instance_id
        self.action = action
        self.error = error or f"the {action} action failed"
        self.status_code = status_code

    @property
    def retryable(self):
        return self.status_code is None or self.status_code in RETRYABLE_ITEM_STATUSES

    @property
    def not_found(self):
        return self.status_code == 404

    def as_dict(self, hostname=None):
        return {
            "id": self.instance_id,
            "hostname": hostname,
            "action": self.action,
            "status_code": self.status_code,
            "error": self.error,
        }


def item_failures(body, action):
    """The failed items of an action response (a list of per-instance results)."""
    return [
        ItemFailure(item.get("instanceId"), item.get("action") or action, item.get("error"), item.get("statusCode"))
        for item in (body if isinstance(body, list) else [])
        if isinstance(item, dict) and item.get("status") == "error"
    ]


def act_on_one(client, instance_id, action, **fields):
    """One action on one instance; False when the API says it already is in that state (204).
    A refusal raises ``ApiError`` with the API's status and message."""
    response = client.request("PUT", PATH, json_body=dict(fields, action=action, id=instance_id))
    if response.status == 204:
        return False
    for failure in item_failures(response.body, action):
        raise ApiError(failure.error, status=failure.status_code, method="PUT", path=PATH)
    return True


def act_on_many(client, instance_ids, action, **fields):
    """One bulk request for ``action`` on every id; the items that failed (an empty list when
    the API answered 202). The request itself failing (400, 404...) raises ``ApiError``."""
    if not instance_ids:
        return []
    response = client.request("PUT", PATH, json_body=dict(fields, action=action, id=list(instance_ids)))
    failures = item_failures(response.body, action)
    if response.status == 207 and not failures:
        # a 207 names the failed items; one that names none is read as "all failed, unknown why"
        failures = [
            ItemFailure(instance_id, action, "the API reported a partial failure without details", None)
            for instance_id in instance_ids
        ]
    return failures
