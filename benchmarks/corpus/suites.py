"""The public GPU-kernel suites the corpora were labelled on: where each checkout lives
under ``--root`` (default ``/work/suites``), which folders hold its tests, and the
snapshot it was labelled at.  The checkouts are never part of this repository (only the
labels derived from them are): ``benchmarks/README.md`` says how to bring them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Suite:
    name: str  # the corpus' "suite" field and the checkout folder under --root
    origin: str  # the GitHub repository the snapshot came from
    commit: str  # HEAD of the snapshot the labels were made at
    tests: tuple[str, ...]  # test folders, relative to the checkout
    packages: tuple[str, ...]  # the suite's own (compiled) packages, stubbed when collecting


SUITES: dict[str, Suite] = {s.name: s for s in [
    # vLLM's own snapshot is over the fetch limit; local-inference-lab/vllm is a fork at
    # upstream's 2026-05-24 head ("Reduce W4A16 conversion overhead"), tests/kernels unchanged
    Suite("vllm", "local-inference-lab/vllm", "28be48fa944d8c58aeffd1ab1b56e27828c6b268",
          ("tests/kernels",), ("vllm",)),
    # likewise sgl-project/sglang; modal-projects/sglang is a fork at 2026-07-20
    Suite("sglang", "modal-projects/sglang", "8905cbd42f4a27dbecad6487cd3904278756fef8",
          ("sgl-kernel/tests", "python/sglang/jit_kernel/tests", "test/registered/jit"),
          ("sglang", "sgl_kernel")),
    Suite("flashinfer", "flashinfer-ai/flashinfer", "fb28d7242b3506a2348265962041acc1fb56cca4",
          ("tests",), ("flashinfer",)),
    Suite("liger", "linkedin/Liger-Kernel", "ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c",
          ("test",), ("liger_kernel",)),
    Suite("flash-attention", "Dao-AILab/flash-attention", "0251105a2fb19d2957484b7f023cd8c115286ced",
          ("tests", "hopper"), ("flash_attn", "flash_attn_2_cuda", "flash_attn_interface", "flash_attn_3",
                                "flash_attn_3_cuda", "hopper")),
    Suite("aiter", "ROCm/aiter", "e4048607a535ace3a2b51ded31b1c8c2d45c0879", ("op_tests",), ("aiter",)),
    Suite("torchao", "pytorch/ao", "36027d82d1ad9949597ea16002ff4940374b1b94", ("test",), ("torchao",)),
    Suite("tilelang", "tile-ai/tilelang", "a35008a42531c62b976ae4cec3855d4383db0f3c",
          ("testing/python",), ("tilelang",)),
    # issue 35: the six suites of clients_4 (same commits), labelled after the rule of issue 35
    # was fitted; held out with aiter..tilelang (audit_corpus.SPLITS)
    Suite("xformers", "facebookresearch/xformers", "ca6d2aa0d43241fc8a8dcd872debc2406160160d",
          ("tests",), ("xformers",)),
    Suite("bitsandbytes", "bitsandbytes-foundation/bitsandbytes", "95f9af309d4d5793847169c39288dcd3fcbdf564",
          ("tests",), ()),
    Suite("mamba", "state-spaces/mamba", "e9594ce1c732d97440f0332fdc43170a2294dbfa",
          ("tests",), ("mamba_ssm", "causal_conv1d", "selective_scan_cuda", "causal_conv1d_cuda")),
    Suite("causal-conv1d", "Dao-AILab/causal-conv1d", "0d2252d161f25f7907bbd05985c08ab98d255874",
          ("tests",), ("causal_conv1d",)),
    Suite("flash-linear-attention", "fla-org/flash-linear-attention", "bc3b101dcb713ddc5bd8924b66754eb68b5ccf89",
          ("tests",), ("fla",)),
    Suite("fbgemm", "pytorch/FBGEMM", "71d6f8b229d964e61cac24df9bbd2ffcc4b4d378",
          ("fbgemm_gpu/test",), ("fbgemm_gpu", "fbgemm_gpu_experimental")),
    # the seed case's hand cut (issue 35): upstream vLLM is over the fetch limit, so this
    # checkout holds the one file, tests/kernels/quantization/test_rocm_skinny_gemms.py, at
    # this commit (benchmarks/README.md); its three OPTIONS_* lists are the real hand-cut lists
    Suite("vllm-upstream", "vllm-project/vllm", "0114d071548a759256d16f74e9872cc43ad6f00e",
          ("tests/kernels/quantization/test_rocm_skinny_gemms.py",), ("vllm",)),
]}
