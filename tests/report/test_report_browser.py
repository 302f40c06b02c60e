"""The HTML report in a real browser: headless Chromium (issue 14, section 1).

Chromium renders the page written by ``ComparisonResult.report("html")``
with the network cut (every host maps to nothing), and the test checks:

* the screenshot is not blank: several colours, a decent share of
  non-white pixels, ink in the top band (the title) and further down
  (tables and charts);
* the DOM that Chromium built holds every system name as text (a name such
  as ``<b>&_%`` stays text: no ``b`` element appears), the 5 tables (scores and pairs per metric, ranks) and 4
  inline SVG charts, and no ``script`` element;
* the browser console logged no error (no "Uncaught", no failed resource
  load): the page runs no script and loads nothing.

The checks are run once on a broken page (a script error, a missing image,
a blank body) to show they can fail. ``.ci/run`` installs the Debian
package ``chromium`` when it is missing; the tests skip, saying so, only
where no Chromium can be found.
"""

import numpy as np
import pytest

from _chromium import CHROMIUM, _browser, _console_errors, _dom, _ink

from sigtest import BCaInterval, PairedPermutation, compare


pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium not found (Debian: apt-get install -y chromium; .ci/run "
           "installs it when it can)")

NAMES = ["baseline", "<b>&_%", "new_model", "a system with a rather long name"]


def _render(page, tmp_path, size="1100,1800"):
    """One Chromium run: (DOM tags, DOM text, console errors, screenshot ink)."""
    png = tmp_path / (page.stem + ".png")
    stdout, stderr = _browser(page, tmp_path, "--dump-dom", f"--screenshot={png}",
                              f"--window-size={size}")
    assert png.exists(), stderr[-2000:]
    tags, text = _dom(stdout)
    return tags, text, _console_errors(stderr), _ink(png)


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    rng = np.random.default_rng(1)
    n = 200
    y = rng.integers(0, 3, n)
    preds = {name: np.where(rng.random(n) < p, y, (y + 1) % 3)
             for name, p in zip(NAMES, (0.6, 0.7, 0.8, 0.75))}
    result = compare(y, preds, metrics=["accuracy", "f1_macro"],
                     test=(PairedPermutation(n_resamples=999), BCaInterval(n_resamples=999)),
                     random_state=0)
    path = tmp_path_factory.mktemp("report") / "report.html"
    result.report("html", path=path)
    return path, result


def test_the_report_renders_in_chromium(report_page, tmp_path):
    page, result = report_page
    tags, text, errors, (colours, share, rows) = _render(page, tmp_path)
    # the DOM as Chromium built it
    for name in NAMES:
        assert name in text, name
    assert "b" not in tags  # "<b>&_%" stayed text
    assert "script" not in tags
    assert tags.count("table") == 5 and tags.count("svg") == 4  # 2 metrics x (scores, pairs) + ranks
    assert result.signature() in text
    # its console
    assert errors == []
    # the picture
    assert colours > 20  # text antialiasing, the blue and grey charts, table rules
    assert 0.02 < share < 0.6
    assert rows.min() < 100 and rows.max() > 1000  # the title on top, content far below


def test_the_checks_can_fail(tmp_path):
    broken = tmp_path / "broken.html"
    broken.write_text('<!DOCTYPE html><html><body style="background:#fff">'
                      '<script>undefinedFunction();</script>'
                      '<link rel="stylesheet" href="http://example.invalid/x.css"></body></html>')
    tags, text, errors, (colours, share, rows) = _render(broken, tmp_path, "400,300")
    assert "script" in tags
    assert any("Uncaught" in e for e in errors), errors
    assert colours <= 2 and share < 0.02 and rows.size == 0  # blank: fails the ink checks
