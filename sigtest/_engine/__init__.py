"""The significance engine: paired data, random numbers, kernels, intervals, p-values.

Layer between :mod:`sigtest.metrics` and the significance tests
(:mod:`sigtest.tests_`): the tests call the engine, never the other way.

* :mod:`~sigtest._engine.paired`: :class:`PairedData`, what a test sees;
* :mod:`~sigtest._engine.prepare`: the one validated input path
  (:func:`prepare_paired`, :func:`prepare_paired_runs`,
  :func:`run_statistics`);
* :mod:`~sigtest._engine.inputs`: its input checks (:func:`check_metric_params`,
  arrays, lengths, hard/soft predictions);
* :mod:`~sigtest._engine.cells`: label codes, occupied cells ``(true, A, B)``
  (reused within a task through a :class:`CellCache`) and the metric's
  statistics of rows;
* :mod:`~sigtest._engine.sparse`: wide cell rows stored sparsely (``SparseRows``);
* :mod:`~sigtest._engine.design`: the sampling design (``groups=`` clusters,
  ``strata=``): cluster rows and stratum codes;
* :mod:`~sigtest._engine.bayesian`: Dirichlet (Bayesian bootstrap) weighted
  sums over items, cells or clusters;
* :mod:`~sigtest._engine.rng`: seeds, per-resample keys, SplitMix64;
* :mod:`~sigtest._engine.kernels` (numba; :mod:`~sigtest._engine.kernels_counts`:
  the count path of the shared sums) and
  :mod:`~sigtest._engine.kernels_numpy` (their bit-identical NumPy twins);
* :mod:`~sigtest._engine.threads`: a nogil kernel on parts of its resamples
  in threads (``parallel=True``: one compiled kernel, serial or threaded);
* :mod:`~sigtest._engine.jit`: the kernels' numba decorator, with the
  on-disk cache in a writable folder;
* :mod:`~sigtest._engine.resampling` (a package): bootstrap, permutation,
  exact enumeration and jackknife drivers, the slow path and
  :func:`resampled_deltas`;
* :mod:`~sigtest._engine.shared`: one bootstrap draw shared by all systems
  (:func:`sigtest.compare`), and
  :class:`~sigtest._engine.shared.SharedDeltas`, a pair's differences on
  it, passed to the test as an argument;
* :mod:`~sigtest._engine.shared_blocks`: the shared bootstrap, swap vectors
  (permutation) and Dirichlet weights (Bayesian bootstrap) in pieces for
  parallel workers: per-system unit codes, then ranges of resamples;
* :mod:`~sigtest._engine.shared_job`: one job of shared draws for all pairs
  of a comparison (:class:`~sigtest._engine.shared_job.SharedJob`), run in
  those two rounds of tasks by the executor the caller hands it;
* :mod:`~sigtest._engine.intervals`: percentile, basic, BCa, normal and
  studentized intervals and the p-value that inverts them;
* :mod:`~sigtest._engine.studentized`: bootstrap-t resamples (every
  resample's jackknife standard error from the statistics);
* :mod:`~sigtest._engine.maxt`: max-T (Westfall-Young, Romano-Wolf) adjusted
  p-values of a family from its bootstrap differences on shared resamples;
* :mod:`~sigtest._engine.small_sample`: discordant items, the sign-test floor;
* :mod:`~sigtest._engine.concentration`: the effective number of units of a
  difference (a difference carried by a handful of items);
* :mod:`~sigtest._engine.pvalues`: p-values from resampled distributions.

The resampling drivers and kernels (which import numba) are loaded on first
use: ``from sigtest._engine import resampling`` or an attribute of this
package named below.
"""

import importlib

from sigtest._engine.intervals import (
    NAN_INTERVAL,
    ConfidenceInterval,
    bootstrap_interval,
    excludes_zero,
    interval_pvalue,
    is_degenerate,
    jackknife_acceleration,
)
from sigtest._engine.cells import CellCache
from sigtest._engine.inputs import check_metric_params
from sigtest._engine.paired import PairedData
from sigtest._engine.prepare import prepare_paired, prepare_paired_runs, run_statistics
from sigtest._engine.pvalues import (
    TIE_RTOL,
    berg_kirkpatrick_pvalue,
    null_pvalue,
    permutation_pvalue,
    tie_tolerance,
    warn_degenerate,
)
from sigtest._engine.small_sample import (
    BCA_SMALL_SAMPLE_LIMITS,
    BK_SMALL_SAMPLE_LIMITS,
    discordant_count,
    discreteness_floor,
    point_mass_pvalue,
    small_sample_reasons,
    warn_small_sample,
)

# the numba-backed drivers, loaded lazily: name -> defining module
_LAZY = {
    "bootstrap_sums": ".resampling.bootstrap",
    "permutation_sums": ".resampling.permutation",
    "exact_permutation_sums": ".resampling.permutation",
    "monte_carlo_permutation_seconds": ".resampling.permutation",
    "jackknife_values": ".resampling.jackknife",
    "bootstrap_deltas": ".resampling.slow",
    "permutation_deltas": ".resampling.slow",
    "resampled_deltas": ".resampling.dispatch",
    "drop_nonfinite": ".resampling.dispatch",
}

__all__ = [
    "BCA_SMALL_SAMPLE_LIMITS",
    "BK_SMALL_SAMPLE_LIMITS",
    "CellCache",
    "ConfidenceInterval",
    "NAN_INTERVAL",
    "PairedData",
    "TIE_RTOL",
    "berg_kirkpatrick_pvalue",
    "bootstrap_interval",
    "check_metric_params",
    "discordant_count",
    "discreteness_floor",
    "excludes_zero",
    "interval_pvalue",
    "is_degenerate",
    "jackknife_acceleration",
    "null_pvalue",
    "permutation_pvalue",
    "point_mass_pvalue",
    "prepare_paired",
    "prepare_paired_runs",
    "run_statistics",
    "small_sample_reasons",
    "tie_tolerance",
    "warn_degenerate",
    "warn_small_sample",
    *sorted(_LAZY),
]


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
