# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)


class ModuleDocFragment:
    # The support levels every module of the collection shares; the attribute descriptions come
    # from ansible.builtin.action_common_attributes (and .actiongroups). A module lists this
    # fragment BEFORE those two: ansible-doc merges attributes so that the first fragment listed
    # wins, and .actiongroups says `membership: []`.

    # A module that changes things: check mode and diff in full.
    DOCUMENTATION = r"""
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: all
  action_group:
    support: full
    membership: [cloudcompute.cloud.all]
"""

    # An _info module: it changes nothing, so there is no diff.
    INFO_MODULE = r"""
attributes:
  check_mode:
    support: full
  diff_mode:
    support: N/A
  platform:
    platforms: all
  action_group:
    support: full
    membership: [cloudcompute.cloud.all]
"""
