"""The documentation's formulas show from disk with no network.

``docs/conf.py`` renders math with ``docs/_ext/sigtest_mathml.py`` (TeX to
MathML while the pages are written) instead of ``sphinx.ext.mathjax``, whose
script comes from a CDN: opened offline, a MathJax page shows raw
``\\(s_{A,i}\\)``. The test builds a small site with the site's own
configuration of math (MyST ``$...$`` and ``$$...$$``, a ``:math:`` role, a
multi-line ``.. math::`` block), opens it in headless Chromium with every host
unreachable and checks that the DOM holds MathML and no TeX, that the console
logged no failed load, and that the formulas have ink. The same page built
with MathJax is checked to fail those checks, so they can fail.
"""

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from _chromium import CHROMIUM, _browser, _console_errors, _dom, _ink

DOCS = Path(__file__).resolve().parents[1] / "docs"

pytest.importorskip("sphinx", reason="Sphinx is in the test extra (pip install -e '.[test]')")
pytest.importorskip("myst_parser", reason="myst-parser is in the test extra")
pytest.importorskip("latex2mathml", reason="latex2mathml is in the test and docs extras")

PAGE = r"""# Formulas

The score of a system with per-item scores $s_{A,i}$ and weights $w_i$ is

$$\bar s = \frac{\sum_i w_i s_i}{\sum_i w_i},$$

and the studentized statistic of max-T is {math}`t_j = \delta_j / \widehat{se}_j`.

```{math}
T^*_b &= \hat T + L z_b \\
L L^\top &= \Sigma
```

A label in text: $1 - (1 - \text{confidence\_level}) / K$.
"""

TEX = re.compile(r"\\(frac|sum|bar|hat|widehat|top|Sigma|text)\b|\$|\\\(|\\\[")


# a resource the page loads from a host (a plain hyperlink is no such thing)
REMOTE = re.compile(r"""<(script|link|img)\b[^>]*\b(src|href)=["']?(https?:)?//""", re.I)


def _site_conf():
    """The math settings of docs/conf.py, read from its source (not executed)."""
    tree = ast.parse((DOCS / "conf.py").read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in ("extensions", "html_math_renderer", "myst_enable_extensions"):
                found[name] = ast.literal_eval(node.value)
    return found


def test_the_site_renders_math_with_the_offline_renderer():
    conf = _site_conf()
    assert conf["html_math_renderer"] == "mathml"
    assert "sigtest_mathml" in conf["extensions"]
    assert "sphinx.ext.mathjax" not in conf["extensions"]
    assert "dollarmath" in conf["myst_enable_extensions"]


def _build(tmp_path, renderer, page=PAGE):
    """Build the one-page site with ``renderer`` ('mathml' or 'mathjax').

    Returns (the HTML page, the completed sphinx-build). Each build runs in its
    own process, as ``make docs`` does, with warnings as errors.
    """
    src = tmp_path / f"src_{renderer}"
    src.mkdir()
    (src / "index.md").write_text(page)
    ext = ["myst_parser", "sigtest_mathml"] if renderer == "mathml" else ["myst_parser"]
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        f"extensions = {ext!r}\n"
        "myst_enable_extensions = ['dollarmath', 'amsmath']\n"
        f"html_math_renderer = {renderer!r}\n"
        "html_theme = 'basic'\n"
    )
    out = tmp_path / f"html_{renderer}"
    run = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "-q", "-E",
                          str(src), str(out)], capture_output=True, text=True, timeout=300)
    return out / "index.html", run


@pytest.fixture(scope="module")
def mathml_page(tmp_path_factory):
    """The one-page site built once with the site's renderer (a build takes seconds)."""
    page, run = _build(tmp_path_factory.mktemp("mathml"), "mathml")
    assert run.returncode == 0, run.stderr
    return page


def test_every_formula_of_the_page_becomes_mathml(mathml_page):
    html = mathml_page.read_text()
    assert html.count("<math") == 6  # 3 inline, 1 display, the role, the 2-line block
    assert not REMOTE.search(html)  # nothing to fetch: no script, style or font from a host
    body = re.sub(r"<[^>]+>", "", html.split("<body", 1)[1])
    assert not TEX.search(body), TEX.search(body)


def test_a_formula_that_cannot_be_converted_is_a_build_error(tmp_path):
    spec = importlib.util.spec_from_file_location("sigtest_mathml",
                                                  DOCS / "_ext" / "sigtest_mathml.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert "<mfrac>" in module.to_mathml(r"\frac{a}{b}", display=True)
    # a double subscript has no MathML: the build fails instead of showing TeX
    _, run = _build(tmp_path, "mathml", PAGE + "\n$x_1_2$\n")
    assert run.returncode != 0
    assert "not converted to MathML" in run.stderr


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not found (Debian: "
                    "apt-get install -y chromium; .ci/run installs it when it can)")
def test_formulas_show_offline_in_chromium_and_mathjax_pages_would_not(mathml_page, tmp_path):
    def look(page):
        png = tmp_path / f"{page.parent.parent.name}-{page.parent.name}.png"
        stdout, stderr = _browser(page, tmp_path, "--dump-dom", f"--screenshot={png}",
                                  "--window-size=900,700")
        tags, text = _dom(stdout)
        return tags, text, _console_errors(stderr), _ink(png)

    tags, text, errors, (colours, share, rows) = look(mathml_page)
    assert tags.count("math") == 6
    assert not TEX.search(text), TEX.search(text)
    assert "s" in text and "Σ" in text  # the formulas' own symbols are text of the DOM
    assert errors == []
    assert share > 0.005 and rows.size > 50  # the page has ink: text and formulas

    # the same page with MathJax, offline: its script is remote, and Chromium shows raw TeX
    page = _build(tmp_path, "mathjax")[0]
    assert REMOTE.search(page.read_text())
    tags, text, errors, _ = look(page)
    assert "math" not in tags
    assert TEX.search(text)
