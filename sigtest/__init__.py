"""sigtest: is system B really better than system A, or is it luck?

Fast, statistically correct significance tests for comparing machine-learning
and NLP systems, with metrics registered as scikit-learn scorers.
"""

from . import metrics
from .exceptions import (
    DegenerateDistributionWarning,
    ProbabilityRoundingWarning,
    SmallSampleWarning,
)
from .metrics import get_metric, get_metric_names, get_scorer, get_scorer_names, register_metric
from ._results import ConfidenceInterval, SignificanceResult, TestOutcome
from ._engine.paired import PairedData
from ._comparison_result import ComparisonResult
from ._compare import compare
from ._cross_val import cross_val_compare
from .experiment import Experiment
from .tests_ import (
    BCaInterval,
    BergKirkpatrickBootstrap,
    PairedPermutation,
    SignificanceTest,
    get_test,
    get_test_names,
    register_test,
)

from ._version import __version__

__all__ = [
    "ComparisonResult",
    "compare",
    "cross_val_compare",
    "Experiment",
    "BCaInterval",
    "BergKirkpatrickBootstrap",
    "ConfidenceInterval",
    "PairedData",
    "TestOutcome",
    "PairedPermutation",
    "SignificanceResult",
    "SignificanceTest",
    "get_test",
    "get_test_names",
    "register_test",
    "DegenerateDistributionWarning",
    "ProbabilityRoundingWarning",
    "SmallSampleWarning",
    "get_metric",
    "get_metric_names",
    "get_scorer",
    "get_scorer_names",
    "metrics",
    "register_metric",
]
