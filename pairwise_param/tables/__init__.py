"""The rows of a model: the one room every face asks for a table, and the engine's only client.

* :mod:`~pairwise_param.tables.build` -- engine options, running the engine,
  :class:`~pairwise_param.tables.build.Table`, the ONE dispatch of the modes
  (``"cover"`` / ``"full"``), a table with invalid values (valid part + negative part),
  the check of a table read back from the cache;
* :mod:`~pairwise_param.tables.covering` -- ``cover()`` and ``CoveringArray`` (the
  library's verb; ``mode="full"`` included);
* :mod:`~pairwise_param.tables.invalid` -- the model side of invalid values
  (``invalid()``, the split into a valid part and one part per invalid value);
* :mod:`~pairwise_param.tables.product` -- the full product: its feasible rows and their count;
* :mod:`~pairwise_param.tables.ids` -- readable, unique, stable test ids (pure: no pytest);
* :mod:`~pairwise_param.tables.cache` -- the on-disk table cache (the plugin hands it
  pytest's ``config.cache``).

Nothing is imported here, so a face loads only the modules it uses.
"""
