"""The serverless helpers that need no API: comparing desired containers with live ones, merging
an update over them, predicting what the API answers, and the local checks."""

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import References
from ansible_collections.cloudcompute.cloud.plugins.module_utils._serverless import (
    check_containers,
    check_name,
    containers_differ,
    covers,
    desired_container,
    merged_containers,
    overlay,
    predicted_containers,
    registry_body,
    whole_numbers,
)

LIVE = {
    "name": "api",
    "image": {"image": "nginx:1.27", "last_updated_at": "2026-11-21T10:00:00.000Z"},
    "exposed_port": 8080,
    "healthcheck": {"enabled": True, "port": 8080, "path": "/ready"},
    "entrypoint_overrides": {"enabled": False, "entrypoint": [], "cmd": []},
    "env": [
        {"type": "plain", "name": "B", "value_or_reference_to_secret": "2"},
        {"type": "plain", "name": "A", "value_or_reference_to_secret": "1"},
    ],
    "volume_mounts": [
        {"type": "scratch", "mount_path": "/data", "secret_name": None, "volume_id": None, "size_in_mb": None}
    ],
}


def option(**members):
    """A ``containers`` item as the argument spec hands it over: every member present."""
    container = dict(
        name=None,
        image=None,
        exposed_port=None,
        healthcheck=None,
        entrypoint_overrides=None,
        env=None,
        volume_mounts=None,
    )
    container.update(members)
    return container


def desired(*containers):
    # volumes are given by id in these tests: no volume is listed
    volumes = References("volume", list_all=lambda: [])
    return [desired_container(container, volumes) for container in containers]


def env(*pairs):
    return [dict(name=name, value=value, type="plain") for name, value in pairs]


def test_covers_compares_only_what_is_set_and_lists_whole():
    assert covers({"a": 1, "b": {"c": 2, "d": 3}}, {"a": 1, "b": {"c": 2, "d": None}, "e": None})
    assert not covers({"a": 1}, {"a": 2})
    assert covers([{"x": 1, "y": 2}], [{"x": 1}])
    assert not covers([{"x": 1}, {"x": 2}], [{"x": 1}])
    assert covers({"threshold": 90}, {"threshold": 90.0})


def test_overlay_merges_dicts_and_replaces_lists():
    base = {"scaling": {"min": 1, "max": 2, "policy": {"delay": 300}}, "env": [1, 2]}
    top = {"scaling": {"max": 4, "policy": None}, "env": [3]}
    assert overlay(base, top) == {"scaling": {"min": 1, "max": 4, "policy": {"delay": 300}}, "env": [3]}
    assert base["scaling"]["max"] == 2


def test_the_same_containers_in_another_form_are_no_change():
    # image given as a string, variables in another order, members left out
    wanted = desired(option(image="nginx:1.27", env=env(("A", "1"), ("B", "2"))))
    assert not containers_differ(wanted, [LIVE])


@pytest.mark.parametrize(
    "change",
    [
        dict(image="nginx:1.28"),
        dict(image="nginx:1.27", env=env(("A", "1"))),
        dict(image="nginx:1.27", healthcheck=dict(enabled=None, port=None, path="/health")),
        dict(image="nginx:1.27", entrypoint_overrides=dict(enabled=None, entrypoint=["/bin/serve"], cmd=None)),
        dict(image="nginx:1.27", volume_mounts=[]),
    ],
)
def test_a_difference_in_what_is_set_is_a_change(change):
    assert containers_differ(desired(option(**change)), [LIVE])


def test_another_number_of_containers_is_a_change():
    assert containers_differ(desired(option(image="nginx:1.27"), option(image="redis:7")), [LIVE])


def test_an_update_keeps_what_was_left_out():
    merged = merged_containers(
        desired(option(image="nginx:1.28", healthcheck=dict(enabled=None, port=None, path="/live"))), [LIVE]
    )
    assert merged == [
        {
            "name": "api",
            "image": "nginx:1.28",
            "exposed_port": 8080,
            "healthcheck": {"enabled": True, "port": 8080, "path": "/live"},
            "entrypoint_overrides": {"enabled": False, "entrypoint": [], "cmd": []},
            "env": LIVE["env"],
            "volume_mounts": [{"type": "scratch", "mount_path": "/data"}],
        }
    ]


