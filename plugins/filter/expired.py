# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
name: expired
short_description: Split Cloud Compute resources by their expires-at tag
version_added: 0.1.0
description:
  - Takes a list of instances, clusters or volumes as the C(_info) modules return them and
    returns those whose C(expires-at) tag lies in the past (plus O(grace)), and those whose
    C(expires-at) tag is not a date, each summarised with what it costs per hour.
  - Resources without the tag are in neither list. The role C(cloudcompute.cloud.reaper) is
    built on this filter.
  - The tag holds a UTC timestamp in ISO 8601, as the O(cloudcompute.cloud.instance#module:expires_in)
    and O(cloudcompute.cloud.instance#module:expires_at) options write it; offsets, fractions of a
    second and bare dates (midnight UTC) are read too.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
options:
  _input:
    description: Resources, each with its C(tags) (a list of C({key, value}) or a dict).
    type: list
    elements: dict
    required: true
  kind:
    description: What the resources are.
    type: str
    choices: [instance, cluster, volume]
    required: true
  now:
    description:
      - The moment to compare with, an ISO 8601 timestamp. Defaults to the current time of the
        controller (UTC).
    type: str
  grace:
    description:
      - How long after its expiry a resource is still left alone, a duration such as V(30m),
        V(8h), V(3d) or V(1h30m).
    type: str
    default: 0s
"""

EXAMPLES = r"""
- name: Read the instances
  cloudcompute.cloud.instance_info:
  register: found

- name: Show the instances that expired more than an hour ago
  ansible.builtin.debug:
    msg: "{{ (found.instances | cloudcompute.cloud.expired('instance', grace='1h')).expired | map(attribute='name') }}"
"""

RETURN = r"""
_value:
  description: The resources, sorted.
  type: dict
  contains:
    expired:
      description:
        - The resources whose expiry plus O(grace) is at or before O(now), each with C(kind),
          C(id), C(name) (hostname or volume name), C(location), C(instance_type) (the
          instance, cluster or volume type), C(status), C(price_per_hour) (what deleting it
          saves; 0 when the API no longer charges it), C(tags) (a dict), C(instance_id) (for a
          volume, the instance it is attached to, else null) and C(expires_at) (normalised to
          UTC).
      type: list
      elements: dict
    unreadable:
      description: The resources whose C(expires-at) tag is not a date, summarised the same
        way, with C(expires_at) holding the tag's value and C(reason) saying what is wrong.
      type: list
      elements: dict
"""


import ansible.template
from ansible.errors import AnsibleFilterError

from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost import CHARGED_KINDS
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost_report import UnreadableValue
from ansible_collections.cloudcompute.cloud.plugins.module_utils._expiry import (
    parse_duration,
    parse_timestamp,
    sort_by_expiry,
    utc_now,
)

# ansible-core 2.19 and later never template what a filter returns; older versions template any
# string of it that is not wrapped as unsafe, and the reasons quote the API's values.
API_DATA_TEMPLATED = not hasattr(ansible.template, "trust_as_template")
if API_DATA_TEMPLATED:
    from ansible.utils.unsafe_proxy import wrap_var
else:

    def wrap_var(value):
        return value


def summarised(charged_kind, record):
    """The resource as the report shows it; with a ``reason`` when a field it needs, its price
    above all, cannot be read (the price is then None): a saving is never guessed."""
    reason = record.get("reason")
    try:
        summary = charged_kind.summary(record)
    except UnreadableValue as error:
        reason = f"{reason}; {error}" if reason else str(error)
        try:  # what can be read of it, to name it
            summary = dict(charged_kind.summary(dict(record, **{charged_kind.price_field: 0})), price_per_hour=None)
        except UnreadableValue:
            named = record.get("id")
            summary = {
                "kind": charged_kind.kind,
                "id": named if isinstance(named, str) else None,
                "price_per_hour": None,
            }
    return dict(
        summary,
        instance_id=record.get("instance_id"),
        expires_at=record["expires_at"],
        **({"reason": reason} if reason else {}),
    )


def expired(resources, kind, now=None, grace="0s"):
    if not isinstance(resources, list) or not all(isinstance(item, dict) for item in resources):
        raise AnsibleFilterError("expired expects a list of resources (dictionaries)")
    if kind not in CHARGED_KINDS:
        raise AnsibleFilterError("expired: kind must be one of {}, not {!r}".format(", ".join(CHARGED_KINDS), kind))
    try:
        moment = parse_timestamp(now) if now else utc_now()
        grace_seconds = parse_duration(grace)
    except ValueError as error:
        raise AnsibleFilterError(f"expired: {error}")
    found, unreadable = sort_by_expiry(resources, moment, grace_seconds)
    charged_kind = CHARGED_KINDS[kind]
    result = {"expired": [], "unreadable": [summarised(charged_kind, record) for record in unreadable]}
    for record in found:
        summary = summarised(charged_kind, record)
        result["unreadable" if "reason" in summary else "expired"].append(summary)
    return wrap_var(result)


class FilterModule:
    def filters(self):
        return {"expired": expired}
