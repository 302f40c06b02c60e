"""scikit-learn's parameter protocol without importing scikit-learn.

Importing ``sklearn.base`` costs about 1.5-2 s (it loads SciPy's stats and
sparse modules and pandas), more than everything a first significance test
needs. :class:`ParamsMixin` gives a class what scikit-learn's tools use of an
estimator's parameters, with scikit-learn's semantics and messages:

* ``get_params(deep=True)`` / ``set_params(**params)`` over the keyword
  arguments of ``__init__`` (nested ``component__param`` names included), so
  that :func:`sklearn.base.clone` (which needs only these two methods) and
  grid searches over parameters work;
* ``repr``: scikit-learn's own pretty printer (only the parameters that
  differ from their defaults, the same wrapping), imported on the first
  ``repr``, not at import.

What it does not give: ``isinstance(obj, sklearn.base.BaseEstimator)``, the
HTML representation in notebooks, ``__sklearn_tags__`` and metadata routing;
sigtest relies on none of them.
"""

from __future__ import annotations

import copy
import inspect
from collections import defaultdict

__all__ = ["ParamsMixin", "clone"]


class ParamsMixin:
    """``get_params``/``set_params``/``repr`` as scikit-learn's ``BaseEstimator``.

    Subclasses follow scikit-learn's convention: ``__init__`` takes every
    parameter as an explicit keyword argument (no ``*args``) and stores it
    unchanged under the same attribute name.
    """

    @classmethod
    def _get_param_names(cls):
        """Sorted names of the ``__init__`` keyword arguments (scikit-learn's rule)."""
        init = cls.__init__
        if init is object.__init__:
            return []
        parameters = [
            p for p in inspect.signature(init).parameters.values()
            if p.name != "self" and p.kind != p.VAR_KEYWORD
        ]
        for p in parameters:
            if p.kind == p.VAR_POSITIONAL:
                raise RuntimeError(
                    "scikit-learn estimators should always specify their parameters in "
                    f"the signature of their __init__ (no varargs). {cls} with constructor "
                    f"{inspect.signature(init)} doesn't  follow this convention."
                )
        return sorted(p.name for p in parameters)

    def get_params(self, deep=True):
        """Get the parameters of this object.

        Parameters
        ----------
        deep : bool, default=True
            Also return the parameters of contained objects that have
            ``get_params``, as ``<name>__<parameter>``.

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        out = {}
        for key in self._get_param_names():
            value = getattr(self, key)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((key + "__" + k, v) for k, v in value.get_params().items())
            out[key] = value
        return out

    def set_params(self, **params):
        """Set the parameters of this object.

        Parameters
        ----------
        **params
            New parameter values; ``<component>__<parameter>`` sets a
            parameter of a contained object.

        Returns
        -------
        self : object
            This object.

        Raises
        ------
        ValueError
            For a name that is not a parameter (the message lists the valid
            ones).
        """
        if not params:
            return self
        valid_params = self.get_params(deep=True)
        nested_params = defaultdict(dict)
        for key, value in params.items():
            key, delim, sub_key = key.partition("__")
            if key not in valid_params:
                raise ValueError(
                    f"Invalid parameter {key!r} for estimator {self}. "
                    f"Valid parameters are: {self._get_param_names()!r}."
                )
            if delim:
                nested_params[key][sub_key] = value
            else:
                setattr(self, key, value)
                valid_params[key] = value
        for key, sub_params in nested_params.items():
            valid_params[key].set_params(**sub_params)
        return self

    def __repr__(self, N_CHAR_MAX=700):
        # scikit-learn's printer dispatches on BaseEstimator: print a stand-in
        # of that type with this class's name, __init__ and parameter values
        twin = _repr_twin(type(self))
        stand_in = twin.__new__(twin)
        stand_in.__dict__.update(self.get_params(deep=False))
        return twin.__repr__(stand_in, N_CHAR_MAX)


def _repr_twin(cls):
    twin = cls.__dict__.get("_sklearn_repr_twin")
    if twin is None:
        from sklearn.base import BaseEstimator

        twin = type(cls.__name__, (BaseEstimator,), {
            "__init__": cls.__init__,
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
            "_get_param_names": classmethod(lambda _: cls._get_param_names()),
        })
        cls._sklearn_repr_twin = twin
    return twin


def clone(test):
    """A fresh copy of ``test`` with the same parameters, as :func:`sklearn.base.clone`.

    sigtest's tests (:class:`ParamsMixin`) are
    copied without importing scikit-learn, by clone's rule: a new instance
    of the class built from ``get_params(deep=False)``, a parameter that has
    ``get_params`` cloned the same way, any other one deep-copied (a
    ``SeedSequence`` or ``Generator`` is copied, not shared), and the
    constructor must store every parameter unchanged. Any other object (a
    scikit-learn estimator, or a class with its own ``__sklearn_clone__``)
    goes to :func:`sklearn.base.clone`.
    """
    if not isinstance(test, ParamsMixin) or hasattr(test, "__sklearn_clone__"):
        from sklearn.base import clone as sklearn_clone

        return sklearn_clone(test)
    params = test.get_params(deep=False)
    fresh = {
        name: (clone(value) if hasattr(value, "get_params") and not isinstance(value, type)
               else copy.deepcopy(value))
        for name, value in params.items()
    }
    out = type(test)(**fresh)
    stored = out.get_params(deep=False)
    for name, value in fresh.items():
        if stored[name] is not value:
            raise RuntimeError(
                f"Cannot clone object {test!r}, as the constructor either does not set or "
                f"modifies parameter {name}"
            )
    return out
