"""The command line's helpers (layer ``top``, with ``sigtest/cli.py``).

* ``io.py``: reading predictions, ids and gold labels from the files people
  have (``.txt``, ``.csv``, ``.tsv``, ``.npy``, ``.json``, ``.jsonl``).

This ``__init__`` imports nothing.
"""

__all__ = []
