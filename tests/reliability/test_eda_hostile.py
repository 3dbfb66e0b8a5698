"""Event-Driven Ansible fed hostile input, through ansible-rulebook itself: the collection's
audit_log source against a loopback server of our own whose page cursor repeats, whose events
are malformed or from year 9999, or carry Jinja that a playbook run by the rulebook reads. The
rulebook keeps running, makes a bounded number of requests, delivers the good events, and no
Jinja from an event runs."""

import http.server
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import yaml
from conftest import report

BIN = os.path.dirname(sys.executable)
PLAYBOOK = """\
- name: Write the event's note, as data
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Write it
      ansible.builtin.copy:
        dest: "{{ note_file }}"
        content: "{{ lookup('cloudcompute.cloud.unsafe_var', 'ansible_eda').event.data.note }}"
        mode: "0600"
"""


class HostileLog:
    """``GET /v1/audit/log`` answered by ``pages(params)``; a token for anyone; reads counted."""

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

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def audit_event(name, time="2026-11-24T16:44:59Z", **data):
    return {"specversion": "1.0", "id": name, "type": "t", "time": time, "data": dict(request_origin="api", **data)}


def run_rulebook(server, tmp_path, ansible_env, seconds, until=None):
    """ansible-rulebook with the audit_log source on ``server``: each event's id printed, and the
    playbook above run for it; stopped after ``seconds`` (or once ``until(log)``)."""
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "note.yml").write_text(PLAYBOOK)
    rulebook = [
        {
            "name": "Hostile audit log",
            "hosts": "all",
            "sources": [{"cloudcompute.cloud.audit_log": {"start": "beginning", "interval": 0.2}}],
            "rules": [
                {
                    "name": "Every event",
                    "condition": "event.id is defined",
                    "actions": [
                        {"debug": {"msg": "delivered {{ event.id }}"}},
                        {
                            "run_playbook": {
                                "name": str(tmp_path / "project" / "note.yml"),
                                "extra_vars": {"note_file": str(tmp_path / "note.txt")},
                            }
                        },
                    ],
                }
            ],
        }
    ]
    (tmp_path / "rulebook.yml").write_text(yaml.safe_dump(rulebook))
    (tmp_path / "inventory.yml").write_text("all:\n  hosts:\n    localhost:\n      ansible_connection: local\n")
    log = tmp_path / "ansible-rulebook.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [os.path.join(BIN, "ansible-rulebook"), "-r", "rulebook.yml", "-i", "inventory.yml", "-v"],
            cwd=tmp_path,
            env=ansible_env(
                PATH=BIN + os.pathsep + os.environ["PATH"],
                ANSIBLE_COLLECTIONS_PATH=os.environ["ANSIBLE_COLLECTIONS_PATH"],
                ANSIBLE_PYTHON_INTERPRETER=sys.executable,
                CLOUDCOMPUTE_API_URL=server.url,
                CLOUDCOMPUTE_CLIENT_ID="c",
                CLOUDCOMPUTE_CLIENT_SECRET="s",
                CLOUDCOMPUTE_TOKEN_CACHE="false",
            ),
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None and not (until and until(log.read_text())):
        time.sleep(0.2)
    alive = process.poll() is None
    process.send_signal(signal.SIGINT)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return alive, log.read_text()


def test_a_repeated_cursor_costs_a_few_requests(tmp_path, ansible_env):
    server = HostileLog(lambda params: {"data": [audit_event("e1")], "cursor": "same"})
    try:
        alive, log = run_rulebook(server, tmp_path, ansible_env, seconds=10)
    finally:
        server.close()
    report(
        "EDA hostile input", f"repeated audit log cursor: {server.reads} requests in 10 s, rulebook running: {alive}"
    )
    assert alive, log[-3000:]
    assert "delivered e1" not in log and server.reads <= 30, (server.reads, log[-3000:])


def test_malformed_and_future_events_are_skipped(tmp_path, ansible_env):
    events = [
        audit_event("good-1", note="one"),
        {"id": "no-time", "type": "t", "data": {}},
        audit_event("year-9999", time="9999-12-31T23:59:59Z"),
        "not an event",
        audit_event("good-2", time="2026-11-24T16:45:00Z", note="two"),
    ]
    server = HostileLog(lambda params: {"data": list(reversed(events))})
    try:
        alive, log = run_rulebook(
            server, tmp_path, ansible_env, seconds=60, until=lambda text: text.count("PLAY RECAP") >= 2
        )
    finally:
        server.close()
    report("EDA hostile input", f"malformed audit events: rulebook running {alive}, good events delivered")
    assert alive, log[-3000:]
    assert "delivered good-1" in log and "delivered good-2" in log, log[-3000:]
    assert "delivered no-time" not in log and "delivered year-9999" not in log


def test_jinja_in_an_event_is_data_in_the_playbook(tmp_path, ansible_env):
    directory = pathlib.Path(tempfile.mkdtemp(prefix="eda-", dir="/tmp"))
    note = "{{ lookup('pipe', 'touch %s') }}" % (directory / "pwned")
    server = HostileLog(lambda params: {"data": [audit_event("jinja-1", note=note)]})
    try:
        alive, log = run_rulebook(server, tmp_path, ansible_env, seconds=60, until=lambda text: "PLAY RECAP" in text)
        created = sorted(path.name for path in directory.iterdir())
    finally:
        server.close()
        shutil.rmtree(directory, ignore_errors=True)
    report("EDA hostile input", f"Jinja in an event through ansible-rulebook: files it made {created}")
    assert alive and created == [], log[-3000:]
    assert (tmp_path / "note.txt").read_text() == note
