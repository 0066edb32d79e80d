"""The skinny-GEMM family: vLLM's ROCm skinny-GEMM ops (LLMM1, wvSplitK, wvSplitKrc, wvSplitKQ)."""
