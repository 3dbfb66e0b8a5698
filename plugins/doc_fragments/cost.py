# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)


class ModuleDocFragment:
    # plugins/module_utils/_cost_report.py CAP_ARGUMENT_SPEC and RUNWAY_ARGUMENT_SPEC: keep in step.
    DOCUMENTATION = r"""
options:
  max_price_per_hour:
    description:
      - The most the run may commit to per hour, in the currency of the catalogs (USD). A plan
        that would cost more fails before any request that changes anything, naming the price,
        the cap and what makes the price up; the failed result carries them as C(deploy_cost).
        Check mode refuses it the same way.
      - It limits what the run creates or grows - a deploy with every volume created with it
        (the C(deploy_cost) result of M(cloudcompute.cloud.instance) and M(cloudcompute.cloud.cluster)), or
        a volume created or grown (the C(cost) result of M(cloudcompute.cloud.volume)). An existing
        resource it leaves as it is does not fail, whatever it costs.
      - It must be a positive, finite number.
      - It fails closed. A catalog price that is not a finite amount of zero or more (NaN,
        infinity, a negative price, text, missing) cannot be compared with the cap, so the plan
        is refused ("cannot price the plan"), naming the price as read.
    type: float
"""

    RUNWAY = r"""
options:
  min_balance_hours:
    description:
      - Refuse a deploy that would leave the project less than this many hours of runway, the
        balance over the project's new hourly charge (what every instance, cluster and volume
        is charged now, as M(cloudcompute.cloud.cost_info) counts it, plus this deploy's
        price). Check mode refuses it the same way.
      - Reading the project's charge costs five reads (instances, clusters, volumes, the
        trash, the balance), made only when something is deployed.
      - RV(runway) reports what was found.
      - It fails closed. A balance that is not a finite number, or a charged resource whose
        price cannot be read, refuses the deploy, naming what was read (the failed result lists
        those resources under C(unreadable)).
      - It must be a finite number of zero or more.
    type: float
"""
