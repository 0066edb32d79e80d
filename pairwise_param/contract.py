"""The names the decorator and the plugin share (import-free, so the plugin's
hooks module can read them without loading the core).

* :data:`MARK` -- the mark ``@pairwise`` attaches (``pytest.mark.pairwise(spec)``);
* :data:`PLUGIN_FIXTURE` -- the (empty) fixture the plugin defines and every
  decorated test requests, so a run without the plugin fails loudly;
* :data:`ROW_MARK_FLAG` -- the keyword of the one-row ``parametrize`` mark the
  plugin puts on each item of a table (so Hypothesis and other plugins see a
  parametrized test); readers of ``parametrize`` marks (the suite report)
  skip marks that carry it: the ``pairwise`` mark already describes the table.
"""

__all__ = ["MARK", "PLUGIN_FIXTURE", "ROW_MARK_FLAG"]

MARK = "pairwise"
PLUGIN_FIXTURE = "_pairwise_param_plugin"
ROW_MARK_FLAG = "pairwise_row"
