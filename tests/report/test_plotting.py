"""Plots draw what they claim (checked on the artists, not on pixels)."""

import dataclasses

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sigtest import BCaInterval, PairedPermutation, compare  # noqa: E402
from sigtest.plotting import plot_comparison, plot_resampling_distribution  # noqa: E402


@pytest.fixture
def data():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 400)
    preds = {f"s{q}": np.where(rng.random(400) < q, y, (y + 1) % 3) for q in (0.5, 0.7, 0.9)}
    return y, preds


def test_distribution_lines(data):
    y, p = data
    res = BCaInterval(n_resamples=500, random_state=0).test(y, p["s0.5"], p["s0.7"])
    fig, ax = plt.subplots()
    assert plot_resampling_distribution(res, ax=ax) is ax
    xs = [line.get_xdata()[0] for line in ax.get_lines()]
    np.testing.assert_allclose(xs, [res.delta, *res.confidence_interval])
    assert sum(p.get_height() for p in ax.patches) == 500
    plt.close(fig)


def test_exact_distribution_and_missing_samples(data):
    y, p = data
    res = PairedPermutation(exact=True).test(y[:12], p["s0.5"][:12], p["s0.7"][:12])
    assert res.null_weights is not None
    fig, ax = plt.subplots()
    plot_resampling_distribution(res, ax=ax)
    # The exact distribution is drawn as probabilities summing to 1.
    assert sum(p.get_height() for p in ax.patches) == pytest.approx(1.0)
    assert ax.get_ylabel() == "probability"
    plt.close(fig)
    with pytest.raises(ValueError, match="no resampled distribution"):
        plot_resampling_distribution(dataclasses.replace(res, null_distribution=None))


def test_comparison_rows_and_colours(data):
    y, p = data
    res = compare(y, p, metrics=("accuracy", "f1_macro"),
                  test=(PairedPermutation(n_resamples=499), BCaInterval(n_resamples=499)),
                  random_state=0)
    with pytest.raises(ValueError, match="'metric' parameter is required"):
        plot_comparison(res)
    with pytest.raises(ValueError, match="must be one of"):
        plot_comparison(res, "nope")
    fig, ax = plt.subplots()
    plot_comparison(res, "accuracy", ax=ax)
    frame = res.to_frame().query("metric == 'accuracy'")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [f"{b} vs {a}" for a, b in zip(frame.system_a, frame.system_b)]
    points = [line for line in ax.get_lines() if line.get_marker() == "o"]
    assert len(points) == len(frame)
    # Significant pairs are coloured, the others grey.
    grey = [line.get_color() == "0.5" for line in points]
    assert grey == [not s for s in frame["significant"]]
    plt.close(fig)


# ---------------------------------------------------------------- reading well as saved
LONG = {"a_rather_long_system_name_baseline": 0.6, "another_quite_long_name_variant_b": 0.7,
        "s3": 0.75, "the_longest_system_name_of_this_comparison_c": 0.9}


@pytest.fixture
def long_names():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 400)
    preds = {name: np.where(rng.random(400) < q, y, (y + 1) % 3) for name, q in LONG.items()}
    return compare(y, preds, metrics=("accuracy", "f1_macro"), random_state=0,
                   test=PairedPermutation(n_resamples=499))


