"""attnlab check --op attention_backward through the client: PyTorch's CPU
attention autograd (attnlab_check.torch_backward over scaled dot-product
attention with the mask converted) passes in float32 and bfloat16 at 5
seeds; planted mistakes fail the property about them."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import attnlab_check  # noqa: E402  (from the checkout)

import backward_kernels  # noqa: E402
import kernels  # noqa: E402

CASES = 40
SEEDS = (1, 2, 3, 4, 5)
PROPERTIES = 6
needs_torch = pytest.mark.skipif(kernels.torch is None, reason="torch is not installed")


def test_numpy_backward_passes():
    result = attnlab_check.check(backward_kernels.numpy_backward, op="attention_backward",
                                 cases=CASES)
    assert "%d passed, 0 failed" % PROPERTIES in result.report, result.report


def test_the_backward_properties_are_listed():
    assert attnlab_check.list_properties(backward_kernels.numpy_backward, op="attention_backward") == [
        "backward_oracle_agreement", "backward_exact_zeros", "backward_ds_rows_sum_to_zero",
        "backward_permutation_equivariance", "backward_finite_difference",
        "backward_fully_forbidden_refused"]


@needs_torch
@pytest.mark.parametrize("seed", SEEDS)
def test_torch_autograd_float32_passes(seed):
    result = attnlab_check.check(backward_kernels.torch_backward_float32, op="attention_backward",
                                 precision="float32", cases=CASES, seed=seed,
                                 fully_forbidden=kernels.torch_fully_forbidden())
    assert "%d passed, 0 failed" % PROPERTIES in result.report, result.report


@needs_torch
@pytest.mark.parametrize("seed", SEEDS)
def test_torch_autograd_bfloat16_passes(seed):
    # PyTorch's CPU attention on bfloat16 tensors rounds its logits to
    # bfloat16 (test_check.py): bfloat16 accumulation, declared.
    result = attnlab_check.check(backward_kernels.torch_backward_bfloat16, op="attention_backward",
                                 precision="bfloat16", accumulate="bfloat16", cases=CASES,
                                 seed=seed, fully_forbidden=kernels.torch_fully_forbidden())
    assert "%d passed, 0 failed" % PROPERTIES in result.report, result.report


@needs_torch
def test_torch_float32_held_to_float64_fails():
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(backward_kernels.torch_backward_float32, op="attention_backward",
                            cases=CASES, prop="backward_oracle_agreement")
    assert "FAIL  backward_oracle_agreement" in failure.value.report


@needs_torch
def test_torch_mask_not_converted_fails_exact_zeros():
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(backward_kernels.torch_backward_mask_not_converted,
                            op="attention_backward", cases=CASES, prop="backward_exact_zeros",
                            fully_forbidden=kernels.torch_fully_forbidden())
    assert "FAIL  backward_exact_zeros" in failure.value.report


@needs_torch
def test_torch_missing_scale_fails_the_central_difference():
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(backward_kernels.torch_backward_no_scale, op="attention_backward",
                            cases=CASES, prop="backward_finite_difference")
    assert "FAIL  backward_finite_difference" in failure.value.report


@needs_torch
def test_torch_fully_forbidden_convention_is_held():
    # PyTorch does not refuse a fully forbidden row: the default convention fails.
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(backward_kernels.torch_backward_float64, op="attention_backward",
                            cases=CASES, prop="backward_fully_forbidden_refused")
    assert "instead of raising an error" in failure.value.report


@needs_torch
def test_torch_forward_without_q_and_k_is_judged_by_the_numbers():
    # Q and K not in the graph: their gradients are zeros (allow_unused), not
    # a refusal of every input, so the oracle property sees the wrong numbers.
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(backward_kernels.torch_backward_keys_unused, op="attention_backward",
                            cases=CASES, prop="backward_oracle_agreement")
    report = failure.value.report
    assert "FAIL  backward_oracle_agreement" in report
    assert "refused valid input" not in report and "allow_unused" not in report, report


def test_two_arrays_returned_are_counted():
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(backward_kernels.two_gradients, op="attention_backward", cases=5,
                            prop="backward_oracle_agreement")
    assert "returned a tuple of 2 values, expected the triple (dQ, dK, dV)" in failure.value.report, \
        failure.value.report


class _StubTensor:
    """What torch_backward asks of a tensor, over a NumPy array."""

    def __init__(self, array, dtype):
        self.array, self.dtype = array, dtype

    def detach(self):
        return self

    def to(self, dtype):
        return self

    def numpy(self):
        return self.array


def _stub_torch(default):
    """A stand-in for torch that records the dtype torch_backward asks
    for; its default dtype is `default` (as after torch.set_default_dtype)."""
    import types

    import numpy as np

    class dtype:  # noqa: N801  (torch.dtype)
        def __init__(self, name):
            self.name = name

    stub = types.SimpleNamespace(dtype=dtype, asked=[])
    for name in ("float16", "bfloat16", "float32", "float64", "bool"):
        setattr(stub, name, dtype(name))
    stub.get_default_dtype = lambda: getattr(stub, default)

    def tensor(array, dtype=None, requires_grad=False):
        stub.asked.append(dtype)
        return _StubTensor(np.asarray(array, dtype=np.float64), dtype)

    stub.tensor = tensor
    stub.zeros_like = lambda x: _StubTensor(np.zeros_like(x.array), x.dtype)
    stub.autograd = types.SimpleNamespace(grad=lambda O, inputs, **kw: (None,) * len(inputs))
    return stub


@pytest.mark.parametrize("default", ["float64", "bfloat16"])
def test_torch_backward_default_dtype_is_torchs(monkeypatch, default):
    # dtype=None (the default) names no format: the tensors are of torch's
    # default dtype; a dtype given, as a name or a torch.dtype, is used as it is.
    import numpy as np

    stub = _stub_torch(default)
    monkeypatch.setitem(sys.modules, "torch", stub)
    forward = lambda Q, K, V, mask=None, scale=None, causal=False: V  # noqa: E731
    x = np.ones((2, 2))
    attnlab_check.torch_backward(forward)(x, x, x, x)
    attnlab_check.torch_backward(forward, "float16")(x, x, x, x)
    attnlab_check.torch_backward(forward, stub.float32)(x, x, x, x)
    asked = [d.name for d in stub.asked if d is not None and d.name != "bool"]
    assert asked == [default] * 4 + ["float16"] * 4 + ["float32"] * 4, asked
