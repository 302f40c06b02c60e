"""escape_markdown's fast path (text returned as is when no rule can apply) against the rules.

The reference below is the character loop of ``escape_markdown`` written
out again, applied to every text: the function must give the same string
whether or not its pre-check lets the text through unchanged.
"""

import numpy as np
import pytest

from sigtest._report.doc import escape_markdown


def _escape_reference(text):
    text = str(text)
    out = []
    for i, c in enumerate(text):
        before = text[i - 1] if i else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        if (c in set("\\`*|~#")
                or (c == "<" and (after.isalpha() or after in "/!?") and after)
                or (c == "&" and (after.isalnum() or after == "#") and after)
                or (c == "_" and not (before.isalnum() and after.isalnum()))
                or (c == "]" and after in "([:" and after)):
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


# specials, their neighbours that matter, digits, letters (ASCII and not),
# non-decimal numerics (superscript two, one half), space and punctuation
_ALPHABET = list("\\`*|~#_<>&[]():/!?.,;- 0123456789abcXYZéßΩ中²½\t")


@pytest.mark.parametrize("seed", range(4))
def test_same_as_the_rules_on_random_texts(seed):
    rng = np.random.default_rng(seed)
    for _ in range(5000):
        text = "".join(rng.choice(_ALPHABET, size=int(rng.integers(0, 7))))
        assert escape_markdown(text) == _escape_reference(text), repr(text)


@pytest.mark.parametrize("text", [
    "0.6829", "[0.6799, 0.6858]", "<0.001", ">0.999", "-0.0012", "sys00", "a&1", "a&#",
    "<b>", "</", "<é", "<²", "&é", "x]", "x](", "x][", "x]:", "new_model", "_x", "x_",
    "1_2", "a*b", "", "nan", "n/a", "yes"])
def test_same_as_the_rules_on_report_cells(text):
    assert escape_markdown(text) == _escape_reference(text)
