"""A tiny document model and its three renderers (Markdown, HTML, LaTeX) for the report.

A document is a list of blocks, each a tuple whose first item names its kind:

* ``("heading", level, text)``
* ``("paragraph", text)``
* ``("table", Table)``
* ``("figure", svg, caption)`` (HTML only; Markdown and LaTeX leave it out)
* ``("list", [text, ...])``
* ``("code", text)`` (the reproducibility signature)
* ``("html", markup, css, script)`` (HTML only: markup that a renderer of
  this package escaped already, with the CSS and the script it needs; the
  interactive leaderboard of :mod:`sigtest._report.leaderboard_page`)

Every text is plain text: each renderer escapes it for its format, so a
system named ``<b>&_%`` prints literally everywhere. Markdown tables are
written here (no ``tabulate``); LaTeX tables use ``booktabs``; the HTML page
is one self-contained file (inline CSS, inline SVG, no external resource;
a script only when an ``"html"`` block brings one, and then a
Content-Security-Policy that lets that inline script run and nothing load).
"""

import base64
from dataclasses import dataclass, field
import hashlib
import html
import re

__all__ = ["Table", "render", "RENDERERS", "escape_markdown", "escape_latex", "html_fragment"]


@dataclass(frozen=True)
class Table:
    """A table of plain-text cells.

    ``align`` holds one of ``"l"``/``"r"``/``"c"`` per column (default: left
    for the first column, right for the others); ``notes`` are printed under
    the table.
    """

    columns: list
    rows: list
    caption: str = ""
    align: str = ""
    notes: list = field(default_factory=list)

    def alignment(self):
        if self.align:
            return self.align
        return "l" + "r" * (len(self.columns) - 1)


# ------------------------------------------------------------------ markdown
_MD_ALWAYS = set("\\`*|~#")

#: Text in which no character is escaped by :func:`escape_markdown` does not
#: match: a superset of its rules (``[^\W\d]`` holds every letter, ``\w``
#: every alphanumeric; any ``_``), so a text that does not match is returned as
#: is, and one that matches goes through the rules.
_MD_MAYBE = re.compile(r"[\\`*|~#_]|<(?:[^\W\d]|[/!?])|&[\w#]|\][(\[:]")


def escape_markdown(text):
    r"""Backslash-escape what could change ``text``'s rendering in CommonMark / GFM.

    Always ``\ ` * | ~ #``; ``<`` before a letter or ``/!?`` (a tag or an
    autolink, not ``<0.0001``); ``&`` before a letter or ``#`` (an
    entity); ``_`` unless it sits inside a word (where it cannot start
    emphasis: ``new_model`` stays readable); ``]`` before ``(``, ``[`` or
    ``:`` (a link). Rendered, the text reads literally
    (checked with ``markdown-it-py`` in the tests).

    Examples
    --------
    >>> from sigtest._report.doc import escape_markdown
    >>> print(escape_markdown("<b>&amp;_%|x"), escape_markdown("new_model <0.0001"))
    \<b>\&amp;\_%\|x new_model <0.0001
    """
    text = str(text)
    if _MD_MAYBE.search(text) is None:  # most cells (numbers, intervals): nothing to escape
        return text
    out = []
    for i, c in enumerate(text):
        before = text[i - 1] if i else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        if (c in _MD_ALWAYS
                or (c == "<" and (after.isalpha() or after in "/!?") and after)
                or (c == "&" and (after.isalnum() or after == "#") and after)
                or (c == "_" and not (before.isalnum() and after.isalnum()))
                or (c == "]" and after in "([:" and after)):
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def _md_table(table):
    cells = [[escape_markdown(c) for c in table.columns]]
    cells += [[escape_markdown(c) for c in row] for row in table.rows]
    widths = [max(3, *(len(row[j]) for row in cells)) for j in range(len(table.columns))]
    align = table.alignment()

    def line(row):
        out = []
        for j, cell in enumerate(row):
            out.append(cell.rjust(widths[j]) if align[j] == "r" else cell.ljust(widths[j]))
        return "| " + " | ".join(out) + " |"

    rule = []
    for j, w in enumerate(widths):
        rule.append({"r": "-" * (w - 1) + ":", "c": ":" + "-" * (w - 2) + ":"}.get(
            align[j], "-" * w))
    lines = []
    if table.caption:
        lines += [f"*{escape_markdown(table.caption)}*", ""]
    lines += [line(cells[0]), "| " + " | ".join(rule) + " |"]
    lines += [line(row) for row in cells[1:]]
    if table.notes:
        lines += [""] + [escape_markdown(n) for n in table.notes]
    return "\n".join(lines)


