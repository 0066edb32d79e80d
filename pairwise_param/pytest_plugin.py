"""Opt in to the pytest plugin by module name: ``pytest_plugins =
["pairwise_param.pytest_plugin"]`` in a conftest, ``PYTEST_PLUGINS=`` or
``-p pairwise_param.pytest_plugin``.

The hooks live in :mod:`pairwise_param.plugin.hooks`, which the ``pytest11``
entry point ``pairwise_param`` registers in every run of an environment where
the package is installed.  Naming the hooks module again (``pytest_plugins =
[...]`` in a conftest, as many projects do to be explicit) made pytest refuse
it: *Plugin already registered under a different name*.  So this module holds
no hook of the plugin: when pytest registers it, it registers the hooks
module only if nothing has yet (autoload off, ``-p no:pairwise_param``, or a
tree that is not pip-installed).
"""

from __future__ import annotations

from typing import Any

__all__ = ["pytest_addhooks"]

#: the name of the ``pytest11`` entry point (pyproject.toml), i.e. of ``-p no:pairwise_param``
ENTRY_POINT = "pairwise_param"


def pytest_addhooks(pluginmanager: Any) -> None:
    """Called once when pytest registers this module (the hook is historic):
    the moment to register the real hooks module, unless it already is."""
    from pairwise_param.plugin import hooks

    if pluginmanager.is_registered(hooks):
        return
    # Under the entry point's name, so that pytest, loading the entry points
    # after ``-p`` / ``PYTEST_PLUGINS`` (autoload on), finds the name taken and
    # skips it instead of registering the module a second time.  When that
    # name is blocked (``-p no:pairwise_param`` to drop the installed entry
    # point), this explicit opt-in by module name still loads the hooks.
    name = ENTRY_POINT if not pluginmanager.is_blocked(ENTRY_POINT) else hooks.__name__
    pluginmanager.register(hooks, name)
