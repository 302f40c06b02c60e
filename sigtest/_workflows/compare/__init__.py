"""``compare``: many systems, all pairs or against a baseline.

The data's way through this folder: ``api.compare`` validates its arguments
(``checks.py``: metrics, targets, predictions, pairs, tests, class sets,
views of the predictions) and builds a plan (``plan.py``: pairs, tests as
run, seeds, the job list); ``shared.py`` draws the resamples shared by all
pairs of a run; ``run.py`` runs each pair's tests (in parallel with
joblib; ``pool.py`` starts a cold pool of worker processes only when the
work pays for it); ``assemble.py`` orients the rows, applies the correction and builds
the :class:`~sigtest.ComparisonResult` of ``result.py``, whose tables and
text are computed in ``tables.py`` and whose ranks, P(best) and model
confidence set (:meth:`~sigtest.ComparisonResult.ranks`) in ``ranks.py``.
The folder imports ``power/`` (the minimum detectable effects of a
result), never the reverse.

Part of the ``workflows`` layer (see ``sigtest/_workflows/__init__.py``);
this ``__init__`` imports nothing.
"""

__all__ = []
