"""The comparison's shared bootstrap scores, kept for :meth:`ComparisonResult.ranks`.

The tests of a comparison with shared resamples (:mod:`.shared`) run on
every system's resampled score ``T[b, s]`` of each metric, drawn once for
all pairs. Ranks need exactly that joint distribution, so the result keeps
these ``(k, B)`` arrays (read-only; one per metric, ``8 k B`` bytes: 4 MB
for 50 systems and ``B = 9,999``), and ``ranks()`` reads its draws from
them instead of resampling the items again (:func:`kept_scores`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sigtest._workflows.compare.shared import MULTIPLIER_TAG, shared_seed

__all__ = ["KeptScores", "kept_scores"]


@dataclass(frozen=True)
class KeptScores:
    """Every system's raw bootstrap scores on one metric, from the comparison's draws.

    Attributes
    ----------
    scores : ndarray of shape (k, B)
        Read-only; row ``s`` is system ``s`` (the result's order).
    source : {"resample", "multiplier"}
        Resampled units or Gaussian multiplier draws.
    """

    scores: np.ndarray
    source: str

    @property
    def n_resamples(self):
        """``B``: the number of draws kept."""
        return self.scores.shape[1]


def kept_scores(shared, plan, maxt_drawn=None):
    """``{metric name: KeptScores}`` from the shared differences of a comparison.

    Parameters
    ----------
    shared : SharedSupplies
        What :func:`~sigtest._workflows.compare.shared.shared_deltas` gave
        the pair tasks.
    plan : ComparePlan
    maxt_drawn : dict, optional
        The draws the max-T correction made for families whose test did not
        consume shared ones (``maxt_adjusted(drawn=)``: ``(run, metric
        index) -> (T (B, k), source)``).

    Returns
    -------
    kept : dict
        One entry per metric whose tests consumed shared bootstrap scores,
        or whose max-T correction drew them (the largest ``B`` when several
        did), for a comparison of one run; empty for several runs tested
        separately (ranks need one).
    """
    if plan.multi:
        return {}
    gauss = shared_seed(plan.scores["seed"], MULTIPLIER_TAG, 0)
    found = {}
    for _, mi, _, _, array, seed, scheme in shared.supplied():
        if scheme != "bootstrap":
            continue
        best = found.get(mi)
        if best is None or array.shape[1] > best[0].shape[1]:
            found[mi] = (array, seed)
    kept = {}
    for mi, (array, seed) in found.items():
        scores = array.view()  # no copy: the comparison drops its own reference
        scores.flags.writeable = False
        kept[plan.metric_objs[mi].name] = KeptScores(
            scores, "multiplier" if seed == gauss else "resample")
    for (r, mi), (T, source) in (maxt_drawn or {}).items():
        name = plan.metric_objs[mi].name
        if r == 0 and (name not in kept or kept[name].n_resamples < T.shape[0]):
            scores = T.T  # (k, B), a view
            scores.flags.writeable = False
            kept[name] = KeptScores(scores, source)
    return kept
