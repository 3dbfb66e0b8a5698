"""The ready role's GPU filters on nvidia-smi output from real cards (fixtures/), loaded by name
through Ansible's plugin loader as a playbook loads them."""

import pathlib

import pytest
from ansible.errors import AnsibleFilterError
from ansible.plugins.loader import filter_loader, init_plugin_loader

# as the CLI does before it loads plugins by name (ANSIBLE_COLLECTIONS_PATH is the staged collection)
init_plugin_loader()
nvidia_smi_gpus = filter_loader.get("cloudcompute.cloud.nvidia_smi_gpus").j2_function
instance_type_gpus = filter_loader.get("cloudcompute.cloud.instance_type_gpus").j2_function

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def parse(name):
    return nvidia_smi_gpus((FIXTURES / name).read_text())


@pytest.mark.parametrize(
    "fixture, count, name, memory",
    [
        ("h100_8x.csv", 8, "NVIDIA H100 80GB HBM3", "81559 MiB"),
        ("a100_8x.csv", 8, "NVIDIA A100-SXM4-40GB", "40960 MiB"),
        ("l40s_4x.csv", 4, "NVIDIA L40S", "46068 MiB"),
    ],
)
def test_healthy_cards(fixture, count, name, memory):
    parsed = parse(fixture)
    assert parsed["count"] == count
    assert parsed["errors"] == []
    assert [gpu["index"] for gpu in parsed["gpus"]] == [str(index) for index in range(count)]
    assert {gpu["name"] for gpu in parsed["gpus"]} == {name}
    assert {gpu["memory.total"] for gpu in parsed["gpus"]} == {memory}  # the unit left the field name, not the value
    assert all(gpu["healthy"] for gpu in parsed["gpus"])


def test_a_card_fallen_off_the_bus_is_missing_and_reported():
    parsed = parse("h100_8x_fallen_off_bus.txt")
    assert parsed["count"] == 7
    assert parsed["errors"] == [{"pci.bus_id": "0000:9A:00.0", "error": "Unknown Error"}]
    assert "00000000:9A:00.0" not in [gpu["pci.bus_id"] for gpu in parsed["gpus"]]


def test_a_card_that_needs_a_reset_is_listed_unhealthy():
    parsed = parse("a100_8x_requires_reset.csv")
    assert parsed["count"] == 7
    broken = [gpu for gpu in parsed["gpus"] if not gpu["healthy"]]
    assert [(gpu["pci.bus_id"], gpu["error"]) for gpu in broken] == [("00000000:90:00.0", "[GPU requires reset]")]


def test_not_supported_fields_are_not_errors_and_nothing_is_nothing():
    parsed = nvidia_smi_gpus("index, name, power.draw [W]\n0, NVIDIA L40S, [N/A]\n")
    assert parsed["count"] == 1 and parsed["gpus"][0]["power.draw"] == "[N/A]"
    assert nvidia_smi_gpus("") == {"gpus": [], "errors": [], "count": 0}
    with pytest.raises(AnsibleFilterError):
        nvidia_smi_gpus(None)


@pytest.mark.parametrize(
    "code, expected",
    [
        ("8H100.80S.176V", {"gpus": 8, "model": "H100"}),
        ("1A100.22V", {"gpus": 1, "model": "A100"}),
        ("4L40S.80V", {"gpus": 4, "model": "L40S"}),
        ("8B200.180S.240V", {"gpus": 8, "model": "B200"}),
        ("2V100.10V", {"gpus": 2, "model": "V100"}),
        ("CPU.4V.16G", {"gpus": 0, "model": None}),
        (None, {"gpus": 0, "model": None}),
    ],
)
def test_instance_type_gpus(code, expected):
    assert instance_type_gpus(code) == expected


@pytest.mark.parametrize(
    "fixture, instance_type",
    [("h100_8x.csv", "8H100.80S.176V"), ("a100_8x.csv", "8A100.176V"), ("l40s_4x.csv", "4L40S.80V")],
)
def test_every_fixture_card_name_carries_its_instance_type_model(fixture, instance_type):
    model = instance_type_gpus(instance_type)["model"]
    assert all(model in gpu["name"] for gpu in parse(fixture)["gpus"])


@pytest.mark.parametrize(
    "output",
    [
        "index, memory.total [MiB]\n0, 81559 MiB\n1, 81559 MiB\n",  # queried without name
        "memory.total [MiB]\n81559 MiB\n",  # one column: the header is told apart by its field name
    ],
)
def test_output_without_a_name_column_lists_no_gpu_and_says_why(output):
    parsed = nvidia_smi_gpus(output)
    assert parsed["gpus"] == [] and parsed["count"] == 0
    assert parsed["errors"] and all("no name column" in error["error"] for error in parsed["errors"])
