"""Values in messages: close-match hints for unknown names, plain Python values."""

from __future__ import annotations

import difflib
import re

import numpy as np

__all__ = ["did_you_mean", "plain", "without_numpy_reprs"]

#: A numpy scalar's repr (``np.int64(297)``, ``np.str_('id')``, ``np.float64(nan)``).
_NUMPY_REPR = re.compile(
    r"np\.(?:str_|bytes_|bool_?|u?int(?:8|16|32|64)?|float(?:16|32|64|128)?|longdouble"
    r"|complex(?:64|128|256)?|datetime64|timedelta64)\(((?:[^()]|\([^()]*\))*)\)")


def without_numpy_reprs(text):
    """``text`` with every numpy scalar repr replaced by its value's repr.

    For messages worded by other libraries (scikit-learn's parameter
    validation writes ``Got np.int64(-3) instead.``).

    Parameters
    ----------
    text : str
        A message.

    Returns
    -------
    text : str
        ``np.int64(-3)`` -> ``-3``, ``np.str_('id')`` -> ``'id'``.

    Examples
    --------
    >>> without_numpy_reprs("Got np.int64(-3) instead, not np.str_('id').")
    "Got -3 instead, not 'id'."
    """
    return _NUMPY_REPR.sub(r"\1", text)


def plain(value):
    """``value`` for a message: numpy scalars as Python values, arrays as lists.

    ``repr(np.int64(297))`` is ``np.int64(297)`` since numpy 2; a message
    shows ``297``. Lists and tuples are converted element by element.

    Parameters
    ----------
    value : object
        Any value.

    Returns
    -------
    value : object
        ``value.item()`` for a numpy scalar, ``value.tolist()`` for an
        array, the same container of plain values for a list or tuple, else
        ``value``.

    Examples
    --------
    >>> plain([np.int64(297), np.str_("id")])
    [297, 'id']
    """
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    return value


def did_you_mean(name, names, *, n=3, cutoff=0.6):
    """A sentence suggesting the names closest to ``name``, or ``""``.

    Uses :func:`difflib.get_close_matches` (Ratcliff/Obershelp similarity
    of at least ``cutoff``), case-insensitively, so that a typo
    (``"f1_macr"``, ``"Accuracy"``) gets its name back; the message that
    calls it still lists every valid name after the hint.

    Parameters
    ----------
    name : str
        The unknown name.
    names : iterable of str
        The valid names.
    n : int, default=3
        At most this many suggestions.
    cutoff : float, default=0.6
        The smallest similarity in [0, 1] of a suggestion.

    Returns
    -------
    hint : str
        ``" Did you mean 'f1_macro'?"`` (with a leading space), or ``""``
        when no name is close.

    Examples
    --------
    >>> did_you_mean("permutaton", ["bca", "permutation", "sign"])
    " Did you mean 'permutation'?"
    >>> did_you_mean("f1_macr", ["accuracy", "f1_macro", "f1_micro"])
    " Did you mean 'f1_macro' or 'f1_micro'?"
    >>> did_you_mean("zzz", ["accuracy"])
    ''
    """
    names = list(names)
    by_lower = {}
    for valid in names:
        by_lower.setdefault(valid.lower(), valid)
    close = difflib.get_close_matches(str(name).lower(), list(by_lower), n=n, cutoff=cutoff)
    if not close:
        return ""
    quoted = [repr(by_lower[c]) for c in close]
    shown = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f" Did you mean {shown}?"
