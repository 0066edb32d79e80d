"""The one exception hierarchy of pairwise-param.

Every error a user can trigger is a :class:`PairwiseError`.  The hierarchy is
shallow on purpose (as Hypothesis does it): each class also subclasses the
builtin exception a caller would naturally catch (``ValueError`` for bad
values, ``TypeError`` for bad types), so ``except ValueError`` keeps working
for code that does not know about us.

Messages follow one rule: they name *where* (the test, when known), *which*
axis and *which* value, what was expected, and how to fix it.  Build them with
:func:`where_prefix` so the test name is always presented the same way.
"""

from __future__ import annotations

__all__ = [
    "AxisCollision",
    "ConstraintsTooHard",
    "DuplicateAxis",
    "DuplicateValue",
    "EmptyAxis",
    "InvalidArgument",
    "InvalidConstraint",
    "InvalidInclude",
    "InvalidModel",
    "InvalidRunFile",
    "MissingExtra",
    "PairwiseError",
    "PairwiseWarning",
    "RowOutsideModel",
    "RunsDisagree",
    "StrengthError",
    "UnhashableValue",
    "UnknownAxis",
    "UnsatisfiableConstraints",
]


def where_prefix(where: str | None) -> str:
    """Return ``"in <where>: "`` or ``""``: the common head of our messages."""
    return f"in {where}: " if where else ""


class PairwiseError(Exception):
    """Base class of every error raised by pairwise-param.

    ``where`` names the test (or other context) the error belongs to; it is
    already part of the message and kept as an attribute for tools.
    """

    def __init__(self, message: str, *, where: str | None = None) -> None:
        self.where = where
        self.detail = message
        super().__init__(where_prefix(where) + message)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:  # keep pickling (pytest-xdist) working with the kw-only arg
        return (_rebuild, (type(self), self.detail, self.where))


def _rebuild(cls: type[PairwiseError], detail: str, where: str | None) -> PairwiseError:
    return cls(detail, where=where)


class InvalidArgument(PairwiseError, TypeError):
    """An argument of the wrong kind: not a mapping, a non-callable constraint,
    an option with a wrong type or value (``strength="2"``, ``effort=-1``)."""


class MissingExtra(InvalidArgument, ImportError):
    """An optional dependency is not installed (matplotlib for ``report --plot``): the
    message names the extra to install."""


class InvalidModel(PairwiseError, ValueError):
    """The model (axes, constraints, include rows, strength) cannot be built."""


class EmptyAxis(InvalidModel):
    """An axis was given no values: no row could contain it."""


class DuplicateValue(InvalidModel):
    """An axis lists the same value twice (the second would be untestable
    separately and would inflate every count)."""


class UnhashableValue(InvalidModel, TypeError):
    """An axis value cannot be hashed (a list, a dict): values are identified by
    hash and equality; use a tuple instead of a list."""


class DuplicateAxis(InvalidModel):
    """Two axes (or two names bound by grouped axes) share a name."""


class UnknownAxis(InvalidModel):
    """A constraint, include row or sub-model names an axis the model lacks."""


class InvalidConstraint(InvalidModel):
    """A constraint is not a usable predicate: not callable, takes ``*args``,
    names no axis, raises while being evaluated, or its scope is too large to
    tabulate."""


class StrengthError(InvalidModel):
    """A strength outside ``1..number of axes`` (or of a sub-model's axes)."""


class UnsatisfiableConstraints(InvalidModel):
    """No complete row satisfies all constraints together."""


class ConstraintsTooHard(InvalidModel):
    """Deciding whether the constraints can hold together exceeded the search
    budget (``feasibility.MAX_SEARCH_NODES``): a bounded-time refusal that
    says what to simplify, instead of an exponential wait."""


class InvalidInclude(InvalidModel):
    """A must-include row names an unknown axis or value, or breaks a
    constraint (no valid row can contain it)."""


class InvalidRunFile(PairwiseError, ValueError):
    """A run file (``--pairwise-report``, pytest's cache) cannot be read: not JSON, another
    version, or malformed; the message names the place (``$.tables[3].rows[2]``)."""


class RunsDisagree(PairwiseError, ValueError):
    """Run files merged by ``report --run A B C`` hold one table built two ways (another
    model, strength or rows): names the test and what differs."""


class RowOutsideModel(PairwiseError, ValueError):
    """A row given to :func:`pairwise_param.coverage.measure` (with
    ``unknown="raise"``) or :func:`~pairwise_param.coverage.extendable` names an
    argument the model lacks, misses one, or has a value outside its axis."""


class AxisCollision(PairwiseError, ValueError):
    """An axis collides with something else: a test argument it does not
    match, another ``parametrize`` of the same name, a fixture, or an option of
    the decorator."""


class PairwiseWarning(UserWarning):
    """Something is probably wrong but the model can still be built: e.g. a
    Python predicate compares an axis with a constant none of its values
    equals (``lambda dtype: dtype != "fp61"``), so that test constrains nothing.
    Built like :class:`PairwiseError` (``where``, ``detail``, pickles)."""

    def __init__(self, message: str, *, where: str | None = None) -> None:
        self.where = where
        self.detail = message
        super().__init__(where_prefix(where) + message)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (_rebuild_warning, (type(self), self.detail, self.where))


def _rebuild_warning(cls: type[PairwiseWarning], detail: str, where: str | None) -> PairwiseWarning:
    return cls(detail, where=where)
