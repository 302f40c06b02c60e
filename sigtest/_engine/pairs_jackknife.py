r"""Jackknife acceleration, influence concentration and discordant counts of many pairs.

:class:`~sigtest.BCaInterval` on a pair of hard-label systems compresses the
items into occupied cells :math:`c = (t, a, b)` (true label, A's label, B's
label) with counts :math:`w_c`; a cellwise metric's statistics row of A in
cell :math:`c` depends on :math:`(t, a)` only, :math:`S_{ta}`, and the
closed-form jackknife gives the leave-one-out difference of the cell,

.. math:: \theta_c = g(\Sigma_B - S_{tb}) - g(\Sigma_A - S_{ta}),

:math:`g` the metric's aggregate and :math:`\Sigma` a system's column sums.
Both terms belong to one system each: :math:`\lambda_s(t, p) = g(\Sigma_s -
S_{tp})` is computed once per system (the caller's ``loo`` table), so a
pair needs only its cell counts. :func:`pairs_jackknife` counts the cells of
every pair ``(I[p], J[p])`` in a numba pass over the items and gives, per
pair, what the scalar test computes from the same cells:

* the BCa acceleration (Efron & Tibshirani 1993, eq. 14.15;
  :func:`~sigtest._engine.intervals.acceleration_from_jackknife`),
  :math:`a = \sum_c w_c d_c^3 / (6 (\sum_c w_c d_c^2)^{3/2})`,
  :math:`d_c = \bar\theta - \theta_c`, :math:`\bar\theta = \sum_c w_c
  \theta_c / \sum_c w_c` (nan when a :math:`\theta_c` is not finite or
  every one is equal);
* the effective number of units of the influence values :math:`L_c = (n -
  1) d_c`, :math:`n_{\mathrm{eff}} = (\sum_c w_c L_c^2)^2 / \sum_c w_c
  L_c^4` (:func:`~sigtest._engine.concentration.influence_concentration`;
  ``inf`` where that returns None);
* the number of discordant items, :math:`\sum_c w_c [S_{ta} \ne S_{tb}]`
  (:func:`~sigtest._engine.small_sample.discordant_count`), and per class
  the items whose class columns differ
  (:func:`~sigtest._engine.small_sample.class_discordant_counts`), reduced
  to the count :func:`~sigtest._engine.small_sample.class_small_sample_reasons`
  compares with its limit.

The cells are visited in the scalar path's order (codes ``(t K + a) K +
b`` of the sorted labels); the sums run one after the other instead of
numpy's ``dot`` and pairwise ``sum``, so the acceleration agrees with the
scalar one to rounding, not bit for bit. Labels are encoded by
:func:`encode_labels` (at most :data:`MAX_LABELS` distinct values, one byte
each).
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.jit import cached_jit
from sigtest._engine.kernels import _numba_enabled
from sigtest._engine.threads import part_bounds, run_parts

__all__ = ["MAX_LABELS", "WATCH_MACRO", "WATCH_NONE", "encode_labels", "kernel_enabled",
           "pairs_jackknife"]

#: Most distinct label values (gold and predicted) of :func:`encode_labels`:
#: a pair's cell table holds ``K**3`` counts (32,768 at most).
MAX_LABELS = 32

#: ``watch`` of :func:`pairs_jackknife`: no class count is compared with a limit.
WATCH_NONE = -2
#: ... the smallest nonzero count of a class present in A or B (a macro average).
WATCH_MACRO = -1


def kernel_enabled():
    """Whether :func:`pairs_jackknife` runs compiled (not with ``SIGTEST_DISABLE_NUMBA=1``).

    Its pass over the items of every pair is affordable only compiled; a
    caller takes its scalar path otherwise.
    """
    return _numba_enabled()


def encode_labels(y, preds):
    """The sorted union of the labels of ``y`` and ``preds`` and every array's codes in it.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Gold labels.
    preds : list of ndarray of shape (n,)
        Every system's predicted labels.

    Returns
    -------
    (union, y_codes, codes) or None
        ``union`` sorted as :func:`numpy.unique` sorts it (the order of the
        scalar path's cells), ``y_codes`` of shape ``(n,)`` and ``codes``
        of shape ``(len(preds), n)``, uint8; None when there are more than
        :data:`MAX_LABELS` values, or labels that do not sort together.
    """
    arrays = [np.asarray(y)] + [np.asarray(p) for p in preds]
    if all(a.dtype.kind in "biu" for a in arrays):
        lo = min(int(a.min()) for a in arrays)
        hi = max(int(a.max()) for a in arrays)
        if hi - lo >= 2**16:
            return None
        present = np.zeros(hi - lo + 1, dtype=bool)
        for a in arrays:
            present[a.astype(np.int64) - lo] = True
        union = np.flatnonzero(present)
        if union.size > MAX_LABELS:
            return None
        lookup = (np.cumsum(present) - 1).astype(np.uint8)
        coded = [lookup[a.astype(np.int64) - lo] for a in arrays]
        union = (union + lo).astype(np.result_type(*arrays))
    else:
        try:
            union = np.unique(np.concatenate([np.unique(a) for a in arrays]))
        except TypeError:  # labels that do not sort together: the scalar path says so
            return None
        if union.size > MAX_LABELS:
            return None
        coded = [np.searchsorted(union, a).astype(np.uint8) for a in arrays]
    codes = np.empty((len(preds), arrays[0].shape[0]), dtype=np.uint8)
    for s, c in enumerate(coded[1:]):
        codes[s] = c
    return union, coded[0], codes


@cached_jit(nogil=True)
def _cell_theta(loo, K, K2, i, j, c):  # pragma: no cover - compiled by numba
    # the pair's leave-one-out difference without an item of cell c = (true, a, b)
    t = c // K2
    return loo[j, t * K + c % K] - loo[i, t * K + (c // K) % K]


@cached_jit(nogil=True)
def _pair_sums(counts, K, i, j, loo, differ, class_differ, ccount):
    # pragma: no cover - compiled by numba
    # first pass over the occupied cells: sum w, sum w theta, d, class counts
    K2 = K * K
    sw = 0.0
    swt = 0.0
    d = 0
    finite = True
    for c in range(counts.shape[0]):
        w = counts[c]
        if w == 0:
            continue
        theta = _cell_theta(loo, K, K2, i, j, c)
        if not np.isfinite(theta):
            finite = False
        sw += w
        swt += w * theta
        if differ[c]:
            d += w
        for k in range(ccount.shape[0]):
            if class_differ[c, k]:
                ccount[k] += w
    return sw, swt, d, finite


@cached_jit(nogil=True)
def _pair_moments(counts, K, i, j, loo, mean, n):
    # pragma: no cover - compiled by numba
    # second pass: the moments of d = mean - theta and of L = (n - 1) d; clears the counts
    K2 = K * K
    s2 = 0.0
    s3 = 0.0
    l2 = 0.0
    l4 = 0.0
    for c in range(counts.shape[0]):
        w = counts[c]
        if w == 0:
            continue
        theta = _cell_theta(loo, K, K2, i, j, c)
        dc = mean - theta
        s2 += w * (dc * dc)
        s3 += w * (dc * dc * dc)
        L = (n - 1.0) * (mean - theta)
        sq = L * L
        l2 += w * sq
        l4 += w * (sq * sq)
        counts[c] = 0
    return s2, s3, l2, l4


@cached_jit(nogil=True)
def _watched(ccount, present, i, j, watch):  # pragma: no cover - compiled by numba
    # the class count compared with the limit: -1 when none is
    if watch >= 0:
        return ccount[watch]
    if watch != -1:
        return -1
    out = -1
    for k in range(ccount.shape[0]):
        if ccount[k] > 0 and (present[i, k] or present[j, k]):
            if out < 0 or ccount[k] < out:
                out = ccount[k]
    return out


@cached_jit(nogil=True)
def _pairs_range(y, P, I, J, K, loo, differ, class_differ, present, watch, start, stop,
                 d_out, watched_out, acc_out, neff_out):  # pragma: no cover - compiled by numba
    counts = np.zeros(K * K * K, dtype=np.int64)
    ccount = np.zeros(class_differ.shape[1], dtype=np.int64)
    N = y.shape[0]
    for p in range(start, stop):
        i, j = I[p], J[p]
        Pi, Pj = P[i], P[j]
        for m in range(N):
            counts[(np.int64(y[m]) * K + Pi[m]) * K + Pj[m]] += 1
        ccount[:] = 0
        sw, swt, d, finite = _pair_sums(counts, K, i, j, loo, differ, class_differ, ccount)
        s2, s3, l2, l4 = _pair_moments(counts, K, i, j, loo, swt / sw, sw)
        d_out[p] = d
        watched_out[p] = _watched(ccount, present, i, j, watch)
        acc_out[p] = s3 / (6.0 * s2**1.5) if finite and s2 > 0.0 else np.nan
        neff_out[p] = l2 * l2 / l4 if finite and l2 > 0.0 and l4 > 0.0 else np.inf


def pairs_jackknife(y_codes, codes, I, J, loo, differ, class_differ, present, watch,
                    n_threads=1):
    """Per pair ``(I[p], J[p])``: discordant items, watched class count, acceleration, n_eff.

    Parameters
    ----------
    y_codes : ndarray of shape (n,), uint8
        Gold label codes (:func:`encode_labels`), ``K`` values.
    codes : ndarray of shape (k, n), uint8
        Every system's predicted label codes.
    I, J : ndarray of shape (m,)
        The systems (rows of ``codes``) of every pair: A and B.
    loo : ndarray of shape (k, K * K)
        ``loo[s, t K + p]``: the metric of system ``s`` without one item of
        true label ``t`` predicted ``p`` (read only where ``s`` has such an
        item).
    differ : ndarray of shape (K, K, K), bool
        ``differ[t, a, b]``: whether the statistics rows of A and B differ
        in cell ``(t, a, b)``.
    class_differ : ndarray of shape (K, K, K, C), bool
        Whether the columns of class ``k`` differ there (``C = 0``: no class columns).
    present : ndarray of shape (k, C), bool
        The classes with a nonzero column total of each system.
    watch : int
        The class whose discordant count is returned (its column index),
        :data:`WATCH_MACRO` (the smallest nonzero count of a class present
        in A or B) or :data:`WATCH_NONE`.
    n_threads : int, default=1
        Threads over parts of the pairs (the output does not depend on it).

    Returns
    -------
    d : ndarray of shape (m,), int64
    watched : ndarray of shape (m,), int64
        ``-1`` where no class count is compared.
    acceleration : ndarray of shape (m,)
    n_effective : ndarray of shape (m,)
    """
    m = len(I)
    K = differ.shape[0]
    out = (np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(m),
           np.empty(m))
    args = (np.ascontiguousarray(y_codes), np.ascontiguousarray(codes),
            np.ascontiguousarray(I, dtype=np.int64), np.ascontiguousarray(J, dtype=np.int64),
            K, np.ascontiguousarray(loo, dtype=np.float64),
            np.ascontiguousarray(differ, dtype=np.bool_).reshape(K**3),
            np.ascontiguousarray(class_differ, dtype=np.bool_).reshape(K**3, -1),
            np.ascontiguousarray(present, dtype=np.bool_).reshape(codes.shape[0], -1),
            int(watch))
    n_threads = max(1, int(n_threads))
    run_parts(lambda start, stop: _pairs_range(*args, start, stop, *out),
              part_bounds(m, n_threads), n_threads)
    return out
