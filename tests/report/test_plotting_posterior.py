"""plot_posterior draws the posterior, the ROPE and the probabilities (checked on the artists)."""

import dataclasses

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sigtest import BayesianBootstrap, BCaInterval  # noqa: E402
from sigtest.plotting import plot_posterior  # noqa: E402


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    a = np.where(rng.random(400) < 0.75, y, 1 - y)
    b = np.where(rng.random(400) < 0.80, y, 1 - y)
    return y, a, b


def _text(ax):
    return "\n".join(t.get_text() for t in ax.texts)


def test_posterior_rope_and_probabilities(data):
    res = BayesianBootstrap(rope=0.02, n_resamples=800, random_state=0).test(*data)
    fig, ax = plt.subplots()
    assert plot_posterior(res, ax=ax) is ax
    # a density histogram of the 800 draws: bar areas sum to 1
    bars = [p for p in ax.patches if p.get_gid() != "rope"]
    assert sum(p.get_height() * p.get_width() for p in bars) == pytest.approx(1.0)
    # the ROPE band (gid "rope") spans [-rope, rope] in data coordinates
    spans = [p for p in ax.patches if p.get_gid() == "rope"]
    assert len(spans) == 1
    xs = ax.transData.inverted().transform(
        spans[0].get_transform().transform(spans[0].get_path().vertices))[:, 0]
    assert (xs.min(), xs.max()) == pytest.approx((-0.02, 0.02))
    text = _text(ax)
    for label, value in (("P(B better)", res.prob_better), ("P(B worse)", res.prob_worse),
                         ("P(practically equivalent)", res.prob_equivalent)):
        assert f"{label} = {value:.3f}" in text
    # zero and the credible interval are marked
    xs = sorted(line.get_xdata()[0] for line in ax.get_lines())
    np.testing.assert_allclose(xs, sorted([0.0, *res.confidence_interval]))
    assert ax.get_xlabel() == "accuracy difference (B - A)"
    plt.close(fig)


def test_new_figure_and_no_band_without_rope(data):
    res = BayesianBootstrap(n_resamples=300, random_state=0).test(*data)
    ax = plot_posterior(res)
    fig = ax.figure
    assert isinstance(ax, matplotlib.axes.Axes) and fig.axes == [ax]
    assert not [p for p in fig.axes[0].patches if p.get_gid() == "rope"]
    plt.close(fig)


def test_loss_title_says_lower_is_better():
    rng = np.random.default_rng(4)
    p = rng.dirichlet(np.ones(3), 200)
    qa = 0.5 * p + 0.5 * rng.dirichlet(np.ones(3), 200)
    res = BayesianBootstrap(rope=0.01, n_resamples=300, random_state=0).test(
        p, qa, p * 0.9 + 0.1 / 3, metric="jsd")
    fig = plot_posterior(res).figure
    assert "lower is better" in fig.axes[0].get_title()
    assert f"P(B better) = {res.prob_better:.3f}" in _text(fig.axes[0])
    plt.close(fig)


def test_refuses_a_result_without_posterior(data):
    bca = BCaInterval(n_resamples=200, random_state=0).test(*data)
    with pytest.raises(ValueError, match="'result' parameter holds no posterior"):
        plot_posterior(bca)
    res = BayesianBootstrap(n_resamples=200, random_state=0).test(*data)
    with pytest.raises(ValueError, match="'result' parameter"):
        plot_posterior(dataclasses.replace(res, null_distribution=None))
    with pytest.raises(ValueError, match="'result' parameter"):
        plot_posterior("not a result")
