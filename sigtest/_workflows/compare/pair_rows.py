"""The rows of a comparison's pair jobs: one row per job, or many as columns.

The per-pair path (:func:`~sigtest._workflows.compare.run.run_pairs`) gives
one row per job, ``(key, values, resampling, notes)`` with ``key = (run,
metric index, pair index, spec index)`` and ``values`` the frame fields of
the pair in its canonical orientation. The bulk paths
(:mod:`~sigtest._workflows.compare.bulk`) compute hundreds of thousands of
rows at once: they give them as a :class:`RowBlock`, the same fields as
columns, so that no per-row dictionary is built between the kernels and the
frame (:func:`~sigtest._workflows.compare.assemble.assemble` builds the
frame from the columns). :class:`PairRows` holds both.
"""

from typing import NamedTuple

import numpy as np

__all__ = ["PairRows", "RowBlock"]


class RowBlock(NamedTuple):
    """Rows of many jobs as columns, with no warning (the bulk paths give none).

    Attributes
    ----------
    keys : ndarray of int64, shape (n_rows, 4)
        ``(run, metric index, pair index, spec index)`` of each row (an
        array: a tuple per row held 53 MB at 499,500 pairs).
    columns : dict
        Frame field -> ndarray of shape ``(len(keys),)``, each pair in its
        canonical orientation (as the per-pair rows' ``values``).
    resampling : str
        What the rows' p-values resampled (``"bootstrap"``).
    """

    keys: np.ndarray
    columns: dict
    resampling: str


class PairRows:
    """Every row of a comparison's pair jobs: per-job rows, then column blocks.

    Parameters
    ----------
    rows : iterable, default=()
        ``(key, values, resampling, notes)`` per job, in task order.
    blocks : iterable of RowBlock, default=()
    """

    def __init__(self, rows=(), blocks=()):
        self.rows = list(rows)
        self.blocks = list(blocks)

    @classmethod
    def from_task_rows(cls, task_rows):
        """The rows of :func:`~sigtest._workflows.compare.run.run_pairs` (a list per task)."""
        return cls([row for rows in task_rows for row in rows])

    def __len__(self):
        return len(self.rows) + sum(len(block.keys) for block in self.blocks)

    def key_table(self):
        """Every row's key ``(run, metric index, pair index, spec index)``, the per-job
        rows' then each block's, as an ``(n, 4)`` int64 array (one block's own ``keys``
        when it holds every row: no copy of 499,500 keys; not to be written)."""
        if not self.rows and len(self.blocks) == 1:
            return self.blocks[0].keys
        parts = [np.array([key for key, *_ in self.rows], dtype=np.int64).reshape(-1, 4)]
        parts.extend(block.keys for block in self.blocks)
        return np.concatenate(parts)

    def column(self, name):
        """The field ``name`` of every row in :meth:`key_table` order (float; NaN where absent;
        one block's own float column when it holds every row: not to be written)."""
        if not self.rows and len(self.blocks) == 1 and name in self.blocks[0].columns:
            return np.asarray(self.blocks[0].columns[name], dtype=float)
        parts = [np.array([values.get(name, np.nan) for _, values, *_ in self.rows], dtype=float)]
        parts.extend(np.asarray(block.columns[name], dtype=float) if name in block.columns
                     else np.full(len(block.keys), np.nan) for block in self.blocks)
        return np.concatenate(parts)

    def monte_carlo_specs(self):
        """The spec indices of rows whose p-value was drawn (not exact, not analytic)."""
        found = {key[3] for key, _, resampling, _ in self.rows
                 if resampling is not None and "exact" not in resampling}
        for block in self.blocks:
            if "exact" not in block.resampling:
                found.update(np.unique(block.keys[:, 3]).tolist())
        return found
