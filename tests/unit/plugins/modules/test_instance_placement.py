"""instance with ``placement``, against a scripted API: the deploys a placement sends and the
availability each one is sent on, with and without a lost race (a deploy answered 503)."""

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.instance import main

INSTANCE_ID = "1a2b3c4d-0000-4000-8000-000000000001"
TYPE = "1H100.80S.30V"
LOCATIONS = ["FIN-01", "FIN-03", "ICE-01"]
INSTANCE_TYPES = [{"instance_type": TYPE, "price_per_hour": "2.19", "spot_price": "0.99"}]
NO_CAPACITY = {"code": "service_unavailable", "message": f"No capacity for {TYPE}"}


def capacity(*locations):
    """An availability answer: ``TYPE`` available in ``locations``, in none of the others."""
    return [
        {"location_code": location, "availabilities": [TYPE] if location in locations else []} for location in LOCATIONS
    ]


def deployed(location):
    return {
        "id": INSTANCE_ID,
        "hostname": "gpu-1",
        "status": "ordered",
        "instance_type": TYPE,
        "image": "ubuntu-24.04",
        "location": location,
        "is_spot": False,
        "price_per_hour": 2.19,
        "created_at": "2026-11-01T10:00:00Z",
    }


def accept_deploy(api, location):
    """The deploy is accepted, and the reads after it find the instance in ``location``."""
    api.answer(responses.POST, "/instances", json=INSTANCE_ID, status=202)
    api.answer(responses.GET, "/instances", json=[deployed(location)])
    api.answer(responses.GET, "/instances/" + INSTANCE_ID, json=deployed(location))


def place(api, run_module):
    api.answer(responses.GET, "/instance-types", json=INSTANCE_TYPES)
    return run_module(
        main,
        dict(
            hostname="gpu-1",
            image="ubuntu-24.04",
            placement=dict(locations=LOCATIONS, instance_types=[TYPE]),
            wait=False,
        ),
    )


def outcomes(result):
    return [(tried["location_code"], tried["outcome"]) for tried in result["placement"]["tried"]]


def requests_of_the_placement(api):
    """The availability reads and deploys, in the order sent."""
    return [
        (method, path.split("?")[0])
        for method, path in api.sent
        if path.startswith("/instance-availability") or method == "POST"
    ]


def deployed_to(api):
    """The location of every deploy sent, in order."""
    return [api.body(index)["location_code"] for index, (method, _path) in enumerate(api.sent) if method == "POST"]


