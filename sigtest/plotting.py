"""Plots of significance results.

They need matplotlib: ``pip install matplotlib``, or sigtest's ``plot`` extra
from a clone (``pip install "/path/to/sigtest[plot]"``).

Three views a paper needs:

* :func:`plot_resampling_distribution` — the resampled differences of one test
  with the observed difference and its confidence interval;
* :func:`plot_comparison` — a forest plot of every pair's difference and
  interval from :func:`sigtest.compare`, significant pairs highlighted;
* :func:`plot_posterior` — the posterior of the difference of a
  :class:`~sigtest.BayesianBootstrap` result with its region of practical
  equivalence and the three probabilities;
* :func:`plot_pvalue_heatmap` — systems x systems adjusted p-values in
  significance levels (scikit-posthocs' sign plot);
* :func:`plot_letters` — the systems ordered by score with their compact
  letter display.
* :func:`plot_simplex` — the posterior of a Bayesian comparison over
  datasets (:func:`sigtest.bayesian_signed_rank`,
  :func:`sigtest.hierarchical_bayes`) in the probability triangle.

A figure these functions create uses matplotlib's constrained layout, so a
plain ``fig.savefig(path)`` keeps every label inside the image.
"""

from sigtest._report.plot_cd import plot_critical_difference  # noqa: F401
from sigtest._report.plots import (  # noqa: F401
    plot_comparison,
    plot_letters,
    plot_posterior,
    plot_pvalue_heatmap,
    plot_resampling_distribution,
    plot_simplex,
)

__all__ = [
    "plot_comparison",
    "plot_critical_difference",
    "plot_letters",
    "plot_posterior",
    "plot_pvalue_heatmap",
    "plot_resampling_distribution",
    "plot_simplex",
]
