"""The numpy array types the package annotates with, named once (annotations only: numba
compiles by the arrays it is given, not by these)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
Int8Array = npt.NDArray[np.int8]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
UInt64Array = npt.NDArray[np.uint64]
