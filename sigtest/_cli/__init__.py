"""The command line's helpers (layer ``top``, with ``sigtest/cli.py``).

``sigtest/cli.py`` holds the console entry ``main()``; the rest lives here.
Within the folder, ``parser`` <- ``commands`` <- ``cli``; ``commands`` and
``io`` import the library below (``commands`` inside its functions, so that
``import sigtest.cli`` and ``sigtest --help`` load no numpy).

* ``parser.py``: the argparse tree of ``sigtest`` and its option groups
  (numpy-free);
* ``commands.py``: the commands compare, feed, run, report, remove, metrics
  and tests, and their helpers (reading the files, the outputs);
* ``io.py``: reading predictions, ids and gold labels from the files people
  have (``.txt``, ``.csv``, ``.tsv``, ``.npy``, ``.json``, ``.jsonl``).

This ``__init__`` imports nothing.
"""

__all__ = []
