"""volume_info's reads of the active list and the trash, against a scripted API."""

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.volume_info import main

ACTIVE = {
    "id": "5a6b1e2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b",
    "name": "data",
    "status": "detached",
    "location": "FIN-01",
    "tags": [],
}
TRASHED = dict(
    ACTIVE,
    id="6a6b1e2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b",
    status="deleted",
    deleted_at="2026-11-20T10:00:00Z",
    is_permanently_deleted=False,
)
GONE = dict(TRASHED, id="7a6b1e2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b", is_permanently_deleted=True)


def test_the_trash_is_read_only_when_asked_and_never_shows_what_is_gone(api, run_module):
    api.answer(responses.GET, "/volumes", json=[ACTIVE])
    api.answer(responses.GET, "/volumes", json=[ACTIVE])
    api.answer(responses.GET, "/volumes/trash", json=[TRASHED, GONE])
    active = run_module(main, {})
    with_trash = run_module(main, dict(include_trash=True, location_code="fin-01"))
    assert [volume["id"] for volume in active["volumes"]] == [ACTIVE["id"]]
    assert [volume["id"] for volume in with_trash["volumes"]] == [ACTIVE["id"], TRASHED["id"]]
    assert api.sent == [("GET", "/volumes"), ("GET", "/volumes"), ("GET", "/volumes/trash")]


def test_a_deleted_volume_by_id_needs_include_trash(api, run_module):
    api.answer(responses.GET, "/volumes/" + TRASHED["id"], json=TRASHED)
    api.answer(responses.GET, "/volumes/" + TRASHED["id"], json=TRASHED)
    hidden = run_module(main, dict(id=TRASHED["id"]))
    shown = run_module(main, dict(id=TRASHED["id"], include_trash=True))
    assert hidden["volumes"] == []
    assert shown["volumes"] == [dict(TRASHED, tags={}, tag_ids={})]


def test_a_status_is_sent_to_the_api_and_the_trash_skipped_unless_it_is_deleted(api, run_module):
    api.answer(responses.GET, "/volumes?status=detached", json=[ACTIVE])
    result = run_module(main, dict(status="detached", include_trash=True))
    assert [volume["id"] for volume in result["volumes"]] == [ACTIVE["id"]]
    assert api.sent == [("GET", "/volumes?status=detached")]
