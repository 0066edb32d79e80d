"""Verbose comparison of a kernel's output with its fp32 reference (every family).

The comparison runs where the tensors live: on a GPU the whole check is device work and
the host receives a few numbers (how many elements differ) and, only for a failing case,
the first offending elements of the report. Copying every output and reference to the
host, as this module once did, made the harness, not the kernels, what the GPU suites
spent their time on (measured on an H200: RMSNorm's 16384-row cases 27.1 s on the host
against 2.3 s on the device; issue 22).

Nothing here depends on pytest or Triton: benchmarks use it too.
"""

from __future__ import annotations

import math

import torch

__all__ = ["CHUNK", "assert_close_verbose", "mismatch_report"]

#: Elements compared at once: bounds the device temporaries of a huge output (a
#: 90000 x 5120 fused-norm case) to a few hundred MiB; smaller outputs are one chunk.
CHUNK = 1 << 24


def _bad(a: torch.Tensor, e: torch.Tensor, dtype: torch.dtype, atol: float, rtol: float) -> torch.Tensor | None:
    """The offending elements of one flat chunk (a bool tensor on the chunk's device), or
    None when there are none.

    An element passes within ``atol + rtol * |ref|`` of the fp32 reference, NaN where the
    reference is NaN, or, for an output dtype narrower than fp32, within the same bound of
    the reference rounded to that dtype. The last two rules are computed only when the
    first leaves some element failing, so a passing chunk costs one comparison and one
    synchronization."""
    af, ef = a.float(), e.float()
    ok = (af - ef).abs() <= atol + rtol * ef.abs()
    if bool(ok.all()):
        return None
    ok |= torch.isnan(af) & torch.isnan(ef)
    if dtype.is_floating_point and torch.finfo(dtype).bits < 32:
        er = e.to(dtype).float()
        ok |= (af - er).abs() <= atol + rtol * er.abs()
    bad = ~ok
    return bad if bool(bad.any()) else None


def mismatch_report(actual: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float,
                    *, limit: int = 8, chunk: int = CHUNK) -> str | None:
    """None when every element of ``actual`` is within ``atol + rtol * |ref|`` of the
    reference (NaNs in the same places count as equal); otherwise a readable report:
    how many elements differ, the worst errors, and the first ``limit`` offenders with
    their indices.

    ``expected`` is the fp32 reference. When ``actual`` has a lower-precision float
    dtype, an element also passes if it is within tolerance of the reference *rounded
    to that dtype* -- the value a reference computing in that dtype (upstream's
    ``torch.nn.functional.linear`` / ``torch._scaled_mm``) would produce. Both checks
    use the same atol/rtol. Why both: the kernel's own final rounding can be up to half
    an ulp from the exact value (3.9e-3 near 1.0 in bf16, above FP8's 1e-3), which the
    rounded comparison forgives; and two fp32 accumulations in different orders can
    straddle a rounding midpoint and land one ulp apart after rounding (7.8e-3 above 1.0
    in bf16, above wvSplitKrc's 5e-3), which the exact comparison forgives.

    Everything is computed on the tensors' device, ``chunk`` elements at a time; only
    the counts, the two worst errors and the ``limit`` reported elements reach the host.
    """
    if actual.shape != expected.shape:
        return f"shape mismatch: actual {tuple(actual.shape)} vs expected {tuple(expected.shape)}"
    flat_a, flat_e = actual.detach().reshape(-1), expected.detach().reshape(-1)
    numel = flat_a.numel()
    bad_chunks: list[tuple[int, torch.Tensor]] = []
    for start in range(0, numel, chunk):
        bad = _bad(flat_a[start:start + chunk], flat_e[start:start + chunk], actual.dtype, atol, rtol)
        if bad is not None:
            bad_chunks.append((start, bad))
    if not bad_chunks:
        return None
    return _report(actual, flat_a, flat_e, bad_chunks, atol, rtol, limit, chunk)


def _report(actual: torch.Tensor, flat_a: torch.Tensor, flat_e: torch.Tensor,
            bad_chunks: list[tuple[int, torch.Tensor]], atol: float, rtol: float, limit: int, chunk: int) -> str:
    """The text of a failing comparison; the worst errors are reduced on the device and
    only the first ``limit`` offenders are copied to the host."""
    tiny = torch.finfo(torch.float32).tiny
    n_bad, max_abs, max_rel = 0, 0.0, 0.0
    first: list[torch.Tensor] = []
    for start, bad in bad_chunks:
        a = flat_a[start:start + chunk].float()
        e = flat_e[start:start + chunk].float()
        diff = (a - e).abs()[bad]
        rel = diff / e[bad].abs().clamp(min=tiny)
        n_bad += int(bad.sum())
        # NaN errors (a NaN output) win, as the host comparison's max did
        max_abs = max(max_abs, float(diff.max()), key=_nan_first)
        max_rel = max(max_rel, float(rel.max()), key=_nan_first)
        if sum(int(f.numel()) for f in first) < limit:
            first.append(bad.nonzero().reshape(-1)[:limit] + start)
    flat_idx = torch.cat(first)[:limit]
    numel = flat_a.numel()
    # the few reported elements (actual, expected, error, allowed), copied together
    a_few, e_few = flat_a[flat_idx].float(), flat_e[flat_idx].float()
    picked = torch.stack([a_few, e_few, (a_few - e_few).abs(), atol + rtol * e_few.abs()]).cpu()
    coords = [_unravel(i, tuple(actual.shape)) for i in flat_idx.cpu().tolist()]
    dtype_name = str(actual.dtype).replace("torch.", "")
    lines = [
        (f"{n_bad} of {numel} elements ({100.0 * n_bad / numel:.3g}%) differ beyond "
         f"atol={atol:.3g} + rtol={rtol:.3g}*|expected| (from the fp32 reference and from it rounded to "
         f"{dtype_name}); max abs err {max_abs:.4g}, max rel err {max_rel:.4g}")
    ]
    for j, idx in enumerate(coords):
        a_j, e_j, err_j, allowed_j = (float(v) for v in picked[:, j])
        lines.append(f"  at {tuple(idx)}: actual {a_j:.6g}, expected {e_j:.6g}, "
                     f"err {err_j:.3g} (allowed {allowed_j:.3g})")
    if n_bad > limit:
        lines.append(f"  ... and {n_bad - limit} more")
    return "\n".join(lines)


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index of element ``flat`` of a row-major tensor of ``shape`` (on the host: a
    few reported elements)."""
    idx = []
    for size in reversed(shape):
        flat, i = divmod(flat, size)
        idx.append(i)
    return tuple(reversed(idx))


def _nan_first(x: float) -> float:
    """Sort key of :func:`max` that makes a NaN error the largest."""
    return math.inf if math.isnan(x) else x


def assert_close_verbose(actual: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float,
                         *, context: str = "") -> None:
    """``torch.testing.assert_close``-style check whose failure message says how many
    and which elements differ (see :func:`mismatch_report`)."""
    report = mismatch_report(actual, expected, atol, rtol)
    if report is not None:
        raise AssertionError(f"{context}: {report}" if context else report)
