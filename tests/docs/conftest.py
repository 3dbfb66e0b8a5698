"""The built documentation site, served over HTTP, and headless Chromium driven over WebDriver.

The site is what ``make docs`` (tools/docs.sh) wrote to docs/site/ in the checkout; the docs
stage of tools/test.sh runs it right before these tests. The WebDriver client is a few plain
HTTP calls to the system's chromedriver (W3C WebDriver protocol), so no browser automation
package is needed.
"""

import functools
import http.server
import os
import pathlib
import socket
import subprocess
import tempfile
import threading
import time

import pytest
import requests

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
]
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C key of an element reference


@pytest.fixture(scope="session")
def site(checkout):
    site = checkout / "docs" / "site"
    if not (site / "index.html").is_file():
        pytest.fail("docs/site/index.html is missing: build the site with `make docs` (tools/test.sh docs does)")
    return site


class RecordingHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site and records (status, path) of every request."""

    def __init__(self, *args, requests_seen, **kwargs):
        self.requests_seen = requests_seen
        super().__init__(*args, **kwargs)

    def log_request(self, code="-", size="-"):
        self.requests_seen.append((int(code), self.path.split("?")[0]))

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        pass


@pytest.fixture(scope="session")
def site_server(site):
    """(base URL, list of (status, path) requested so far)."""
    seen = []
    handler = functools.partial(RecordingHandler, directory=str(site), requests_seen=seen)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d/" % server.server_address[1], seen
    server.shutdown()
    server.server_close()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Browser:
    """A WebDriver session of headless Chromium (just the calls these tests need)."""

    def __init__(self, driver_url, user_data_dir):
        self.driver_url = driver_url
        capabilities = {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": CHROMIUM_ARGS + ["--user-data-dir=" + user_data_dir]},
        }
        session = self._call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
        self.session = "/session/" + session["sessionId"]

    def _call(self, method, path, body=None):
        response = requests.request(method, self.driver_url + path, json=body, timeout=60)
        value = response.json()["value"]
        if response.status_code != 200:
            raise AssertionError(f"WebDriver {method} {path}: {value}")
        return value

    def open(self, url):
        self._call("POST", self.session + "/url", {"url": url})

    @property
    def url(self):
        return self._call("GET", self.session + "/url")

    @property
    def title(self):
        return self._call("GET", self.session + "/title")

    def run(self, script, *args):
        """Run JavaScript (a function body) in the page and return its result."""
        return self._call("POST", self.session + "/execute/sync", {"script": script, "args": list(args)})

    def wait_for(self, script, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            value = self.run(script)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(0.2)

    def find(self, css):
        return self._call("POST", self.session + "/element", {"using": "css selector", "value": css})[ELEMENT]

    def text(self, css):
        """The rendered text of the first element matching ``css`` (what a reader sees)."""
        return self._call("GET", f"{self.session}/element/{self.find(css)}/text")

    def click(self, css):
        self._call("POST", f"{self.session}/element/{self.find(css)}/click", {})

    def quit(self):
        self._call("DELETE", self.session)


def driver_ready(driver_url):
    try:
        return requests.get(driver_url + "/status", timeout=2).json()["value"]["ready"]
    except requests.ConnectionError:
        return False


@pytest.fixture(scope="session")
def browser():
    for program in (CHROMIUM, CHROMEDRIVER):
        if not os.access(program, os.X_OK):
            pytest.fail(f"{program} is missing: tools/bootstrap.sh installs chromium and chromium-driver")
    port = free_port()
    with tempfile.TemporaryDirectory() as user_data_dir:
        driver = subprocess.Popen(
            [CHROMEDRIVER, "--port=%d" % port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            driver_url = "http://127.0.0.1:%d" % port
            deadline = time.monotonic() + 10
            while not driver_ready(driver_url):
                assert time.monotonic() < deadline, "chromedriver did not start"
                time.sleep(0.1)
            session = Browser(driver_url, str(pathlib.Path(user_data_dir) / "profile"))
            yield session
            session.quit()
        finally:
            driver.terminate()
            driver.wait(timeout=30)
