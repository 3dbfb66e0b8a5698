"""The audit_log event source against the emulator: every event once, oldest first, across
restarts, page boundaries, token expiry, rate limiting and server errors."""

import http.server
import itertools
import json
import logging
import threading
import time
import urllib.parse

import pytest
import requests
from source_runner import collect, run

from ansible_collections.cloudcompute.cloud.extensions.eda.plugins.event_source import audit_log
from ansible_collections.cloudcompute.cloud.extensions.eda.plugins.event_source.audit_log import main
from ansible_collections.cloudcompute.cloud.plugins.module_utils._event_source import SourceError


class Project:
    """Makes audit events (one per startup script created) and reads the whole log."""

    def __init__(self, emulator):
        self.emulator = emulator
        self.session = requests.Session()
        self.session.headers["Authorization"] = "Bearer " + emulator.access_token()
        self.made = 0

    def make_events(self, count):
        for _number in range(count):
            self.made += 1
            response = self.session.post(
                self.emulator.api_url + "/scripts", json={"name": "script-%05d" % self.made, "script": "#!/bin/sh\n"}
            )
            response.raise_for_status()

    def log(self):
        """Every event in the log, oldest first."""
        events, params = [], {"page_size": 100}
        while True:
            page = self.session.get(self.emulator.api_url + "/audit/log", params=params).json()
            events.extend(page["data"])
            if "cursor" not in page:
                return events[::-1]
            params["cursor"] = page["cursor"]

    def log_ids(self):
        return ids(self.log())


@pytest.fixture
def project(emulator_reset):
    # the tests make hundreds of calls a second; the source's own rate-limit handling is tested
    # with injected 429s
    emulator_reset.control.update_settings(rate_limits={"enabled": False})
    return Project(emulator_reset)


def ids(events):
    return [event["id"] for event in events]


def test_start_now_delivers_only_new_events_oldest_first(project, source_args, tmp_path):
    project.make_events(3)
    before = set(project.log_ids())
    state_file = tmp_path / "position.json"

    def make_later(events):
        # once the source has taken its position (it writes it down), five more events
        if state_file.exists() and project.made == 3:
            project.make_events(5)
        return len(events) >= 5

    events = run(collect(main, source_args(state_file=str(state_file)), until=make_later, timeout=30))
    assert not before & set(ids(events))
    assert ids(events) == project.log_ids()[-5:]
    assert [event["data"]["startup_script"]["name"] for event in events] == [
        "script-%05d" % number for number in range(4, 9)
    ]
    assert events[0]["specversion"] == "1.0" and events[0]["type"].endswith(".startup_script.create.v1")


def test_beginning_and_type_filter(project, source_args):
    project.make_events(4)
    events = run(collect(main, source_args(start="beginning"), count=len(project.log())))
    assert_exactly_once(events, project.log())
    scripts = run(collect(main, source_args(start="beginning", types=["*.startup_script.*"]), count=4))
    assert [event["type"] for event in scripts] == ["com.service.api.public-api.startup_script.create.v1"] * 4


def test_restart_in_the_middle_of_a_page_loses_and_repeats_nothing(project, source_args, tmp_path):
    project.make_events(40)
    state_file = str(tmp_path / "position.json")
    args = source_args(start="beginning", state_file=state_file, page_size=7)
    delivered = []
    # stop after 3 events (inside the first page of 7), after 11, after 19 (each a new poll in the
    # middle of its pages), then read the rest
    for stop_after in (3, 8, 8):
        delivered += run(collect(main, args, count=stop_after))
        assert json.load(open(state_file))["ids"][-1] == delivered[-1]["id"]
    project.make_events(6)
    delivered += run(
        collect(
            main,
            args,
            until=lambda events: events and events[-1]["data"].get("startup_script", {}).get("name") == "script-00046",
        )
    )
    assert_exactly_once(delivered, project.log())


def test_token_expiry_rate_limit_storm_and_server_errors(project, source_args, tmp_path):
    emulator = project.emulator
    emulator.control.update_settings(token_ttl=30)
    args = source_args(start="beginning", state_file=str(tmp_path / "position.json"), page_size=2)
    project.make_events(20)
    # a storm: most reads of the log answer 429, some 500 or a dropped connection
    emulator.control.add_fault(method="GET", path="/v1/audit/log", status=429, retry_after=0, probability=0.6, count=60)
    emulator.control.add_fault(method="GET", path="/v1/audit/log", status=500, probability=0.2, count=15)
    emulator.control.add_fault(method="GET", path="/v1/audit/log", drop_connection=True, probability=0.1, count=5)

    def expire_token_midway(events):
        if len(events) == 10 and project.made == 20:
            emulator.control.advance_clock(60)  # the source's token expires behind its back
            project.session.headers["Authorization"] = "Bearer " + emulator.access_token()
            project.make_events(20)
        return bool(events) and events[-1]["data"].get("startup_script", {}).get("name") == "script-00040"

    delivered = run(collect(main, args, until=expire_token_midway, timeout=120))
    assert emulator.control.faults()["injected_total"] >= 20
    emulator.control.clear_faults()
    assert_exactly_once(delivered, project.log())
    reads = emulator.control.requests(method="GET", path="/v1/audit/log")["requests"]
    assert {429, 500} <= {entry["status"] for entry in reads}
    # the project's token and its renewal, the source's token and its renewal (after a 401, or
    # before expiry when the run took long enough for the source to see it coming)
    assert emulator.control.requests(method="POST", path="/v1/oauth2/token")["count"] >= 4


