"""The constrained benchmark set: option models of real GPU-kernel suites, with their IF/THEN rules.

Each model is the option axes of one kernel test (shapes that stay a full-product
``parametrize`` are left out, as the suites' ``@pairwise`` tables do) and the rules
that the test expresses as ``pytest.skip`` / ``is_valid`` filters or conditional
axes.  Three come from this project's own ``kernel_tests`` (their axes and
constraints are the ones ``@pairwise`` receives there); the others are modelled
on the public suites checked out under ``/work/suites`` (the file named in each
``source``): the values are upstream's, the rules re-state upstream's skips.

A rule is ``(if_terms, (axis, allowed))``: when every ``axis == value`` of
``if_terms`` holds, ``axis`` must take one of ``allowed``.  This one form
translates directly to each tool: a declarative ``{"if": ..., "then": ...}``
constraint of ours, a PICT ``IF ... THEN [x] IN {...}``, and one CNF clause over
(axis, value) literals for CASA-format tools (TCA / FastCA).

Values are strings so every tool reads the same model.  Nothing here imports the
engine; :mod:`constrained_check` is the independent checker.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CONSTRAINED", "ConstrainedModel", "Rule"]

#: ((axis, value), ...) all hold  ->  axis takes one of the allowed values
Rule = tuple[tuple[tuple[str, str], ...], tuple[str, tuple[str, ...]]]


@dataclass(frozen=True)
class ConstrainedModel:
    label: str
    axes: tuple[tuple[str, tuple[str, ...]], ...]
    rules: tuple[Rule, ...]
    strength: int
    source: str

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(v) for _, v in self.axes)


def _axes(**axes: list[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((name, tuple(vals)) for name, vals in axes.items())


def _if(*terms: tuple[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(terms)


B = ["F", "T"]
LAYOUTS = ["scalar", "C", "1C", "B1C", "BLC", "BF1C"]

FUSED = _axes(
    norm_type=["rms", "layer"], dtype=["bf16", "fp16", "fp32"], eps=["1e-6", "1e-5"], has_gate=B,
    gate_layout=["none", *LAYOUTS], has_weight=B, has_bias=B, scale_layout=LAYOUTS, shift_layout=LAYOUTS,
    padded=B,
)
#: gate_iff_layout and bias_needs_weight (kernel_tests/fused_norm/cases.py)
FUSED_RULES: tuple[Rule, ...] = (
    (_if(("has_gate", "F")), ("gate_layout", ("none",))),
    (_if(("has_gate", "T")), ("gate_layout", tuple(LAYOUTS))),
    (_if(("has_weight", "F")), ("has_bias", ("F",))),
)
NSS = _axes(
    norm_type=["rms", "layer"], dtype=["bf16", "fp16", "fp32"], eps=["1e-6", "1e-5"], has_weight=B, has_bias=B,
    scale_layout=LAYOUTS, shift_layout=LAYOUTS, padded=B,
)
ROPE_PARTIAL = _axes(is_neox=B, rope_dim=["64", "80", "96", "128"], head_dim=["64", "128", "256"])
ROPE_RULES: tuple[Rule, ...] = ((_if(("head_dim", "64")), ("rope_dim", ("64",))),)

PREFILL = _axes(
    batch_size=["12", "17", "128"], kv_len=["54", "97", "512", "2048"], qo_len=["17", "37", "127", "577"],
    page_size=["1", "5", "16"], num_qo_heads=["4", "32"], head_dim=["64", "128", "256"], causal=B,
    pos_encoding_mode=["NONE", "ROPE_LLAMA"], use_cuda_graph=B,
)
#: "qo_len > kv_len and causal is not supported"
PREFILL_RULES: tuple[Rule, ...] = (
    (_if(("causal", "T"), ("kv_len", "54")), ("qo_len", ("17", "37"))),
    (_if(("causal", "T"), ("kv_len", "97")), ("qo_len", ("17", "37"))),
    (_if(("causal", "T"), ("kv_len", "512")), ("qo_len", ("17", "37", "127"))),
)

MARLIN = _axes(
    a_type=["f16", "fp8", "int8"], b_type=["uint4", "uint4b8", "fp8", "uint8b128"], c_type=["f16", "bf16"],
    group_blocks=["-1", "0", "2", "8"], m=["1", "64", "133"], n=["256", "1024"], k=["256", "2048"],
    e=["5", "12"], topk=["2", "3"], ep_size=["1", "4"], act_order=B, is_k_full=B,
)
#: marlin_moe_generate_valid_test_cases' is_valid and supports_act_order
MARLIN_RULES: tuple[Rule, ...] = (
    (_if(("act_order", "T")), ("group_blocks", ("0", "2", "8"))),
    (_if(("act_order", "T")), ("b_type", ("uint4b8", "uint8b128"))),
    (_if(("b_type", "fp8"), ("group_blocks", "2")), ("is_k_full", ("F",))),
    (_if(("a_type", "f16")), ("c_type", ("f16",))),
    (_if(("a_type", "int8")), ("group_blocks", ("-1",))),
    (_if(("a_type", "fp8")), ("b_type", ("uint4", "uint4b8"))),
    (_if(("act_order", "F")), ("is_k_full", ("T",))),
)

SCALED_MM = _axes(
    out_dtype=["bf16", "fp16", "fp32"], a_dtype=["fp8e4m3", "fp8e5m2", "int8"],
    scale_a=["tensor", "token", "block"], scale_b=["tensor", "channel", "block"], use_bias=B,
    m=["1", "16", "33", "256", "1024"], n=["64", "256", "1000", "4096"], k=["128", "512", "1024", "4096"],
)
#: block scales go together and need k, n multiples of 128; int8 has no fp32 output
SCALED_MM_RULES: tuple[Rule, ...] = (
    (_if(("scale_a", "block")), ("scale_b", ("block",))),
    (_if(("scale_b", "block")), ("scale_a", ("block",))),
    (_if(("scale_a", "block")), ("n", ("256", "4096"))),
    (_if(("a_dtype", "int8")), ("out_dtype", ("bf16", "fp16"))),
    (_if(("a_dtype", "int8")), ("scale_a", ("tensor", "token"))),
    (_if(("use_bias", "T"), ("out_dtype", "fp32")), ("a_dtype", ("fp8e4m3",))),
)

DECODE = _axes(
    page_size=["1", "8", "16"], num_kv_heads=["4", "8"], num_qo_heads=["4", "32"], head_dim=["64", "128", "256"],
    kv_layout=["NHD", "HND"], pos_encoding_mode=["NONE", "ROPE_LLAMA", "ALIBI"], logits_soft_cap=["0.0", "30.0"],
    q_dtype=["fp16", "bf16"], kv_dtype=["fp16", "bf16", "e4m3", "e5m2"], return_lse=B, use_tensor_cores=B,
)
DECODE_RULES: tuple[Rule, ...] = (
    (_if(("q_dtype", "fp16")), ("kv_dtype", ("fp16", "e4m3", "e5m2"))),
    (_if(("q_dtype", "bf16")), ("kv_dtype", ("bf16", "e4m3", "e5m2"))),
    (_if(("num_qo_heads", "4")), ("num_kv_heads", ("4",))),
    (_if(("pos_encoding_mode", "ALIBI")), ("use_tensor_cores", ("F",))),
    (_if(("pos_encoding_mode", "ALIBI")), ("logits_soft_cap", ("0.0",))),
    (_if(("use_tensor_cores", "T"), ("head_dim", "256")), ("kv_dtype", ("fp16", "bf16"))),
)

FA_FWD = _axes(
    dtype=["fp16", "bf16", "e4m3"], mha_type=["mha", "mqa", "gqa"], causal=B, local=B, softcap=["0.0", "15.0"],
    d=["64", "96", "128", "192", "256"], seqlen_q=["1", "113", "1024"], seqlen_k=["1", "113", "1024"],
    has_qv=B, pack_gqa=["none", "F", "T"], deterministic=B,
)
FA_FWD_RULES: tuple[Rule, ...] = (
    (_if(("causal", "T")), ("local", ("F",))),
    (_if(("has_qv", "T")), ("d", ("64",))),
    (_if(("dtype", "e4m3")), ("d", ("64", "128", "192", "256"))),
    (_if(("mha_type", "mha")), ("pack_gqa", ("none", "F"))),
    (_if(("softcap", "15.0")), ("local", ("F",))),
    (_if(("has_qv", "T")), ("dtype", ("bf16",))),
    (_if(("deterministic", "T")), ("softcap", ("0.0",))),
)

FUSED_MOE = _axes(
    m=["1", "33", "64", "222"], n=["128", "1024", "2048"], k=["128", "511", "1024"], e=["8", "64"],
    topk=["2", "6"], ep_size=["1", "4"], dtype=["bf16", "fp16", "fp32"], padding=B,
    quant=["none", "fp8", "int8_w8a16", "int4_w4a16"], chunk=["none", "32768"],
)
FUSED_MOE_RULES: tuple[Rule, ...] = (
    (_if(("quant", "int4_w4a16")), ("k", ("128", "1024"))),
    (_if(("quant", "fp8")), ("dtype", ("bf16", "fp16"))),
    (_if(("ep_size", "4")), ("e", ("64",))),
    (_if(("topk", "6")), ("e", ("64",))),
    (_if(("quant", "int8_w8a16")), ("padding", ("F",))),
    (_if(("chunk", "32768")), ("m", ("64", "222"))),
)

GROUP_QUANT = _axes(
    num_tokens=["1", "7", "83", "512", "2048"], hidden_dim=["256", "512", "2048", "4096"],
    group_size=["32", "64", "128"], dst_dtype=["int8", "e4m3"], column_major_scales=B,
    scale_tma_aligned=B, scale_ue8m0=B, fuse_silu_and_mul=B, masked_layout=B,
)
GROUP_QUANT_RULES: tuple[Rule, ...] = (
    (_if(("scale_tma_aligned", "T")), ("column_major_scales", ("T",))),
    (_if(("scale_ue8m0", "T")), ("scale_tma_aligned", ("T",))),
    (_if(("scale_ue8m0", "T")), ("dst_dtype", ("e4m3",))),
    (_if(("scale_ue8m0", "T")), ("group_size", ("128",))),
    (_if(("masked_layout", "T")), ("fuse_silu_and_mul", ("T",))),
    (_if(("masked_layout", "T")), ("column_major_scales", ("T",))),
)

LIGER_RMS = _axes(
    bs=["1", "2", "9"], sl=["128", "512", "1000"], hd=["128", "512", "2048", "4096"],
    dtype=["fp32", "bf16", "fp16"], offset=["0.0", "1.0"], casting_mode=["llama", "gemma", "none"],
    in_place=B, elementwise_affine=B,
)
LIGER_RMS_RULES: tuple[Rule, ...] = (
    (_if(("casting_mode", "gemma")), ("offset", ("1.0",))),
    (_if(("casting_mode", "llama")), ("offset", ("0.0",))),
    (_if(("elementwise_affine", "F")), ("offset", ("0.0",))),
    (_if(("dtype", "fp32")), ("casting_mode", ("llama", "none"))),
)

KVCACHE = _axes(
    dtype=["bf16", "e4m3"], mha_type=["mha", "mqa", "gqa"], new_kv=B, causal_local=["FF", "TF", "FT"],
    seqlen_new_eq_seqlen_q=B, rotary_interleaved=B, rotary_fraction=["0.0", "0.5", "1.0"],
    page_size=["none", "1", "4", "128"], has_leftpad=B, has_batch_idx=B, varlen_q=B,
)
#: test_flash_attn_kvcache's skips ("not new_kv and rotary_fraction > 0"), and the
#: kernel's own limits: paged KV takes no batch index and no left padding, fp8 no rotary
KVCACHE_RULES: tuple[Rule, ...] = (
    (_if(("new_kv", "F")), ("rotary_fraction", ("0.0",))),
    (_if(("new_kv", "F")), ("seqlen_new_eq_seqlen_q", ("T",))),
    (_if(("page_size", "1")), ("has_batch_idx", ("F",))),
    (_if(("page_size", "4")), ("has_batch_idx", ("F",))),
    (_if(("page_size", "128")), ("has_batch_idx", ("F",))),
    (_if(("has_leftpad", "T"), ("page_size", "128")), ("varlen_q", ("F",))),
    (_if(("dtype", "e4m3")), ("rotary_fraction", ("0.0",))),
    (_if(("rotary_fraction", "0.0")), ("rotary_interleaved", ("F",))),
)

CONSTRAINED: list[ConstrainedModel] = [
    ConstrainedModel("fused_norm fused", FUSED, FUSED_RULES, 2, "ours: kernel_tests/fused_norm (FUSED_OPTIONS)"),
    ConstrainedModel("fused_norm nss", NSS, FUSED_RULES[2:], 2, "ours: kernel_tests/fused_norm (NSS_OPTIONS)"),
    ConstrainedModel("rope partial", ROPE_PARTIAL, ROPE_RULES, 2, "ours: kernel_tests/rope test_partial_rope"),
    ConstrainedModel("fi prefill", PREFILL, PREFILL_RULES, 2,
                     "flashinfer tests/attention/test_batch_prefill_kernels.py"),
    ConstrainedModel("vllm marlin moe", MARLIN, MARLIN_RULES, 2, "vllm tests/kernels/moe/test_moe.py (marlin)"),
    ConstrainedModel("scaled mm", SCALED_MM, SCALED_MM_RULES, 2,
                     "vllm tests/kernels/quantization (cutlass scaled_mm), torchao float8"),
    ConstrainedModel("fi decode", DECODE, DECODE_RULES, 2, "flashinfer tests/attention/test_batch_decode_kernels.py"),
    ConstrainedModel("fa fwd", FA_FWD, FA_FWD_RULES, 2, "flash-attention hopper/test_flash_attn.py"),
    ConstrainedModel("vllm fused moe", FUSED_MOE, FUSED_MOE_RULES, 2, "vllm tests/kernels/moe/test_moe.py"),
    ConstrainedModel("sgl group quant", GROUP_QUANT, GROUP_QUANT_RULES, 2,
                     "sglang sgl-kernel/tests/test_per_token_group_quant_8bit.py"),
    ConstrainedModel("liger rmsnorm", LIGER_RMS, LIGER_RMS_RULES, 2, "liger test/transformers/test_rms_norm.py"),
    ConstrainedModel("fa kvcache", KVCACHE, KVCACHE_RULES, 2, "flash-attention hopper/test_flash_attn.py (kvcache)"),
    ConstrainedModel("fused_norm fused t=3", FUSED, FUSED_RULES, 3, "ours: kernel_tests/fused_norm (FUSED_OPTIONS)"),
    ConstrainedModel("fi prefill t=3", PREFILL, PREFILL_RULES, 3,
                     "flashinfer tests/attention/test_batch_prefill_kernels.py"),
    ConstrainedModel("vllm marlin moe t=3", MARLIN, MARLIN_RULES, 3, "vllm tests/kernels/moe/test_moe.py (marlin)"),
    ConstrainedModel("fi decode t=3", DECODE, DECODE_RULES, 3, "flashinfer tests/attention/test_batch_decode_kernels.py"),
    ConstrainedModel("vllm fused moe t=3", FUSED_MOE, FUSED_MOE_RULES, 3, "vllm tests/kernels/moe/test_moe.py"),
    ConstrainedModel("fa kvcache t=3", KVCACHE, KVCACHE_RULES, 3, "flash-attention hopper/test_flash_attn.py (kvcache)"),
    ConstrainedModel("fa fwd t=3", FA_FWD, FA_FWD_RULES, 3, "flash-attention hopper/test_flash_attn.py"),
    ConstrainedModel("sgl group quant t=3", GROUP_QUANT, GROUP_QUANT_RULES, 3,
                     "sglang sgl-kernel/tests/test_per_token_group_quant_8bit.py"),
    ConstrainedModel("liger rmsnorm t=3", LIGER_RMS, LIGER_RMS_RULES, 3, "liger test/transformers/test_rms_norm.py"),
]
