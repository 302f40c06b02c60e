"""Rows of bootstrap differences for the tests of the bulk BCa code (sorted and selected)."""

import numpy as np


def bootstrap_rows(rng, m=60, B=499):
    """Sorted rows: continuous, on a grid with ties at 0, all of one sign (no guess)."""
    rows, deltas = [], []
    for r in range(m):
        kind = r % 4
        centre = rng.normal(0, 0.03)
        if kind == 0:
            row = rng.normal(centre, 0.02, B)
        elif kind == 1:  # differences of counts / n: ties, many exactly 0
            row = (rng.binomial(60, 0.5, B) - rng.binomial(60, 0.5 + centre, B)) / 300.0
        elif kind == 2:  # every difference above 0 (the guess is undefined)
            row = np.abs(rng.normal(0.05, 0.01, B)) + 1e-3
        else:  # skewed
            row = rng.exponential(0.02, B) - 0.02 + centre
        rows.append(np.sort(row))
        deltas.append(float(np.median(row) + rng.normal(0, 0.003)))
    return np.array(rows), np.array(deltas)
