"""Rotary embedding tests (several stacked flags, one skipped value)."""

import sys

import pytest

IS_NEOX_STYLE = [True, False]


class TestRotary:
    # shapes first, then the options
    @pytest.mark.parametrize("batch_size", [1, 5])
    @pytest.mark.parametrize("seq_len", [11, 8192])
    @pytest.mark.parametrize("is_neox_style", [True, False])
    @pytest.mark.parametrize("rotary_dim", [None, 32])
    @pytest.mark.parametrize(
        "dtype",
        [
            "float16",
            pytest.param("bfloat16", marks=pytest.mark.skipif(sys.platform == "win32", reason="no bf16"), id="bf16"),
            "float32",
        ],
    )
    @pytest.mark.parametrize("use_key", [True, False])
    @pytest.mark.parametrize("device", ["cpu", "meta"])
    @pytest.mark.parametrize("inplace", [True, False])
    def test_rotary_embedding(self, batch_size, seq_len, is_neox_style, rotary_dim, dtype, use_key, device,
                              inplace):
        pass
