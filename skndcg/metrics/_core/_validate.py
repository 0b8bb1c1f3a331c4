"""Step 1 of the engine: user input to native-byte-order arrays of one
canonical dtype (each kernel compiles for one set of types), or an error
naming the argument, the value and what was expected."""

from __future__ import annotations

import numbers
import sys
import warnings

import numpy as np

from ..._native._jit import jit, numpy_twin
from ..._native._threads import PARALLEL_ROWS, row_chunks, run_chunks
from ...utils._values import py


def check_length(name: str, n: int, n_rows: int, other: str = "y_true") -> None:
    """Refuse ``name`` of ``n`` rows beside ``other`` of ``n_rows``."""
    if n != n_rows:
        raise ValueError(
            f"{name} has {n} rows but {other} has {n_rows}; they must match."
        )


class RowsError(ValueError):
    """A refusal of some rows of the input: how many, and the first one's row.

    ``template`` holds ``{count}`` and ``{at}``. A door scoring a table piece
    by piece names the row as the table numbers it with :meth:`placed`
    (without the count, which is the piece's alone).
    """

    def __init__(self, template: str, count: int, row: int):
        self.template, self.count, self.row = template, count, row
        super().__init__(template.format(count=f"{count} ", at=f"first at row {row}"))

    def __reduce__(self):  # sent back whole from a Dask or Spark worker
        return type(self), (self.template, self.count, self.row)

    def hinted(self, hint: str) -> RowsError:
        """The same refusal followed by ``hint``."""
        text = hint.replace("{", "{{").replace("}", "}}")
        return type(self)(f"{self.template} {text}", self.count, self.row)

    def placed(self, at: str) -> ValueError:
        """The same refusal with the row named ``at`` (``"first at row 7 of
        the file"``) and no count, as a ``ValueError`` or ``TypeError``."""
        kind = TypeError if isinstance(self, TypeError) else ValueError
        return kind(self.template.format(count="", at=at))


class RowsTypeError(RowsError, TypeError):
    """A refusal of a row whose value has the wrong type (a ``TypeError``)."""


def undefined(message: str, stacklevel: int) -> float:
    """NaN, with an ``UndefinedMetricWarning`` saying ``message``; ``stacklevel``
    as :func:`warnings.warn` takes it from the caller of this function."""
    from sklearn.exceptions import UndefinedMetricWarning

    warnings.warn(message, UndefinedMetricWarning, stacklevel=stacklevel + 1)
    return float("nan")


def missing_error(name: str, mask: np.ndarray, what: str = "a value") -> ValueError:
    """The :class:`RowsError` for the missing entries ``mask`` of ``name``."""
    return RowsError(
        f"{name} has {{count}}missing value(s) ({{at}}); every row needs {what}.",
        int(mask.sum()),
        int(np.flatnonzero(mask)[0]),
    )


