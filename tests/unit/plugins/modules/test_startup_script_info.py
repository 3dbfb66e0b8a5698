"""startup_script_info's paged, server-filtered reads, against a scripted API."""

import re

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.startup_script_info import main


def script(number, name):
    return {
        "id": "%08d-6b7d-4e8f-9a0b-1c2d3e4f5a6b" % number,
        "name": name,
        "script": "#!/bin/sh\n",
        "created_at": "2026-11-01T10:00:%02dZ" % number,
    }


def test_every_page_is_read_in_the_order_asked(api, run_module):
    first_page = [script(number, "setup-%d" % number) for number in range(100)]
    api.answer(responses.GET, re.compile(r"/scripts\?.*page=1&.*"), json=first_page, headers={"X-Total-Count": "101"})
    api.answer(
        responses.GET,
        re.compile(r"/scripts\?.*page=2&.*"),
        json=[script(100, "setup-100")],
        headers={"X-Total-Count": "101"},
    )
    result = run_module(main, dict(order="asc"))
    assert result["changed"] is False
    assert len(result["startup_scripts"]) == 101
    assert api.sent == [
        ("GET", "/scripts?orderBy=created_at&orderDirection=asc&page=1&pageSize=100"),
        ("GET", "/scripts?orderBy=created_at&orderDirection=asc&page=2&pageSize=100"),
    ]


def test_an_exact_name_narrows_the_apis_partial_match(api, run_module):
    # The API's name filter matches part of the name, whatever its case.
    api.answer(
        responses.GET, re.compile(r"/scripts\?.*"), json=[script(1, "cuda"), script(2, "cuda-12"), script(3, "CUDA")]
    )
    result = run_module(main, dict(name="cuda"))
    assert [found["name"] for found in result["startup_scripts"]] == ["cuda"]
    assert api.sent == [("GET", "/scripts?orderBy=created_at&orderDirection=desc&name=cuda&page=1&pageSize=100")]


def test_name_contains_keeps_the_names_holding_the_text_in_its_case(api, run_module):
    api.answer(
        responses.GET,
        re.compile(r"/scripts\?.*"),
        json=[script(1, "cuda"), script(2, "setup-cuda-12"), script(3, "CUDA")],
    )
    result = run_module(main, dict(name_contains="cuda"))
    assert [found["name"] for found in result["startup_scripts"]] == ["cuda", "setup-cuda-12"]


def test_by_id_reads_that_one_script(api, run_module):
    wanted = script(1, "cuda")
    api.answer(responses.GET, "/scripts/" + wanted["id"], json=wanted)
    result = run_module(main, dict(id=wanted["id"], name="other"))
    assert result["startup_scripts"] == []  # the filters apply to the one read by id too
    assert api.sent == [("GET", "/scripts/" + wanted["id"])]
