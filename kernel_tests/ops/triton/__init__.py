"""Portable Triton kernels used by the kernel suites (run on GPUs and, on CPU, through
the Triton interpreter: set ``TRITON_INTERPRET=1`` before importing these modules)."""
