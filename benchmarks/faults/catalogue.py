"""The fault catalogue: realistic kernel bugs as source mutations of the families' kernels.

Each fault names the suite test whose table the study runs for it (``target``), what
the bug is and why it is plausible, and one or more exact source replacements in the
family's ``kernels.py`` (each original snippet must occur exactly once). ``expect`` is
the interaction the author aimed at, for the reader only: the order reported is always
the one measured on the full product (:mod:`.analysis`).

Some mutations need a condition over two options (``if bias is 2-D and bf16``): each
is written inside the code path the kernel already has for those options (a launcher
specialization, a constexpr branch), as such bugs appear in real kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.faults.mutation import Mutation


@dataclass(frozen=True)
class Fault:
    id: str
    target: str               # Target.key
    title: str
    why: str
    mutations: tuple[Mutation, ...]
    expect: str               # the interaction aimed at (informative; the measured order decides)


def _m(original: str, mutated: str) -> tuple[Mutation, ...]:
    return (Mutation(original, mutated),)


_SG_STRIDES = "        act.stride(0), weight.stride(0), out.stride(0), out.stride(1), stride_bn, stride_bm,\n"
_SG_BIAS_BN = "    stride_bn = 0 if bias is None or bias.dim() == 1 else bias.stride(0)\n"
_SG_REDUCE = "        acc += tl.load(ptrs + s * stride_ws_s, mask=mask, other=0.0)\n"
_ROPE_GPTJ = "        i1 = 2 * r3\n        i2 = 2 * r3 + 1\n"
_FN_LAYER_ONE = ("            d = tl.where(mask, r - mean, 0.0)\n"
                 "            rstd = tl.rsqrt(tl.sum(d * d, axis=0) / C + eps)\n"
                 "            xhat = d * rstd\n")

FAULTS: tuple[Fault, ...] = (
    # ------------------------------------------------------------------ skinny GEMMs
    Fault("sg-bias2d-row-stride", "skinny_gemm/test_wvsplitk",
          "(n, m) bias read with its column stride as row stride",
          "stride(-1) for stride(0): every row of a 2-D bias reads row 0 shifted by one element",
          _m(_SG_BIAS_BN, _SG_BIAS_BN.replace("bias.stride(0)", "bias.stride(-1)")), "bias_mode=2"),
    Fault("sg-weight-stride-k", "skinny_gemm/test_wvsplitk",
          "weight row stride taken as k",
          "assumes dense weight rows: padded weights are read misaligned",
          _m(_SG_STRIDES, _SG_STRIDES.replace("weight.stride(0), out", "k, out")), "padded_b"),
    Fault("sg-bias2d-bf16-broadcast", "skinny_gemm/test_wvsplitk",
          "(n, m) bias broadcast as (m,) in bf16",
          "a bf16 epilogue specialization that only knows the (m,) bias: the 2-D bias's first row is "
          "added to every output row",
          _m(_SG_BIAS_BN, _SG_BIAS_BN.replace("bias.dim() == 1", "bias.dim() == 1 or bias.dtype == torch.bfloat16")),
          "bias_mode=2 x bf16"),
    Fault("sg-bf16-bias2d-dense-act", "skinny_gemm/test_wvsplitk",
          "bf16 (n, m)-bias path assumes dense activation rows",
          "the bf16 2-D-bias specialization passes k as the activation row stride: wrong only when the "
          "activation is padded as well",
          _m(_SG_STRIDES, _SG_STRIDES.replace(
              "act.stride(0),", "act.stride(0) if stride_bn == 0 or act.dtype != torch.bfloat16 else k,", 1)),
          "bf16 x bias_mode=2 x padded_a"),
    Fault("sg-krc-padded-a-bias2d", "skinny_gemm/test_wvsplitkrc",
          "wrong activation row stride with padded_a and an (n, m) bias",
          "the 2-D-bias path passes k as the activation row stride (correct only for dense rows)",
          _m(_SG_STRIDES, _SG_STRIDES.replace("act.stride(0),", "act.stride(0) if stride_bn == 0 else k,", 1)),
          "padded_a x bias_mode=2"),
    Fault("sg-krc-fp16-bias1d-dense-act", "skinny_gemm/test_wvsplitkrc",
          "fp16 (m,)-bias path assumes dense activation rows",
          "the fp16 1-D-bias specialization passes k as the activation row stride: wrong only with a "
          "padded activation as well",
          _m(_SG_STRIDES, _SG_STRIDES.replace(
              "act.stride(0),",
              "act.stride(0) if stride_bn != 0 or bias is None or act.dtype != torch.float16 else k,", 1)),
          "fp16 x bias_mode=1 x padded_a"),
    Fault("sg-reduce-drops-last-split", "skinny_gemm/test_wvsplitkrc",
          "split-K reduce skips the last K shard",
          "off-by-one in the reduce loop bound: every multi-shard problem loses its last shard",
          _m("    for s in range(SPLITS):\n", "    for s in range(SPLITS - 1):\n"), "shape only (every row)"),
    Fault("sg-reduce-low-precision", "skinny_gemm/test_wvsplitkrc",
          "split-K partials summed in the output precision",
          "the reduce rounds its running sum to fp16/bf16 after every shard instead of keeping fp32",
          _m(_SG_REDUCE, "        acc = (acc + tl.load(ptrs + s * stride_ws_s, mask=mask, other=0.0))"
                         ".to(out_ptr.dtype.element_ty).to(tl.float32)\n"),
          "precision: dtype x xnorm (tight tolerance)"),
    Fault("sg-fp8-scale-twice-biased", "skinny_gemm/test_wvsplitk_fp8",
          "FP8 scale applied twice when biased",
          "the bias branch of the epilogue re-applies scale_a * scale_b",
          _m("        acc = acc + bias.to(tl.float32)\n",
             "        if HAS_SCALE:\n            acc = acc * scale\n        acc = acc + bias.to(tl.float32)\n"),
          "biased"),
    Fault("sg-bias-fp16-bits", "skinny_gemm/test_wvsplitk_fp8",
          "bias pointer typed fp16",
          "the bias is handed to the kernel as fp16: bf16 bias bits are reinterpreted (fp16 outputs are right)",
          _m("    bias_t = bias if bias is not None else out",
             "    bias_t = bias.view(torch.float16) if bias is not None else out"), "biased x bf16"),
    # ------------------------------------------------------------------ RMSNorm
    Fault("rms-x-stride-from-out", "rmsnorm/test_rmsnorm",
          "x read with out's row stride",
          "stride_x passed as out.stride(0): in place they agree; a separate out with padded x reads "
          "the NaN padding",
          _m("x.stride(0), out.stride(0), eps,", "out.stride(0), out.stride(0), eps,"), "specify_out x padded"),
    Fault("rms-bf16-x-stride-from-out", "rmsnorm/test_rmsnorm",
          "bf16 launch reads x with out's row stride",
          "the same slip only in the bf16 launch (its own rounding path)",
          _m("x.stride(0), out.stride(0), eps,",
             "x.stride(0) if x.dtype != torch.bfloat16 else out.stride(0), out.stride(0), eps,"),
          "bf16 x specify_out x padded"),
    Fault("rms-mask-row-stride", "rmsnorm/test_rmsnorm",
          "sum-of-squares mask bounded by the row stride",
          "the first pass masks columns against stride_x instead of hidden: padding enters the mean",
          _m("        mask = row_mask[:, None] & (c[None, :] < hidden)\n",
             "        mask = row_mask[:, None] & (c[None, :] < stride_x)\n"), "padded"),
    Fault("rms-second-pass-reads-out", "rmsnorm/test_rmsnorm",
          "second pass reads out instead of x",
          "in place they are the same tensor, so only specify_out shows it",
          _m("x = tl.load(x_rows + c[None, :], mask=mask, other=0.0).to(tl.float32)\n        w = tl.load",
             "x = tl.load(out_rows + c[None, :], mask=mask, other=0.0).to(tl.float32)\n        w = tl.load"),
          "specify_out"),
    # ------------------------------------------------------------------ RoPE
    Fault("rope-head-mask-typo", "rope/test_rope",
          "head mask compares with the token count",
          "offs_h < T for offs_h < H: heads beyond the number of tokens are left unrotated",
          _m("    h_mask = offs_h < H\n", "    h_mask = offs_h < T\n"), "heads > tokens"),
    Fault("rope-k-skipped-mha", "rope/test_rope",
          "k not rotated without GQA",
          "an MHA special case assumes q and k are rotated by one launch and skips k's",
          _m("    _launch(kv, cache, pos, rot, neox)\n",
             "    if qv.shape[1] != kv.shape[1]:  # MHA: k goes with q\n        _launch(kv, cache, pos, rot, neox)\n"),
          "gqa_ratio=1"),
    Fault("rope-gptj-mask-head-dim", "rope/test_partial_rope",
          "GPT-J pairs masked against the head size",
          "the GPT-J branch bounds its lanes by D instead of rotary_dim: with a partial rotary width that is "
          "not a power of two, the block's spare lanes write zeros past rotary_dim",
          _m(_ROPE_GPTJ, _ROPE_GPTJ + "        mask = t_mask[:, None, None] & h_mask[None, :, None] & (i2 < D)\n"),
          "GPT-J x partial rope_dim"),
    Fault("rope-neox-half-from-block", "rope/test_partial_rope",
          "NeoX second half offset by the block size",
          "i2 = r + BLOCK_R instead of r + HALF: equal only when rotary_dim/2 is a power of two",
          _m("        i2 = r3 + HALF\n", "        i2 = r3 + BLOCK_R\n"), "NeoX x rope_dim in {80, 96}"),
    Fault("rope-sin-offset-block", "rope/test_partial_rope",
          "sin read at the block offset",
          "the sin half of the cache row is read at BLOCK_R instead of HALF",
          _m("    sin = tl.load(cs_ptrs + HALF,", "    sin = tl.load(cs_ptrs + BLOCK_R,"), "rope_dim in {80, 96}"),
    Fault("rope-kcache-partner-gptj-offset", "rope/test_fused_rope_store",
          "k cache's partner element stored at i1 + 1",
          "the cache store writes the second element of each pair at the GPT-J offset for both layouts: "
          "NeoX pairs land in the wrong channels of k_cache (q and k themselves are right)",
          _m("        tl.store(kc + i2, o2.to(k_cache_ptr.dtype.element_ty), mask=mask)\n",
             "        tl.store(kc + i1 + 1, o2.to(k_cache_ptr.dtype.element_ty), mask=mask)\n"), "NeoX"),
    Fault("rope-kcache-head-stride-rotary", "rope/test_fused_rope_store",
          "k cache head stride = rotary_dim",
          "the cache's head stride uses the rotated width: wrong only when head_dim > rotary_dim, which "
          "the fused-store test (like upstream's) never runs",
          _m("        kc = k_cache_ptr + loc3 * stride_kc + h3 * D\n",
             "        kc = k_cache_ptr + loc3 * stride_kc + h3 * (2 * HALF)\n"), "partial rotary (not in the model)"),
    # ------------------------------------------------------------------ fused norm
    Fault("fn-layer-eps-ignored", "fused_norm/test_fused_residual_norm_scale_shift",
          "eps ignored for LayerNorm",
          "the LayerNorm branch bakes in 1e-6 (as upstream's FlyDSL kernel does)",
          _m(_FN_LAYER_ONE, _FN_LAYER_ONE.replace("/ C + eps)", "/ C + 1e-6)")), "layer x eps=1e-5"),
    Fault("fn-layer-unmasked-centring", "fused_norm/test_fused_residual_norm_scale_shift",
          "LayerNorm centring not masked",
          "d = r - mean without the mask: the block's padding lanes add mean^2 each to the variance",
          _m(_FN_LAYER_ONE, _FN_LAYER_ONE.replace("tl.where(mask, r - mean, 0.0)", "r - mean")),
          "layer (C not a power of two), precision"),
    Fault("fn-scale-frame-modulo", "fused_norm/test_fused_residual_norm_scale_shift",
          "scale row index l % frame instead of l // frame",
          "per-row (frame length 1) scale always reads row 0",
          _m("(l_idx // sc_frame) * sc_sf", "(l_idx % sc_frame) * sc_sf"), "scale_layout=BLC"),
    Fault("fn-x-row-stride-from-y", "fused_norm/test_fused_residual_norm_scale_shift",
          "x row stride taken from y",
          "y is dense, x may be padded: padded inputs are read misaligned",
          _m("        x.stride(0), x.stride(1),\n", "        x.stride(0), y.stride(1),\n"), "padded"),
    Fault("fn-gate-row-stride-from-x", "fused_norm/test_fused_residual_norm_scale_shift",
          "per-row gate stepped with x's row stride",
          "the gate's row stride is taken from x (equal while x is dense): a padded x moves the gate rows",
          _m("        g.stride_b, g.stride_f, g.stride_c, g.frame_len,\n",
             "        g.stride_b, x.stride(1) if g.stride_f else 0, g.stride_c, g.frame_len,\n"),
          "gate_layout=BLC x padded"),
    Fault("fn-rms-bias-dropped", "fused_norm/test_fused_residual_norm_scale_shift",
          "bias only applied for LayerNorm",
          "RMSNorm specializations assume no bias (upstream always pairs bias with layer)",
          _m("                        y_row, HAS_WEIGHT, HAS_BIAS, ROUND_BF16)\n    else:",
             "                        y_row, HAS_WEIGHT, HAS_BIAS and not IS_RMS, ROUND_BF16)\n    else:"),
          "rms x has_bias"),
    Fault("fn-gate-dropped-layer-noweight", "fused_norm/test_fused_residual_norm_scale_shift",
          "gate ignored in LayerNorm without weight",
          "the no-affine LayerNorm specialization is instantiated without the gate flag",
          _m("        r = _residual_sum(res_row, x_row, g_row, offs0, mask, g_sc, HAS_RESIDUAL, HAS_GATE)\n",
             "        r = _residual_sum(res_row, x_row, g_row, offs0, mask, g_sc, HAS_RESIDUAL,\n"
             "                          HAS_GATE and (IS_RMS or HAS_WEIGHT))\n"),
          "has_gate x layer x no weight"),
)


def by_id() -> dict[str, Fault]:
    return {f.id: f for f in FAULTS}
