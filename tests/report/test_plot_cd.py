"""The critical-difference diagram (issue 11 section 1): names, CD bar, groups, no clipping."""

import itertools

import numpy as np
import pandas as pd
import pytest

from sigtest import compare_datasets

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")

from sigtest._report.plot_cd import nonsignificant_groups  # noqa: E402
from sigtest.plotting import plot_critical_difference  # noqa: E402


def naive_maximal_cliques(ranks, cd):
    """Every maximal set (>= 2 systems) whose pairwise rank gaps are all <= cd, by brute force."""
    k = len(ranks)
    ok = [set(c) for size in range(2, k + 1) for c in itertools.combinations(range(k), size)
          if all(abs(ranks[i] - ranks[j]) <= cd for i, j in itertools.combinations(c, 2))]
    return sorted(sorted(c) for c in ok if not any(c < other for other in ok))


@pytest.mark.parametrize("seed", range(40))
def test_groups_are_the_maximal_cliques(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 9))
    ranks = np.round(rng.uniform(1, k, k) * 4) / 4  # with ties
    cd = float(rng.uniform(0.2, 3))
    order, groups = nonsignificant_groups(ranks, cd)
    got = sorted(sorted(int(order[p]) for p in range(i, j + 1)) for i, j in groups)
    assert got == naive_maximal_cliques(ranks, cd)


def _table(k, n, seed, names=None):
    rng = np.random.default_rng(seed)
    values = rng.random((n, k)) + np.linspace(0, 0.8, k)
    names = names or [f"system {j}" for j in range(k)]
    return pd.DataFrame(values, columns=names)


def _inside(fig):
    fig.canvas.draw()
    tight = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
    w, h = fig.get_size_inches()
    return tight.x0 >= -1e-6 and tight.y0 >= -1e-6 and tight.x1 <= w + 1e-6 and \
        tight.y1 <= h + 1e-6


@pytest.mark.parametrize("k, names", [
    (3, None),
    (7, None),
    (10, [f"a rather long system name number {j} (with options)" for j in range(10)]),
    (2, ["x", "a very very very long name on the right side of the diagram"]),
])
def test_diagram_shows_every_name_and_clips_nothing(tmp_path, k, names):
    result = compare_datasets(_table(k, 12, k, names))
    fig = plot_critical_difference(result).figure
    try:
        texts = [t.get_text() for t in fig.axes[0].texts]
        for name, rank in result.average_ranks.items():
            assert f"{name} ({rank:.2f})" in texts
        assert any(t.startswith("CD = ") for t in texts)
        assert _inside(fig)
        path = tmp_path / "cd.png"
        fig.savefig(path)  # a plain savefig, no bbox_inches
        assert path.stat().st_size > 0
    finally:
        plt.close(fig)


def test_cd_bar_and_group_bars_are_drawn_where_expected():
    result = compare_datasets(_table(6, 10, 1), alpha=0.1)
    fig = plot_critical_difference(result).figure
    try:
        lines = fig.axes[0].lines
        horizontal = [ln for ln in lines if len(ln.get_xdata()) == 2
                      and ln.get_ydata()[0] == ln.get_ydata()[1]]
        lengths = [np.ptp(ln.get_xdata()) for ln in horizontal]
        assert any(abs(length - result.critical_difference) < 1e-9 for length in lengths)
        thick = [ln for ln in lines if ln.get_linewidth() >= 4]
        _, groups = nonsignificant_groups(result.average_ranks.to_numpy(),
                                          result.critical_difference)
        assert len(thick) == len(groups)
        # rank 1 at the left end of the axis
        assert fig.axes[0].get_xlim()[0] < 1 < result.n_systems < fig.axes[0].get_xlim()[1]
    finally:
        plt.close(fig)


def test_alpha_and_axes_arguments():
    result = compare_datasets(_table(5, 8, 2))
    fig, ax = plt.subplots(figsize=(7, 3))
    try:
        out = plot_critical_difference(result, alpha=0.1, ax=ax)
        assert out is ax
        texts = [t.get_text() for t in ax.texts]
        assert any("alpha = 0.1" in t for t in texts)
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="alpha"):
        plot_critical_difference(result, alpha=2)


# ------------------------------------- ranks + any p-value matrix (issue 24)
from sigtest._report.plot_cd import _matrix_groups  # noqa: E402


def _thick(fig):
    return [ln for ln in fig.axes[0].lines if ln.get_linewidth() >= 4]


