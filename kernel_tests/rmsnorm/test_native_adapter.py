"""The SGLang adapter's own logic, against stand-in modules (no GPU or SGLang needed):
which module it imports, which keyword it passes, and what it reports as unsupported."""

from __future__ import annotations

import sys
import types

import pytest
import torch

from kernel_tests.rmsnorm import native
from kernel_tests.rmsnorm.reference import rmsnorm_ref
from kernel_tests.support.backends import BackendUnavailable


def _fake_module(monkeypatch, name, fn, **attrs):
    module = types.ModuleType(name)
    module.rmsnorm = fn
    for k, v in attrs.items():
        setattr(module, k, v)
    monkeypatch.setitem(sys.modules, name, module)
    return module


@pytest.fixture
def gpu_visible(monkeypatch):
    monkeypatch.setattr(native, "_gpu_visible", lambda: True)
    for name in native.MODULES:  # no real SGLang here, whatever is installed
        monkeypatch.setitem(sys.modules, name, None)


def test_no_gpu_is_unavailable(monkeypatch):
    monkeypatch.setattr(native, "_gpu_visible", lambda: False)
    with pytest.raises(BackendUnavailable, match="needs a CUDA or ROCm GPU"):
        native.load_native()


def test_no_sglang_is_unavailable(gpu_visible):
    with pytest.raises(BackendUnavailable, match="needs SGLang's JIT kernels importable"):
        native.load_native()


def test_current_api(gpu_visible, monkeypatch):
    calls = []

    def rmsnorm(input, weight, out=None, eps=1e-6):
        calls.append(eps)
        out.copy_(rmsnorm_ref(input, weight, eps).to(out.dtype))

    _fake_module(monkeypatch, native.MODULES[0], rmsnorm, _is_supported_rmsnorm_hidden_size=lambda h: h % 64 == 0)
    backend = native.load_native()
    x = torch.randn(3, 128)
    w = torch.randn(128)
    out = torch.empty_like(x)
    assert backend.rmsnorm(x, w, 1e-5, out=out) is out
    assert torch.allclose(out, rmsnorm_ref(x, w, 1e-5)) and calls == [1e-5]
    y = x.clone()
    assert backend.rmsnorm(y, w, 1e-6) is y
    assert backend.unsupported(torch.float16, 128) is None
    assert "hidden=100" in backend.unsupported(torch.float16, 100)
    assert "fp16/bf16" in backend.unsupported(torch.float32, 128)


def test_older_api_without_eps(gpu_visible, monkeypatch):
    def rmsnorm(input, weight, output):
        output.copy_(rmsnorm_ref(input, weight, 1e-6).to(output.dtype))

    _fake_module(monkeypatch, native.MODULES[1], rmsnorm)
    backend = native.load_native()
    x = torch.randn(2, 64)
    assert backend.rmsnorm(x, torch.ones(64)) is x
    with pytest.raises(ValueError, match="no eps argument"):
        backend.rmsnorm(x, torch.ones(64), 1e-2)
