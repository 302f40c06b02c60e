"""The views of many systems: print/repr/notebook show the leaderboard, the report opens with it.

Above ``MANY_SYSTEMS`` (20) systems ``str``, ``repr`` and ``_repr_html_``
show one leaderboard a metric and the number of significant pairs instead of
every pair (``to_frame()`` keeps them), at most ``MAX_TEXT_ROWS`` rows a
metric whatever the number of systems; from ``REPORT_LEADERBOARD_SYSTEMS``
(100) systems on the report opens with the leaderboard and leaves the
per-system and pairwise tables to ``sections=``.
"""

import numpy as np
import pandas as pd
import pytest

import sigtest
from sigtest import BCaInterval, PairedPermutation
from sigtest._report import leaderboard as views
from sigtest._workflows.compare.leaderboard import LEADERBOARD_COLUMNS


def _systems(k, n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, {f"m{i:03d}": np.where(rng.random(n) < acc, y, 1 - y)
               for i, acc in enumerate(np.linspace(0.6, 0.9, k))}


@pytest.fixture(scope="module")
def many():
    y, preds = _systems(22, 300, 0)  # 231 pairs: more than MANY_SYSTEMS systems
    return sigtest.compare(y, preds, metrics=["accuracy", "f1_macro"],
                           test=BCaInterval(n_resamples=2000), correction="max-t",
                           random_state=0)


def test_print_and_repr_show_the_leaderboard_not_every_pair(many):
    text = str(many)
    assert repr(many) == text
    lines = text.splitlines()
    assert len(lines) < 2 * (22 + 6) + 2  # one row a system and metric, a few headers
    frame = many.to_frame()
    assert len(frame) == 2 * 231  # every pair is still there
    for metric in many.metrics:
        n_sig = int(frame[(frame.metric == metric) & (frame.test == many.tests[0])]
                    .significant.sum())
        assert f"{metric}: 22 systems, {n_sig} of 231 pairs significantly different" in text
    best = many.leaderboard().index[0]
    row = next(line for line in lines if f" {best} " in line)
    assert row.split()[0] == "1"
    assert " vs " not in text and "system_a" not in text


def test_few_systems_keep_the_pair_rows():
    y, preds = _systems(3, 200, 1)
    res = sigtest.compare(y, preds, metrics="accuracy", test=PairedPermutation(n_resamples=99),
                          random_state=0)
    assert "system_a" in str(res) or "m000" in str(res).splitlines()[3]
    assert repr(res).startswith("<ComparisonResult systems=")
    assert "Leaderboard" not in res._repr_html_()


def test_notebook_view_of_many_systems_is_the_leaderboard(many):
    html = many._repr_html_()
    assert "Leaderboard" in html and "Pairwise differences" not in html
    assert html.count("<tr") < 2 * (22 + 2) + 5


class _Stub:
    """What the text view reads of a result, for 200 systems without 19,900 tests."""

    def __init__(self, k):
        self.systems = [f"system-{i:04d}" for i in range(k)]
        self.metrics = ["accuracy", "f1_macro"]
        self.pairs, self.correction, self.alpha, self.n_runs = "all", "max-t", 0.05, 1

    def leaderboard(self, metric=None):
        k = len(self.systems)
        table = pd.DataFrame({
            "rank": pd.array(np.arange(1, k + 1), dtype="Int64"),
            "rank_low": pd.array(np.maximum(1, np.arange(1, k + 1) - 5), dtype="Int64"),
            "rank_high": pd.array(np.minimum(k, np.arange(1, k + 1) + 5), dtype="Int64"),
            "score": np.linspace(0.9, 0.5, k), "ci_low": np.linspace(0.89, 0.49, k),
            "ci_high": np.linspace(0.91, 0.51, k),
            "tier": [str(1 + i // 7) for i in range(k)], "p_best": np.r_[1.0, np.zeros(k - 1)],
            "in_best_set": np.arange(k) < 3}, index=pd.Index(self.systems, name="system"))
        table.attrs.update(metric=metric, confidence_level=0.95, n_systems=k,
                           n_significant_pairs=k * (k - 1) // 2 - 3 * k, test="bca",
                           alpha=0.05, correction="max-t", score_ci_level=0.95,
                           tier_kind="tiers", n_letters=99, tier_note="tiers note")
        assert list(table.columns) == LEADERBOARD_COLUMNS
        return table


@pytest.mark.parametrize("k", [50, 200, 1000])
def test_text_size_is_bounded_whatever_the_number_of_systems(k):
    text = views.leaderboard_text(_Stub(k))
    lines = text.splitlines()
    per_metric = views.MAX_TEXT_ROWS + 5
    assert len(lines) <= 1 + 2 * per_metric
    assert len(text) < 2 * per_metric * 100
    if k > views.MAX_TEXT_ROWS:
        assert f"... {k - views.MAX_TEXT_ROWS} more systems" in text
    assert "note: tiers note" in text


@pytest.fixture()
def report_threshold(monkeypatch):
    monkeypatch.setattr(views, "REPORT_LEADERBOARD_SYSTEMS", 20)


def test_report_of_many_systems_opens_with_the_leaderboard(many, report_threshold):
    md = many.report("markdown")
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert headings[0] == "## Leaderboard"
    assert "## Pairwise differences (B - A)" not in headings
    assert "## Scores of each system" not in headings and "## Ranks" not in headings
    assert {"## Methods", "## References", "## Reproducibility signature"} <= set(headings)
    # the pairwise tables on request
    asked = many.report("markdown", sections=["leaderboard", "pairs"])
    assert asked.index("## Leaderboard") < asked.index("## Pairwise differences")
    # one table a metric, one row a system, best first
    table = many.leaderboard("f1_macro")
    part = md[md.index("### f1_macro"):]
    rows = [line for line in part.splitlines() if line.startswith("| ")][2:2 + 22]
    assert [r.split("|")[2].strip() for r in rows] == list(table.index)
    latex = many.report("latex")
    assert latex.index("Leaderboard") < latex.index("Methods")


def test_report_of_fewer_systems_is_unchanged(many):
    md = many.report("markdown")
    assert "## Leaderboard" not in md and "## Pairwise differences (B - A)" in md
    assert "## Leaderboard" in many.report("markdown", sections=["leaderboard"])


@pytest.mark.slow
def test_repr_of_200_real_systems_is_bounded():
    y, preds = _systems(200, 200, 3)
    res = sigtest.compare(y, preds, metrics="accuracy", test="mcnemar", random_state=0)
    text = repr(res)
    assert len(text.splitlines()) <= views.MAX_TEXT_ROWS + 10
    assert len(res.to_frame()) == 19_900
    assert res.leaderboard().shape == (200, len(LEADERBOARD_COLUMNS))


def test_report_scores_fall_back_to_tiers_when_letters_are_too_many(many, monkeypatch):
    from sigtest._report import tiers

    monkeypatch.setattr(tiers, "MAX_LETTERS", 1)
    md = many.report("markdown", sections=["scores"])
    assert "tiers are shown instead" in md
    table = many.leaderboard()  # the same tiers as the leaderboard's
    part = md[md.index("## accuracy"):md.index("## f1_macro")]
    rows = [line.split("|") for line in part.splitlines() if line.startswith("| ")][2:]
    shown = {r[1].strip(): r[-2].strip() for r in rows}
    assert shown == table["tier"].to_dict()