def _random_case(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 9))
    names = [f"s{j}" for j in range(k)]
    ranks = pd.Series(rng.permutation(np.linspace(1, k, k)) + rng.uniform(-.3, .3, k),
                      index=names).clip(1, k)
    p = np.triu(rng.choice([0.001, 0.02, 0.3, 0.7], size=(k, k)), 1)
    p = pd.DataFrame(p + p.T + np.eye(k), index=names, columns=names)
    return ranks, p


@pytest.mark.parametrize("seed", range(25))
def test_matrix_bars_join_exactly_the_pairs_not_significant(seed):
    ranks, p = _random_case(seed)
    groups = _matrix_groups(ranks.to_numpy(), list(ranks.index), p, 0.05)
    for i, j in itertools.combinations(range(len(ranks)), 2):
        together = any(i in g and j in g for g in groups)
        assert together == (p.iloc[i, j] > 0.05), (i, j, groups)
    fig = plot_critical_difference(ranks, p).figure
    try:
        bars = sorted(tuple(np.round(ln.get_xdata(), 9)) for ln in _thick(fig))
        want = sorted((round(ranks.iloc[g].min() - 0.03, 9), round(ranks.iloc[g].max() + 0.03, 9))
                      for g in groups)
        assert bars == want
        assert not any(t.get_text().startswith("CD = ") for t in fig.axes[0].texts)
        assert _inside(fig)
    finally:
        plt.close(fig)


@pytest.mark.parametrize("seed", range(6))
def test_nemenyi_matrix_draws_the_nemenyi_groups(seed):
    result = compare_datasets(_table(6, 10, seed), alpha=0.1)
    a = plot_critical_difference(result).figure
    b = plot_critical_difference(result, result.pairwise("nemenyi")).figure
    try:
        assert sorted(tuple(ln.get_xdata()) for ln in _thick(a)) == \
            sorted(tuple(ln.get_xdata()) for ln in _thick(b))
    finally:
        plt.close(a)
        plt.close(b)


def test_scikit_posthocs_conover_matrix_and_boolean_matrix():
    sp = pytest.importorskip("scikit_posthocs")
    table = _table(5, 12, 3, names=list("ABCDE"))
    result = compare_datasets(table)
    conover = sp.posthoc_conover_friedman(table, p_adjust="holm")
    fig = plot_critical_difference(result.average_ranks, conover).figure
    sig = conover <= 0.05
    fig2 = plot_critical_difference(result.average_ranks.to_dict(), sig).figure
    try:
        assert sorted(tuple(ln.get_xdata()) for ln in _thick(fig)) == \
            sorted(tuple(ln.get_xdata()) for ln in _thick(fig2))
        texts = [t.get_text() for t in fig.axes[0].texts]
        assert "bars: pairwise p > 0.05" in texts
        assert all(f"{n} ({r:.2f})" in texts for n, r in result.average_ranks.items())
    finally:
        plt.close(fig)
        plt.close(fig2)


def test_a_group_that_skips_a_system_marks_its_members():
    ranks = {"a": 1.0, "b": 2.0, "c": 3.0}
    p = pd.DataFrame([[1, .01, .5], [.01, 1, .01], [.5, .01, 1]], index=list("abc"),
                     columns=list("abc"))
    fig = plot_critical_difference(ranks, p).figure
    try:
        dots = [ln for ln in fig.axes[0].lines if ln.get_marker() == "o"]
        assert len(dots) == 1 and sorted(dots[0].get_xdata()) == [1.0, 3.0]
    finally:
        plt.close(fig)


def test_ranks_and_matrix_bad_input():
    ranks, p = _random_case(0)
    with pytest.raises(ValueError, match="'pvalues'"):
        plot_critical_difference(ranks)
    asym = p.copy()
    asym.iloc[0, 1] = 0.5 if asym.iloc[1, 0] != 0.5 else 0.6
    with pytest.raises(ValueError, match="'pvalues'.*symmetric"):
        plot_critical_difference(ranks, asym)
    with pytest.raises(ValueError, match="'pvalues'.*\\[0, 1\\]"):
        plot_critical_difference(ranks, p * 2)
    with pytest.raises(ValueError, match="'pvalues'.*square"):
        plot_critical_difference(ranks, np.ones((len(ranks), 2)))
    with pytest.raises(ValueError, match="'pvalues'.*name the systems"):
        plot_critical_difference(ranks.rename(lambda n: n + "x"), p)
    with pytest.raises(ValueError, match="'pvalues'.*one row per"):
        plot_critical_difference(ranks, np.eye(len(ranks) + 1))
    with pytest.raises(ValueError, match="ranks.*\\[1, "):
        plot_critical_difference(ranks * 10, p)
    with pytest.raises(TypeError, match="'result'"):
        plot_critical_difference([1.0, 2.0], p)