def test_without_a_race_one_availability_read_and_one_deploy_whatever_the_candidates(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-availability", json=capacity("FIN-03", "ICE-01"))
    accept_deploy(api, "FIN-03")
    result = place(api, run_module)
    assert result["changed"] is True, result
    assert outcomes(result) == [("FIN-01", "no_capacity"), ("FIN-03", "deployed")]
    assert requests_of_the_placement(api) == [("GET", "/instance-availability"), ("POST", "/instances")]
    assert deployed_to(api) == ["FIN-03"]


def test_after_a_lost_race_the_next_deploy_is_sent_on_a_fresh_read(api, run_module):
    """FIN-01 answers 503; the first read also said FIN-03, but the fresh one read before
    deploying there says FIN-03 was taken meanwhile and ICE-01 has capacity now."""
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-availability", json=capacity("FIN-01", "FIN-03"))
    api.answer(responses.POST, "/instances", json=NO_CAPACITY, status=503)
    api.answer(responses.GET, "/instance-availability", json=capacity("ICE-01"))
    accept_deploy(api, "ICE-01")
    result = place(api, run_module)
    assert result["changed"] is True, result
    assert outcomes(result) == [
        ("FIN-01", "no_capacity_on_deploy"),
        ("FIN-03", "no_capacity"),
        ("ICE-01", "deployed"),
    ]
    assert requests_of_the_placement(api) == [
        ("GET", "/instance-availability"),
        ("POST", "/instances"),
        ("GET", "/instance-availability"),
        ("POST", "/instances"),
    ]
    assert deployed_to(api) == ["FIN-01", "ICE-01"]


def test_a_lost_race_with_no_other_candidate_showing_capacity_fails_without_another_read(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-availability", json=capacity("FIN-01"))
    api.answer(responses.POST, "/instances", json=NO_CAPACITY, status=503)
    result = place(api, run_module)
    assert result["failed"] is True
    assert "FIN-01 1H100.80S.30V: taken by another deploy (503)" in result["msg"]
    assert outcomes(result) == [
        ("FIN-01", "no_capacity_on_deploy"),
        ("FIN-03", "no_capacity"),
        ("ICE-01", "no_capacity"),
    ]
    assert requests_of_the_placement(api) == [("GET", "/instance-availability"), ("POST", "/instances")]


def test_when_the_fresh_read_says_no_everywhere_nothing_more_is_deployed(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-availability", json=capacity("FIN-01", "ICE-01"))
    api.answer(responses.POST, "/instances", json=NO_CAPACITY, status=503)
    api.answer(responses.GET, "/instance-availability", json=capacity())
    result = place(api, run_module)
    assert result["failed"] is True
    assert outcomes(result) == [
        ("FIN-01", "no_capacity_on_deploy"),
        ("FIN-03", "no_capacity"),
        ("ICE-01", "no_capacity"),
    ]
    assert requests_of_the_placement(api) == [
        ("GET", "/instance-availability"),
        ("POST", "/instances"),
        ("GET", "/instance-availability"),
    ]


def test_with_on_no_capacity_fail_the_hint_to_wait_reads_as_a_hint(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-availability", json=capacity())
    result = place(api, run_module)
    assert result["failed"] is True
    assert "no capacity for instance gpu-1 now; every candidate:" in result["msg"], result
    assert result["msg"].endswith("or give on_no_capacity=wait to wait for capacity within wait_timeout."), result
    assert "(on_no_capacity=wait waits" not in result["msg"]


def test_a_type_the_catalog_does_not_sell_is_not_offered_rather_than_without_capacity(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-types", json=INSTANCE_TYPES)
    api.answer(responses.GET, "/instance-availability", json=capacity())
    result = run_module(
        main,
        dict(
            hostname="gpu-1", image="ubuntu-24.04", placement=dict(locations=["FIN-01"], instance_types=["8H200", TYPE])
        ),
    )
    assert result["failed"] is True
    assert outcomes(result) == [("FIN-01", "not_offered"), ("FIN-01", "no_capacity")]
    assert "FIN-01 8H200: not in the catalog; FIN-01 1H100.80S.30V: no capacity" in result["msg"], result


def test_waiting_for_types_the_catalog_does_not_sell_fails_at_once(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-types", json=INSTANCE_TYPES)
    api.answer(responses.GET, "/instance-availability", json=capacity())
    result = run_module(
        main,
        dict(
            hostname="gpu-1",
            image="ubuntu-24.04",
            placement=dict(locations=LOCATIONS, instance_types=["8H200"]),
            on_no_capacity="wait",
            wait_timeout=20,
        ),
    )
    assert result["failed"] is True
    assert {outcome for _location, outcome in outcomes(result)} == {"not_offered"}
    assert result["msg"].endswith("cloudcompute.cloud.instance_type_info lists the types the catalog sells."), result
    assert [path for _method, path in api.sent if path.startswith("/instance-availability")] == [
        "/instance-availability"
    ]


def test_every_candidate_over_the_cap_is_one_sentence_with_the_details_in_the_result(api, run_module):
    types = [TYPE, "8H100.80S.176V", "4H100.80S.120V"]
    catalog = [
        {"instance_type": code, "price_per_hour": price, "spot_price": "0.5"}
        for code, price in zip(types, ["2.19", "17.52", "8.76"])
    ]
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-types", json=catalog)
    result = run_module(
        main,
        dict(
            hostname="gpu-1",
            image="ubuntu-24.04",
            max_price_per_hour=1.0,
            placement=dict(locations=LOCATIONS, instance_types=types),
        ),
    )
    assert result["failed"] is True
    assert result["msg"] == (
        "every placement candidate of instance gpu-1 is over max_price_per_hour 1.0: the cheapest, "
        "1H100.80S.30V in FIN-01, would cost 2.19 usd/h; nothing was changed (each candidate's price in "
        "placement.tried, the cheapest one's basis in deploy_cost)"
    )
    tried = result["placement"]["tried"]
    assert len(tried) == 9 and {item["outcome"] for item in tried} == {"over_price_cap"}
    assert [item["price_per_hour"] for item in tried[::3]] == [2.19, 17.52, 8.76]
    assert result["deploy_cost"]["basis"][0] == {"item": "instance 1H100.80S.30V (on-demand)", "price_per_hour": 2.19}
    assert [method for method, _path in api.sent] == ["GET", "GET"]  # no availability read, no deploy
