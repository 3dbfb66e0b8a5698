# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)


class ModuleDocFragment:
    # plugins/module_utils/_module.py WAIT_ARGUMENT_SPEC
    DOCUMENTATION = r"""
options:
  wait:
    description:
      - Wait until the resource reaches the state the task asked for (for example an instance
        V(running), a volume attached, a cluster with its jump host and workers up).
      - With V(false) the task returns as soon as the API accepted the request.
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds the task may spend waiting, in total. It is one budget for every wait of the
        task (for example shut down, then attach, then boot), not a timeout per step.
      - The waits the API asks for (its rate limit's reset, C(Retry-After)) are held to it too, except
        that a wait of up to a minute (one rate-limit window) is always taken; when the API asks to
        wait longer than that and longer than is left, the task fails at once, saying so.
    type: int
    default: 900
"""
