"""A real headless Chromium driven over the DevTools protocol, for the report's tests.

    with Chromium() as b:            # skips the test (printed reason) when it cannot start
        b.open("file:///tmp/report.html")
        b.evaluate("document.title"), b.problems(), b.screenshot("page.png")
        b.resize(1400)                   # the viewport's width, as a window that wide

Chromium is started with its background connections off (this machine's closed network refuses
them, which would show up as errors), a fresh user-data-dir and --remote-debugging-port=0; the
port is read from <user-data-dir>/DevToolsActivePort and one websocket (Debian's
python3-websocket) speaks to the browser, attached to one page with a flat session. What the
page does is collected from the events: console errors, uncaught exceptions, log entries of
level error, and every request. At the end the browser is asked to close, then its process
group (the one started here, by its id) is killed if anything of it is left, and the
user-data-dir is removed.
"""
import base64
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--remote-debugging-port=0",
]


def binary():
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    def __init__(self, width=1280, height=900, timeout=60.0):
        self.width, self.height, self.timeout = width, height, timeout
        self.proc = self.ws = self.session = None
        self.events, self._id = [], 0

    # ----------------------------------------------------------------- lifetime

    def __enter__(self):
        try:
            import websocket
        except ImportError:
            pytest.skip("python3-websocket is not installed (scripts/install-deps installs it)")
        exe = binary()
        if exe is None:
            pytest.skip("chromium is not installed (scripts/install-deps installs it)")
        self.profile = tempfile.mkdtemp(prefix="iosweep-chromium-")
        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + self.timeout
        while not os.path.exists(port_file) or len(open(port_file).read().split()) < 2:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace").strip().splitlines()
                self.__exit__(None, None, None)
                pytest.skip(f"chromium did not start: {err[-1] if err else 'no message'}")
            if time.monotonic() > deadline:
                self.__exit__(None, None, None)
                pytest.skip("chromium wrote no DevToolsActivePort in time")
            time.sleep(0.05)  # polling for a file another process writes, not a synchronisation
        port, path = open(port_file).read().split()[:2]
        self.ws = websocket.create_connection(
            f"ws://127.0.0.1:{port}{path}", timeout=self.timeout, suppress_origin=True
        )
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
        )
        return self

    def __exit__(self, *exc):
        if self.ws is not None:
            try:
                self.session = None
                self.call("Browser.close")
            except Exception:  # the browser may already be gone; it is killed below
                pass
            self.ws.close()
            self.ws = None
        if self.proc is not None:
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the group started here, by its id
            except ProcessLookupError:
                pass
            if self.proc.poll() is None:
                self.proc.wait(timeout=15)
            self.proc.stderr.close()
            self.proc = None
        shutil.rmtree(getattr(self, "profile", ""), ignore_errors=True)
        return False

    # ----------------------------------------------------------------- protocol

    def _recv(self, deadline):
        self.ws.settimeout(max(0.1, deadline - time.monotonic()))
        return json.loads(self.ws.recv())

    def call(self, method, params=None):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._recv(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_for(self, method):
        deadline = time.monotonic() + self.timeout
        for m in self.events:
            if m.get("method") == method:
                return m
        while True:
            m = self._recv(deadline)
            if "method" in m:
                self.events.append(m)
                if m["method"] == method:
                    return m

    def resize(self, width, height=None):
        """The viewport's width (and height) in CSS pixels, as a window of that size shows it."""
        self.width, self.height = width, height or self.height
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
        )

    # ----------------------------------------------------------------- the page

    def open(self, url):
        self.url = url
        self.events.clear()
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        # One round trip after the load: every event the page caused so far has been read.
        self.evaluate("1")

    def evaluate(self, expression):
        r = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression[:60]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def problems(self):
        """What went wrong while the page loaded: console errors, exceptions, error log entries,
        and requests for anything but the page itself."""
        out = []
        for m in self.events:
            kind, p = m.get("method"), m.get("params", {})
            if kind == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(f"console {p['type']}: {p.get('args')}")
            elif kind == "Runtime.exceptionThrown":
                out.append(f"exception: {p.get('exceptionDetails')}")
            elif kind == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(f"log: {p['entry'].get('text')} ({p['entry'].get('url', '')})")
            elif (
                kind == "Network.requestWillBeSent" and p.get("request", {}).get("url") != self.url
            ):
                out.append(f"request: {p['request'].get('url')}")
        return out

    def requests(self):
        return [
            m["params"]["request"]["url"]
            for m in self.events
            if m.get("method") == "Network.requestWillBeSent"
        ]

    def screenshot(self, path, clip=None):
        """A PNG of the page (its whole height, or `clip` {x, y, width, height}) written to path."""
        if clip is None:
            height = self.evaluate("document.documentElement.scrollHeight")
            clip = {"x": 0, "y": 0, "width": self.width, "height": min(int(height), 16000)}
        r = self.call(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True, "clip": dict(clip, scale=1)},
        )
        data = base64.b64decode(r["data"])
        with open(path, "wb") as fh:
            fh.write(data)
        return data
