"""The one entry of the tests: :func:`resampled_deltas` (fast path or slow path) and :func:`drop_nonfinite`."""

from __future__ import annotations

import numpy as np

from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.utils import warn_external
from sigtest._engine.resampling.bootstrap import bootstrap_sums
from sigtest._engine.resampling.permutation import _permutation_sums, _reads_only
from sigtest._engine.resampling.rows import _check_paired
from sigtest._engine.resampling.slow import bootstrap_deltas, permutation_deltas
from sigtest._engine.shared import SharedDeltas

__all__ = ["drop_nonfinite", "resampled_deltas", "supplied_deltas"]

_SCHEMES = ("bootstrap", "permutation")


def resampled_deltas(
    paired, n_resamples, seed=0, *, scheme="bootstrap", sample_size=None, parallel=True,
    supplied=None, discordant=None,
):
    """Raw resampled deltas of a scheme, on the fast path when possible.

    Metrics with statistics resample their sums; rank metrics (a
    ``ranking``: ROC AUC, average precision) take the kernels of
    :mod:`sigtest._engine.rank_metrics` (sorted once, ``O(N)`` per
    resample); other metrics the slow path (``score_func`` per resample).
    A permutation of a rank metric swaps the systems' within-system
    normalised ranks, not their raw scores
    (:func:`~sigtest._engine.rank_inputs.within_system_ranks`): its
    distribution is then invariant to any strictly increasing transform of
    either system's scores, as the metric is.

    Parameters
    ----------
    paired : PairedData
    n_resamples : int
    seed : int
    scheme : {"bootstrap", "permutation"}, default="bootstrap"
    sample_size : int, float or None
        Bootstrap only (see :func:`bootstrap_sums`).
    parallel : bool, default=True
    supplied : SharedDeltas or None, default=None
        Bootstrap differences drawn elsewhere (:func:`sigtest.compare`'s
        shared resamples): returned (a copy) instead of drawing, for
        ``scheme="bootstrap"``, ``sample_size=None`` and ``n_resamples``
        equal to their length; any other combination raises ``ValueError``.
    discordant : DiscordantRows or None, default=None
        Permutation only: the discordant rows of ``paired``
        (:func:`~sigtest._engine.resampling.permutation.discordant_rows`),
        when the caller already has them.

    Returns
    -------
    deltas : ndarray of shape (n_resamples,)
    """
    _check_paired(paired, need_statistics=False)
    if scheme not in _SCHEMES:
        raise ValueError(f"The 'scheme' parameter must be one of {_SCHEMES}. Got {scheme!r}.")
    if scheme == "permutation" and sample_size is not None:
        raise ValueError("The 'sample_size' parameter only applies to scheme='bootstrap'.")
    if discordant is not None and not (scheme == "permutation" and paired.has_statistics):
        raise ValueError("The 'discordant' parameter only applies to scheme='permutation' on "
                         "sufficient statistics.")
    if supplied is not None:
        return supplied_deltas(supplied, n_resamples, scheme, sample_size)
    if paired.has_statistics:
        if scheme == "bootstrap":
            sums = bootstrap_sums(paired, n_resamples, sample_size, seed, parallel=parallel)
        else:
            # memoised read-only sums (P, R and F1 of a pair share them) for
            # the built-in aggregates, which never write into their input
            sums = _permutation_sums(paired, n_resamples, seed, parallel,
                                     shared=_reads_only(paired.metric), discordant=discordant)
        return paired.deltas(*sums)
    if getattr(paired.metric, "ranking", None) is not None:
        return _rank_deltas(paired, n_resamples, seed, scheme, sample_size, parallel)
    if scheme == "bootstrap":
        return bootstrap_deltas(paired, n_resamples, sample_size, seed, parallel=parallel)
    return permutation_deltas(paired, n_resamples, seed, parallel=parallel)


