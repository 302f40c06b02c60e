"""Parameter descriptions several tests share word for word.

A test's docstring holds a line ``{name}`` where the shared entry goes and
its class is decorated with ``fill_doc(name=TEXT)``
(:func:`sigtest.metrics._common.fill_doc`), so the rendered docstring, the
documentation and ``help()`` read as if the entry were written there. Only
entries that are identical in every test using them live here; a test whose
parameter means something of its own keeps its own text.
"""

__all__ = ["ALTERNATIVE_WITHOUT_INTERVAL"]

#: ``alternative`` of a test that gives a p-value but no interval of the difference.
ALTERNATIVE_WITHOUT_INTERVAL = """\
alternative : {"two-sided", "greater", "less"}, default="two-sided"
    ``"greater"``: B better than A (oriented). ``"non-inferiority"`` and
    ``"equivalence"`` need an interval of the difference, which this
    test does not give (``ValueError`` naming
    :class:`~sigtest.BCaInterval`; see ``docs/equivalence.md``).
"""
