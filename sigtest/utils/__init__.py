"""Internal helpers shared by sigtest's metrics and significance tests.

Not public API: importable, but left out of the API reference (see
``docs/_ext/sigtest_api.py``) and free to change.
"""

from sigtest.utils._names import did_you_mean, plain
from sigtest.utils._renamed import refused_keywords, renamed_keywords
from sigtest.utils._warnings import find_stack_level, warn_external
from sigtest.utils.validation import check_random_state_seed

__all__ = ["check_random_state_seed", "did_you_mean", "find_stack_level", "plain",
           "refused_keywords", "renamed_keywords", "warn_external"]