def render_markdown(blocks, title):
    parts = [f"# {escape_markdown(title)}"]
    for block in blocks:
        kind = block[0]
        if kind == "heading":
            parts.append("#" * (block[1] + 1) + " " + escape_markdown(block[2]))
        elif kind == "paragraph":
            parts.append(escape_markdown(block[1]))
        elif kind == "table":
            parts.append(_md_table(block[1]))
        elif kind == "list":
            parts.append("\n".join(f"- {escape_markdown(item)}" for item in block[1]))
        elif kind == "code":
            fence = "```"
            while fence in block[1]:
                fence += "`"
            parts.append(f"{fence}\n{block[1]}\n{fence}")
    return "\n\n".join(parts) + "\n"


# --------------------------------------------------------------------- latex
_LATEX = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "−": "-",
}


def escape_latex(text):
    r"""Escape ``text`` for LaTeX (T1 font encoding): it prints literally.

    Examples
    --------
    >>> from sigtest._report.doc import escape_latex
    >>> escape_latex("<b>&_%")
    '\\textless{}b\\textgreater{}\\&\\_\\%'
    """
    return "".join(_LATEX.get(c, c) for c in str(text))


def _latex_table(table):
    align = table.alignment()
    # [H] (package float): the table stays where it is, under its heading,
    # instead of floating to the top of a later page
    lines = [r"\begin{table}[H]", r"\centering", r"\small"]
    if table.caption:
        lines.append(r"\caption{" + escape_latex(table.caption) + "}")
    lines += [r"\begin{tabular}{" + align + "}", r"\toprule",
              " & ".join(escape_latex(c) for c in table.columns) + r" \\", r"\midrule"]
    lines += [" & ".join(escape_latex(c) for c in row) + r" \\" for row in table.rows]
    lines.append(r"\bottomrule")
    lines.append(r"\end{tabular}")
    for note in table.notes:
        lines.append(r"\par\smallskip{\footnotesize " + escape_latex(note) + "}")
    lines.append(r"\end{table}")
    return "\n".join(lines)


def render_latex(blocks, title):
    """A standalone document (article, booktabs, float) whose tables can be pasted into a paper.

    Each table is placed ``[H]`` (package ``float``): exactly where it is, so
    it stays under its section heading in the compiled PDF.
    """
    parts = [
        r"\documentclass{article}",
        r"\usepackage[T1]{fontenc}",
        r"\usepackage[utf8]{inputenc}",
        r"\usepackage{booktabs}",
        r"\usepackage{float}",
        r"\usepackage[margin=2cm]{geometry}",
        r"\begin{document}",
        r"\section*{" + escape_latex(title) + "}",
    ]
    for block in blocks:
        kind = block[0]
        if kind == "heading":
            cmd = "subsection*" if block[1] <= 1 else "subsubsection*"
            parts.append(f"\\{cmd}{{{escape_latex(block[2])}}}")
        elif kind == "paragraph":
            parts.append(escape_latex(block[1]))
        elif kind == "table":
            parts.append(_latex_table(block[1]))
        elif kind == "list":
            parts.append("\\begin{itemize}\n"
                         + "\n".join(r"\item " + escape_latex(i) for i in block[1])
                         + "\n\\end{itemize}")
        elif kind == "code":
            # break lines only between the fields of the signature
            code = "\\textbar{}\\allowbreak ".join(escape_latex(f) for f in block[1].split("|"))
            parts.append(r"{\footnotesize\ttfamily\raggedright " + code + r"\par}")
    parts.append(r"\end{document}")
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------------- html
_CSS = """
.sigtest-report { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  color: #1a1a1a; max-width: 64rem; margin: 1.5rem auto; padding: 0 1rem; line-height: 1.45; }
.sigtest-report h1 { font-size: 1.6rem; border-bottom: 2px solid #2b5c8a; padding-bottom: .3rem; }
.sigtest-report h2 { font-size: 1.25rem; margin-top: 1.8rem; color: #2b5c8a; }
.sigtest-report h3 { font-size: 1.05rem; margin-top: 1.3rem; }
.sigtest-report table { border-collapse: collapse; margin: .8rem 0; font-size: .92rem; }
.sigtest-report caption { caption-side: top; text-align: left; font-style: italic;
  padding-bottom: .3rem; }
.sigtest-report th { border-top: 2px solid #333; border-bottom: 1px solid #333;
  padding: .25rem .7rem; background: #eef3f8; }
.sigtest-report td { padding: .2rem .7rem; border-bottom: 1px solid #ddd; }
.sigtest-report tr:last-child td { border-bottom: 2px solid #333; }
.sigtest-report td.r, .sigtest-report th.r { text-align: right;
  font-variant-numeric: tabular-nums; }
.sigtest-report td.l, .sigtest-report th.l { text-align: left; }
.sigtest-report td.c, .sigtest-report th.c { text-align: center; }
.sigtest-report .note { font-size: .85rem; color: #555; margin-top: -.4rem; }
.sigtest-report figure { margin: .8rem 0; }
.sigtest-report figcaption { font-size: .85rem; color: #555; }
.sigtest-report pre.signature { background: #f4f4f4; border: 1px solid #ddd; padding: .6rem;
  white-space: pre-wrap; word-break: break-all; font-size: .85rem; }
""".strip()


