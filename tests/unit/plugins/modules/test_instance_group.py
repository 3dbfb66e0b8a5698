"""instance_group's plan and prediction, against a scripted API."""

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.instance_group import main

GROUP_ID = "9d6b0e1c-4f2a-4b8e-a1c3-5e7f9a0b2c4d"
KEY_ID = "0e4f1c2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
OTHER_KEY_ID = "1e4f1c2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
GROUP = {
    "id": GROUP_ID,
    "name": "etl-workers",
    "description": "",
    "location_code": "FIN-01",
    "instance_type": "CPU.4V.16G",
    "template": {
        "image": "ubuntu-24.04",
        "os_volume": {"size": 60, "type": "NVMe"},
        "ssh_key_ids": [KEY_ID],
        "startup_script_id": None,
    },
    "created_at": "2026-11-01T10:00:00Z",
}
KEYS = [{"id": KEY_ID, "name": "ci"}, {"id": OTHER_KEY_ID, "name": "ci-2026"}]
AS_CREATED = dict(
    name="etl-workers",
    instance_type="CPU.4V.16G",
    location_code="FIN-01",
    template=dict(image="ubuntu-24.04", os_volume=dict(size=60), ssh_keys=["ci"]),
)


def test_a_group_as_asked_is_its_reads_and_no_change(api, run_module):
    api.answer(responses.GET, "/instance-groups", json=[GROUP])
    api.answer(responses.GET, "/ssh-keys", json=KEYS)
    result = run_module(main, AS_CREATED)
    assert result["changed"] is False
    assert result["instance_group"]["id"] == GROUP_ID
    # one list of the groups, one of the keys the template names by name
    assert api.sent == [("GET", "/instance-groups"), ("GET", "/ssh-keys")]


def test_check_mode_predicts_the_create_and_sends_no_write(api, run_module):
    api.answer(responses.GET, "/instance-groups", json=[])
    api.answer(responses.GET, "/ssh-keys", json=KEYS)
    result = run_module(main, AS_CREATED, check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["instance_group"] == {
        "id": None,
        "name": "etl-workers",
        "description": "",
        "location_code": "FIN-01",
        "instance_type": "CPU.4V.16G",
        "template": {
            "image": "ubuntu-24.04",
            "os_volume": {"size": 60},
            "ssh_key_ids": [KEY_ID],
            "startup_script_id": None,
        },
    }
    assert result["diff"]["before"] == {}
    assert [method for method, _path in api.sent] == ["GET", "GET"]


def test_new_ssh_keys_are_one_patch_of_the_template(api, run_module):
    updated = dict(GROUP, template=dict(GROUP["template"], ssh_key_ids=[OTHER_KEY_ID]))
    api.answer(responses.GET, "/instance-groups", json=[GROUP])
    api.answer(responses.GET, "/ssh-keys", json=KEYS)
    api.answer(responses.PATCH, "/instance-groups/" + GROUP_ID, json=updated)
    result = run_module(main, dict(name="etl-workers", template=dict(ssh_keys=["ci-2026"])), diff=True)
    assert result["changed"] is True, result
    assert result["instance_group"]["template"]["ssh_key_ids"] == [OTHER_KEY_ID]
    assert result["diff"]["after"]["template"]["ssh_key_ids"] == [OTHER_KEY_ID]
    assert api.sent == [("GET", "/instance-groups"), ("GET", "/ssh-keys"), ("PATCH", "/instance-groups/" + GROUP_ID)]
    assert api.body(2) == {"template": {"ssh_key_ids": [OTHER_KEY_ID]}}


def test_check_mode_predicts_a_removed_startup_script(api, run_module):
    script_id = "2e4f1c2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
    api.answer(
        responses.GET,
        "/instance-groups/" + GROUP_ID,
        json=dict(GROUP, template=dict(GROUP["template"], startup_script_id=script_id)),
    )
    result = run_module(main, dict(id=GROUP_ID, template=dict(startup_script="")), check_mode=True)
    assert result["changed"] is True
    assert result["instance_group"]["template"]["startup_script_id"] is None
    assert api.sent == [("GET", "/instance-groups/" + GROUP_ID)]


def test_a_different_instance_type_is_refused_naming_both_values(api, run_module):
    api.answer(responses.GET, "/instance-groups", json=[GROUP])
    result = run_module(main, dict(name="etl-workers", instance_type="CPU.8V.32G"))
    assert result["failed"] is True
    assert result["immutable"] == {"instance_type": {"desired": "CPU.8V.32G", "current": "CPU.4V.16G"}}
    assert api.sent == [("GET", "/instance-groups")]


def test_a_name_taken_gets_a_hint(api, run_module):
    api.answer(responses.GET, "/instance-groups", json=[])
    api.answer(responses.POST, "/instance-groups", status=409, json={"code": "conflict", "message": "name taken"})
    result = run_module(
        main,
        dict(
            name="etl-workers", instance_type="CPU.4V.16G", location_code="FIN-01", template=dict(image="ubuntu-24.04")
        ),
    )
    assert result["failed"] is True
    assert result["failure"]["status"] == 409
    assert "names are unique" in result["msg"]


def test_an_os_volume_below_one_gb_is_refused_before_any_request(api, run_module):
    result = run_module(main, dict(AS_CREATED, template=dict(image="ubuntu-24.04", os_volume=dict(size=0))))
    assert result["failed"] is True
    assert "at least 1 GB" in result["msg"]
    assert api.sent == []


def test_by_id_a_new_name_and_description_are_one_patch(api, run_module):
    renamed = dict(GROUP, name="etl-legacy", description="old ETL")
    api.answer(responses.GET, "/instance-groups/" + GROUP_ID, json=GROUP)
    api.answer(responses.PATCH, "/instance-groups/" + GROUP_ID, json=renamed)
    result = run_module(main, dict(id=GROUP_ID, name="etl-legacy", description="old ETL"))
    assert result["changed"] is True, result
    assert result["instance_group"]["name"] == "etl-legacy"
    assert api.body(1) == {"name": "etl-legacy", "description": "old ETL"}
