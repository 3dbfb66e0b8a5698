"""Timing profiles, without a server: what each kind of client sees right after a create."""

from __future__ import annotations

from cloudcompute_emulator.timing import STEPS, step_seconds

SETTING_UP = ("instance.ordered", "instance.provisioning", "volume.ordered", "cluster.ordered", "cluster.provisioning",
              "container.initializing", "container.image_pulling")


def test_client_profile_holds_the_setting_up_statuses() -> None:
    # a client asserting `provisioning` right after a deploy has seconds to see it ...
    assert step_seconds("instance.ordered", "client") >= 1 and step_seconds("instance.provisioning", "client") >= 3
    assert step_seconds("volume.ordered", "client") >= 2
    for name in SETTING_UP:
        assert step_seconds(name, "client") > 10 * step_seconds(name, "test"), name
    # ... and still reaches running in seconds, not minutes
    assert step_seconds("instance.ordered", "client") + step_seconds("instance.provisioning", "client") <= 5


def test_every_step_has_every_profile() -> None:
    for name in STEPS:
        for profile in ("realistic", "demo", "test", "client"):
            assert step_seconds(name, profile) > 0, (name, profile)
    # the test profile reaches running in 70 ms
    assert step_seconds("instance.ordered", "test") + step_seconds("instance.provisioning", "test") == 0.07
    # steps with nothing to watch are as fast as in the test profile
    assert step_seconds("instance.power", "client") <= 0.5 and step_seconds("volume.cancel", "client") <= 0.5


def test_timing_scale_multiplies_every_step_but_the_fixed_retention() -> None:
    from cloudcompute_emulator.settings import EmulatorSettings

    # a benchmark with 6 s rate-limit windows runs production timings at the same ratio (6 / 60)
    scaled = EmulatorSettings(profile="realistic").merged({"timing_scale": 0.1})
    assert scaled.step_seconds("instance.provisioning") == 15.0
    assert scaled.step_seconds("instance.ordered") == 1.0
    assert scaled.step_seconds("volume.trash_retention") == step_seconds("volume.trash_retention", "realistic")
    assert EmulatorSettings(profile="demo").step_seconds("instance.provisioning") == 2.5
