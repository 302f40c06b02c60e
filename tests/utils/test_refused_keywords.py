"""refused_keywords: a keyword a callable deliberately does not take fails with its reason."""

import inspect

import pytest

from sigtest.utils._renamed import refused_keywords


def test_a_refused_keyword_raises_its_reason_and_others_pass():
    @refused_keywords(weights="use g() instead.", extra="no extras.")
    def f(x, *, scale=1):
        """Doc."""
        return x * scale

    assert f(2, scale=3) == 6
    assert f.__doc__ == "Doc." and list(inspect.signature(f).parameters) == ["x", "scale"]
    with pytest.raises(TypeError, match=r"^f\(\) takes no 'weights': use g\(\) instead\.$"):
        f(2, weights=[1.0])
    with pytest.raises(TypeError, match="unexpected keyword"):
        f(2, other=1)  # not refused: Python's own error


def test_refusing_a_parameter_fails_when_decorating():
    with pytest.raises(ValueError, match=r"\['x'\] are parameters"):
        @refused_keywords(x="never.")
        def f(x):
            return x


def test_a_refused_keyword_of_a_method_names_the_class():
    class K:
        @refused_keywords(overall="not here.")
        def run(self):
            return 1

    assert K().run() == 1
    with pytest.raises(TypeError, match=r"K\.run\(\) takes no 'overall'"):
        K().run(overall="macro")
