"""The pytest face of pairwise-param: only what needs pytest (the rows come from
:mod:`pairwise_param.tables`, what a run did is analysed by :mod:`pairwise_param.runs`).

* :mod:`~pairwise_param.plugin.hooks` -- the pytest hooks (the ``pytest11``
  entry point ``pairwise_param``); cheap to import;
* :mod:`~pairwise_param.plugin.modes` -- run-time options, declared once (``RUN_OPTIONS``) and
  resolved (flag > env > ini);
* :mod:`~pairwise_param.plugin.expand` -- ``pairwise`` marks -> ``metafunc.parametrize``;
* :mod:`~pairwise_param.plugin.absent` -- values whose skip mark is true at collection
  leave a cover table;
* :mod:`~pairwise_param.plugin.summary` -- the summary line and per-row data (JUnit XML
  properties, report sections), loaded only in a session with a ``@pairwise`` test;
* :mod:`~pairwise_param.plugin.outcomes` -- per-item outcomes, xdist merge, the run file;
* :mod:`~pairwise_param.plugin.followup` -- ``--pairwise-extra-rows`` (``pairwise-param localize``).
"""
