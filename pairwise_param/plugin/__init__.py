"""The pytest face of pairwise-param.

* :mod:`~pairwise_param.plugin.hooks` -- the pytest hooks (the ``pytest11``
  entry point ``pairwise_param``); cheap to import;
* :mod:`~pairwise_param.plugin.modes` -- run-time options (flag > env > ini);
* :mod:`~pairwise_param.plugin.expand` -- ``pairwise`` marks -> ``metafunc.parametrize``;
* :mod:`~pairwise_param.tables.ids` -- readable, unique, stable test ids;
* :mod:`~pairwise_param.tables.cache` -- tables (cover / full mode) and their on-disk cache;
* :mod:`~pairwise_param.plugin.summary` -- the summary line and per-row data (JUnit XML
  properties, report sections), loaded only in a session with a ``@pairwise`` test.
"""
