"""Workflows: what a user runs on whole experiments (layer ``workflows``).

They sit above the significance tests and below the store and the command
line; they may import ``metrics``, ``utils``, ``_engine``, ``_results``,
``tests_``, ``cv`` and ``_report``, never ``_store``, ``_cli`` or the top
modules. This ``__init__`` imports nothing, so importing one workflow pulls
in no other.

* ``compare/``: :func:`sigtest.compare` and :class:`sigtest.ComparisonResult`
  (options -> plan -> shared resamples -> run -> assemble -> result; the
  ranks of :meth:`ComparisonResult.ranks` in ``compare/ranks.py``);
* ``runs.py``: several runs (seeds) per system: averaging, splitting, tiling;
* ``cross_val.py``: :func:`sigtest.cross_val_compare` (estimators on identical
  folds);
* ``datasets.py``: :func:`sigtest.compare_datasets` and
  :class:`sigtest.DatasetComparisonResult` (Friedman, post-hoc tests);
* ``scores_table.py``: :func:`sigtest.read_scores` and :class:`sigtest.ScoreTable`
  (long tables of per-item scores, aligned by item, handed to ``compare``);
* ``score_files.py``: the files of ``read_scores`` (one reader per format,
  one type policy: ids are labels compared by their text);
* ``score_paths.py``: globs, folders and lists of files, the fields of a path
  pattern (``"{system}/samples_{task}_{date}.jsonl"``), the harness from the
  file names;
* ``harness_logs.py``: what evaluation harnesses write (lm-evaluation-harness
  ``--log_samples`` files, inspect_ai logs) as per-item scores;
* ``score_align.py``: the alignment of ``read_scores`` (one unit per item and
  sample across systems; variants of an item refused);
* ``power/``: :func:`sigtest.power`, :func:`sigtest.minimum_detectable_effect`,
  :func:`sigtest.sample_size` and :class:`sigtest.PowerResult`.
"""

__all__ = []
