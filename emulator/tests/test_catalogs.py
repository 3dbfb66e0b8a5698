"""Catalog endpoints: instance types, images, locations, volume types, periods, availability."""

from __future__ import annotations

import re

from conftest import ApiClient, assert_error

PRICE = re.compile(r"^\d+(\.\d+)?$")


def test_instance_types(anonymous: ApiClient, api: ApiClient) -> None:
    types = anonymous.ok("GET", "/instance-types").json()
    codes = {item["instance_type"] for item in types}
    for code in ("1H100.80S.30V", "8H100.80S.176V", "1H200.141S.44V", "8B200.180S.240V", "1A100.22V", "1L40S.20V",
                 "1V100.6V", "CPU.4V.16G", "CPU.8V.32G"):
        assert code in codes, code
    h100 = next(item for item in types if item["instance_type"] == "8H100.80S.176V")
    assert h100["gpu"] == {"description": "8x H100 SXM5 80GB", "number_of_gpus": 8}
    assert h100["gpu_memory"]["size_in_gigabytes"] == 640 and h100["currency"] == "usd"
    for field in ("price_per_hour", "spot_price", "max_dynamic_price", "dynamic_price", "serverless_price"):
        assert PRICE.match(h100[field]), (field, h100[field])
    assert "ubuntu-24.04-cuda-12.8-open-docker" in h100["supported_os"]
    euro = anonymous.ok("GET", "/instance-types", params={"currency": "eur"}).json()
    euro_h100 = next(item for item in euro if item["instance_type"] == "8H100.80S.176V")
    assert euro_h100["currency"] == "eur" and float(euro_h100["price_per_hour"]) < float(h100["price_per_hour"])
    assert_error(anonymous.get("/instance-types", params={"currency": "gbp"}), 400, "invalid_request", "currency")
    assert anonymous.ok("GET", "/instance-types/8H100.80S.176V").json() == h100
    assert anonymous.ok("GET", "/instance-types/8H100.80S.176V", params={"currency": "eur"}).json() == euro_h100
    assert_error(anonymous.get("/instance-types/9Z999.1S.1V"), 404, "not_found", "9Z999.1S.1V")
    assert api.ok("GET", "/instances/types").json() == types  # deprecated alias (needs a token)
    assert anonymous.get("/instances/types").status_code == 401
    history = anonymous.ok("GET", "/instance-types/price-history")
    assert history.json() == {} and "no longer supported" in history.headers["warning"] and history.headers["deprecation"] == "true"


def test_images(api: ApiClient) -> None:
    images = api.ok("GET", "/images").json()
    by_type = {image["image_type"]: image for image in images}
    assert {"ubuntu-24.04-cuda-12.8-open-docker", "ubuntu-22.04", "ubuntu-24.04"} <= set(by_type)
    assert by_type["ubuntu-24.04-cuda-12.8-open-docker"]["is_default"] is True
    assert {image["category"] for image in images} >= {"ubuntu", "docker", "confidentialComputing"}
    assert all(not image["is_cluster"] for image in images)
    cpu_images = api.ok("GET", "/images", params={"instance_type": "CPU.4V.16G"}).json()
    assert {image["image_type"] for image in cpu_images} == {"ubuntu-24.04", "ubuntu-22.04", "ubuntu-24.04-docker"}
    assert [image["image_type"] for image in cpu_images if image["is_default"]] == ["ubuntu-24.04"]
    v100 = {image["image_type"] for image in api.ok("GET", "/images", params={"instance_type": "1V100.6V"}).json()}
    assert "ubuntu-24.04-cuda-12.8-open-docker" not in v100
    assert_error(api.get("/images", params={"instance_type": "9Z999"}), 404, "not_found", "not found")


def test_locations_volume_types_and_periods(api: ApiClient, anonymous: ApiClient) -> None:
    locations = api.ok("GET", "/locations").json()
    assert [location["code"] for location in locations] == ["FIN-01", "FIN-02", "FIN-03", "ICE-01"]
    assert {location["country_code"] for location in locations} == {"FI", "IS"}
    assert anonymous.get("/locations").status_code == 401
    volume_types = anonymous.ok("GET", "/volume-types").json()
    assert {item["type"] for item in volume_types} == {"HDD", "NVMe", "HDD_Shared", "NVMe_Shared", "NVMe_Local_Storage",
                                                       "NVMe_Shared_Cluster", "NVMe_OS_Cluster"}
    nvme = next(item for item in volume_types if item["type"] == "NVMe")
    assert nvme["price"]["price_per_month_per_gb"] == 0.2 and nvme["price"]["currency"] == "usd" and not nvme["is_shared_fs"]
    periods = anonymous.ok("GET", "/long-term/periods/instances").json()
    assert anonymous.ok("GET", "/long-term/periods").json() == periods
    assert {period["unit_name"] for period in periods} <= {"hour", "day", "week", "month", "year"}
    assert all(isinstance(period["discount_percentage"], int) for period in periods)
    assert any(not period["is_enabled"] for period in periods)
    assert anonymous.ok("GET", "/long-term/periods/clusters").json()[0]["code"] == "3_MONTHS"


def test_availability(api: ApiClient) -> None:
    everywhere = api.ok("GET", "/instance-availability").json()
    assert [item["location_code"] for item in everywhere] == ["FIN-01", "FIN-02", "FIN-03", "ICE-01"]
    assert all("CPU.4V.16G" in item["availabilities"] for item in everywhere)
    fin03 = api.ok("GET", "/instance-availability", params={"location_code": "FIN-03"}).json()
    assert len(fin03) == 1 and "8B200.180S.240V" in fin03[0]["availabilities"]
    assert api.ok("GET", "/instance-availability", params={"locationCode": "ICE-01"}).json()[0]["location_code"] == "ICE-01"
    spot = api.ok("GET", "/instance-availability", params={"location_code": "FIN-03", "is_spot": "true"}).json()
    assert "8B200.180S.240V" not in spot[0]["availabilities"]  # no spot capacity for it
    assert api.ok("GET", "/instance-availability/1H100.80S.30V").json() is True
    assert api.ok("GET", "/instance-availability/1H100.80S.30V", params={"location_code": "FIN-03"}).text == "true"
    assert api.ok("GET", "/instance-availability/1L40S.20V", params={"location_code": "FIN-01"}).json() is False
    assert api.ok("GET", "/instance-availability/1L40S.20V", params={"isSpot": "true", "locationCode": "ICE-01"}).json() is True
    assert api.ok("GET", "/instances/availability/1V100.6V", params={"location_code": "ICE-01"}).json() is False
    assert_error(api.get("/instance-availability/9Z999"), 404, "not_found")
    assert_error(api.get("/instance-availability", params={"location_code": "MARS-01"}), 400, "invalid_request", "location")
    assert_error(api.get("/instance-availability", params={"is_spot": "maybe"}), 400, "invalid_request", "is_spot")
