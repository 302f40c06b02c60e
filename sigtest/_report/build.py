"""Build and render the report of a :class:`~sigtest.ComparisonResult`.

:func:`build_report` runs the registered sections of
:mod:`sigtest._report.sections` (the ones chosen with ``sections=``, or the
default ones) on one shared context, then renders the blocks as Markdown,
HTML or LaTeX (:mod:`sigtest._report.doc`); :func:`report_html_fragment` is
the HTML of Jupyter's ``_repr_html_``. The HTML report of a result with
more than 20 systems is the interactive leaderboard page
(:mod:`sigtest._report.leaderboard_page`); its notebook view stays the
plain leaderboard tables (lighter, and notebooks may not run the page's
script).
"""

from sigtest._report.doc import RENDERERS, html_fragment, render
from sigtest._report.leaderboard import (
    MANY_SYSTEMS,
    leaderboard_available,
    leaderboard_blocks,
    shows_leaderboard,
)
from sigtest._report.sections import _Context, _selected

__all__ = ["REPORT_FORMATS", "build_report", "page_sections", "report_html_fragment"]

REPORT_FORMATS = tuple(RENDERERS)


# -------------------------------------------------------------------- report
def _title(result):
    return f"Comparison of {len(result.systems)} systems"


def _blocks(result, sections):
    ctx = _Context(result)
    blocks = []
    chosen = _selected(result, sections)
    late = {"references", "signature"}
    for section in chosen:
        if section.name not in late:
            blocks += section.build(result, ctx)
    for section in chosen:
        if section.name in late:
            blocks += section.build(result, ctx)
    return blocks


def page_sections(result, fmt, sections):
    """The sections of the report: for ``report("html")`` of many systems, the page's.

    With ``sections=None``, ``fmt == "html"`` and more than ``MANY_SYSTEMS``
    (20) systems (and a ``leaderboard`` method), the interactive leaderboard
    replaces the leaderboard tables, the per-system scores, the pairs tables
    and the ranks: ``leaderboard_page`` (first), then the other default
    sections (methods, references, signature). Otherwise ``sections``
    unchanged.
    """
    if sections is not None or fmt != "html" or len(result.systems) <= MANY_SYSTEMS \
            or not leaderboard_available(result):
        return sections
    replaced = {"scores", "pairs", "ranks", "leaderboard"}
    return ["leaderboard_page"] + [s.name for s in _selected(result, None)
                                   if s.name not in replaced]


def build_report(result, fmt="markdown", path=None, sections=None):
    """The report of ``result`` as text (see :meth:`ComparisonResult.report`)."""
    if fmt not in RENDERERS:
        raise ValueError(f"The 'format' parameter must be one of {list(REPORT_FORMATS)}; got "
                         f"{fmt!r} instead.")
    text = render(_blocks(result, page_sections(result, fmt, sections)), _title(result), fmt)
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return text


def report_html_fragment(result):
    """The HTML report as one ``<div>`` (for Jupyter's ``_repr_html_``).

    For more than 20 systems, the leaderboard alone (one table a metric,
    with the number of significant pairs): ``report("html")`` has the rest.
    """
    if shows_leaderboard(result):
        return html_fragment(leaderboard_blocks(result), _title(result))
    return html_fragment(_blocks(result, None), _title(result))
