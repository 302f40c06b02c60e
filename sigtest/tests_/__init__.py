"""Paired significance tests comparing a baseline A with a candidate B.

Every test is a :class:`SignificanceTest` with one method,
``test(y_true, y_pred_a, y_pred_b, *, metric="accuracy")``, returning a
:class:`~sigtest.SignificanceResult`. Tests are registered by name
(:func:`get_test_names`): ``"bootstrap"`` (alias ``"berg_kirkpatrick"``),
``"boostsa"``, ``"bca"`` and ``"permutation"``.
"""

from ._base import SignificanceTest
from ._bootstrap import BCaInterval, BergKirkpatrickBootstrap, BooStSaBootstrap
from ._permutation import PairedPermutation
from ._registry import get_test, get_test_names, register_test

register_test("bootstrap", BergKirkpatrickBootstrap, overwrite=True)
register_test("berg_kirkpatrick", BergKirkpatrickBootstrap, overwrite=True)
register_test("boostsa", BooStSaBootstrap, overwrite=True)
register_test("bca", BCaInterval, overwrite=True)
register_test("permutation", PairedPermutation, overwrite=True)

__all__ = [
    "BCaInterval",
    "BergKirkpatrickBootstrap",
    "BooStSaBootstrap",
    "PairedPermutation",
    "SignificanceTest",
    "get_test",
    "get_test_names",
    "register_test",
]
