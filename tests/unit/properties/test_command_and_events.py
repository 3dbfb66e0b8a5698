"""Properties of what reads command output and event-source input: ``nvidia-smi``'s CSV (the
``ready`` role's filters), the event sources' arguments, state files and audit-log times. For
any input: a value in the documented shape, or the collection's own error with a message."""

import json
import math
from datetime import datetime, timezone

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import example, given, settings
from hypothesis import strategies as st
from strategies import JSON, TIMESTAMPISH

from ansible_collections.cloudcompute.cloud.extensions.eda.plugins.event_source import audit_log
from ansible_collections.cloudcompute.cloud.plugins.filter.gpus import instance_type_gpus, nvidia_smi_gpus
from ansible_collections.cloudcompute.cloud.plugins.module_utils import _event_source

CSV_VALUE = st.sampled_from(
    ["NVIDIA H100 80GB HBM3", "81559 MiB", "[N/A]", "[Unknown Error]", "[GPU requires reset]", "00000000:01:00.0", ""]
)
CSV_LINE = st.lists(CSV_VALUE | st.text(max_size=10), min_size=1, max_size=4).map(", ".join)
HEADER = st.sampled_from(["name, memory.total [MiB], pci.bus_id", "index, pci.bus_id", "memory.total [MiB]", ""])
LOST = st.sampled_from(["Unable to determine the device handle for GPU0000:01:00.0: Unknown Error"])
NVIDIA_SMI = st.builds(
    lambda header, lines: "\n".join([header, *lines]),
    HEADER,
    st.lists(CSV_LINE | LOST | st.text(max_size=20), max_size=6),
) | st.text(max_size=60)


@given(NVIDIA_SMI)
def test_nvidia_smi_output_reads_as_gpus_and_errors(output):
    result = nvidia_smi_gpus(output)
    assert set(result) == {"gpus", "errors", "count"}
    assert all(isinstance(gpu, dict) and isinstance(gpu["healthy"], bool) for gpu in result["gpus"])
    assert result["count"] == sum(1 for gpu in result["gpus"] if gpu["healthy"])
    for gpu in result["gpus"]:
        # a card reporting a bracketed error is never counted healthy
        assert gpu["healthy"] == (
            not any(str(value).startswith("[") and value != "[N/A]" for value in gpu.values() if isinstance(value, str))
        )


@given(JSON)
def test_nvidia_smi_gpus_refuses_what_is_not_text(output):
    if isinstance(output, str):
        return
    with pytest.raises(AnsibleFilterError, match="expects the text nvidia-smi printed"):
        nvidia_smi_gpus(output)


@given(st.one_of(st.none(), st.text(max_size=20), st.from_regex(r"\A\d{1,4}[A-Z]{1,3}\d{1,4}[A-Z]?\.\w+\Z")))
def test_an_instance_type_promises_a_count_of_gpus(code):
    promised = instance_type_gpus(code)
    assert isinstance(promised["gpus"], int) and promised["gpus"] >= 0
    assert promised["model"] is None or (isinstance(promised["model"], str) and promised["model"])


@given(st.one_of(JSON, st.text(max_size=10)))
def test_an_event_source_number_is_positive_and_finite_or_refused(value):
    try:
        number = _event_source.positive_number(value, "interval")
    except _event_source.SourceError as error:
        assert "interval must be a positive number" in str(error)
        return
    assert number > 0


@given(st.sampled_from(["inf", "1e400", float("inf")]))
def test_an_event_source_interval_is_finite(value):
    try:
        number = _event_source.positive_number(value, "interval")
    except _event_source.SourceError:
        return
    assert math.isfinite(number)


@given(JSON)
def test_an_event_source_boolean_is_a_bool_or_refused(value):
    try:
        flag = _event_source.boolean(value, "validate_certs")
    except _event_source.SourceError as error:
        assert "validate_certs must be a boolean" in str(error)
        return
    assert isinstance(flag, bool)


@settings(deadline=None, max_examples=50)
@given(st.one_of(JSON.map(json.dumps), st.text(max_size=30)))
def test_a_state_file_loads_or_is_refused_clearly(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("state") / "state.json"
    path.write_text(text)
    try:
        _event_source.load_state(str(path))
    except _event_source.SourceError as error:
        assert "is not the JSON this source writes" in str(error)


FUTURE_LIMIT = datetime(2100, 1, 1, tzinfo=timezone.utc).timestamp()


@given(st.one_of(TIMESTAMPISH, JSON))
@example(None)
@example("9999-12-31T23:59:59Z")
def test_an_audit_log_time_is_a_sane_moment_or_the_event_is_skipped(value):
    moment = audit_log._timestamp(value)  # None: the event is skipped
    assert moment is None or (math.isfinite(moment) and moment < FUTURE_LIMIT)


class PagedLog:
    """An audit log API whose pages are given: each GET answers the next page."""

    def __init__(self, pages):
        self.pages = list(pages)
        self.requests = 0

    def get(self, path, params=None):
        self.requests += 1
        if self.requests > 1000:
            raise AssertionError("more than 1000 requests in one poll")
        return self.pages[min(self.requests - 1, len(self.pages) - 1)] if self.pages else {}


@settings(deadline=None, max_examples=30)
@given(cursor=st.text(min_size=1, max_size=5))
def test_one_poll_of_the_audit_log_makes_a_bounded_number_of_requests(cursor):
    client = PagedLog([{"data": [], "cursor": cursor}])
    reader = audit_log.AuditLogReader(client, position={"time": None, "ids": []})
    try:
        reader.new_events()
    except _event_source.SourceError:
        pass
    assert client.requests <= 100