def test_the_prediction_fills_the_documented_defaults_and_keeps_an_unchanged_image_date():
    new = predicted_containers([{"image": "redis:7"}])[0]
    assert new["name"] == "container-1"
    assert new["exposed_port"] == 8000
    assert new["healthcheck"] == {"enabled": True, "port": 8000, "path": "/health"}
    assert new["image"] == {"image": "redis:7", "last_updated_at": None}
    kept = predicted_containers([{"name": "api", "image": "nginx:1.27"}], [LIVE])[0]
    assert kept["image"]["last_updated_at"] == LIVE["image"]["last_updated_at"]


def test_an_entrypoint_or_command_enables_the_overrides():
    wanted = desired(option(image="x", entrypoint_overrides=dict(enabled=None, entrypoint=None, cmd=["serve"])))
    assert wanted[0]["entrypoint_overrides"] == {"enabled": True, "entrypoint": None, "cmd": ["serve"]}


def test_mounts_get_their_default_path_and_a_volume_id_passes_through():
    volume_id = "11111111-1111-4111-8111-111111111111"
    wanted = desired(
        option(
            image="x",
            volume_mounts=[dict(type="shared", mount_path=None, secret_name=None, volume=volume_id, size_in_mb=None)],
        )
    )
    assert wanted[0]["volume_mounts"] == [
        {"type": "shared", "mount_path": "/data", "secret_name": None, "volume_id": volume_id, "size_in_mb": None}
    ]


@pytest.mark.parametrize(
    "containers, message",
    [
        ([option(image="x", name="a"), option(image="y", name="a")], "two containers have the same name"),
        ([option(image="x", name="Bad_Name")], "is not a DNS label"),
        ([option(image="x", exposed_port=0)], "is not a port"),
        ([option(image="x", env=env(("1X", "v")))], "is not a variable name"),
        ([option(image="x", env=env(("A", "1"), ("A", "2")))], "given more than once"),
        (
            [
                option(
                    image="x",
                    volume_mounts=[
                        dict(type="secret", mount_path="/s", secret_name=None, volume=None, size_in_mb=None)
                    ],
                )
            ],
            "needs secret_name",
        ),
        (
            [
                option(
                    image="x",
                    volume_mounts=[
                        dict(type="scratch", mount_path=None, secret_name=None, volume="v", size_in_mb=None),
                    ],
                )
            ],
            "only a shared mount",
        ),
        (
            [
                option(
                    image="x",
                    volume_mounts=[
                        dict(type="scratch", mount_path=None, secret_name=None, volume=None, size_in_mb=None),
                        dict(type="shared", mount_path=None, secret_name=None, volume=None, size_in_mb=None),
                    ],
                )
            ],
            "two mounts at the same path",
        ),
    ],
)
def test_local_checks_name_what_is_wrong(containers, message):
    with pytest.raises(ModuleFailure) as failure:
        check_containers(containers)
    assert message in failure.value.msg


def test_names_are_dns_labels():
    check_name("web-1")
    for bad in ("Web", "-web", "web-", "a" * 64, ""):
        with pytest.raises(ModuleFailure):
            check_name(bad)


def test_registry_settings_in_the_api_form():
    assert registry_body(None) is None
    assert registry_body({"is_private": False, "credentials": "ignored"}) == {"is_private": False, "credentials": None}
    assert registry_body({"is_private": True, "credentials": "ci"}) == {
        "is_private": True,
        "credentials": {"name": "ci"},
    }


def test_whole_numbers_hide_the_apis_int_or_float_choice():
    assert whole_numbers({"a": [90.0, 1.5, True, "90.0"]}) == {"a": [90, 1.5, True, "90.0"]}
