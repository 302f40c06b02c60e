"""Running the simulations of power: chunks, workers and per-simulation seeds.

Simulation ``i`` draws its test set from its key (``resample_keys``) and
the test's seed from the same key, so the counts do not depend on how the
simulations are cut into chunks or on the number of workers (joblib).
"""

import warnings

import numpy as np

from sigtest._engine.rng import GOLDEN, splitmix64
from sigtest.utils._estimator import clone

__all__ = ["key_offsets", "simulate"]


def key_offsets(words):
    """The ``words`` offsets added to a simulation's key: multiples of SplitMix64's GOLDEN."""
    return (np.arange(1, words + 1, dtype=np.uint64) * GOLDEN)


def _test_seed(key):
    return int(splitmix64(np.uint64(key) ^ np.uint64(0xD1B54A32D192ED03)) >> np.uint64(32))


def _run_chunk(sim, test, keys, n, s, alpha):
    """``(rejected with B better, rejected with B worse)`` per simulation of ``keys``."""
    offsets = key_offsets(sim.words_per_item * n)
    better = np.zeros(len(keys), dtype=bool)
    worse = np.zeros(len(keys), dtype=bool)
    names = test.get_params(deep=False)
    has_n_jobs, has_seed = "n_jobs" in names, "random_state" in names
    if has_n_jobs:
        test.set_params(n_jobs=1)
    with warnings.catch_warnings():
        # degenerate simulated pairs (B = A) give p = 1 with a warning: expected here
        warnings.simplefilter("ignore")
        for i, key in enumerate(keys):
            data = sim.paired(sim.counts(key, n, s, offsets), n)
            if has_seed:
                test.set_params(random_state=_test_seed(key))
            res = test.test_paired(data)
            if res.pvalue <= alpha:
                better[i] = res.statistic > 0
                worse[i] = res.statistic < 0
    return better, worse


def simulate(sim, test, keys, n, s, alpha, n_jobs, verbose, desc):
    n_sims = len(keys)
    workers = _n_workers(n_jobs)
    n_chunks = max(1, min(n_sims, 4 * workers if workers > 1 else 1))
    if verbose:
        n_chunks = max(n_chunks, min(n_sims, 50))
    bounds = np.linspace(0, n_sims, n_chunks + 1).astype(int)
    chunks = [keys[bounds[i]:bounds[i + 1]] for i in range(n_chunks)]
    chunks = [c for c in chunks if len(c)]
    bar = None
    if verbose:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_sims, desc=desc, leave=False)
    try:
        if workers == 1:
            out = []
            for c in chunks:
                out.append(_run_chunk(sim, clone(test), c, n, s, alpha))
                if bar is not None:
                    bar.update(len(c))
        else:
            from joblib import Parallel, delayed

            parallel = Parallel(n_jobs=workers, return_as="generator")
            out = []
            for c, r in zip(chunks, parallel(delayed(_run_chunk)(sim, clone(test), c, n, s,
                                                                 alpha) for c in chunks)):
                out.append(r)
                if bar is not None:
                    bar.update(len(c))
    finally:
        if bar is not None:
            bar.close()
    better = np.concatenate([o[0] for o in out])
    worse = np.concatenate([o[1] for o in out])
    return int(better.sum()), int(worse.sum())


def _n_workers(n_jobs):
    if isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError("The 'n_jobs' parameter must be None, an int >= 1 or <= -1 "
                         f"(joblib's rule). Got {n_jobs!r} instead.")
    if n_jobs is None or n_jobs == 1:
        return 1
    import os

    cpus = os.cpu_count() or 1
    return max(1, min(cpus, n_jobs) if n_jobs > 0 else cpus + 1 + n_jobs)
