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
    fig = plot_critical_difference(result)
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
    fig = plot_critical_difference(result)
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
        assert out is fig
        texts = [t.get_text() for t in ax.texts]
        assert any("alpha = 0.1" in t for t in texts)
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="alpha"):
        plot_critical_difference(result, alpha=2)
