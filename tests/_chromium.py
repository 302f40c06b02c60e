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
