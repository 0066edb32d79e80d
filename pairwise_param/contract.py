"""The names the decorator and the plugin share (import-free, so the plugin's
hooks module can read them without loading the core).

* :data:`MARK` -- the mark ``@pairwise`` attaches (``pytest.mark.pairwise(spec)``);
* :data:`PLUGIN_FIXTURE` -- the (empty) fixture the plugin defines and every
  decorated test requests, so a run without the plugin fails loudly.
"""

__all__ = ["MARK", "PLUGIN_FIXTURE"]

MARK = "pairwise"
PLUGIN_FIXTURE = "pairwise_param_plugin"