def _check_reads_well(fig, names):
    """Everything drawn lies inside the figure, and every name is written somewhere.

    ``Figure.get_tightbbox`` is in inches, so it is compared with
    ``fig.bbox_inches`` (``fig.bbox`` in inches); a small tolerance absorbs
    rounding of the text extents. This is what a plain ``fig.savefig(path)``
    keeps: anything outside is clipped from the image.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    tight, box = fig.get_tightbbox(renderer), fig.bbox_inches
    eps = 1e-3
    assert tight.x0 >= box.x0 - eps and tight.y0 >= box.y0 - eps, (tight, box)
    assert tight.x1 <= box.x1 + eps and tight.y1 <= box.y1 + eps, (tight, box)
    texts = " | ".join(t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_visible())
    for name in names:
        assert name in texts, name


def test_forest_plot_reads_well_and_has_legend(long_names):
    ax = plot_comparison(long_names, "accuracy")
    _check_reads_well(ax.figure, LONG)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == "significant after correction (p_adj <= 0.05)"
    assert legend[1] == "not significant"
    # the zero line
    assert any(np.all(np.asarray(line.get_xdata()) == 0) for line in ax.get_lines())
    plt.close(ax.figure)


def test_heatmap_levels_and_layout(long_names):
    from sigtest.plotting import plot_pvalue_heatmap

    res = long_names
    ax = plot_pvalue_heatmap(res, "f1_macro")
    _check_reads_well(ax.figure, LONG)
    systems = list(res.systems)
    assert [t.get_text() for t in ax.get_xticklabels()] == systems
    assert [t.get_text() for t in ax.get_yticklabels()] == systems
    # naive twin: the level of every cell from the frame
    frame = res.to_frame().query("metric == 'f1_macro'")
    codes = np.ma.getdata(ax.get_images()[0].get_array())
    mask = np.ma.getmaskarray(ax.get_images()[0].get_array())
    assert mask.diagonal().all()
    for row in frame.itertuples():
        i, j = systems.index(row.system_a), systems.index(row.system_b)
        p = row.pvalue_adj
        level = 0 if p < 0.001 else 1 if p < 0.01 else 2 if p < 0.05 else 3
        assert codes[i, j] == codes[j, i] == level
    bar_labels = [t.get_text() for t in ax.figure.axes[-1].get_yticklabels()]
    assert bar_labels == ["p < 0.001", "p < 0.01", "p < 0.05", "NS"]
    plt.close(ax.figure)


def test_heatmap_baseline_pairs_leave_untested_cells_blank(data):
    from sigtest.plotting import plot_pvalue_heatmap

    y, p = data
    res = compare(y, p, metrics="accuracy", pairs="baseline", baseline="s0.5", random_state=0,
                  test=PairedPermutation(n_resamples=199))
    ax = plot_pvalue_heatmap(res)
    mask = np.ma.getmaskarray(ax.get_images()[0].get_array())
    systems = list(res.systems)
    i, j = systems.index("s0.7"), systems.index("s0.9")
    assert mask[i, j] and mask[j, i]
    assert not mask[systems.index("s0.5"), i]
    with pytest.raises(ValueError, match="'test' parameter"):
        plot_pvalue_heatmap(res, test="nope")
    plt.close(ax.figure)


def test_letters_chart_order_and_layout(long_names):
    from sigtest.plotting import plot_letters

    ax = plot_letters(long_names, "accuracy")
    _check_reads_well(ax.figure, LONG)
    table = long_names.letters("accuracy")
    assert [t.get_text() for t in ax.get_yticklabels()] == list(table.index)  # best on top
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), table["score"])
    right = [a for a in ax.child_axes]
    assert [t.get_text() for t in right[0].get_yticklabels()] == list(table["letters"])
    plt.close(ax.figure)


@pytest.mark.parametrize("name", ["plot_comparison", "plot_pvalue_heatmap", "plot_letters"])
def test_comparison_plots_refuse_a_single_test_result(data, name):
    import sigtest.plotting

    y, p = data
    res = BCaInterval(n_resamples=99, random_state=0).test(y, p["s0.5"], p["s0.7"])
    with pytest.raises(TypeError, match=rf"'result' parameter of {name}.*SignificanceResult"):
        getattr(sigtest.plotting, name)(res)


def test_single_result_plots_read_well(data):
    from sigtest import BayesianBootstrap
    from sigtest.plotting import plot_posterior

    y, p = data
    res = BCaInterval(n_resamples=500, random_state=0).test(y, p["s0.5"], p["s0.7"],
                                                            metric="f1_macro")
    ax = plot_resampling_distribution(res)
    _check_reads_well(ax.figure, ["f1_macro difference (B - A)", "bca: p = ", "observed"])
    plt.close(ax.figure)
    post = BayesianBootstrap(rope=0.01, n_resamples=500, random_state=0).test(
        y, p["s0.5"], p["s0.7"], metric="f1_macro")
    fig = plot_posterior(post).figure
    _check_reads_well(fig, ["f1_macro difference (B - A)", "P(B better)", "ROPE"])
    plt.close(fig)
