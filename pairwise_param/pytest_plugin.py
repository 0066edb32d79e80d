"""Old path of the pytest plugin, kept for opt-in by module name.

The hooks live in :mod:`pairwise_param.plugin.hooks` (the ``pytest11`` entry
point ``pairwise_param`` points there).  Naming this module in
``PYTEST_PLUGINS`` or ``-p`` (for a tree that is not pip-installed, where the
entry point does not exist) loads the hooks module through ``pytest_plugins``
below; do not combine it with the installed entry point (pytest would refuse
the same module registered under two names).
"""

pytest_plugins = ["pairwise_param.plugin.hooks"]
