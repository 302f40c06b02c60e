"""A persisted experiment: feed predictions as they are produced, test them later.

BooStSa's ``feed`` / ``loadjson`` / ``run`` workflow (Fornaciari et al. 2022,
sec. 4.4) done right: every run is stored with the ids of the items it
predicts, and :meth:`Experiment.run` aligns every run to the gold labels *by
those ids*, whatever order the items were predicted in (BooStSa stores the
indexes but pools the runs in feed order and never uses them).

The files (layout below), the manifest, its lock, the atomic writes and the
validation of a feed live in :mod:`sigtest._store` (which also describes the
format on disk); :class:`Experiment` is a thin public object over that store
that runs :func:`sigtest.compare`.

Store layout (a directory)::

    manifest.json        gold ids and labels (and cluster / stratum ids),
                         systems, runs (ids, file, shape)
    manifest.json.bak    the previous manifest (for recover())
    runs/s000_r0.npy     predictions of system 0, run 0 (no pickle)
    results.tsv          tidy table of the last run() (tab separated)
    outcomes.json        parameters, versions, seed, records, summary, letters,
                         sha256 of results.tsv

Every file is written to a temporary file and moved into place with
``os.replace``, and ``feed``, ``remove`` and ``run`` work under a lock that
the operating system releases when its holder dies (``fcntl.flock``; see
:mod:`sigtest._store`), so a crash or a kill never leaves a half-written
file or a stale lock, and several processes of one pipeline may feed the
same store. ``results.tsv`` and ``outcomes.json`` are published as one unit
(a kill during ``run`` leaves the previous pair or the new one). A feed is
checked against the stored gold and runs (kind, dtype, number of columns,
ids) before anything is written, so a store never holds a run it cannot
test. Every path taken from the manifest must lie inside the store, and a
damaged manifest, prediction file or results table is a ``ValueError``
naming the file; the previous manifest is kept as ``manifest.json.bak``
and :meth:`Experiment.recover` puts it back.
"""

from sigtest._store.experiment import (  # noqa: F401
    Experiment,
)

__all__ = [
    "Experiment",
]
