"""Headless Chromium for the browser tests (the HTML report, the docs' formulas).

``.ci/run`` installs Debian's ``chromium`` when it is missing; the tests that
use it skip, saying so, only where no Chromium can be found. Every host maps
to nothing (``--host-resolver-rules``), so a page that needs the network fails.
"""

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np

def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


CHROMIUM = _chromium()


def _browser(page, tmp_path, *mode):
    """Run headless Chromium on ``page``; return (stdout, stderr)."""
    profile = tmp_path / f"profile{len(list(tmp_path.iterdir()))}"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--disable-extensions", "--disable-sync",
           f"--user-data-dir={profile}", '--host-resolver-rules=MAP * ~NOTFOUND',
           "--enable-logging=stderr", "--v=0", *mode, page.as_uri()]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "LANG": "C.UTF-8"})
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout, run.stderr


def _console_errors(stderr):
    """Console errors and failed loads in Chromium's log."""
    bad = []
    for line in stderr.splitlines():
        if "CONSOLE" in line and re.search(r"Uncaught|Error|error|Failed", line):
            bad.append(line)
        elif "net::ERR" in line or "Failed to load resource" in line:
            bad.append(line)
    return bad


class _Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _dom(stdout):
    dom = _Dom()
    dom.feed(stdout)
    return dom.tags, "".join(dom.text)


def _ink(png):
    """(number of distinct colours, share of non-white pixels, rows with ink)."""
    import matplotlib.image as mpimg

    img = mpimg.imread(png)[..., :3]
    rgb = np.round(img * 255).astype(np.uint32).reshape(-1, 3)
    colours = np.unique((rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]).shape[0]
    nonwhite = (img.min(axis=2) < 0.9)
    return colours, float(nonwhite.mean()), np.flatnonzero(nonwhite.any(axis=1))


class DevTools:
    """Headless Chromium driven over the DevTools protocol, through a pipe (no port).

    ``open(path)`` loads a page; ``evaluate(js)`` runs JavaScript in it (the
    protocol's ``Runtime.evaluate``, which the page's Content-Security-Policy
    does not restrict); ``click(selector)`` and ``type(selector, text)`` send
    real input events (a mouse press and release at the element's centre;
    text inserted into the focused field). While it runs it records
    ``errors`` (uncaught exceptions, console errors, failed loads) and
    ``requests`` (the URL of every request the page made). Every host maps to
    nothing, as in :func:`_browser`.
    """

    def __init__(self, tmp_path, size=(1200, 900)):
        import json

        self._json = json
        profile = tmp_path / f"devtools{len(list(tmp_path.iterdir()))}"
        to_browser, self._out = os.pipe()
        self._in, from_browser = os.pipe()

        def wire():  # the browser reads commands on fd 3 and writes on fd 4
            a, b = os.dup(to_browser), os.dup(from_browser)
            os.dup2(a, 3)
            os.dup2(b, 4)

        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--disable-extensions", "--disable-sync",
               "--disable-background-networking", f"--user-data-dir={profile}",
               "--host-resolver-rules=MAP * ~NOTFOUND", "--remote-debugging-pipe",
               f"--window-size={size[0]},{size[1]}", "about:blank"]
        self._proc = subprocess.Popen(cmd, pass_fds=(3, 4), preexec_fn=wire,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      env={**os.environ, "LANG": "C.UTF-8"})
        os.close(to_browser)
        os.close(from_browser)
        self._buf, self._id, self._events = b"", 0, []
        self.errors, self.requests = [], []
        targets = self._send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self._session = self._send("Target.attachToTarget",
                                   {"targetId": page["targetId"], "flatten": True},
                                   session=False)["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self._send(f"{domain}.enable")

    # ------------------------------------------------------------ protocol
    def _note(self, msg):
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(params["exceptionDetails"].get("exception", {}).get(
                "description") or params["exceptionDetails"].get("text"))
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            self.errors.append(str([a.get("value") for a in params["args"]]))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(params["entry"]["text"])
        elif method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])
        elif method == "Network.loadingFailed":
            self.errors.append(f"load failed: {params.get('errorText')}")
        self._events.append(method)

    def _read(self, until, timeout=60):
        import select
        import time

        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                msg = self._json.loads(raw)
                if "id" not in msg:
                    self._note(msg)
                if until(msg):
                    return msg
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buf += chunk

    def _send(self, method, params=None, session=True):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self._session
        os.write(self._out, self._json.dumps(msg).encode() + b"\0")
        reply = self._read(lambda m, i=self._id: m.get("id") == i)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    # ------------------------------------------------------------- actions
    def open(self, path):
        """Load ``path`` (a file) and wait for its load event."""
        self._events.clear()
        self._send("Page.navigate", {"url": path.as_uri()})
        if "Page.loadEventFired" not in self._events:
            self._read(lambda m: m.get("method") == "Page.loadEventFired")

    def evaluate(self, expression):
        """The value of the JavaScript ``expression`` in the page (JSON-able)."""
        out = self._send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                              "awaitPromise": True})
        if "exceptionDetails" in out:
            raise RuntimeError(out["exceptionDetails"])
        return out["result"].get("value")

    def click(self, selector):
        """A mouse click at the centre of the first element matching ``selector``."""
        box = self.evaluate(
            f"(function () {{ var e = document.querySelector({self._json.dumps(selector)});"
            "e.scrollIntoView({block: 'center'}); var r = e.getBoundingClientRect();"
            "return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self._send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1],
                                                    "button": "left", "clickCount": 1})

    def type(self, selector, text):
        """Click into the field ``selector`` and type ``text``."""
        self.click(selector)
        self._send("Input.insertText", {"text": text})

    def close(self):
        try:
            self._send("Browser.close", session=False)
        except (RuntimeError, TimeoutError, OSError):
            self._proc.kill()
        self._proc.wait(timeout=30)
        os.close(self._out)
        os.close(self._in)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
