"""``compare``: many systems, all pairs or against a baseline.

The data's way through this folder: ``api.compare`` validates its arguments
and builds a plan (``plan.py``: metrics, tests, pairs, seeds, views of the
predictions); ``shared.py`` draws the resamples shared by all pairs of a
run; ``run.py`` runs each pair's tests (in parallel with joblib);
``assemble.py`` orients the rows, applies the correction and builds the
:class:`~sigtest.ComparisonResult` of ``result.py``.

Part of the ``workflows`` layer (see ``sigtest/_workflows/__init__.py``);
this ``__init__`` imports nothing.
"""

__all__ = []
