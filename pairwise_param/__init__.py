"""pairwise-param: covering test tables for the option axes of kernel tests.

This module only re-exports the public names; see the documentation for the
user guide.
"""

from pairwise_param._version import __version__
from pairwise_param.coverage import CoverageReport, audit_rows, measure
from pairwise_param.decorator import PairwiseSpec, pairwise
from pairwise_param.errors import (
    AxisCollision,
    DuplicateAxis,
    DuplicateValue,
    EmptyAxis,
    InvalidArgument,
    InvalidConstraint,
    InvalidInclude,
    InvalidModel,
    PairwiseError,
    RowOutsideModel,
    StrengthError,
    UnhashableValue,
    UnknownAxis,
    UnsatisfiableConstraints,
)
from pairwise_param.model import Axis, Model
from pairwise_param.table import CoveringArray, cover

__all__ = [
    "Axis",
    "AxisCollision",
    "CoverageReport",
    "CoveringArray",
    "DuplicateAxis",
    "DuplicateValue",
    "EmptyAxis",
    "InvalidArgument",
    "InvalidConstraint",
    "InvalidInclude",
    "InvalidModel",
    "Model",
    "PairwiseError",
    "PairwiseSpec",
    "RowOutsideModel",
    "StrengthError",
    "UnhashableValue",
    "UnknownAxis",
    "UnsatisfiableConstraints",
    "__version__",
    "audit_rows",
    "cover",
    "measure",
    "pairwise",
]
