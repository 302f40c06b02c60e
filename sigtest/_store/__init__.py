"""The experiment store (layer ``store``): runs fed one by one, tested later.

Above the workflows (an experiment runs :func:`sigtest.compare`), below the
command line. This ``__init__`` imports nothing.

* ``store.py``: the files of a store (manifest, runs, locks, atomic writes,
  feed/remove checks, published results);
* ``experiment.py``: :class:`sigtest.experiment.Experiment`, the public
  object over a store.
"""

__all__ = []
