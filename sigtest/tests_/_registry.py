"""Registry of significance tests by name (used by ``compare`` and the CLI)."""

from __future__ import annotations

import inspect

from sigtest.utils import did_you_mean, plain, warn_external

__all__ = ["register_test", "register_test_lazily", "get_test", "get_test_names", "test_name"]

_TESTS: dict = {}
#: Entry-point group through which installed packages register tests.
ENTRY_POINT_GROUP = "sigtest.tests"
_PLUGINS_LOADED = False


def _load_plugins():
    """Register the tests that installed packages declare (once per process).

    A package declares ``[project.entry-points."sigtest.tests"]`` with
    ``name = "module:attribute"``; loading the entry point imports the module
    (which may call :func:`register_test` itself) and, if ``name`` is not
    registered yet, registers the attribute under ``name``. This is how a
    user's test reaches ``sigtest compare --test NAME`` in a new process.
    """
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            factory = ep.load()
            if ep.name not in _TESTS:
                register_test(ep.name, factory)
        except Exception as exc:  # a broken plugin must not break sigtest
            warn_external(f"The significance test {ep.name!r} declared by an installed "
                          f"package ({ep.value}) could not be loaded: {exc}",
                          RuntimeWarning)


def _base():
    # _base imports the engine: the registry's names load without it
    from sigtest.tests_._base import SignificanceTest

    return SignificanceTest


def register_test(name, factory=None, *, overwrite=False):
    """Register a significance test under ``name``; usable as a class decorator.

    Parameters
    ----------
    name : str
        Registry key, e.g. ``"permutation"``.
    factory : SignificanceTest subclass or callable, optional
        A :class:`~sigtest.SignificanceTest` subclass, or a callable taking
        keyword parameters and returning an instance (e.g. the preset
        :meth:`~sigtest.BergKirkpatrickBootstrap.boostsa`). If omitted,
        ``register_test`` returns a decorator.
    overwrite : bool, default=False
        Replace an existing entry instead of raising ``ValueError``.

    Returns
    -------
    factory
        Unchanged (so it can decorate a class).

    Notes
    -----
    A registration lasts for the process. For ``sigtest compare --test
    NAME`` in a new process, declare the test as an entry point of your
    package (group ``"sigtest.tests"``, ``name = "module:Class"``): sigtest
    loads that group the first time a name is not found.

    Examples
    --------
    >>> from sigtest import PairedPermutation, register_test, get_test
    >>> _ = register_test("my_permutation", PairedPermutation)
    >>> get_test("my_permutation", n_resamples=999).n_resamples
    999
    """
    if factory is None:
        return lambda f: register_test(name, f, overwrite=overwrite)
    if not isinstance(name, str) or not name:
        raise ValueError(f"The 'name' parameter must be a non-empty str. Got {name!r} instead.")
    if inspect.isclass(factory):
        if not issubclass(factory, _base()):
            raise TypeError(
                "The 'factory' parameter must be a SignificanceTest subclass or a callable "
                f"returning one. Got class {factory.__name__} instead."
            )
    elif not callable(factory):
        raise TypeError(
            "The 'factory' parameter must be a SignificanceTest subclass or a callable "
            f"returning one. Got {type(factory).__name__} instead."
        )
    if name in _TESTS and not overwrite:
        raise ValueError(
            f"A test named {name!r} is already registered; pass overwrite=True to replace it."
        )
    _TESTS[name] = factory
    return factory


class _Lazy:
    """A registered test class imported on first use: ``module``'s ``attr``."""

    def __init__(self, module, attr):
        self.module, self.attr = module, attr

    def load(self):
        import importlib

        return getattr(importlib.import_module(self.module), self.attr)


def register_test_lazily(name, module, attr):
    """Register ``module.attr`` under ``name``, importing ``module`` when ``name`` is used.

    sigtest's own tests outside ``compare``'s defaults are registered so: a
    process that never asks for them does not import them (nor their engines).

    Parameters
    ----------
    name : str
        Registry key.
    module, attr : str
        Where the :class:`~sigtest.SignificanceTest` subclass lives.
    """
    _TESTS[name] = _Lazy(module, attr)


def _factory(name):
    """The factory registered as ``name`` (a lazily registered class imported now)."""
    factory = _TESTS[name]
    if isinstance(factory, _Lazy):
        factory = _TESTS[name] = factory.load()
    return factory


def get_test(test, **params):
    """Return a significance test instance.

    Parameters
    ----------
    test : str, SignificanceTest subclass or SignificanceTest
        A registered name (see :func:`get_test_names`), a class (instantiated
        with ``params``) or an instance (returned unchanged when ``params`` is
        empty, else a clone with ``params`` set).
    **params
        Parameters of the test, e.g. ``n_resamples=999``.

    Returns
    -------
    SignificanceTest
        A new instance unless an instance without ``params`` was given.

    Raises
    ------
    ValueError
        For an unknown name; the message lists :func:`get_test_names`.

    Examples
    --------
    >>> from sigtest import get_test
    >>> get_test("bca", confidence_level=0.9)
    BCaInterval(confidence_level=0.9)
    """
    base = _base()
    if isinstance(test, base):
        if not params:
            return test
        # scikit-learn's clone rule without importing scikit-learn
        from sigtest.utils._estimator import clone

        return clone(test).set_params(**params)
    if inspect.isclass(test) and issubclass(test, base):
        return test(**params)
    if not isinstance(test, str):
        raise TypeError(
            "The 'test' parameter must be a registered test name (str), a SignificanceTest "
            f"subclass or instance. Got {type(test).__name__} instead."
        )
    if test not in _TESTS:
        _load_plugins()
    try:
        factory = _factory(test)
    except KeyError:
        names = get_test_names()
        raise ValueError(
            f"{plain(test)!r} is not a known significance test.{did_you_mean(test, names)} Valid "
            f"names are: {names}."
        ) from None
    instance = factory(**params)
    if not isinstance(instance, base):
        raise TypeError(f"The factory registered as {test!r} did not return a SignificanceTest.")
    return instance


def get_test_names():
    """Sorted list of registered test names (aliases included).

    Tests declared by installed packages (entry-point group
    ``"sigtest.tests"``) are included.

    Returns
    -------
    names : list of str
        Names accepted by :func:`get_test`.

    Examples
    --------
    >>> from sigtest import get_test_names
    >>> "permutation" in get_test_names(), "bca" in get_test_names()
    (True, True)
    """
    _load_plugins()
    return sorted(_TESTS)


def test_name(test):
    """The name a test's results carry: its class's ``_test_name()`` or the class name."""
    name = getattr(type(test), "_test_name", None)
    return name() if callable(name) else type(test).__name__


test_name.__test__ = False  # not a pytest test, though its name starts with "test"
