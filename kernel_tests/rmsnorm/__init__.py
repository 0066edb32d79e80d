"""The RMSNorm family: SGLang's JIT RMSNorm (``y = x * rsqrt(mean(x^2) + eps) * w``)."""
