"""Reports and plots: render results they are given (layer ``report``).

The layer sits above the significance tests and below the workflows: it may
import ``metrics``, ``utils``, ``_engine``, ``_results``, ``tests_`` and
``cv``; the workflows call it (``ComparisonResult.report()``), never the
reverse. This ``__init__`` imports nothing (matplotlib is imported only when
a plot is drawn).

* ``sections.py``: the registry of report sections, their builders and the
  methods text;
* ``build.py``: the report of a comparison (runs the sections, renders
  Markdown, HTML or LaTeX);
* ``signature.py``: the reproducibility signature of a comparison;
* ``doc.py``: the document model and its renderers;
* ``latex.py``: the LaTeX table of a comparison's frame (``to_latex``);
* ``svg.py``: the interval chart of the HTML report;
* ``leaderboard_page.py``: the interactive leaderboard (sortable, filterable
  table, chart, folded pairs), the HTML report of many systems;
* ``format.py``: p-values, levels and correction names as printed;
* ``letters.py``: the compact letter display (Piepho 2004);
* ``plots.py``, ``plot_cd.py``: the figures of :mod:`sigtest.plotting`;
* ``pyplot.py``: the one place that imports matplotlib.
"""

__all__ = []
