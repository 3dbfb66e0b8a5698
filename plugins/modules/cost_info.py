#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: cost_info
short_description: What a Cloud Compute project costs per hour, and how long its balance lasts
version_added: 0.1.0
description:
  - Adds up what the project is charged per hour right now, the way the API charges it, and
    returns it in total, resource by resource and in groups (by kind, location, instance type
    or any tag key), with the balance and the runway in hours at that rate.
  - "What is charged: every instance at its C(price_per_hour) in every status but V(deleting)
    and V(discontinued) (a shut-down instance is still charged); every cluster at its
    C(price_per_hour) but while V(deleting); every volume at its C(base_hourly_cost), OS volumes,
    shared volumes and volumes in the trash included (a volume in the trash is charged until it
    is purged or deleted permanently)."
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  group_by:
    description:
      - How RV(groups) groups the charged resources, by one or more of V(kind) (instance,
        cluster, volume), V(location), V(instance_type) (the instance type, the cluster type,
        or the volume type of a volume) and V(tag:<key>) (the value of that tag, null for a
        resource without it). With several, a group is each combination that occurs.
    type: list
    elements: str
    default: [kind]
  tags:
    description:
      - Count only resources carrying all these tags, as a dictionary of key to value. A value
        of V("") matches a freeform tag; a null value matches the key with any value. The
        balance and the runway stay those of the whole project.
    type: dict
notes:
  - "API calls: five reads (instances, clusters, volumes, the volume trash, the balance)."
  - The runway is the balance divided by the hourly charge of the whole project; it does not
    know about top-ups, long-term contracts renewing, or prices changing.
seealso:
  - module: cloudcompute.cloud.balance_info
"""

EXAMPLES = r"""
- name: What the project burns per hour, by kind and location
  cloudcompute.cloud.cost_info:
    group_by: [kind, location]
  register: cost

- name: Warn when less than three days of balance are left
  ansible.builtin.debug:
    msg: "{{ cost.price_per_hour }} {{ cost.currency }}/h, {{ cost.runway_hours }} hours of balance left"
  when: cost.runway_hours is not none and cost.runway_hours < 72

- name: What each team costs (tag team=...)
  cloudcompute.cloud.cost_info:
    group_by: ["tag:team"]
  register: by_team
"""

RETURN = r"""
price_per_hour:
  description: What the counted resources cost per hour together.
  returned: always
  type: float
  sample: 37.8098
currency:
  description: The currency of the prices and the balance, V(usd) or V(eur).
  returned: always
  type: str
  sample: usd
balance:
  description: The project balance.
  returned: always
  type: float
  sample: 1200.5
runway_hours:
  description:
    - Hours until the balance reaches zero at the whole project's hourly charge; null when
      nothing is charged.
  returned: always
  type: float
  sample: 31.75
groups:
  description: The counted resources grouped by O(group_by), most expensive first.
  returned: always
  type: list
  elements: dict
  sample:
    - {kind: instance, location: FIN-01, price_per_hour: 36.64, count: 3}
  contains:
    price_per_hour:
      description: What the group costs per hour.
      type: float
    count:
      description: How many resources are in the group.
      type: int
unreadable:
  description:
    - The resources the API lists as charged whose charge cannot be read (a price that is not
      a finite amount of zero or more, a field of the wrong type). They are left out of every
      total, and the task warns; a guard (O(cloudcompute.cloud.instance#module:min_balance_hours))
      refuses to deploy while there is one.
  returned: always
  type: list
  elements: dict
  sample:
    - kind: instance
      id: 7c4ef6e5-8b4b-4e8a-9b35-0a1d0e7a2f11
      reason: the price_per_hour the API reports for 7c4ef6e5-8b4b-4e8a-9b35-0a1d0e7a2f11 is 'NaN', not a finite price of zero or more
  contains:
    kind:
      description: V(instance), V(cluster) or V(volume).
      type: str
    id:
      description: Its id (null when the id itself is not a string).
      type: str
    reason:
      description: What cannot be read.
      type: str
resources:
  description: Every counted resource with what it costs, most expensive first.
  returned: always
  type: list
  elements: dict
  contains:
    kind:
      description: V(instance), V(cluster) or V(volume).
      type: str
    id:
      description: Its id.
      type: str
    name:
      description: The hostname of an instance or cluster, the name of a volume.
      type: str
    location:
      description: Its location code.
      type: str
    instance_type:
      description: The instance type, the cluster type or the volume type.
      type: str
    status:
      description: Its status.
      type: str
    price_per_hour:
      description: What it costs per hour.
      type: float
    tags:
      description: Its tags as a dictionary of key to value.
      type: dict
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost import (
    charged_resources,
    read_balance,
    runway_hours,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import run_info
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import normalize_tag_filter

GROUP_FIELDS = ("kind", "location", "instance_type")


def group_value(item, field):
    if field.startswith("tag:"):
        return item["tags"].get(field[len("tag:") :].lower())
    return item[field]


def grouped(items, group_by):
    """One group per combination of the ``group_by`` values: the hourly prices of its resources
    summed, and counted; the most expensive first."""
    prices = {}
    for item in items:
        prices.setdefault(tuple(group_value(item, field) for field in group_by), []).append(item["price_per_hour"])
    groups = [
        dict(zip(group_by, key), price_per_hour=round(sum(each, 0.0), 4), count=len(each))
        for key, each in prices.items()
    ]
    return sorted(groups, key=lambda group: -group["price_per_hour"])


def validate_group_by(group_by):
    for field in group_by:
        if field not in GROUP_FIELDS and not (field.startswith("tag:") and len(field) > len("tag:")):
            raise ModuleFailure("group_by: {!r} is not one of {} or tag:<key>".format(field, ", ".join(GROUP_FIELDS)))


def cost_report(module):
    params = module.params
    validate_group_by(params["group_by"])
    charged, counted, unreadable = charged_resources(module.client, normalize_tag_filter(params["tags"]))
    amount, currency = read_balance(module.client)
    if unreadable:
        module.warn(
            f"{len(unreadable)} charged resource(s) left out of the count, their charge cannot be read "
            "(see unreadable): the totals and the runway are too low by what they cost"
        )
    return {
        "unreadable": unreadable,
        "price_per_hour": round(sum(item["price_per_hour"] for item in counted), 4),
        "currency": currency,
        "balance": amount,
        "runway_hours": runway_hours(amount, sum(item["price_per_hour"] for item in charged)),
        "groups": grouped(counted, params["group_by"]),
        "resources": sorted(counted, key=lambda item: (-item["price_per_hour"], item["kind"], item["name"] or "")),
    }


def main():
    argument_spec = dict(
        group_by=dict(type="list", elements="str", default=["kind"]),
        tags=dict(type="dict"),
    )
    run_info(argument_spec, cost_report)


if __name__ == "__main__":
    main()
