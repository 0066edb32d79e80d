"""The decorator's own mistakes, as a pytest run shows them (issue 38 item 18): a bare
``@pairwise`` and a misspelt option are collection errors in our words."""

from __future__ import annotations

import pytest


def test_a_bare_pairwise_is_a_collection_error_in_our_words(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise
        def test_x(a, b):
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    out = result.stdout.str()
    assert "@pairwise is used without arguments; call it with the axes" in out
    assert "fixture 'obj' not found" not in out


def test_a_misspelt_option_names_the_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=[1, 2], strenght=3)
        def test_x(a, b):
            pass
        """
    )
    result = pytester.runpytest()
    out = result.stdout.str()
    assert "'strenght' is not an option of @pairwise; did you mean strength=3?" in out
    assert "to the signature" not in out
