"""How long each asynchronous step of a state machine takes, per timing profile.

``realistic`` follows production (minutes), ``demo`` keeps a live demo watchable (seconds) and
``test`` keeps test suites fast (fractions of a second). ``client`` suits clients that check an
intermediate status (``ordered``, ``provisioning``, ``image_pulling``) or delete right after
creating: setting up holds for seconds, everything else completes in under a second. A new state machine adds its steps with
:func:`define_step`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StepDurations:
    realistic: float
    demo: float
    test: float
    # None: as fast as in ``test`` (only the setting-up steps differ)
    client: float | None = None

    def for_profile(self, profile: str) -> float:
        value = getattr(self, profile)
        return self.test if value is None else value


STEPS: dict[str, StepDurations] = {}


def define_step(name: str, realistic: float, demo: float, test: float, client: float | None = None) -> None:
    STEPS[name] = StepDurations(realistic, demo, test, client)


def step_seconds(name: str, profile: str) -> float:
    return STEPS[name].for_profile(profile)


# Instances: create -> ordered -> provisioning -> running.
define_step("instance.ordered", 10, 0.5, 0.02, 1)
define_step("instance.provisioning", 150, 2.5, 0.05, 3)
# shutdown / force_shutdown / start / boot: the status flips when the power action completes.
define_step("instance.power", 30, 1, 0.02, 0.5)
# delete / discontinue / hibernate: "deleting" until the instance is gone.
define_step("instance.deleting", 30, 1, 0.02, 0.5)
# a spot instance evicted: "discontinued" until it is gone.
define_step("instance.discontinued", 60, 2, 0.05, 1)

# Volumes.
define_step("volume.ordered", 15, 1, 0.02, 2)
define_step("volume.attach", 10, 0.5, 0.02, 0.5)
define_step("volume.detach", 10, 0.5, 0.02, 0.5)
define_step("volume.clone", 120, 2, 0.05, 1)
define_step("volume.clone_cross_location", 900, 5, 0.1, 2)
define_step("volume.cancel", 10, 0.5, 0.02, 0.5)
define_step("volume.restore", 20, 1, 0.02, 0.5)

# Clusters: create -> ordered -> provisioning -> running (jump host address and workers appear).
define_step("cluster.ordered", 30, 1, 0.02, 1)
define_step("cluster.provisioning", 600, 4, 0.1, 3)
# a node action (boot / shutdown / force_shutdown) on a worker or the jump host completes
define_step("cluster.node_power", 30, 1, 0.02, 0.5)
# discontinue: "deleting" until the cluster is gone (its shared volumes are detached then)
define_step("cluster.deleting", 60, 2, 0.05, 1)

# Serverless container deployments: create -> initializing -> image_pulling -> healthy; a new
# version -> version_updating -> healthy; restart / resume -> initializing -> healthy.
define_step("container.initializing", 20, 1, 0.02, 1)
define_step("container.image_pulling", 60, 2, 0.05, 2)
define_step("container.version_updating", 60, 2, 0.05, 2)
define_step("container.restarting", 30, 1, 0.02, 1)
# a container or job deployment being deleted, until it is gone (DELETE ?timeout= waits for it)
define_step("deployment.deleting", 20, 1, 0.02, 0.5)

# Fixed by the spec, not by the profile: trash retention of deleted volumes (96 hours).
TRASH_RETENTION_SECONDS = 96 * 3600
define_step("volume.trash_retention", TRASH_RETENTION_SECONDS, TRASH_RETENTION_SECONDS, TRASH_RETENTION_SECONDS)
# ... and so not scaled by the ``timing_scale`` setting either.
UNSCALED_STEPS = frozenset({"volume.trash_retention"})
