r"""The pairwise statistics of the rank intervals in NumPy, for small problems.

The formulation the kernels of :mod:`sigtest._engine.ranking_pairs` give the
bits of: each system's ``B x (k - j - 1)`` block of differences formed by
NumPy. It costs about ``10 k^2 B / 2`` float operations and no compiled
code, so it is the faster of the two below a few times ``10^7`` pair-resamples,
where loading the kernels (about a second of CPU in a new process) would cost
more than it saves.
"""

from __future__ import annotations

import numpy as np

__all__ = ["numpy_pairwise_t"]


def numpy_pairwise_t(theta, T):
    """:func:`sigtest._engine.ranking.pairwise_t` (``B >= 2``) by NumPy, system after system."""
    B, k = T.shape
    diff = theta[:, None] - theta[None, :]
    sd = np.zeros((k, k))
    max_t = np.zeros(B)
    for j in range(k - 1):  # one system at a time: O(B k) memory
        D = T[:, j, None] - T[:, j + 1:]
        s = D.std(axis=0, ddof=1)
        sd[j, j + 1:] = sd[j + 1:, j] = s
        live = s > 0
        if np.any(live):
            z = np.abs(D[:, live] - diff[j, j + 1:][live]) / s[live]
            np.maximum(max_t, z.max(axis=1), out=max_t)
    return diff, sd, max_t
