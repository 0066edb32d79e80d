"""The names the decorator, the plugin and the tables share (import-free, so the
plugin's hooks module can read them without loading the core).

* :data:`MODES` -- the table modes, fewest rows first: ``"cover"`` (the default: a
  covering table of the axes) and ``"full"`` (every row of the full product that
  breaks no constraint).  What a mode *does* is decided in one place,
  :mod:`pairwise_param.tables.build`; where a test's mode and the run's differ,
  the later one of this tuple wins (``plugin/modes.effective``); :func:`check_mode` is
  THE mode validator (``@pairwise(mode=)``, ``cover(mode=)``, ``--pairwise-mode`` and its
  environment and ini forms all reach it);

* :data:`ID_STYLES` -- the test id styles of a table (the first is the default):
  ``"readable"`` (``dtype=bfloat16-padded=True``), ``"pytest"`` (the ids each axis
  would get from its own ``parametrize``, joined in axis order) and ``"stacked"``
  (the node ids of the stacked ``parametrize`` decorators the axes were written
  from, top decorator first: ids joined bottom axis first, and in full mode the
  rows in the order the stacked decorators give them; what ``pairwise-param
  convert`` writes, so ``--pairwise-mode=full`` keeps every node id) and
  ``"product-index"`` (``case-{index}``, the row's index in the full product: the
  ids of flashinfer's ``parametrize_product``, which convert writes for it);
* :data:`MARK` -- the mark ``@pairwise`` attaches (``pytest.mark.pairwise(spec)``);
* :data:`PLUGIN_FIXTURE` -- the (empty) fixture the plugin defines and every
  decorated test requests, so a run without the plugin fails loudly;
* :data:`ROW_MARK_FLAG` -- the keyword of the one-row ``parametrize`` mark the
  plugin puts on each item of a ``@pairwise`` + ``@given`` table (so Hypothesis
  sees a parametrized test); readers of ``parametrize`` marks (the suite report)
  skip marks that carry it: the ``pairwise`` mark already describes the table;
* :data:`INVALID_MARK` -- the mark on each row that holds an invalid value
  (``pytest.mark.pairwise_invalid(axis=..., value=..., reason=...)``), and
  :data:`INVALID_FIXTURE` -- the fixture that reads it (an
  :class:`~pairwise_param.tables.invalid.InvalidCase`, or ``None`` on a valid row).
"""

__all__ = [
    "ID_STYLES",
    "INVALID_FIXTURE",
    "INVALID_MARK",
    "MARK",
    "MODES",
    "PLUGIN_FIXTURE",
    "ROW_MARK_FLAG",
    "check_mode",
]

MODES = ("cover", "full")
ID_STYLES = ("readable", "pytest", "stacked", "product-index")

MARK = "pairwise"
PLUGIN_FIXTURE = "_pairwise_param_plugin"
ROW_MARK_FLAG = "pairwise_row"
INVALID_MARK = "pairwise_invalid"
INVALID_FIXTURE = "pairwise_invalid"


def check_mode(value: object, name: str = "mode", *, fold: bool = False) -> str:
    """THE mode validator: ``value`` if it names one of :data:`MODES`, else a
    :class:`ValueError` whose text names ``name``, the value and the choices
    (callers re-raise it as their error type: ``InvalidArgument`` naming the test,
    or the plugin's usage error).  ``fold``: text from a command line, an
    environment variable or an ini file (case and surrounding blanks ignored)."""
    key = value.strip().lower() if fold and isinstance(value, str) else value
    if isinstance(key, str) and key in MODES:
        return key
    raise ValueError(f"{name}={value!r} is not a pairwise mode; use one of: {', '.join(MODES)}")