def is_categorical(x) -> bool:
    """Whether ``x`` is a pandas categorical (pandas is only imported by its users)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(getattr(x, "dtype", None), pd.CategoricalDtype)


def isna(arr: np.ndarray) -> np.ndarray:
    """Missing values (None, NaN, pandas' NA) of an object array."""
    import pandas as pd

    return np.asarray(pd.isna(arr))


_NUMBERS = (numbers.Number, np.generic)


def as_1d(
    x,
    name: str,
    *,
    allow_object: bool = False,
    what: str = "a value",
    missing_as_nan: bool = False,
) -> np.ndarray:
    """A 1-D numpy array of ``x`` in native byte order, refusing 2-D and empty input.

    Numeric arguments refuse strings and bytes (ids, ``allow_object``, keep
    them), and a missing value naming its row (or read it as NaN with
    ``missing_as_nan``).
    """
    if is_categorical(x):
        arr = np.asarray(x)
    elif hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        # A missing value of a nullable column (pandas' NA) is refused here.
        pd = sys.modules.get("pandas")
        if (
            not missing_as_nan
            and pd is not None
            and hasattr(x, "isna")
            and isinstance(getattr(x, "dtype", None), pd.api.extensions.ExtensionDtype)
            and (missing := np.asarray(x.isna())).any()
        ):
            raise missing_error(name, missing, what)
        arr = x.to_numpy()
    else:
        arr = np.asarray(x)
        # numpy turns [1, "1"] into two equal strings: keep the element types.
        if (
            isinstance(x, (list, tuple))
            and arr.dtype.kind in "US"
            and arr.ndim == 1
            and len({type(v) for v in x}) > 1
        ):
            arr = np.empty(len(x), dtype=object)
            arr[:] = list(x)
    if arr.ndim == 0:
        raise ValueError(
            f"{name} must be a 1-D array-like, got a scalar {type(x).__name__}."
        )
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D (one value per row), got an array of shape "
            f"{arr.shape}; flatten it or pass one column."
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; at least one row is required.")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if allow_object:
        return arr
    if arr.dtype.kind in "USV":
        raise TypeError(
            f"{name} must be numeric, got dtype {arr.dtype} (first value "
            f"{py(arr[0])!r}); convert it to numbers explicitly."
        )
    if arr.dtype.kind == "O":
        missing = isna(arr)
        if missing.any():
            if not missing_as_nan:
                raise missing_error(name, missing, what)
            arr = np.where(missing, np.nan, arr)
        for i, v in enumerate(arr):
            if isinstance(v, (str, bytes)) or not isinstance(v, _NUMBERS):
                got = f"{v!r} ({type(v).__name__})"
                got = got.replace("{", "{{").replace("}", "}}")
                raise RowsTypeError(
                    f"{name} must be numeric, got {got} ({{at}}); convert it to "
                    "numbers explicitly.",
                    1,
                    i,
                )
        arr = arr.astype(np.float64)
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real, got complex dtype {arr.dtype}.")
    return arr


@jit
def _first_nonfinite(t, x, n_chunks):
    """First row of chunk ``t`` holding NaN or infinity, or -1.

    An integer OR of ``not abs(v) < inf`` over the chunk vectorises; only a
    chunk with a bad value is searched for the first one.
    """
    n = x.shape[0]
    part = x[n * t // n_chunks : n * (t + 1) // n_chunks]
    bad = np.int64(0)
    for i in range(part.shape[0]):
        bad |= np.int64(not abs(part[i]) < np.inf)
    if bad == 0:
        return -1
    for i in range(part.shape[0]):
        if not np.isfinite(part[i]):
            return n * t // n_chunks + i
    return -1


@numpy_twin(_first_nonfinite)
def _first_nonfinite_numpy(t, x, n_chunks):
    n = x.shape[0]
    part = x[n * t // n_chunks : n * (t + 1) // n_chunks]
    bad = np.flatnonzero(~np.isfinite(part))
    return n * t // n_chunks + int(bad[0]) if bad.size else -1


def check_finite(arr: np.ndarray, name: str) -> None:
    """Raise if a float array holds NaN or infinity, naming the first bad row."""
    if arr.dtype.kind != "f":
        return
    plain = arr.dtype != np.float64 or not arr.flags.c_contiguous
    found = chunked(_first_nonfinite, arr, plain)
    bad = next((b for b in found if b >= 0), -1)
    if bad >= 0:
        raise RowsError(
            f"{name} contains {{count}}NaN or infinite value(s) ({{at}}: "
            f"{py(arr[bad])!r}); every {name} value must be finite.",
            int((~np.isfinite(arr)).sum()),
            bad,
        )


def chunked(kernel, a, plain=False) -> list:
    """``kernel(t, a, n_chunks)`` of each row chunk of ``a``; small (or
    ``plain``) input in one chunk by its numpy twin, so it compiles nothing."""
    if plain or a.shape[0] < PARALLEL_ROWS:
        return [kernel.twin(0, a, 1)]
    n_chunks = row_chunks(a.shape[0])
    return run_chunks(kernel, n_chunks, a, n_chunks)


@jit
def _int_range(t, src, n_chunks):
    """(min, max) of chunk ``t`` of integer labels."""
    n = src.shape[0]
    part = src[n * t // n_chunks : n * (t + 1) // n_chunks]
    lo = part[0]
    hi = part[0]
    for i in range(part.shape[0]):
        lo = min(lo, part[i])
        hi = max(hi, part[i])
    return lo, hi


@numpy_twin(_int_range)
def _int_range_numpy(t, src, n_chunks):
    n = src.shape[0]
    part = src[n * t // n_chunks : n * (t + 1) // n_chunks]
    return part.min(), part.max()


# Integer labels in [0, HIST_LABELS) let the kernel find the ideal order by counting.
HIST_LABELS = 256


def label_range(y: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer labels for the kernel, and the histogram size it may use (or 0):
    small non-negative integers stay int64, others become float64."""
    src = np.ascontiguousarray(y.astype(np.int64, copy=False))
    parts = chunked(_int_range, src)
    lo = min(p[0] for p in parts)
    hi = max(p[1] for p in parts)
    if lo < -(2**53) or hi > 2**53:
        raise ValueError(
            f"y_true has integer labels beyond 2**53 (min {py(lo)!r}, max "
            f"{py(hi)!r}), which float64 cannot hold exactly; rescale them."
        )
    if lo >= 0 and hi < HIST_LABELS:
        return src, int(hi) + 1
    return src.astype(np.float64), 0


@jit
def _float_label_range(t, y, n_chunks):
    """(min, max, all integers) of chunk ``t`` of float64 labels."""
    n = y.shape[0]
    part = y[n * t // n_chunks : n * (t + 1) // n_chunks]
    lo = part[0]
    hi = part[0]
    # An integer OR, not a float sum: the loop vectorises.
    frac = np.int64(0)
    for i in range(part.shape[0]):
        v = part[i]
        lo = min(lo, v)
        hi = max(hi, v)
        frac |= np.int64(v != np.floor(v))
    return lo, hi, frac == 0


@numpy_twin(_float_label_range)
def _float_label_range_numpy(t, y, n_chunks):
    # With a NaN, the loop's min and max may differ, but both say "not all
    # integers", and hist_size reads nothing else then.
    n = y.shape[0]
    part = y[n * t // n_chunks : n * (t + 1) // n_chunks]
    return part.min(), part.max(), bool((part == np.floor(part)).all())


def hist_size(y: np.ndarray) -> int:
    """The histogram size float64 labels would allow, or 0: non-zero tells the
    engine they are >= 0 (they stay float64, saving an int64 copy)."""
    parts = chunked(_float_label_range, y)
    lo = min(p[0] for p in parts)
    hi = max(p[1] for p in parts)
    integral = all(p[2] for p in parts)
    return int(hi) + 1 if integral and lo >= 0 and hi < HIST_LABELS else 0


def check_k(k, name: str = "k"):
    """Validate a cut-off: an int >= 1 (not a bool) or None; one beyond every
    query means the whole list (precision keeps it as its denominator)."""
    if k is None:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(
            f"{name} must be an int >= 1 or None, got {py(k)!r} ({type(k).__name__})."
        )
    if k < 1:
        raise ValueError(f"{name} must be >= 1, got {py(k)!r}.")
    return int(k)


def scores(y_score, *, allow_nan: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """Scores as float64, and the mask of NaN (or missing) rows when ``allow_nan``."""
    s = as_1d(y_score, "y_score", missing_as_nan=allow_nan)
    if s.dtype.kind not in "biuf":
        raise TypeError(f"y_score must be numeric, got dtype {s.dtype}.")
    s = s.astype(np.float64, copy=False)
    if allow_nan and (nan := np.isnan(s)).any():
        if np.isinf(s).any():
            check_finite(np.where(nan, 0.0, s), "y_score")
        return s, nan
    try:
        check_finite(s, "y_score")
    except RowsError as exc:
        if not np.isnan(s).any():
            raise
        raise exc.hinted(
            "If NaN marks judged documents the run did not retrieve (as in the "
            'output of skndcg.io.join_run_qrels), pass nan_score="unretrieved".'
        ) from None
    return s, None


def discount(disc, length: int, k_label: str) -> np.ndarray:
    """Per-position weights for the first ``length`` positions."""
    if isinstance(disc, str):
        if disc != "log2":
            raise ValueError(
                f"discount={disc!r} is not valid; expected 'log2', an array of "
                "per-position weights or a callable of the 1-based ranks."
            )
        return 1.0 / np.log2(np.arange(2, length + 2, dtype=np.float64))
    if callable(disc):
        d = np.asarray(disc(np.arange(1, length + 1)), dtype=np.float64)
        if d.shape != (length,):
            raise ValueError(
                f"the discount callable must return one weight per rank: expected "
                f"shape ({length},), got {d.shape}."
            )
        what = "the discount callable"
    else:
        d = np.asarray(disc, dtype=np.float64)
        if d.ndim != 1:
            raise ValueError(
                f"discount must be a 1-D array of per-position weights, got shape "
                f"{d.shape}."
            )
        if d.shape[0] < length:
            raise ValueError(
                f"discount has {d.shape[0]} weights but {k_label} needs at least "
                f"{length} (one per ranked position)."
            )
        d = d[:length]
        what = "discount"
    if not np.isfinite(d).all() or (d < 0).any():
        raise ValueError(
            f"{what} weights must be finite and >= 0, got min {py(d.min())!r}."
        )
    return np.ascontiguousarray(d)
