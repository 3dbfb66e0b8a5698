# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)


class ModuleDocFragment:
    # plugins/module_utils/_compute.py compute_argument_spec(): keep in step.
    # on_no_capacity is common; INSTANCE and CLUSTER each add their placement option.
    DOCUMENTATION = r"""
options:
  on_no_capacity:
    description:
      - What to do when no candidate has capacity.
      - V(fail) fails at once, naming every candidate and what it said.
      - V(wait) reads availability again (it never deploys to find out) until a candidate has
        capacity, then deploys there. It waits within the one O(wait_timeout) budget of the
        task, first every 2 seconds, then less often up to every 15 seconds, and slower still
        when the API's rate-limit headers ask for it. When the budget runs out the task fails
        naming every candidate and what it said.
      - Giving V(wait) without O(placement) waits for capacity of O(location_code) alone.
    type: str
    choices: [fail, wait]
    default: fail
"""

    # ansible-doc merges fragments one level deep only, so each variant carries the whole
    # placement option (and the sanity tests want literal strings): keep the two in step.
    INSTANCE = r"""
options:
  placement:
    description:
      - Where a new deployment may go when capacity is scarce. Used only to deploy; an existing
        one with the same hostname in any candidate location is the one the task means (a
        second run deploys nothing), and one outside every candidate fails the task.
      - The module reads availability once for all candidates and deploys to the first that
        has capacity. When that deploy still answers 503 (someone else took the last unit in
        between) it moves on to the next candidate that had capacity, reading availability
        again before it deploys there, so every deploy is sent on an answer read after the last
        503. It never deploys where availability said there was no capacity.
      - Candidates are taken type by type, each in every location in order (the first type in
        all locations before the second type).
      - The result's RV(placement) says where it went and what each candidate said.
    type: dict
    suboptions:
      locations:
        description:
          - Candidate location codes, in order of preference. Default the single O(location_code).
          - O(location_code), when also given, must be one of them.
        type: list
        elements: str
      strategy:
        description:
          - V(in_order) tries the candidates in the order given.
          - V(cheapest) tries them by the catalog's hourly price (spot price for spot requests),
            cheapest first; equal prices keep the order given.
        type: str
        choices: [in_order, cheapest]
        default: in_order
      instance_types:
        description:
          - Candidate instance types, in order of preference. Default the single O(instance_type).
          - O(instance_type), when also given, must be one of them.
        type: list
        elements: str
      on_demand_fallback:
        description:
          - With O(spot=true), let the instance land on-demand (at the on-demand price) when no
            candidate has spot capacity. The on-demand candidates follow all the spot ones.
        type: bool
        default: false
"""

    CLUSTER = r"""
options:
  placement:
    description:
      - Where a new deployment may go when capacity is scarce. Used only to deploy; an existing
        one with the same hostname in any candidate location is the one the task means (a
        second run deploys nothing), and one outside every candidate fails the task.
      - The module reads availability once for all candidates and deploys to the first that
        has capacity. When that deploy still answers 503 (someone else took the last unit in
        between) it moves on to the next candidate that had capacity, reading availability
        again before it deploys there, so every deploy is sent on an answer read after the last
        503. It never deploys where availability said there was no capacity.
      - Candidates are taken type by type, each in every location in order (the first type in
        all locations before the second type).
      - The result's RV(placement) says where it went and what each candidate said.
    type: dict
    suboptions:
      locations:
        description:
          - Candidate location codes, in order of preference. Default the single O(location_code).
          - O(location_code), when also given, must be one of them.
        type: list
        elements: str
      strategy:
        description:
          - V(in_order) tries the candidates in the order given.
          - V(cheapest) tries them by the catalog's hourly price (spot price for spot requests),
            cheapest first; equal prices keep the order given.
        type: str
        choices: [in_order, cheapest]
        default: in_order
      cluster_types:
        description:
          - Candidate cluster types, in order of preference. Default the single O(cluster_type).
          - O(cluster_type), when also given, must be one of them.
        type: list
        elements: str
"""
