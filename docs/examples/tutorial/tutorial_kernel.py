"""A stand-in for a kernel launcher, so the tutorial runs anywhere (no GPU, no torch)."""


def scaled_rows(n: int, *, dtype: str, padded: bool, bias_mode: int, xnorm: bool) -> list[float]:
    """Return ``n`` values; the options only change the arithmetic, as a kernel's would."""
    scale = {"fp16": 0.5, "bf16": 0.25, "fp32": 1.0}[dtype]
    bias = (0.0, 1.0, -1.0)[bias_mode]
    values = [scale * i + bias for i in range(n + (1 if padded else 0))][:n]
    if xnorm:
        top = max((abs(v) for v in values), default=1.0) or 1.0
        values = [v / top for v in values]
    return values
