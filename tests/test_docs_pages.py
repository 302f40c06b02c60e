"""The Python code of the guide pages runs (docs/workflows.md, docs/extending.md).

Each page's ``python`` blocks run in order in one fresh interpreter (a page
registers a test and a metric; a subprocess keeps them out of this process's
registries). The site itself is built by ``make docs`` (warnings as errors).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.slow  # about 20 s: a fresh interpreter compiles the kernels
@pytest.mark.parametrize("page", ["workflows.md", "extending.md", "per_item_scores.md"])
def test_page_code_runs(page, tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), re.S)
    assert blocks, page
    script = tmp_path / "page.py"
    script.write_text("\n".join(blocks))
    env = dict(os.environ, MPLBACKEND="Agg", NUMBA_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(DOCS.parent), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


# ------------------------------------------------------------- API reference
def _ext(monkeypatch):
    monkeypatch.syspath_prepend(str(DOCS / "_ext"))


def test_api_reference_lists_public_names_only(monkeypatch):
    # the page docs/conf.py writes (sigtest_api.write_api) lists the __all__
    # of the public modules, never the internal helpers of sigtest.utils
    import importlib
    import inspect

    import sigtest

    _ext(monkeypatch)
    from sigtest_api import api_sections

    listed = [(module, name) for _, module, kinds in api_sections()
              for names in kinds.values() for name in names]
    names = {name for _, name in listed}
    assert not names & {"check_random_state_seed", "find_stack_level", "warn_external"}
    for module, name in listed:
        obj = getattr(importlib.import_module(module), name)
        assert not name.startswith("_"), (module, name)
        assert not (getattr(obj, "__module__", None) or "").startswith("sigtest.utils"), name
    assert {n for m, n in listed if m == "sigtest"} == {
        n for n in sigtest.__all__ if not inspect.ismodule(getattr(sigtest, n))}


def test_api_reference_refuses_an_exported_internal_helper(monkeypatch):
    import sigtest.plotting
    from sigtest.utils import warn_external

    _ext(monkeypatch)
    from sigtest_api import api_sections

    monkeypatch.setattr(sigtest.plotting, "__all__", [*sigtest.plotting.__all__,
                                                      "warn_external"])
    monkeypatch.setattr(sigtest.plotting, "warn_external", warn_external, raising=False)
    with pytest.raises(RuntimeError, match="warn_external"):
        api_sections()


# -------------------------------------------------------------------- gallery
EXAMPLES = DOCS.parent / "examples"
#: an absolute path of the machine that runs the code (build folder, temp dir, home)
_ABSOLUTE = re.compile(r"(?<![\w.:/])/(?:work|tmp|home|Users|private|var)/")


def test_gallery_sources_name_no_absolute_path():
    # the gallery shows each script's source: no path of the build machine
    for script in sorted(EXAMPLES.glob("*.py")):
        assert not _ABSOLUTE.search(script.read_text()), script.name


def test_gallery_warnings_print_without_their_file(monkeypatch):
    import warnings

    _ext(monkeypatch)
    import sigtest_gallery

    monkeypatch.setattr(warnings, "formatwarning", warnings.formatwarning)
    sigtest_gallery.plain_warnings({}, "example.py")
    text = warnings.formatwarning("careful", UserWarning, "/work/x/examples/e.py", 3, "f()")
    assert text == "UserWarning: careful\n"


@pytest.mark.slow  # about 25 s (45 s on a loaded machine): one interpreter, two examples
def test_gallery_outputs_hold_no_absolute_path(tmp_path):
    # the examples that write files into a temporary directory print no path
    # of it (nor of the clone), with warnings formatted as the gallery does
    import tempfile

    scripts = ["feed_and_run.py", "many_datasets_cd_diagram.py"]
    code = "\n".join([
        "import runpy, sys",
        f"sys.path.insert(0, {str(DOCS / '_ext')!r})",
        "import sigtest_gallery",
        *[f"sigtest_gallery.plain_warnings({{}}, {s!r}); "
          f"runpy.run_path({str(EXAMPLES / s)!r}, run_name='__main__')" for s in scripts],
    ])
    env = dict(os.environ, MPLBACKEND="Agg", NUMBA_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(DOCS.parent), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert "saved cd_diagram.png" in out  # the line that printed the temporary path
    for root in {tempfile.gettempdir(), str(tmp_path), str(DOCS.parent)}:
        assert root not in out, root
    assert not _ABSOLUTE.search(out)


# "issue 22", "issues 20 and 23", "#41": the tracker's numbers, which a reader of
# the site or of a message cannot look up (a change is told by what changed and
# in which version; a peer project's issue, "statsmodels issue #2899", is a reference)
TRACKER = re.compile(r"(?<!statsmodels )(?<!numba )(?<!scipy )\bissues? #?\d+|pre-issue", re.I)


def test_users_never_see_tracker_numbers():
    root = DOCS.parent
    places = [p for p in DOCS.glob("*.md")] + [p for p in (root / "sigtest").rglob("*.py")]
    hits = [f"{p.relative_to(root)}:{n}: {line.strip()}"
            for p in places for n, line in enumerate(p.read_text().splitlines(), 1)
            if TRACKER.search(line)]
    assert hits == []


def test_the_tracker_pattern_finds_a_number():
    assert TRACKER.search("tests such scores directly (new in issue 22)")
    assert TRACKER.search("the pre-issue gather")
    assert not TRACKER.search("entry once one is NaN (statsmodels issue #2899).")
