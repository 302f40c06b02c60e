"""The slow path, for metrics without sufficient statistics: one ``score_func`` call per resample.

:func:`bootstrap_scores` / :func:`bootstrap_deltas` and
:func:`permutation_deltas` draw index batches (or swap masks) from a NumPy
``Generator`` seeded with the integer seed and call the metric's
``score_func`` once per system and resample; hard labels without weights
share the calls of resamples with equal label tables (:class:`_SlowScorer`).
With ``parallel=True`` the calls of a batch run on a thread pool of numba's
thread count (a test's ``n_jobs``); the draws stay sequential, so the result
does not depend on it. Clusters (``groups=``) are drawn or swapped whole, strata keep their sizes.
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.checks import check_allocation, check_n_resamples as _check_n_resamples
from sigtest._engine.resampling.rows import _check_paired
from sigtest._engine.rng import check_seed
from sigtest._engine.sample_size import resolve_sample_size, stratified_sample_size
from sigtest._engine.threads import thread_count
from sigtest.exceptions import SlowPathWarning
from sigtest.utils import warn_external

__all__ = ["bootstrap_deltas", "bootstrap_scores", "permutation_deltas"]


def _slow_params(paired):
    params = dict(paired.params)
    zd = params.get("zero_division")
    if isinstance(zd, str) and zd == "warn":
        params["zero_division"] = 0.0
    return params


def _score(paired, params, y, p, w):
    kw = {} if w is None else {"sample_weight": w}
    return float(paired.metric.score_func(y, p, **kw, **params))


def _thread_map(parallel):
    """``map`` over a thread pool of numba's thread count when ``parallel``, else in order."""
    n = thread_count(parallel)

    def run(func, items):
        items = list(items)
        if n <= 1 or len(items) < 2:
            return [func(x) for x in items]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(n, len(items))) as pool:
            return list(pool.map(func, items))

    return run


# Above this estimated duration (seconds) the slow path shows a progress bar.
_PROGRESS_SECONDS = 2.0
# Largest number of (true, predicted) label cells of the slow-path memo.
_MEMO_MAX_CELLS = 4096


class _Progress:
    """A progress bar (``tqdm.auto`` on stderr) shown only for long slow-path runs.

    After every batch the total time is extrapolated from the batches done;
    once it exceeds :data:`_PROGRESS_SECONDS` the bar appears (when stderr is
    a terminal) and is updated until :meth:`close`. It only reads the clock:
    the resamples and their order never depend on it.
    """

    def __init__(self, total, desc):
        import time

        self._clock = time.perf_counter
        self.start = self._clock()
        self.total = total
        self.desc = desc
        self.done = 0
        self.bar = None

    def update(self, n):
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
            return
        elapsed = self._clock() - self.start
        if self.done < self.total and elapsed / self.done * self.total > _PROGRESS_SECONDS:
            import sys

            from tqdm.auto import tqdm

            # disable=None: no bar when stderr is not a terminal (a log, a pipe, CI)
            self.bar = tqdm(total=self.total, initial=self.done, desc=self.desc,
                            unit="resample", file=sys.stderr, leave=False, disable=None)

    def close(self):
        if self.bar:
            self.bar.close()