def assert_exactly_once(delivered, log):
    """The log (oldest first) delivered in order, each event once, but for sign-ins at its end
    (a token request is an audit event too: the source's own may come after the last one read)."""
    assert len(set(ids(delivered))) == len(delivered)
    assert ids(delivered) == ids(log[: len(delivered)])
    assert all(event["type"].endswith("cloud_api_credential.authenticate.v1") for event in log[len(delivered) :])


def test_ten_thousand_events(project, source_args, tmp_path, record_property):
    emulator = project.emulator
    seeded = emulator.control.seed(instances=5000, status="running")["instance_ids"]
    # one bulk delete: 5,000 delete events now, 5,000 delete_complete events (system) when they are gone
    project.session.put(emulator.api_url + "/instances", json={"action": "delete", "id": seeded}).raise_for_status()
    emulator.control.advance_clock(60)
    expected = project.log()
    assert len(expected) >= 10000
    state_file = str(tmp_path / "position.json")
    started = time.monotonic()
    events = run(
        collect(
            main, source_args(start="beginning", state_file=state_file), count=len(expected), timeout=300, maxsize=0
        )
    )
    seconds = time.monotonic() - started
    assert_exactly_once(events, project.log())
    origins = {event["data"]["request_origin"] for event in events}
    assert origins == {"api", "system"}
    record_property("audit_events_per_second", round(len(events) / seconds))
    print("audit_log source: %d events in %.1f s, %.0f events/s" % (len(events), seconds, len(events) / seconds))


def test_refusals_stop_the_source_with_the_api_message(emulator_reset, source_args):
    member = emulator_reset.control.create_credentials(role="member")
    args = source_args(client_id=member["client_id"], client_secret=member["client_secret"])
    with pytest.raises(SourceError, match="HTTP 403"):
        run(collect(main, args, count=1, timeout=20))
    with pytest.raises(SourceError, match="start must be now or beginning"):
        run(collect(main, source_args(start="yesterday"), count=1))


def test_missing_credentials_name_the_variables(monkeypatch):
    for variable in ("CLOUDCOMPUTE_API_URL", "CLOUDCOMPUTE_CLIENT_ID", "CLOUDCOMPUTE_CLIENT_SECRET"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(SourceError, match="CLOUDCOMPUTE_CLIENT_SECRET"):
        run(collect(main, {"api_url": "http://127.0.0.1:1/v1", "client_id": "x"}, count=1))


class HostileLog:
    """A loopback server answering ``GET /v1/audit/log`` with ``pages(params)`` (and tokens to
    anyone); it counts the reads of the log."""

    def __init__(self, pages):
        self.reads = 0
        log = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, body):
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.answer({"access_token": "t", "token_type": "Bearer", "expires_in": 3600})

            def do_GET(self):
                log.reads += 1
                self.answer(pages(urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)))

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/v1" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def args(self, **options):
        return dict(api_url=self.url, client_id="c", client_secret="s", token_cache="false", interval=0.05, **options)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def audit_event(number, time="2026-11-24T16:44:59Z"):
    return {"specversion": "1.0", "id": "e%d" % number, "type": "t", "time": time, "data": {"request_origin": "api"}}


@pytest.mark.parametrize("cursor", ["repeated", "endless"])
def test_a_cursor_that_never_ends_costs_a_bounded_number_of_requests(monkeypatch, cursor):
    monkeypatch.setattr(audit_log, "MAX_PAGES_PER_POLL", 20)
    number = itertools.count()

    def pages(params):
        following = "same" if cursor == "repeated" else "c%d" % next(number)
        return {"data": [audit_event(1)], "cursor": following}

    server = HostileLog(pages)
    try:
        started = time.monotonic()
        events = run(collect(main, server.args(start="beginning"), timeout=3))
        seconds = time.monotonic() - started
    except AssertionError:
        seconds = time.monotonic() - started
        events = []
    finally:
        server.close()
    # each failed poll is tried again after a delay that doubles: a few polls in 3 s, each bounded
    assert events == [] and server.reads <= 7 * 20, (server.reads, seconds)


def test_malformed_and_future_events_are_skipped(tmp_path, caplog):
    good = [audit_event(1), audit_event(2, "2026-11-24T16:45:00Z")]
    malformed = [
        {"id": "no-time", "type": "t"},
        dict(audit_event(3), time="9999-12-31T23:59:59Z"),
        dict(audit_event(4), time="not a time"),
        dict(audit_event(5), time=12),
        "not an event",
        {"time": "2026-11-24T16:45:00Z"},
    ]
    server = HostileLog(lambda params: {"data": list(reversed(good + malformed))})
    state_file = tmp_path / "position.json"
    try:
        with caplog.at_level(logging.WARNING):
            events = run(collect(main, server.args(start="beginning", state_file=str(state_file)), count=2, timeout=20))
    finally:
        server.close()
    assert ids(events) == ["e1", "e2"]
    assert json.loads(state_file.read_text()) == {"time": "2026-11-24T16:45:00Z", "ids": ["e2"]}
    assert "no-time skipped" in caplog.text and "e3 skipped" in caplog.text


def test_a_position_from_the_future_is_not_continued_from(tmp_path, caplog):
    state_file = tmp_path / "position.json"
    state_file.write_text(json.dumps({"time": "9999-12-31T23:59:59Z", "ids": ["x"]}))
    server = HostileLog(lambda params: {"data": [audit_event(1)]})
    try:
        with caplog.at_level(logging.WARNING):
            events = run(collect(main, server.args(start="beginning", state_file=str(state_file)), count=1, timeout=20))
    finally:
        server.close()
    assert ids(events) == ["e1"] and "9999" not in state_file.read_text()
    assert "is not one this source writes" in caplog.text