def _rank_deltas(paired, n_resamples, seed, scheme, sample_size, parallel):
    """:func:`resampled_deltas` of a metric with a ``ranking`` (ROC AUC, average precision).

    The rank modules (and their kernels) are imported here, on the first
    rank metric: a comparison of metrics with statistics never imports them.
    """
    # imported on a first rank metric (import time of a first call without one)
    from sigtest._engine.rank_inputs import (
        permutes_ranks,
        ranked_pair_of_ranks,
        within_system_ranks,
    )
    from sigtest._engine.rank_metrics import (
        rank_bootstrap_scores,
        rank_permutation_scores,
        uses_ranking,
    )

    if scheme == "permutation" and permutes_ranks(paired):
        # a rank metric: swap within-system ranks, not scores of two scales
        if uses_ranking(paired) or np.ndim(paired.data[1]) == 2:
            # on the sorted scores; 2-D scores always (the mixed ranks of probabilities
            # are no probabilities, which the metric's input check requires), with
            # the kernel's Python twin when numba is disabled
            scores = rank_permutation_scores(paired, n_resamples, seed, parallel=parallel,
                                             ranked=ranked_pair_of_ranks(paired))
            return scores[:, 1] - scores[:, 0]
        return permutation_deltas(within_system_ranks(paired), n_resamples, seed,
                                  parallel=parallel)
    if uses_ranking(paired):  # ROC AUC, average precision: sorted once, O(N) per resample
        scores = rank_bootstrap_scores(paired, n_resamples, sample_size, seed,
                                       parallel=parallel)
        return scores[:, 1] - scores[:, 0]
    if scheme == "bootstrap":
        return bootstrap_deltas(paired, n_resamples, sample_size, seed, parallel=parallel)
    return permutation_deltas(paired, n_resamples, seed, parallel=parallel)


def supplied_deltas(supplied, n_resamples, scheme, sample_size=None):
    """The deltas of ``supplied`` (a writable copy), if they answer this call.

    Parameters
    ----------
    supplied : SharedDeltas
    n_resamples : int
        Their length must be this.
    scheme : str
        Their scheme must be this (``"bootstrap"``, ``"permutation"`` or
        ``"bayesian"``).
    sample_size : None
        Anything else (a subsample bootstrap) is refused.

    Returns
    -------
    deltas : ndarray of shape (n_resamples,)

    Raises
    ------
    TypeError
        ``supplied`` not a :class:`~sigtest._engine.shared.SharedDeltas`.
    ValueError
        Another scheme, a ``sample_size`` or another length.
    """
    if not isinstance(supplied, SharedDeltas):
        raise TypeError(f"The 'supplied' parameter must be a SharedDeltas or None. Got "
                        f"{type(supplied).__name__} instead.")
    if scheme != supplied.scheme or sample_size is not None:
        raise ValueError(
            f"Supplied {supplied.scheme} differences answer only scheme={supplied.scheme!r} "
            f"with sample_size=None. Got scheme={scheme!r}, sample_size={sample_size!r}."
        )
    if supplied.deltas.shape[0] != int(n_resamples):
        raise ValueError(
            f"The supplied bootstrap differences have {supplied.deltas.shape[0]} resamples, "
            f"but n_resamples={n_resamples!r}."
        )
    return supplied.deltas.copy()


def drop_nonfinite(deltas):
    """Drop resamples on which the metric is undefined, with a warning.

    Defined behaviour for NaN metric values in a resample (e.g.
    ``zero_division=np.nan`` and a class absent from the resample): those
    resamples are dropped and counted out of ``n_resamples``; a
    :class:`~sigtest.exceptions.DegenerateDistributionWarning` says how many.
    """
    finite = np.isfinite(deltas)
    n_bad = deltas.size - int(finite.sum())
    if n_bad:
        warn_external(
            f"{n_bad} of {deltas.size} resampled differences are not finite (the metric is "
            "undefined on those resamples, e.g. zero_division=nan); they are dropped and "
            "the p-value / interval use the remaining ones.",
            DegenerateDistributionWarning,
        )
        deltas = deltas[finite]
    return deltas
