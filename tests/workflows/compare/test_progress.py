"""Progress bars: on a terminal only, on by default in the CLI, never in a pipe or a log.

tqdm draws a bar only when its stream is a terminal (``disable=None``); these
tests swap ``sys.stderr`` for a stream that says it is one (``Terminal``) or
is not (pytest's capture, a pipe), and look for the bar's description.
"""

import io
import os
import subprocess
import sys

import numpy as np
import pytest

from sigtest import Experiment, PairedPermutation, compare
from sigtest.cli import main


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    paths = [tmp_path / name for name in ("gold.txt", "a.txt", "b.txt", "c.txt")]
    systems = [y] + [np.where(rng.random(200) < q, y, (y + 1) % 3) for q in (0.6, 0.7, 0.8)]
    for path, values in zip(paths, systems):
        path.write_text("".join(f"{v}\n" for v in values))
    return [str(p) for p in paths], y, dict(zip("abc", systems[1:]))


def _cli(monkeypatch, stderr, *args):
    monkeypatch.setattr(sys, "stderr", stderr)
    out = io.StringIO()
    assert main(list(args), out=out) == 0, stderr.getvalue()
    return out.getvalue(), stderr.getvalue()


def test_cli_bar_on_a_terminal_by_default(files, monkeypatch):
    paths, _, _ = files
    table, err = _cli(monkeypatch, Terminal(), "compare", *paths, "-m", "accuracy", "-B", "199")
    assert "sigtest.compare" in err and "3/3" in err
    assert "sigtest.compare" not in table  # the table stays clean
    _, err = _cli(monkeypatch, Terminal(), "compare", *paths, "-m", "accuracy", "-B", "199",
                  "--no-progress")
    assert "sigtest.compare" not in err


def test_cli_no_bar_when_stderr_is_not_a_terminal(files, monkeypatch):
    paths, _, _ = files
    table, err = _cli(monkeypatch, io.StringIO(), "compare", *paths, "-m", "accuracy",
                      "-B", "199", "--progress")
    assert "sigtest.compare" not in err and "\r" not in err
    assert "accuracy" in table


def test_cli_run_bar(files, monkeypatch, tmp_path):
    paths, _, _ = files
    store = str(tmp_path / "store")
    _cli(monkeypatch, io.StringIO(), "feed", store, "a", paths[1], "--gold", paths[0])
    _cli(monkeypatch, io.StringIO(), "feed", store, "b", paths[2])
    _, err = _cli(monkeypatch, Terminal(), "run", store, "-m", "accuracy", "-B", "199")
    assert "sigtest.compare" in err and "1/1" in err


def test_python_verbose_on_a_terminal_only(files, monkeypatch, tmp_path):
    _, y, preds = files
    test = PairedPermutation(n_resamples=199)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    quiet = compare(y, preds, metrics="accuracy", test=test, verbose=True, random_state=0)
    assert sys.stderr.getvalue() == ""
    monkeypatch.setattr(sys, "stderr", Terminal())
    shown = compare(y, preds, metrics="accuracy", test=test, verbose=True, random_state=0)
    assert "sigtest.compare" in sys.stderr.getvalue()
    # the bar never changes the result
    assert quiet.to_frame().equals(shown.to_frame())
    # Experiment.run passes verbose on
    exp = Experiment(tmp_path / "exp")
    exp.feed("a", preds["a"], y_true=y)
    exp.feed("b", preds["b"])
    monkeypatch.setattr(sys, "stderr", Terminal())
    exp.run(metrics="accuracy", test=test, verbose=True, random_state=0)
    assert "sigtest.compare" in sys.stderr.getvalue()


def test_cli_in_a_pipe_writes_no_bar(files):
    # the real thing: a child process whose stderr is a pipe (CI, `2> log`)
    paths, _, _ = files
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-m", "sigtest", "compare", *paths, "-m", "accuracy",
                           "-B", "199"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "sigtest.compare" not in proc.stderr and "\r" not in proc.stderr
    assert "accuracy" in proc.stdout


def test_no_bar_no_tqdm_import_when_stderr_is_not_a_terminal():
    # the bar tqdm would not draw is not built: tqdm is not even imported
    # (a first call's import time; the CLI's --progress is on by default)
    script = (
        "import sys, numpy as np\n"
        "from sigtest import PairedPermutation, compare\n"
        "rng = np.random.default_rng(0)\n"
        "y = rng.integers(0, 2, 100)\n"
        "compare(y, {'a': y, 'b': 1 - y}, metrics='accuracy', verbose=True,\n"
        "        test=PairedPermutation(n_resamples=99), random_state=0)\n"
        "print('tqdm' in sys.modules, 'tqdm.auto' in sys.modules)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["sigtest"].__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [
        root, os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-2:] == ["False", "False"]
    assert "sigtest.compare" not in out.stderr
