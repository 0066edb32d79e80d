"""Shrinking a valid covering array: redundant rows, then row elimination.

1. Redundant-row removal: a row all of whose tuples are also covered by other
   rows is dropped (last rows first, include rows never).
2. Row elimination: drop the row that covers the fewest tuples alone, then
   repair the now missing tuples by cell changes, a tabu search: a move picks
   a missing tuple (seeded local ``random.Random``) and the rows that already
   agree with all but one of its cells (any row if none does), and writes the
   tuple into the candidate whose change loses least, even when it loses,
   skipping cells changed in the last ``tenure`` moves.  When nothing is
   missing the smaller array is recorded and the next row is dropped.
   (A simulated-annealing acceptance rule was measured against this one at
   equal budget and lost everywhere, e.g. 4^1 3^39 2^35: 22 vs 21 rows, 3^13:
   16 vs 15; it was removed in engine version 3.)

3. Under constraints (engine version 5): a move whose cell change would
   break an exclusion is not dropped but repaired: the other cells of the
   axes linked to the written ones by constraints are re-chosen, keeping their
   values where they can (:func:`repaired`), and the whole change is scored
   at once on the counters (:meth:`State.delta_many`).  The search thus walks
   the feasible space only, as CASA (Garvin, Cohen and Dwyer, "Evaluating
   improvements to a meta-heuristic search for constrained interaction
   testing", Empirical Software Engineering 16, 2011) and TCA / FastCA (Lin,
   Luo, Cai et al., ASE 2015 / ICSE 2019) do, with the constraint check
   incremental: only the linked axes of a change are looked at.  Before it,
   a missing tuple whose every one-cell placement broke a rule could not be
   placed at all, so effort 1 gave exactly the quick rows on constrained models.

4. Constrained models whose scopes are all triples (engine version 7): the
   search runs on the bitsets of :class:`TripleState` (a move's candidates
   are scored with a few big-int ANDs instead of a loop over the axis'
   scopes), the constraint check looks only at the exclusions of the changed
   axes (:func:`breaks`), a repair changes the fewest cells of the written
   axes' constraint component (:func:`repairs`, memoised), and the move
   (:func:`triple_move`) follows TCA's tabu step: rows one cell away first,
   then every row.  Moves are charged what they cost there, so quick mode
   makes some 12,000 of them where version 6 made 1,500; a changed cell's
   tenure is drawn from a range in the second half of the budget (a fixed
   one let a 4-move cycle run for good), repaired cells are tabu too, and an
   attempt is abandoned after :data:`TRIPLE_PATIENCE` moves without progress.
   An effort level on a constrained model first runs quick mode's search and
   then fresh rounds from the start array with seeds of their own
   (:func:`search`'s ``warmup``), so it is never larger than quick mode.

The budget is counted in work units (one unit = one coverage counter looked
at, plus a fixed charge per move), never seconds, so the output is a pure
function of (model, rows, budget, seed) while each effort level costs about
the same time on any model.  A search also stops after ``stall`` work units
without a new best array (the level has converged; see :mod:`.budget`).
Rows stay valid under the exclusions at every accepted step (a full row is
checked with :meth:`Feasibility.violates`), include rows are never dropped and
their given cells never change, so the best array seen is always a valid
answer.
"""

from __future__ import annotations

from pairwise_param.engine.improve.search import Improved, improve, remove_redundant, search, setup_cost

__all__ = ["Improved", "improve", "remove_redundant", "search", "setup_cost"]
