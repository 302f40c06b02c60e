"""CLI ``--groups FILE`` / ``--strata FILE`` (compare, feed, run) and the scores table."""

import io

import numpy as np
import pandas as pd
import pytest

from sigtest import BergKirkpatrickBootstrap, Experiment, compare
from sigtest.cli import main

B = 499


@pytest.fixture
def files(tmp_path):
    """Gold, two systems, cluster ids (documents) and stratum ids (domains)."""
    rng = np.random.default_rng(0)
    G = 40
    groups = np.repeat(np.arange(G), rng.integers(5, 20, G))
    n = groups.size
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.8, y, rng.integers(0, 3, n))
    strata = np.array(["news", "web"])[groups % 2]
    docs = np.array([f"doc{g}" for g in groups])
    for name, arr in (("gold", y), ("a", a), ("b", b), ("groups", groups)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    for name, arr in (("docs", docs), ("strata", strata)):
        (tmp_path / f"{name}.txt").write_text("\n".join(arr) + "\n")
    return tmp_path, y, a, b, docs, strata


def _cli(*argv):
    out = io.StringIO()
    status = main([str(x) for x in argv], out=out)
    return status, out.getvalue()


def _compare_args(path, *extra):
    return ["compare", path / "gold.txt", f"A={path / 'a.txt'}", f"B={path / 'b.txt'}",
            "-m", "accuracy", "--test", "bootstrap", "-B", B, "--seed", 3, *extra]


@pytest.mark.parametrize("design", ["groups", "strata", "both"])
def test_compare_with_groups_and_strata_matches_python_api(files, design):
    path, y, a, b, docs, strata = files
    extra, kw = [], {}
    if design in ("groups", "both"):
        extra += ["--groups", path / "docs.txt"]
        kw["groups"] = docs
    if design in ("strata", "both"):
        extra += ["--strata", path / "strata.txt"]
        kw["strata"] = strata
    status, text = _cli(*_compare_args(path, *extra), "--format", "csv")
    assert status == 0
    got = pd.read_csv(io.StringIO(text))
    want = compare(y, {"A": a, "B": b}, metrics=("accuracy",),
                   test=BergKirkpatrickBootstrap(n_resamples=B), random_state=3,
                   **kw).to_frame()
    for column in ("pvalue", "delta", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[column], want[column], rtol=1e-12)
    # and it differs from the item-level comparison (the ids were used)
    plain = compare(y, {"A": a, "B": b}, metrics=("accuracy",),
                    test=BergKirkpatrickBootstrap(n_resamples=B), random_state=3).to_frame()
    assert not np.allclose(got[["ci_low", "ci_high"]], plain[["ci_low", "ci_high"]])


def test_integer_ids_file_is_the_same_clustering(files):
    path = files[0]
    _, by_name = _cli(*_compare_args(path, "--groups", path / "docs.txt"), "--format", "csv")
    _, by_int = _cli(*_compare_args(path, "--groups", path / "groups.txt"), "--format", "csv")
    assert by_name == by_int


def test_text_output_prints_the_scores_table(files):
    path, y, a, b, docs, _ = files
    status, text = _cli(*_compare_args(path, "--groups", path / "docs.txt"))
    assert status == 0
    assert "clustered by 40 groups" in text
    head, _, tail = text.partition("scores of each system")
    assert tail, text
    result = compare(y, {"A": a, "B": b}, metrics=("accuracy",),
                     test=BergKirkpatrickBootstrap(n_resamples=B), random_state=3,
                     groups=docs)
    table = result.scores()
    lines = tail.strip().split("\n\n")[0].splitlines()  # then the letters, the signature
    assert "CI 95 %" in lines[1]
    for line, row in zip(lines[2:], table.itertuples()):
        assert line.split()[:3] == [row.system, row.metric, f"{row.score:.4f}"]
        assert f"[{row.ci_low:.4f}, {row.ci_high:.4f}]" in line
    assert len(lines) == 2 + len(table)
    # machine formats hold the pairs table only
    _, csv = _cli(*_compare_args(path, "--groups", path / "docs.txt"), "--format", "csv")
    assert "scores of each system" not in csv


def test_bad_groups_files_name_the_option(files, capsys):
    path, y, *_ = files
    n = len(y)

    def error(*extra):
        status, _ = _cli(*_compare_args(path, *extra))
        assert status == 2
        return capsys.readouterr().err

    assert "--groups" in error("--groups", path / "missing.txt")
    assert "does not exist" in error("--strata", path / "missing.txt")
    (path / "two.csv").write_text("".join(f"{i},{i}\n" for i in range(n)))
    err = error("--groups", path / "two.csv")
    assert "--groups" in err and "one id per line" in err
    (path / "short.txt").write_text("".join(f"{i % 7}\n" for i in range(n - 3)))
    err = error("--strata", path / "short.txt")
    assert "--strata" in err and f"has {n - 3} rows" in err and "gold" in err
    assert err.count("\n") == 1  # one line, no traceback
    # a header over few distinct ids: the reader's header rule suggests --header
    (path / "headed.txt").write_text("domain\n" + "".join(f"d{i % 3}\n" for i in range(n)))
    err = error("--strata", path / "headed.txt")
    assert "--strata" in err and "--header" in err
    # a header over many distinct ids (pairs of items: > 50) is not detected by
    # the reader, but the extra row is
    (path / "headed_docs.txt").write_text("doc\n" + "".join(f"p{i // 2}\n" for i in range(n)))
    err = error("--groups", path / "headed_docs.txt")
    assert f"has {n + 1} rows" in err and "--header" in err
    # engine errors speak of the options
    (path / "one.txt").write_text("x\n" * n)
    err = error("--groups", path / "one.txt")
    assert "single cluster" in err
    err = error("--groups", path / "groups.txt", "--strata", path / "gold.txt")
    assert "--groups" in err and "--strata" in err and "one stratum" in err


def test_header_option_applies_to_the_ids_files(files):
    path, y, a, b, docs, _ = files
    for name, arr in (("gold", y), ("a", a), ("b", b), ("docs", docs)):
        (path / f"h_{name}.txt").write_text("head\n" + "\n".join(map(str, arr)) + "\n")
    status, text = _cli("compare", path / "h_gold.txt", f"A={path / 'h_a.txt'}",
                        f"B={path / 'h_b.txt'}", "-m", "accuracy", "--test", "bootstrap",
                        "-B", B, "--seed", 3, "--groups", path / "h_docs.txt", "--header",
                        "--format", "csv")
    assert status == 0
    _, ref = _cli(*_compare_args(path, "--groups", path / "docs.txt"), "--format", "csv")
    assert text == ref


def test_feed_groups_then_run(files, tmp_path):
    path, y, a, b, docs, strata = files
    store = tmp_path / "store"
    n = len(y)
    order = np.random.default_rng(1).permutation(n)
    (path / "ids.txt").write_text("\n".join(map(str, order)) + "\n")
    for name, arr in (("a", a), ("gold", y)):
        np.savetxt(path / f"{name}_shuf.txt", arr[order], fmt="%d")
    for name, arr in (("docs", docs), ("strata", strata)):
        (path / f"{name}_shuf.txt").write_text("\n".join(arr[order]) + "\n")
    status, text = _cli("feed", store, "A", path / "a_shuf.txt", "--gold",
                        path / "gold_shuf.txt", "--ids", path / "ids.txt", "--groups",
                        path / "docs_shuf.txt", "--strata", path / "strata_shuf.txt")
    assert status == 0, text
    assert _cli("feed", store, "B", path / "b.txt")[0] == 0
    ids, groups, got_strata = Experiment.load(store).design()
    assert dict(zip(ids.tolist(), groups.tolist())) == dict(zip(range(n), docs.tolist()))
    status, text = _cli("run", store, "-m", "accuracy", "--test", "bootstrap", "-B", B,
                        "--seed", 3, "--format", "csv")
    assert status == 0
    got = pd.read_csv(io.StringIO(text))
    want = compare(y, {"A": a, "B": b}, metrics=("accuracy",),
                   test=BergKirkpatrickBootstrap(n_resamples=B), random_state=3,
                   groups=docs, strata=strata).to_frame()
    for column in ("pvalue", "delta", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[column], want[column], rtol=1e-12)
    status, text = _cli("run", store, "-m", "accuracy", "--test", "bootstrap", "-B", B)
    assert "clustered by 40 groups, stratified by 2 strata" in text
    assert "scores of each system" in text


def test_feed_bad_groups_file(files, tmp_path, capsys):
    path, y, *_ = files
    store = tmp_path / "store"
    (path / "short.txt").write_text("1\n2\n")
    status, _ = _cli("feed", store, "A", path / "a.txt", "--gold", path / "gold.txt",
                     "--groups", path / "short.txt")
    assert status == 2
    err = capsys.readouterr().err
    assert "--groups" in err and "prediction file" in err
    assert not store.exists()  # nothing written
