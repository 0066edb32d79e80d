"""A labelled corpus of multi-name ``parametrize`` tables in the style of public GPU-kernel
suites (norm, RoPE, GEMM, attention, cross-entropy, sort/top-k, quantization, MoE), written
for this project (no copied code).  Each entry: (label, argnames, rows, what it is).
``label`` is what a maintainer means: ``"case"`` (the rows are the point) or ``"option"``
(independent options whose combinations should be covered).  The rule of
:mod:`pairwise_param.report.classify` is measured against it (``test_classify.py``).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

F16, BF16, F32, FP8, I8 = "float16", "bfloat16", "float32", "float8_e4m3fn", "int8"

Entry = tuple[str, str, list[tuple[Any, ...]], str]

CORPUS: list[Entry] = [
    # -- case tables ---------------------------------------------------------------------
    ("case", "x,expected", [(1, 1), (2, 4), (3, 9)], "input with its output"),
    ("case", "dtype,atol", [(F16, 1e-2), (BF16, 2e-2), (F32, 1e-5)], "tolerance per dtype"),
    ("case", "dtype,atol,rtol", [(F16, 1e-3, 1e-3), (BF16, 1e-2, 1e-2), (F32, 1e-5, 1e-5)], "tolerances"),
    ("case", "shape,dim", [((4, 8), 0), ((4, 8), 1), ((2, 3, 4), 2), ((16,), 0)], "shape and dim"),
    ("case", "batch,seqlen,heads", [(1, 128, 8), (2, 512, 16), (4, 1024, 32)], "int shapes"),
    ("case", "m,n,k", [(1, 4096, 4096), (16, 4096, 11008), (128, 11008, 4096), (256, 8192, 8192)], "gemm shapes"),
    ("case", "shape,block_size", [((None, 128), 64), ((32, 128), 64), ((1, None), 32)], "None-mixed shape"),
    ("case", "num_tokens,hidden,group", [(7, 512, None), (83, 4096, 128), (4096, 5120, None)], "None group"),
    ("case", "in_dtype,out_dtype", [(F16, F32), (BF16, F32), (F32, F32), (FP8, BF16)], "valid dtype pairs"),
    ("case", "dtype,quant_dtype", [(F16, FP8), (BF16, FP8), (F32, I8), (F16, I8)], "valid quant pairs"),
    ("case", "act_dtype,weight_dtype", [(BF16, FP8), (F16, FP8), (BF16, I8), (F16, I8), (F32, F32)], "valid pairs"),
    ("case", "use_fp8,use_int8,use_int4", [(True, False, False), (False, True, False), (False, False, True)], "one-hot"),
    ("case", "causal,local,sliding,chunked",
     [(True, False, False, False), (False, True, False, False), (False, False, True, False),
      (False, False, False, True)], "one-hot mask kind"),
    ("case", "dtype,error", [(I8, TypeError), ("complex64", NotImplementedError)], "unsupported dtype raises"),
    ("case", "args,exc", [((1, 2), ValueError), ((None, 2), TypeError), ((0, 0), ZeroDivisionError)], "raises"),
    ("case", "block,match", [(3, "must be a power of two"), (0, "must be positive"), (-1, "must be positive")],
     "error message"),
    ("case", "value,pattern", [("1.5e3", re.compile(r"\d+\.\de\d")), ("abc", re.compile(r"[a-z]+"))], "regexes"),
    ("case", "arch,supported", [("sm80", True), ("sm90", True), ("sm75", False), ("sm100", True)], "support"),
    ("case", "op,reason", [("topk", "needs k <= 1024"), ("sort", "stable only"), ("argsort", "stable only")],
     "skip reasons"),
    ("case", "text,tokens", [("hello", 1), ("hello world", 2), ("", 0)], "inputs and outputs"),
    ("case", "reduction,expected_shape", [("none", (4,)), ("mean", ()), ("sum", ())], "expected shape"),
    ("case", "k,sorted", [(1, True), (8, True), (64, False), (1024, False)], "k with a flag per k"),
    ("case", "name,fn", [("relu", "relu"), ("gelu", "gelu_tanh"), ("silu", "silu")], "named scenarios"),
    ("case", "head_dim,block_n", [(64, 128), (128, 64), (256, 32)], "head dim with its block"),
    ("case", "model,hidden,heads", [("llama-7b", 4096, 32), ("llama-70b", 8192, 64), ("mistral", 4096, 32)],
     "model configs"),
    ("case", "rope_type,scaling", [("default", None), ("linear", 2.0), ("dynamic", 4.0), ("yarn", 8.0)],
     "rope variant with its factor"),
    ("case", "quant,group_size", [("fp8", None), ("int4", 128), ("int8", None), ("nvfp4", 16)],
     "quant with its group"),
    ("case", "layout,transpose_a,transpose_b", [("NN", False, False), ("NT", False, True), ("TN", True, False),
                                                ("TT", True, True)], "layout spelled out"),
    ("case", "dtype,eps", [(F16, 1e-5), (BF16, 1e-5), (F32, 1e-6), (F32, 1e-12)], "eps per dtype"),
    ("case", "input,want", [([3, 1, 2], [1, 2, 3]), ([1], [1]), ([], [])], "sort cases"),
    ("case", "kv_layout,page_size", [("NHD", 1), ("HND", 16), ("NHD", 16)], "valid layouts"),
    ("case", "mode,backend", [("prefill", "fa2"), ("prefill", "fa3"), ("decode", "triton"), ("decode", "fa2")],
     "supported backends per mode"),
    # -- option tables -------------------------------------------------------------------
    ("option", "causal,varlen", list(itertools.product([True, False], [True, False])), "two flags"),
    ("option", "dtype,causal", list(itertools.product([F16, BF16], [True, False])), "dtype x flag"),
    ("option", "dtype,has_bias,residual",
     list(itertools.product([F16, BF16, F32], [True, False], [True, False])), "norm options"),
    ("option", "is_neox,use_cache,dtype", list(itertools.product([True, False], [True, False], [F16, BF16])),
     "rope options"),
    ("option", "reduction,ignore_index,label_smoothing",
     list(itertools.product(["mean", "sum", "none"], [-100, 0], [0.0, 0.1])), "loss options"),
    ("option", "descending,stable", [(True, True), (True, False), (False, True), (False, False)], "sort flags"),
    ("option", "trans_a,trans_b", [(False, False), (False, True), (True, False), (True, True)], "gemm flags"),
    ("option", "dtype,enable_pdl,use_tma", [(F16, True, True), (F16, False, False), (BF16, True, False),
                                            (BF16, False, True), (F32, True, True), (F32, False, False)],
     "hand-written pairwise"),
    ("option", "dtype,has_scale,add_residual", [(F16, True, True), (F16, False, False), (BF16, True, False),
                                                (BF16, False, True)], "hand-written covering"),
    ("option", "kv_dtype,paged,softcap", [(F16, True, 0.0), (F16, False, 30.0), (FP8, True, 30.0)],
     "incomplete options: a real gap"),
    ("option", "dtype,layout,contiguous", list(itertools.product([F16, BF16], ["NHD", "HND"], [True, False])),
     "attention options"),
    ("option", "renormalize,use_grouped_topk", list(itertools.product([True, False], [True, False])),
     "moe flags"),
    ("option", "dtype,inplace,fused",
     [r for r in itertools.product([F16, BF16, F32], [True, False], [True, False]) if r != (F32, True, True)],
     "one combination left out (a gap the audit should show)"),
    ("option", "activation,dtype", list(itertools.product(["silu", "gelu"], [F16, BF16, F32])), "act x dtype"),
]
