"""What compare's warnings say: the quantity at risk, the pair and metric, the remedy.

A test's own :class:`~sigtest.SmallSampleWarning` speaks for a test run alone
("use the exact permutation test"). In :func:`sigtest.compare` a job runs a
p-value test and, often, an interval test beside it (the default: the
permutation p-value with a BCa interval), so the same warning must say which
of the two numbers is at risk: the interval when only the interval test
warned (its own p-value is not reported), the p-value (and the interval)
when the p-value test is a bootstrap test. Each job's warning is reduced to
a message shared by all jobs in that situation plus a detail naming the pair,
the metric and the reason; :func:`~sigtest._workflows.compare.run.reemit_warnings`
emits each message once with the details of its jobs.
"""

from sigtest._engine.concentration import (
    DISCORDANT_RATIO,
    N_EFFECTIVE_MIN,
    concentration_sentence,
)
from sigtest.exceptions import SmallSampleWarning

__all__ = ["concentration_warning", "job_warnings"]


def _name(test):
    return type(test).__name__


def _small_sample(warning):
    """The reasons of a structured SmallSampleWarning, or None for any other warning."""
    message = warning.message
    if not issubclass(warning.category, SmallSampleWarning):
        return None
    return getattr(message, "reasons", None)


def _interval_at_risk(itest, ptest, res):
    exact = ("the exact permutation test" if res.resampling == "exact permutation"
             else None)
    source = exact or (f"the {_name(ptest)} test" if ptest is not None else "another test")
    valid = (", valid at any N" if res.resampling in ("exact permutation", "permutation")
             else "")
    return (f"{_name(itest)}: the data are too few for a bootstrap interval: the interval of "
            f"the difference may under-cover. The p-values do not come from it (they come "
            f"from {source}{valid}) and are not at risk; read the interval as approximate, "
            "or widen the test set.")


def _pvalue_at_risk(ptest, floored):
    tail = (" Some p-values were raised to the exact sign-test bound (all discordant items "
            "going one way)." if floored else "")
    return (f"{_name(ptest)}: the data are too few for a bootstrap test: its p-value can "
            f"exceed the nominal level and its interval under-cover.{tail} Take the p-value "
            "from the exact permutation test, valid at any N: test=('permutation', "
            "'bca') keeps a BCa interval beside it.")


def job_warnings(p_caught, i_caught, *, ptest, itest, res):
    """The warnings of one job as ``(category, message, detail)`` triples.

    Parameters
    ----------
    p_caught, i_caught : list of warnings.WarningMessage
        Caught while the p-value test ran, and while the interval test ran
        (empty when the p-value test gives the interval too).
    ptest, itest : SignificanceTest or None
        The two tests (``itest`` None: the p-value test gives the interval).
    res : SignificanceResult
        The p-value test's result.

    Returns
    -------
    list of tuple
        ``detail`` is the reason of a small-sample warning (None otherwise);
        the message is shared by every job in the same situation.
    """
    out = []
    for w in p_caught:
        reasons = _small_sample(w)
        if reasons is None:
            out.append((w.category, str(w.message), None))
            continue
        floored = bool(getattr(w.message, "floored", False))
        out.append((w.category, _pvalue_at_risk(ptest, floored),
                    "; ".join(reasons) or "few discordant items"))
    for w in i_caught:
        reasons = _small_sample(w)
        if reasons is None:
            out.append((w.category, str(w.message), None))
            continue
        out.append((w.category, _interval_at_risk(itest, ptest, res),
                    "; ".join(reasons) or "few discordant items"))
    return out


def concentration_warning(concentration, *, pvalue_bootstrap, unit="items"):
    """``(category, message, detail)`` of a difference carried by a handful of units.

    ``pvalue_bootstrap``: whether the p-value comes from a bootstrap test too
    (then it is at risk with the interval, and the remedy is the permutation
    p-value); otherwise only the interval is.
    """
    at_risk = ("the bootstrap p-value and interval are" if pvalue_bootstrap
               else "the bootstrap interval is")
    remedy = ("take the p-value from the permutation test (test=('permutation', 'bca'))"
              if pvalue_bootstrap else "the permutation p-value stays valid: trust it")
    message = (f"The difference is carried by a handful of {unit} (effective number of "
               f"{unit} below {N_EFFECTIVE_MIN:g} and below {DISCORDANT_RATIO:g} of the "
               f"discordant ones): {at_risk} unreliable (a 95 % BCa interval covered 74-82 % "
               f"on such data in simulation); {remedy}, and look at those {unit} "
               "(docs/which_test.md, 'A difference carried by a few items').")
    return SmallSampleWarning, message, concentration_sentence(concentration, unit)
