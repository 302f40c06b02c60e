"""Resampling schemes on paired sufficient statistics: the numba-backed drivers.

Every scheme maps a :class:`~sigtest._engine.paired.PairedData` to resampled
column sums of A and B; ``paired.deltas(sums_a, sums_b)`` turns them into
resampled differences ``value(B) - value(A)``. The heavy lifting is done by
the metric-agnostic kernels of :mod:`sigtest._engine.kernels`.

* :mod:`~sigtest._engine.resampling.rows`: argument checks, the sample-size
  rule, row grouping and merging, the kernel memo;
* :mod:`~sigtest._engine.resampling.bootstrap`: :func:`bootstrap_sums`
  (stratified, sparse cells);
* :mod:`~sigtest._engine.resampling.permutation`: :func:`permutation_sums`,
  :func:`exact_permutation_sums`, :func:`monte_carlo_permutation_seconds`
  and the discordant rows they share;
* :mod:`~sigtest._engine.resampling.jackknife`: :func:`jackknife_values`;
* :mod:`~sigtest._engine.resampling.slow`: metrics without statistics
  (:func:`bootstrap_scores`, :func:`bootstrap_deltas`,
  :func:`permutation_deltas`: one ``score_func`` call per resample);
* :mod:`~sigtest._engine.resampling.dispatch`: :func:`resampled_deltas`
  (the tests' one entry) and :func:`drop_nonfinite`.

The modules import the rest of the engine (kernels, rng, checks, paired
data, shared resamples) and the base layer, never a higher layer; they
import each other downwards only (``rows`` <- ``bootstrap``,
``permutation``, ``slow`` <- ``jackknife``, ``dispatch``). This package
re-exports the names that were imported from the former module
``sigtest._engine.resampling`` (its ``__all__`` and
:func:`resolve_sample_size`), nothing else; private names are imported from
their defining module. Importing it loads numba.
"""

from sigtest._engine.resampling.bootstrap import bootstrap_sums
from sigtest._engine.resampling.dispatch import drop_nonfinite, resampled_deltas
from sigtest._engine.resampling.jackknife import jackknife_values
from sigtest._engine.resampling.permutation import (
    exact_permutation_sums,
    monte_carlo_permutation_seconds,
    permutation_sums,
)
from sigtest._engine.sample_size import resolve_sample_size
from sigtest._engine.resampling.slow import bootstrap_deltas, bootstrap_scores, permutation_deltas

__all__ = [
    "bootstrap_deltas",
    "bootstrap_scores",
    "bootstrap_sums",
    "drop_nonfinite",
    "exact_permutation_sums",
    "jackknife_values",
    "monte_carlo_permutation_seconds",
    "permutation_deltas",
    "permutation_sums",
    "resampled_deltas",
    "resolve_sample_size",
]
