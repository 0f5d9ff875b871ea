"""A small W3C WebDriver client over HTTP (urllib only), for chromedriver.

Enough to drive Debian's headless Chromium in the report test: open a URL,
find and click elements, run a script, take a screenshot and read the
performance log (the network requests the page made).
"""

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

# The flags Chromium needs as root in a container, and none of its own
# traffic (updates, sync, field trials) so that the log only shows the page's.
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1400,1000",
]


class WebDriverError(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self, chromium="/usr/bin/chromium", chromedriver="/usr/bin/chromedriver"):
        self.port = free_port()
        self.profile = tempfile.mkdtemp(prefix="anot-chromium-")
        self.driver = subprocess.Popen([chromedriver, "--port=%d" % self.port],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.monotonic() + 20
        while True:
            try:
                self._call("GET", "/status")
                break
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline:
                    self.close()
                    raise WebDriverError("chromedriver did not start")
                time.sleep(0.1)
        caps = {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": CHROMIUM_ARGS + ["--user-data-dir=" + self.profile],
            },
            "goog:loggingPrefs": {"performance": "ALL"},
        }
        try:
            value = self._call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
        except Exception:
            self.close()
            raise
        self.session = "/session/" + value["sessionId"]
        # Finding an element waits for it: what a click opens (a <details>
        # filled on its toggle event) appears a moment later.
        self._call("POST", self.session + "/timeouts", {"implicit": 5000})

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                payload = json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as e:
            payload = json.loads(e.read() or b"{}")
            raise WebDriverError("%s %s: %s" % (method, path, payload.get("value", payload)))
        return payload.get("value")

    def get(self, url):
        self._call("POST", self.session + "/url", {"url": url})

    def run(self, script, *args):
        return self._call("POST", self.session + "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        value = self._call("POST", self.session + "/element", {"using": "css selector", "value": css})
        return value[ELEMENT]

    def click(self, css):
        self._call("POST", self.session + "/element/%s/click" % self.find(css), {})

    def type(self, css, text):
        self._call("POST", self.session + "/element/%s/value" % self.find(css), {"text": text})

    def screenshot(self, path):
        png = base64.b64decode(self._call("GET", self.session + "/screenshot"))
        with open(path, "wb") as f:
            f.write(png)

    def performance_log(self):
        """Chrome DevTools events since the last call, as dicts."""
        entries = self._call("POST", self.session + "/se/log", {"type": "performance"})
        return [json.loads(e["message"])["message"] for e in entries]

    def close(self):
        try:
            if getattr(self, "session", None):
                self._call("DELETE", self.session)
        except Exception:
            pass
        self.driver.terminate()
        try:
            self.driver.wait(10)
        except subprocess.TimeoutExpired:
            self.driver.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
