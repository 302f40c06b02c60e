"""Planning a comparison: power, minimum detectable effect and sample size by simulation.

Part of the ``workflows`` layer (see ``sigtest/_workflows/__init__.py``): it
may import ``metrics``, ``utils``, ``_engine``, ``tests_`` and the input
checks of ``compare``. This ``__init__`` imports nothing: ``_LAZY`` in
``sigtest/__init__.py`` names the defining modules.

* ``api.py``: :func:`sigtest.power`, :func:`sigtest.minimum_detectable_effect`,
  :func:`sigtest.sample_size` and their argument handling (the searches);
* ``result.py``: :class:`sigtest.PowerResult` and the Monte Carlo interval of
  a minimum detectable effect;
* ``simulator.py``: the perturbation model, pilot -> universe rows ->
  simulated counts -> compressed :class:`~sigtest.PairedData`;
* ``simulate.py``: the simulations in chunks and workers, per-simulation seeds;
* ``table.py``: the table of :meth:`ComparisonResult.minimum_detectable_effects`.
"""

__all__ = []
