"""Two systems on binary labels with a chosen number of discordant items (workflow tests)."""

import numpy as np


def discordant_pair(n=100, d_a=7, d_b=3, names=("sysA", "sysB"), seed=0):
    """``y`` and ``{name: predictions}``: A wrong on items ``0..d_a-1``, B on the next ``d_b``."""
    y = np.random.default_rng(seed).integers(0, 2, n)
    a, b = y.copy(), y.copy()
    a[:d_a] ^= 1
    b[d_a:d_a + d_b] ^= 1
    return y, dict(zip(names, (a, b)))
