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
