"""Renamed keywords: the old name raises a ``TypeError`` naming the new one.

sigtest renames a keyword without a silent alias: a call with the old name
fails at once and says what to write instead. :func:`renamed_keywords` is
the one mechanism every renamed callable uses; :func:`inspect.signature`
of the decorated callable shows the new signature (``functools.wraps``).
:func:`refused_keywords` is its twin for a keyword of a sibling function
that a callable deliberately does not take: the ``TypeError`` says why and
what to use instead.
"""

from __future__ import annotations

import functools

__all__ = ["refused_keywords", "renamed_keywords"]


def renamed_keywords(**renames):
    """Decorator: calling with an old keyword raises ``TypeError`` naming the new one.

    Parameters
    ----------
    **renames : str
        ``old_name="new_name"`` pairs. The new name must be a parameter of
        the decorated callable (checked when decorating).

    Returns
    -------
    decorator : callable
        Wraps a function or method (for a class, decorate ``__init__``).
        The wrapper keeps the name, docstring and signature of the wrapped
        callable and records the pairs in ``__renamed_keywords__``.

    Raises
    ------
    TypeError
        At call time, for a keyword of ``renames``:
        ``"f() got the old keyword 'pred_a'; it is now 'y_pred_a'."``.

    Examples
    --------
    >>> @renamed_keywords(pred_a="y_pred_a")
    ... def f(y_true, y_pred_a):
    ...     return y_pred_a
    >>> f([1], y_pred_a=2)
    2
    >>> f([1], pred_a=2)
    Traceback (most recent call last):
    ...
    TypeError: f() got the old keyword 'pred_a'; it is now 'y_pred_a'.
    """
    def decorate(func):
        import inspect

        params = inspect.signature(func).parameters
        for old, new in renames.items():
            if new not in params or old in params:
                raise ValueError(f"renamed_keywords on {func.__qualname__}: {new!r} must be a "
                                 f"parameter and {old!r} must not be.")
        owner = func.__qualname__.rsplit(".", 1)[0] if func.__name__ == "__init__" else None
        shown = owner or func.__qualname__

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old in renames.keys() & kwargs.keys():
                raise TypeError(f"{shown}() got the old keyword {old!r}; it is now "
                                f"{renames[old]!r}.")
            return func(*args, **kwargs)

        wrapper.__renamed_keywords__ = {**getattr(func, "__renamed_keywords__", {}), **renames}
        return wrapper

    return decorate


def refused_keywords(**reasons):
    """Decorator: calling with a refused keyword raises ``TypeError`` saying why.

    For a keyword that a sibling callable takes (e.g. an option of
    :func:`sigtest.compare`) but the decorated one deliberately does not:
    Python's own "unexpected keyword argument" would not say why, nor what
    to do instead.

    Parameters
    ----------
    **reasons : str
        ``keyword="why, and what to use instead"`` pairs. The keyword must
        not be a parameter of the decorated callable (checked when
        decorating).

    Returns
    -------
    decorator : callable
        Wraps a function or method; the wrapper keeps the name, docstring
        and signature of the wrapped callable.

    Raises
    ------
    TypeError
        At call time, for a keyword of ``reasons``:
        ``"f() takes no 'overall': <reason>"``.

    Examples
    --------
    >>> @refused_keywords(weights="test weighted items with g() instead.")
    ... def f(x):
    ...     return x
    >>> f(1)
    1
    >>> f(1, weights=[1.0])
    Traceback (most recent call last):
    ...
    TypeError: f() takes no 'weights': test weighted items with g() instead.
    """
    def decorate(func):
        import inspect

        params = inspect.signature(func).parameters
        taken = sorted(reasons.keys() & params.keys())
        if taken:
            raise ValueError(f"refused_keywords on {func.__qualname__}: {taken} are "
                             "parameters.")
        shown = func.__qualname__.rsplit("<locals>.", 1)[-1]  # Class.method, or name

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for name in sorted(reasons.keys() & kwargs.keys()):
                raise TypeError(f"{shown}() takes no {name!r}: {reasons[name]}")
            return func(*args, **kwargs)

        return wrapper

    return decorate