def _esc(text):
    return html.escape(str(text), quote=True)


def _html_table(table):
    align = table.alignment()
    out = ["<table>"]
    if table.caption:
        out.append(f"<caption>{_esc(table.caption)}</caption>")
    out.append("<thead><tr>" + "".join(
        f'<th class="{align[j]}">{_esc(c)}</th>' for j, c in enumerate(table.columns))
        + "</tr></thead>")
    out.append("<tbody>")
    for row in table.rows:
        out.append("<tr>" + "".join(f'<td class="{align[j]}">{_esc(c)}</td>'
                                    for j, c in enumerate(row)) + "</tr>")
    out.append("</tbody></table>")
    out += [f'<p class="note">{_esc(n)}</p>' for n in table.notes]
    return "\n".join(out)


def _assets(blocks):
    """(CSS, script) of the report: the base CSS and each ``"html"`` block's, once each."""
    css, scripts = [_CSS], []
    for block in blocks:
        if block[0] == "html":
            if block[2] and block[2] not in css:
                css.append(block[2])
            if block[3] and block[3] not in scripts:
                scripts.append(block[3])
    return "\n".join(css), "\n".join(scripts)


def html_fragment(blocks, title, *, script=True):
    """The report as one ``<div class="sigtest-report">`` with its own ``<style>``.

    The scripts of the ``"html"`` blocks, when there are some (and
    ``script``), end the ``<div>``.
    """
    css, code = _assets(blocks)
    parts = ['<div class="sigtest-report">', f"<style>\n{css}\n</style>",
             f"<h1>{_esc(title)}</h1>"]
    for block in blocks:
        kind = block[0]
        if kind == "heading":
            level = min(block[1] + 1, 6)
            parts.append(f"<h{level}>{_esc(block[2])}</h{level}>")
        elif kind == "paragraph":
            parts.append(f"<p>{_esc(block[1])}</p>")
        elif kind == "table":
            parts.append(_html_table(block[1]))
        elif kind == "figure":
            parts.append(f"<figure>\n{block[1]}\n<figcaption>{_esc(block[2])}</figcaption>"
                         "\n</figure>")
        elif kind == "list":
            parts.append("<ul>\n" + "\n".join(f"<li>{_esc(i)}</li>" for i in block[1])
                         + "\n</ul>")
        elif kind == "code":
            parts.append(f'<pre class="signature">{_esc(block[1])}</pre>')
        elif kind == "html":
            parts.append(block[1])
    if code and script:
        parts.append(f"<script>\n{code}\n</script>")
    parts.append("</div>")
    return "\n".join(parts)


def _csp_hash(text):
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def render_html(blocks, title):
    """One self-contained HTML5 page: inline CSS and SVG, no external resource.

    A page with a script (an ``"html"`` block's) carries a
    Content-Security-Policy that allows exactly its inline ``<style>`` and
    ``<script>`` (by their sha256) and no load from anywhere, so the page
    cannot reach the network even if a browser would let it.
    """
    css, code = _assets(blocks)
    head = ""
    if code:
        policy = (f"default-src 'none'; style-src {_csp_hash(chr(10) + css + chr(10))}; "
                  f"script-src {_csp_hash(chr(10) + code + chr(10))}; img-src data:")
        head = f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            + head + f"<title>{_esc(title)}</title>\n</head>\n<body>\n"
            + html_fragment(blocks, title) + "\n</body>\n</html>\n")


RENDERERS = {"markdown": render_markdown, "html": render_html, "latex": render_latex}


def render(blocks, title, fmt):
    """The document ``blocks`` in format ``fmt`` (a key of :data:`RENDERERS`)."""
    return RENDERERS[fmt](blocks, title)
