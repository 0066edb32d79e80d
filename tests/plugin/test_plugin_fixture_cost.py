"""The per-item cost of the plugin's own fixture (issue 39: the warm GPU job is bound by
pytest and fixtures, not by its kernels): it asks for no ``request``, because pytest
builds a fixture definition (signature inspection included) for every ``request`` a
fixture takes, on every item."""

from __future__ import annotations

import inspect

import pytest


def test_the_plugin_fixture_takes_no_arguments() -> None:
    from pairwise_param.plugin import hooks

    fixture = hooks._plugin_fixture
    fn = fixture.__wrapped__ if hasattr(fixture, "__wrapped__") else fixture
    assert inspect.signature(fn).parameters == {}


def test_a_pairwise_item_costs_what_a_plain_parametrized_item_costs(pytester: pytest.Pytester) -> None:
    """Counted during each item's set-up: the fixture definitions pytest builds for
    ``request``. A ``@pairwise`` item and a plain ``parametrize`` item with the same
    arguments cost the same (the plugin's fixture adds none)."""
    pytester.makeconftest(
        """
        import pytest
        from _pytest import fixtures

        COUNT = [0]
        PER_TEST = {}
        # pytest >= 8.2 builds a RequestFixtureDef per request; older ones a PseudoFixtureDef
        DEF = getattr(fixtures, "RequestFixtureDef", None) or fixtures.PseudoFixtureDef
        real = DEF.__init__

        def counting(self, *args, **kwargs):
            COUNT[0] += 1
            real(self, *args, **kwargs)

        DEF.__init__ = counting

        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_setup(item):
            before = COUNT[0]
            try:
                return (yield)
            finally:
                PER_TEST.setdefault(item.originalname, set()).add(COUNT[0] - before)

        def pytest_sessionfinish(session):
            print()
            for name, counts in sorted(PER_TEST.items()):
                print("REQUEST_DEFS", name, sorted(counts))
        """
    )
    pytester.makepyfile(
        """
        import pytest
        from pairwise_param import pairwise

        @pairwise(a=[0, 1, 2], b=[0, 1], c=[0, 1], d=[0, 1, 2])
        @pytest.mark.parametrize("n", [1, 2, 3])
        def test_k(n, a, b, c, d):
            pass

        @pytest.mark.parametrize("n", [1, 2, 3])
        @pytest.mark.parametrize("a,b,c,d", [(0, 0, 0, 0), (1, 1, 1, 1), (2, 0, 1, 2)])
        def test_plain(n, a, b, c, d):
            pass
        """
    )
    result = pytester.runpytest("-q", "-s", "-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=27 + 9)
    counts = {line.split()[1]: line.split(" ", 2)[2] for line in result.outlines if line.startswith("REQUEST_DEFS")}
    assert counts["test_plain"] != "[0]", counts  # the counter sees pytest's definitions (it can fail)
    assert counts["test_k"] == counts["test_plain"], counts
