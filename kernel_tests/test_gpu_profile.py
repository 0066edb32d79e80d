"""benchmarks/gpu_profile.py's arithmetic on hand-made profiles: the phase sums per
family, and the arguments that split a kernel into variants."""

from __future__ import annotations

from benchmarks.gpu_profile import family_of, splitters, sums


def _item(nodeid: str, **phases: float) -> dict[str, object]:
    base = {"nodeid": nodeid, "setup_s": 0.1, "call_s": 1.0, "teardown_s": 0.1, "compile_s": 0.0,
            "compile_in_kernel_s": 0.0, "variants": 0}
    return {**base, **phases}


def test_family_of():
    assert family_of("kernel_tests/rmsnorm/test_rmsnorm.py::test_rmsnorm[x]") == "rmsnorm"
    assert family_of("kernel_tests/test_upstream_ci_audit.py::test_rmsnorm_row") == "(kernel_tests)"


def test_sums_split_compile_out_of_the_kernel_phase():
    items = [_item("a", inputs=0.1, kernel=0.5, reference=0.2, compare=0.1, compile_s=0.4, compile_in_kernel_s=0.4,
                   variants=2),
             _item("b", compile_s=0.3, variants=1)]  # a test without phases that compiled (an error test)
    s = sums(items)
    assert s["items"] == 2 and s["variants"] == 3
    assert round(s["kernel"], 6) == 0.1 and round(s["compile"], 6) == 0.7
    # case time 2.4 = phases 0.5 (kernel net 0.1) + compile 0.7 + other
    assert round(s["other"], 6) == round(2.4 - (0.1 + 0.1 + 0.2 + 0.1) - 0.7, 6)


def _spec(block: int, n_div: bool, warps: int = 4) -> dict[str, object]:
    """A Triton specialization record: args (x_ptr, n, BLOCK)."""
    return {"signature": {"x_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr"},
            "constant_keys": [[2]], "constant_vals": [block],
            "attrs_keys": [[0]] + ([[1]] if n_div else []),
            "attrs_vals": [[["tt.divisibility", 16]]] + ([[["tt.divisibility", 16]]] if n_div else []),
            "options": {"num_warps": warps, "num_stages": 3}}


def test_splitters_name_the_specialized_arguments():
    variants = [{"kernel": "k", "spec": _spec(b, d)} for b in (64, 128) for d in (False, True)]
    variants.append({"kernel": "one", "spec": _spec(64, True)})
    got = splitters(variants)
    assert set(got) == {"k"}  # a kernel with one variant has nothing to split
    assert sorted(got["k"]) == [("BLOCK", 2), ("n", 2)]
