"""Math rendered to MathML when the site is built: no script, no CDN.

``sphinx.ext.mathjax`` leaves the TeX in the page and loads MathJax from a
CDN, so a site opened from disk without internet shows raw ``\\(s_{A,i}\\)``.
This renderer converts every ``:math:`` role, ``.. math::`` block and MyST
``$...$`` / ``$$...$$`` to MathML with the pure-Python ``latex2mathml``
while the pages are written; browsers draw MathML natively (MathML Core:
Chromium 109+, Firefox, Safari). A formula it cannot convert is a build
warning (an error under ``make docs``'s ``-W``), never raw TeX on a page.

Display math follows ``sphinx.ext.mathjax``'s reading of the source: parts
separated by a blank line are separate equations, and a part holding
``\\\\`` is a multi-line ``split`` block (as MathJax is given it) unless the block is ``nowrap``.
"""

import re
from pathlib import Path

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.util import logging

logger = logging.getLogger(__name__)

# ``\_`` (an underscore in \text{}) is left as typed by latex2mathml
_ESCAPES = re.compile(r"\\([_%&#$])")


def to_mathml(latex, *, display):
    """MathML of one formula (``display``: a block equation)."""
    latex = _ESCAPES.sub(r"\1", latex.strip())
    return convert(latex, display="block" if display else "inline")


def _render(self, node, latex, display):
    try:
        return to_mathml(latex, display=display)
    except Exception as exc:  # latex2mathml raises its own error types
        logger.warning("formula not converted to MathML (%s: %s): %s",
                       type(exc).__name__, exc, latex, location=node)
        return self.encode(latex)


def _equations(node):
    """The equations of a display block, as sphinx.ext.mathjax splits them."""
    latex = node.astext()
    if node.get("nowrap"):
        return [latex]
    parts = [part for part in latex.split("\n\n") if part.strip()]
    return [rf"\begin{{split}}{part}\end{{split}}" if r"\\" in part else part
            for part in parts]


def visit_math(self, node):
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate"))
    self.body.append(_render(self, node, node.astext(), False))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node):
    self.body.append(self.starttag(node, "div", CLASS="math notranslate"))
    if node.get("number"):
        self.body.append(f'<span class="eqno">({node["number"]})</span>')
    for latex in _equations(node):
        self.body.append(_render(self, node, latex, True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def _add_static(app):
    app.config.html_static_path.append(str(Path(__file__).parent / "static"))


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    app.connect("builder-inited", _add_static)
    app.add_css_file("sigtest_mathml.css")  # display formulas centred
    return {"parallel_read_safe": True, "parallel_write_safe": True}
