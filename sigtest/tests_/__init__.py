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
from sigtest.tests_._bayesian import BayesianBootstrap
from sigtest.tests_._bca import BCaInterval
from sigtest.tests_._berg_kirkpatrick import BergKirkpatrickBootstrap, BooStSaBootstrap
from sigtest.tests_._delong import DeLong
from sigtest.tests_._mcnemar import McNemar
from sigtest.tests_._nested import HierarchicalBootstrap
from sigtest.tests_._permutation import PairedPermutation
from sigtest.tests_._registry import get_test, get_test_names, register_test
from sigtest.tests_._sign import SignTest
from sigtest.tests_._ttest import PairedTTest
from sigtest.tests_._wilcoxon import WilcoxonSignedRank

register_test("bootstrap", BergKirkpatrickBootstrap, overwrite=True)
register_test("berg_kirkpatrick", BergKirkpatrickBootstrap, overwrite=True)
register_test("boostsa", BooStSaBootstrap, overwrite=True)
register_test("bca", BCaInterval, overwrite=True)
register_test("permutation", PairedPermutation, overwrite=True)
register_test("mcnemar", McNemar, overwrite=True)
register_test("sign", SignTest, overwrite=True)
register_test("wilcoxon", WilcoxonSignedRank, overwrite=True)
register_test("paired_t", PairedTTest, overwrite=True)
register_test("bayesian_bootstrap", BayesianBootstrap, overwrite=True)
register_test("delong", DeLong, overwrite=True)

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
