"""What every plotting module of sigtest needs (``plotting``, ``_plot_cd``)."""

from __future__ import annotations

__all__ = ["import_pyplot"]


def import_pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "sigtest's plots need matplotlib; install it with `pip install matplotlib` "
            "(or sigtest's `plot` extra from the clone: `pip install '/path/to/sigtest[plot]'`)."
        ) from exc
    return plt