class _SlowScorer:
    """``score_func`` on resamples of hard labels, memoised by the label table.

    A metric of hard labels that does not depend on the order of the items
    is a function of the table of (true, predicted) label counts. Resamples
    with the same table (about 500 distinct tables among 10 000 permutations
    of N = 300 binary items) then share one ``score_func`` call, made on the
    *canonical* arrays (items sorted by their cell). Order independence is
    checked on the observed data: the canonical arrays of A and of B must
    give exactly the observed scores, or the memo is not used (sequence
    metrics, for instance). Results are deterministic either way.
    """

    def __init__(self, paired, params, parallel=False):
        self.paired = paired
        self.params = params
        self.map = _thread_map(parallel)
        y, a, b, w = _data(paired)
        self.memo = None
        if w is not None or np.ndim(y) != 1 or np.ndim(a) != 1 or np.ndim(b) != 1:
            return
        try:
            values, inverse = np.unique(np.concatenate([y, a, b]), return_inverse=True)
        except TypeError:  # unorderable labels
            return
        K = values.shape[0]
        if K * K > _MEMO_MAX_CELLS:
            return
        n = y.shape[0]
        inverse = inverse.ravel()
        self.values, self.K = values, K
        yc = inverse[:n].astype(np.int64)
        self.cell_a = yc * K + inverse[n:2 * n]
        self.cell_b = yc * K + inverse[2 * n:]
        for cells, pred in ((self.cell_a, a), (self.cell_b, b)):
            counts = np.bincount(cells, minlength=K * K)
            observed = _score(paired, params, y, pred, None)
            canonical = self._call(counts)
            if not (canonical == observed or (np.isnan(canonical) and np.isnan(observed))):
                return
        self.memo = {}

    def _call(self, counts):
        cells = np.repeat(np.arange(self.K * self.K), counts)
        y = self.values[cells // self.K]
        p = self.values[cells % self.K]
        return _score(self.paired, self.params, y, p, None)

    def scores(self, cells):
        """Scores of resamples given as cell codes of shape (r, m)."""
        r, m = cells.shape
        KK = self.K * self.K
        counts = np.bincount((cells + KK * np.arange(r)[:, None]).ravel(),
                             minlength=r * KK).reshape(r, KK)
        memo = self.memo
        keys = [row.tobytes() for row in counts]
        missing = {}
        for i, key in enumerate(keys):
            if key not in memo and key not in missing:
                missing[key] = i
        for key, value in zip(missing, self.map(self._call, [counts[i] for i in missing.values()])):
            memo[key] = value
        return np.array([memo[key] for key in keys], dtype=np.float64).reshape(r)


def _warn_cost(paired, params, n_calls, what):
    """Warn (:class:`~sigtest.SlowPathWarning`) when ``n_calls`` calls will take long.

    One call of the score function on the observed data of A is timed (its
    value is not used); ``n_calls`` times that duration above
    :data:`_PROGRESS_SECONDS` is worth saying before the wait. An upper
    estimate: resamples with the same label table share one call
    (:class:`_SlowScorer`) and a test's ``n_jobs`` spreads them over threads.
    """
    import time

    y, a, _, w = _data(paired)
    start = time.perf_counter()
    try:
        _score(paired, params, y, a, w)
    except Exception:  # noqa: BLE001 - the run itself reports a failing metric
        return
    once = time.perf_counter() - start
    total = once * n_calls
    if total <= _PROGRESS_SECONDS:
        return
    warn_external(
        f"Metric {paired.metric.name!r} has no sufficient statistics: the {what} calls its "
        f"score function on every resample (the slow path), {n_calls} calls x "
        f"{once * 1e3:.3g} ms (one call timed on these data) = about {total:.0f} s on one "
        "thread. A metric with statistics (the fast path; docs/metrics.md lists them) or "
        "register_metric(..., statistics=, aggregate=) takes a fraction of that.",
        SlowPathWarning)


def _slow_scores(paired, n_resamples, seed, batch_size, what, batch_scores, parallel=False):
    """Shared driver of the slow paths: seeded batches, the scorer, a progress bar.

    ``batch_scores(rng, size, scorer, params)`` draws one batch of ``size``
    resamples from ``rng`` and returns their scores of A and B as a
    ``(size, 2)`` array; batches are drawn in order from
    ``numpy.random.default_rng(seed)``, so the result depends only on
    ``seed`` and ``batch_size``.
    """
    B = _check_n_resamples(n_resamples)
    check_allocation(B, 16)
    rng = np.random.default_rng(check_seed(seed))
    params = _slow_params(paired)
    _warn_cost(paired, params, 2 * B, what)
    scorer = _SlowScorer(paired, params, parallel)
    out = np.empty((B, 2))
    progress = _Progress(B, f"{what} ({paired.metric.name})")
    try:
        for lo in range(0, B, batch_size):
            hi = min(B, lo + batch_size)
            out[lo:hi] = batch_scores(rng, hi - lo, scorer, params)
            progress.update(hi - lo)
    finally:
        progress.close()
    return out


def bootstrap_scores(paired, n_resamples, sample_size=None, seed=0, *, batch_size=256,
                     parallel=False):
    """Slow-path paired bootstrap: the resampled scores of A and B.

    Index batches of shape ``(batch_size, m)`` come from
    ``numpy.random.default_rng(seed)``; each resample calls ``score_func``
    once per system (metric parameters as given, ``zero_division="warn"``
    replaced by 0.0). Works for any metric, with or without statistics.
    Hard labels without weights share the calls of resamples with equal
    label tables (see :class:`_SlowScorer`); a run estimated to take more
    than 2 s shows a progress bar on stderr (tqdm) when stderr is a terminal. Clustered data
    (``groups=``) draw ``m`` whole clusters (default: ``G``); strata draw
    within each stratum, keeping its size.

    Returns
    -------
    scores : ndarray of shape (n_resamples, 2)
        Column 0: A's score on each resample; column 1: B's.
    """
    _check_paired(paired, need_statistics=False)
    _check_n_resamples(n_resamples)
    check_seed(seed)
    y, a, b, w = _data(paired)
    units = _Units(paired)
    if paired.stratified:
        fraction = stratified_sample_size(sample_size, units.n_units)
    else:
        m = resolve_sample_size(sample_size, units.n_units)

    def draw(rng, size):
        if not paired.stratified:
            return rng.integers(0, units.n_units, (size, m))
        parts = []
        for members in units.by_stratum:
            m_h = resolve_sample_size(fraction, members.size)
            parts.append(members[rng.integers(0, members.size, (size, m_h))])
        return np.hstack(parts)

    def batch(rng, size, scorer, params):
        drawn = draw(rng, size)
        out = np.empty((size, 2))
        if units.members is None:  # units are items: one index matrix
            if scorer.memo is not None:
                out[:, 0] = scorer.scores(scorer.cell_a[drawn])
                out[:, 1] = scorer.scores(scorer.cell_b[drawn])
                return out
            rows = drawn
        else:
            rows = [units.items(u) for u in drawn]
        if scorer.memo is not None:
            for r in range(size):
                i = rows[r]
                out[r, 0] = scorer.scores(scorer.cell_a[i][None, :])[0]
                out[r, 1] = scorer.scores(scorer.cell_b[i][None, :])[0]
            return out

        def one(i):
            wi = None if w is None else w[i]
            return (_score(paired, params, y[i], a[i], wi),
                    _score(paired, params, y[i], b[i], wi))

        out[:] = scorer.map(one, (rows[r] for r in range(size)))
        return out

    return _slow_scores(paired, n_resamples, seed, batch_size, "bootstrap", batch, parallel)


def bootstrap_deltas(paired, n_resamples, sample_size=None, seed=0, *, batch_size=256,
                     parallel=False):
    """Slow-path paired bootstrap: raw deltas ``score_b* - score_a*``.

    The resamples of :func:`bootstrap_scores` (same seed, same batches).

    Returns
    -------
    deltas : ndarray of shape (n_resamples,)
    """
    scores = bootstrap_scores(paired, n_resamples, sample_size, seed, batch_size=batch_size,
                              parallel=parallel)
    return scores[:, 1] - scores[:, 0]


class _Units:
    """Resampling units of the slow path: items, or clusters (``groups=``).

    ``members`` is ``None`` when units are items; else clusters are stored
    as runs of ``order`` (items sorted by cluster) given by ``starts`` and
    ``sizes``. ``by_stratum`` lists the units of each stratum.
    """

    def __init__(self, paired):
        groups, strata = paired.item_groups, paired.item_strata
        self.members = None
        unit_strata = strata
        if groups is None:
            self.n_units = int(paired.n_samples)
        else:
            G = int(paired.n_groups)
            self.n_units = G
            self.order = np.argsort(groups, kind="stable")
            self.sizes = np.bincount(groups, minlength=G)
            self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
            self.members = True
            if strata is not None:
                unit_strata = np.empty(G, dtype=np.int64)
                unit_strata[groups] = strata
        self.by_stratum = [] if unit_strata is None else [
            np.flatnonzero(unit_strata == h) for h in range(int(paired.n_strata))
        ]
        self.by_stratum = [u for u in self.by_stratum if u.size]

    def items(self, units):
        """Item indices of the drawn clusters ``units`` (in draw order)."""
        lens = self.sizes[units]
        total = int(lens.sum())
        offsets = np.repeat(self.starts[units] - (np.cumsum(lens) - lens), lens)
        return self.order[offsets + np.arange(total)]


def permutation_deltas(paired, n_resamples, seed=0, *, batch_size=256, parallel=False):
    """Slow-path paired permutation: raw deltas after random A/B swaps.

    Swap masks of shape ``(batch_size, N)`` come from
    ``numpy.random.default_rng(seed).random(...) < 0.5``; clustered data
    (``groups=``) draw one swap per cluster, ``(batch_size, G)``, applied to
    all its items. Hard labels without weights share the calls of resamples
    with equal label tables (see :class:`_SlowScorer`); a run estimated to
    take more than 2 s shows a progress bar on stderr (tqdm) when stderr is a terminal.

    Returns
    -------
    deltas : ndarray of shape (n_resamples,)
    """
    _check_paired(paired, need_statistics=False)
    y, a, b, w = _data(paired)
    n = paired.n_samples
    groups = paired.item_groups

    def batch(rng, size, scorer, params):
        if groups is None:
            swaps = rng.random((size, n)) < 0.5
        else:
            swaps = (rng.random((size, int(paired.n_groups))) < 0.5)[:, groups]
        out = np.empty((size, 2))
        if scorer.memo is not None:
            out[:, 0] = scorer.scores(np.where(swaps, scorer.cell_b, scorer.cell_a))
            out[:, 1] = scorer.scores(np.where(swaps, scorer.cell_a, scorer.cell_b))
            return out

        def one(swap):
            sw = swap.reshape((n,) + (1,) * (a.ndim - 1))
            return (_score(paired, params, y, np.where(sw, b, a), w),
                    _score(paired, params, y, np.where(sw, a, b), w))

        out[:] = scorer.map(one, swaps)
        return out

    scores = _slow_scores(paired, n_resamples, seed, batch_size, "permutation", batch,
                          parallel)
    return scores[:, 1] - scores[:, 0]


def _data(paired):
    if paired.data is None:
        raise ValueError(
            "The slow path needs the raw data; this PairedData holds only "
            "statistics (use bootstrap_sums / permutation_sums)."
        )
    return paired.data
