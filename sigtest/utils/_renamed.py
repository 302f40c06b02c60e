"""Renamed keywords: the old name raises a ``TypeError`` naming the new one.

sigtest renames a keyword without a silent alias: a call with the old name
fails at once and says what to write instead. :func:`renamed_keywords` is
the one mechanism every renamed callable uses; :func:`inspect.signature`
of the decorated callable shows the new signature (``functools.wraps``).
"""

from __future__ import annotations

import functools

__all__ = ["renamed_keywords"]


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
