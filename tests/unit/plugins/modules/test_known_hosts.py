"""The known_hosts module forgets the pinned host keys of instances, clusters and workers that
are gone, and nothing else."""

import os
import stat

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.known_hosts import main

LIVE = "aaaaaaaa-0000-4000-8000-000000000001"
GONE = "bbbbbbbb-0000-4000-8000-000000000002"
DELETING = "cccccccc-0000-4000-8000-000000000003"
CLUSTER = "dddddddd-0000-4000-8000-000000000004"
WORKER = "eeeeeeee-0000-4000-8000-000000000005"
KEY = "AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q"
OTHERS = [
    "# the user's own lines\n",
    f"github.com ssh-ed25519 {KEY}\n",
    f"|1|hashed|entry= ssh-ed25519 {KEY}\n",
    f"@cert-authority *.example ssh-ed25519 {KEY}\n",
]


def entry(resource_id, key_type="ssh-ed25519"):
    return f"cloudcompute-{resource_id} {key_type} {KEY}\n"


def known_hosts(tmp_path, lines):
    path = tmp_path / "known_hosts"
    path.write_text("".join(lines))
    path.chmod(0o640)
    return path


def project(api, clusters_status=200):
    api.answer(
        responses.GET,
        "/instances",
        json=[{"id": LIVE, "status": "running"}, {"id": DELETING, "status": "deleting"}],
    )
    api.answer(
        responses.GET,
        "/clusters",
        json=[{"id": CLUSTER, "status": "running", "worker_nodes": [{"id": WORKER}]}],
        status=clusters_status,
    )


def test_the_keys_of_what_is_gone_are_forgotten_and_nothing_else(api, run_module, tmp_path):
    lines = [OTHERS[0], entry(LIVE), OTHERS[1], entry(GONE), entry(DELETING, "ecdsa-sha2-nistp256")]
    lines += [entry(CLUSTER), entry(WORKER), *OTHERS[2:]]
    path = known_hosts(tmp_path, lines)
    project(api)
    result = run_module(main, dict(path=str(path)), diff=True)
    assert result["changed"] is True
    assert [(item["id"], item["key_type"]) for item in result["removed"]] == [
        (GONE, "ssh-ed25519"),
        (DELETING, "ecdsa-sha2-nistp256"),
    ]
    kept = [line for line in lines if line not in (entry(GONE), entry(DELETING, "ecdsa-sha2-nistp256"))]
    assert path.read_text() == "".join(kept)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert f"cloudcompute-{GONE}" in result["diff"]["before"]["aliases"]
    assert f"cloudcompute-{GONE}" not in result["diff"]["after"]["aliases"]
    # a second run has nothing left to forget
    project(api)
    assert run_module(main, dict(path=str(path)))["changed"] is False


def test_check_mode_reports_what_would_go_and_writes_nothing(api, run_module, tmp_path):
    path = known_hosts(tmp_path, [entry(LIVE), entry(GONE)])
    project(api)
    result = run_module(main, dict(path=str(path)), check_mode=True)
    assert result["changed"] is True and [item["id"] for item in result["removed"]] == [GONE]
    assert path.read_text() == entry(LIVE) + entry(GONE)


def test_nothing_is_forgotten_when_a_list_cannot_be_read(api, run_module, tmp_path):
    path = known_hosts(tmp_path, [entry(LIVE), entry(GONE)])
    project(api, clusters_status=403)
    result = run_module(main, dict(path=str(path)))
    assert result["failed"] is True and result["failure"]["status"] == 403
    assert path.read_text() == entry(LIVE) + entry(GONE)


def test_named_ids_are_forgotten_without_reading_the_api(api, run_module, tmp_path):
    path = known_hosts(tmp_path, [entry(LIVE), entry(WORKER), OTHERS[1]])
    result = run_module(main, dict(path=str(path), state="absent", ids=[WORKER]))
    assert result["changed"] is True and api.sent == []
    assert path.read_text() == entry(LIVE) + OTHERS[1]


def test_a_symbolic_link_in_place_of_the_file_is_refused(api, run_module, tmp_path):
    target = known_hosts(tmp_path, [entry(GONE)])
    link = tmp_path / "link"
    link.symlink_to(target)
    result = run_module(main, dict(path=str(link), state="absent", ids=[GONE]))
    assert result["failed"] is True and "cannot forget host keys" in result["msg"]
    assert target.read_text() == entry(GONE)


def test_a_missing_file_has_nothing_to_forget(api, run_module, tmp_path):
    result = run_module(main, dict(path=str(tmp_path / "none"), state="absent", ids=[GONE]))
    assert result["changed"] is False and result["removed"] == []
