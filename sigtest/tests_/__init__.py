"""Paired significance tests comparing a baseline A with a candidate B.

Every test is a :class:`SignificanceTest` with one method,
``test(y_true, y_pred_a, y_pred_b, *, metric="accuracy")``, returning a
:class:`~sigtest.SignificanceResult`. Tests are registered by name
(:func:`get_test_names`): ``"bootstrap"`` (alias ``"berg_kirkpatrick"``),
``"boostsa"``, ``"bca"``, ``"permutation"``, and the classical tests
``"mcnemar"``, ``"sign"``, ``"wilcoxon"`` and ``"paired_t"``, DeLong's test of two
ROC AUCs ``"delong"``, and the Bayesian
``"bayesian_bootstrap"`` (posterior probabilities with a region of practical
equivalence instead of a p-value).
"""

from sigtest.tests_._base import SignificanceTest, accepts_resamples, shared_scheme
from sigtest.tests_._bca import BCaInterval
from sigtest.tests_._berg_kirkpatrick import BergKirkpatrickBootstrap, BooStSaBootstrap
from sigtest.tests_._nested import HierarchicalBootstrap
from sigtest.tests_._permutation import PairedPermutation
from sigtest.tests_._registry import get_test, get_test_names, register_test, register_test_lazily

# compare's default tests and the bootstraps are imported here; the other tests
# (and their engines: the Bayesian bootstrap's rank kernels, DeLong's placements)
# on first use, by name (the registry) or as attributes (PEP 562 below)
_LAZY = {
    "BayesianBootstrap": "sigtest.tests_._bayesian",
    "DeLong": "sigtest.tests_._delong",
    "McNemar": "sigtest.tests_._mcnemar",
    "PairedTTest": "sigtest.tests_._ttest",
    "SignTest": "sigtest.tests_._sign",
    "WilcoxonSignedRank": "sigtest.tests_._wilcoxon",
}

register_test("bootstrap", BergKirkpatrickBootstrap, overwrite=True)
register_test("berg_kirkpatrick", BergKirkpatrickBootstrap, overwrite=True)
register_test("boostsa", BooStSaBootstrap, overwrite=True)
register_test("bca", BCaInterval, overwrite=True)
register_test("permutation", PairedPermutation, overwrite=True)
for _name, _attr in [("mcnemar", "McNemar"), ("sign", "SignTest"),
                     ("wilcoxon", "WilcoxonSignedRank"), ("paired_t", "PairedTTest"),
                     ("bayesian_bootstrap", "BayesianBootstrap"), ("delong", "DeLong")]:
    register_test_lazily(_name, _LAZY[_attr], _attr)


def __getattr__(name):
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value  # later accesses do not come here
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "BCaInterval",
    "BayesianBootstrap",
    "BergKirkpatrickBootstrap",
    "BooStSaBootstrap",
    "DeLong",
    "McNemar",
    "PairedPermutation",
    "PairedTTest",
    "SignTest",
    "SignificanceTest",
    "WilcoxonSignedRank",
    "accepts_resamples",
    "get_test",
    "get_test_names",
    "register_test",
    "shared_scheme",
]
