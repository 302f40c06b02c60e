"""sigtest: is system B really better than system A, or is it luck?

Fast, statistically correct significance tests for comparing machine-learning
and NLP systems, with metrics registered as scikit-learn scorers.
"""

from . import metrics
from .exceptions import DegenerateDistributionWarning
from .metrics import get_metric, get_metric_names, register_metric

__version__ = "0.1.0"

__all__ = [
    "DegenerateDistributionWarning",
    "get_metric",
    "get_metric_names",
    "metrics",
    "register_metric",
]
