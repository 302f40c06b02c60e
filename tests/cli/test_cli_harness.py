"""``sigtest compare --scores ... --harness``: what evaluation harnesses write, from the shell.

Reference: ``read_scores(...).compare(...)`` in Python on the same files.
"""

import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from sigtest import read_scores
from sigtest.cli import main

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "workflows"))
from _lm_eval_files import write_samples  # noqa: E402

DATE = "2024-06-01T12-30-45.123456"


@pytest.fixture
def out(tmp_path):
    rng = np.random.default_rng(3)
    docs = [(i, {"question": f"q{i}"}, f"#### {i}", f"Question: q{i}") for i in range(60)]
    for model, p in (("org/small", 0.45), ("org/large", 0.75)):
        strict = (rng.random(60) < p).astype(int)
        flexible = np.maximum(strict, rng.random(60) < 0.2).astype(int)
        write_samples(tmp_path, model, "gsm8k", DATE, docs, {
            "strict-match": [("x", {"exact_match": float(v)}) for v in strict],
            "flexible-extract": [("x", {"exact_match": float(v)}) for v in flexible]})
    return tmp_path


def _run(argv, capsys):
    text = io.StringIO()
    status = main([str(a) for a in argv], out=text)
    return status, text.getvalue(), capsys.readouterr().err


def test_lm_eval_glob_filter_and_metric_match_python(out, capsys):
    pattern = str(out / "*" / "samples_gsm8k_*.jsonl")
    status, text, err = _run(["compare", "--scores", pattern, "--harness", "lm-eval",
                              "--score-column", "exact_match", "--filter", "strict-match",
                              "-B", "999", "--seed", "1", "--format", "csv", "--no-progress"],
                             capsys)
    assert status == 0, err
    got = pd.read_csv(io.StringIO(text))
    want = read_scores(pattern, harness="lm-eval", score="exact_match",
                       filter="strict-match").compare(random_state=1).to_frame()
    assert got["system_a"].tolist() == want["system_a"].tolist()
    np.testing.assert_allclose(got["delta"], want["delta"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["score_b"], want["score_b"], rtol=0, atol=1e-12)


def test_lm_eval_without_filter_lists_the_filters(out, capsys):
    status, _, err = _run(["compare", "--scores", out, "--score-column", "exact_match"],
                          capsys)
    assert status == 2
    assert "2 filters ['strict-match', 'flexible-extract']" in err and "--filter" in err


def test_filter_needs_scores(out, capsys):
    status, _, err = _run(["compare", "gold.txt", "a.txt", "--filter", "x"], capsys)
    assert status == 2 and "--filter is for --scores TABLE" in err


def test_inspect_json_logs(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # the plain JSON reader
    for model, values in (("openai/a", "CICI" * 8), ("openai/b", "CCCICCCI" * 4)):
        samples = [{"id": f"s{i // 2}", "epoch": i % 2 + 1, "scores": {"match": {"value": v}}}
                   for i, v in enumerate(values)]
        (tmp_path / f"{model[-1]}.json").write_text(json.dumps(
            {"eval": {"task": "t", "model": model}, "samples": samples}))
    status, text, err = _run(["compare", "--scores", tmp_path, "--harness", "inspect",
                              "--score-column", "match", "--format", "csv", "--no-progress",
                              "-B", "999"], capsys)
    assert status == 0, err
    got = pd.read_csv(io.StringIO(text))
    assert got[["score_a", "score_b"]].round(6).values.tolist() == [[0.5, 0.75]]


def test_parser_stays_numpy_free():
    code = ("import sys; from sigtest._cli.parser import build_parser; "
            "build_parser().parse_args(['compare', '--scores', 'x', '--harness', 'inspect']); "
            "print('numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def test_inspect_reader_errors_are_one_line(tmp_path, capsys):
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed")
    for name in "ab":
        (tmp_path / f"{name}.json").write_text(json.dumps({"eval": {"task": "t"}}))
    status, _, err = _run(["compare", "--scores", tmp_path, "--harness", "inspect"], capsys)
    assert status == 2 and "inspect_ai could not read the log" in err
    assert len(err.strip().splitlines()) == 1 and len(err) < 400


def test_unquoted_glob_expanded_by_the_shell_reads_every_file(out, capsys):
    files = sorted(str(f) for f in out.glob("*/samples_gsm8k_*.jsonl"))
    status, text, err = _run(["compare", "--scores", *files, "--score-column", "exact_match",
                              "--filter", "strict-match", "--format", "csv", "--no-progress",
                              "-B", "999"], capsys)
    assert status == 0, err
    got = pd.read_csv(io.StringIO(text))
    want = read_scores(files, score="exact_match", filter="strict-match").arrays()[1]
    assert got["score_a"].iloc[0] == pytest.approx(want[got["system_a"].iloc[0]].mean())
    status, _, err = _run(["compare", "--scores", files[0], "nope.txt"], capsys)
    assert status == 2 and "quote a glob" in err
