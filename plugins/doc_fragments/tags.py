# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)


class ModuleDocFragment:
    # plugins/module_utils/_module.py TAGS_ARGUMENT_SPEC
    DOCUMENTATION = r"""
options:
  tags:
    description:
      - Tags as a dictionary of key to value; use an empty string as the value of a freeform
        tag. Keys are compared in lowercase, as the API stores them. At most 10 tags.
      - Omit to leave the tags alone.
    type: dict
  purge_tags:
    description:
      - Remove tags that are not listed in O(tags). Has no effect when O(tags) is omitted.
    type: bool
    default: true
  expires_in:
    description:
      - When the resource expires, counted from now, as a duration such as V(90m), V(8h), V(3d)
        or V(1h30m). It is stored as the tag C(expires-at) (UTC, ISO 8601), which the role
        C(cloudcompute.cloud.reaper) acts on.
      - Counted from the run that first sets it. A resource that already carries an
        C(expires-at) tag keeps it, so running the task again neither reports a change nor
        postpones the expiry; use O(expires_at) to move it.
      - The tag is added to O(tags), or to the tags the resource has when O(tags) is omitted;
        it is not to be given in O(tags) as well. Mutually exclusive with O(expires_at).
    type: str
  expires_at:
    description:
      - When the resource expires, as an ISO 8601 date or timestamp (V(2026-12-24T18:00:00Z),
        V(2026-12-24T19:00:00+01:00), V(2026-12-24)). It is stored, in UTC, as the tag
        C(expires-at) and converged like any tag. See O(expires_in).
    type: str
"""
