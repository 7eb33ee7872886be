"""The client on real kernels: NumPy always, PyTorch where it imports."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import attnlab_check  # noqa: E402  (from the checkout)

import kernels  # noqa: E402

CASES = 30
needs_torch = pytest.mark.skipif(kernels.torch is None, reason="torch is not installed")


def test_numpy_kernel_passes():
    result = attnlab_check.check(kernels.numpy_attention, cases=CASES)
    every = len(attnlab_check.list_properties(kernels.numpy_attention))
    assert every > 0
    assert "%d passed, 0 failed" % every in result.report


def test_missing_scale_fails_with_the_report():
    with pytest.raises(AssertionError) as failure:
        attnlab_check.check(kernels.numpy_attention_no_scale, cases=CASES)
    assert "FAIL  scale_off" in str(failure.value)
    assert "seed" in failure.value.report


def test_unknown_property_is_a_usage_error():
    with pytest.raises(attnlab_check.AttnlabError) as error:
        attnlab_check.check(kernels.numpy_attention, prop="no_such_property")
    assert "no property no_such_property" in str(error.value)


def test_unknown_number_format_is_attnlabs_usage_error():
    # The client keeps no list of formats: attnlab refuses the name and lists its own.
    with pytest.raises(attnlab_check.AttnlabError) as error:
        attnlab_check.check(kernels.numpy_attention, precision="float8", cases=1)
    assert "'float8' is not a type (float64, float32" in str(error.value)
    with pytest.raises(attnlab_check.AttnlabError) as error:
        attnlab_check.check(kernels.numpy_attention, fully_forbidden="maybe", cases=1)
    assert "--fully-forbidden" in str(error.value)


def test_missing_function_is_a_usage_error_not_a_failure():
    # A function the file does not define: exit status 2 (AttnlabError), not a PropertyFailure.
    with pytest.raises(attnlab_check.AttnlabError) as error:
        attnlab_check.check(kernels.__file__, extra_args=["--entry", "numpy_atention"])
    assert "did you mean --entry numpy_attention" in str(error.value)


def test_time_budget_names_the_properties_not_run():
    # 1 s per call, 2 s for the whole check: stopped, exit status 3, none failed.
    slow = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grader",
                        "tests", "data", "slow_kernel.py")
    with pytest.raises(attnlab_check.TimeBudgetExceeded) as stopped:
        attnlab_check.check(slow, extra_args=["--entry", "slow_attention"], time_budget=2)
    result = stopped.value.result
    assert result.returncode == 3 and stopped.value.not_run, result.report
    statuses = {p["name"]: p["status"] for p in result.results["properties"]}
    assert all(statuses[name] == "not_run" for name in stopped.value.not_run), statuses
    assert "failed" not in statuses.values(), result.report


def test_lambda_is_refused():
    with pytest.raises(attnlab_check.AttnlabError):
        attnlab_check.check(lambda Q, K, V, mask: Q)


@needs_torch
def test_torch_sdpa_float64_passes():
    result = attnlab_check.check(kernels.torch_attention, cases=CASES,
                                 fully_forbidden=kernels.torch_fully_forbidden())
    assert "0 failed" in result.report


@needs_torch
def test_torch_sdpa_mask_inverted_fails_with_inverted_mask():
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(kernels.torch_attention_mask_inverted, cases=CASES,
                            fully_forbidden=kernels.torch_fully_forbidden())
    assert "misconception inverted_mask" in failure.value.report


@needs_torch
def test_torch_fully_forbidden_convention_is_held():
    # PyTorch does not raise for a fully forbidden row: held to the text's rule, it fails.
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(kernels.torch_attention, cases=CASES, prop="fully_forbidden_refused")
    assert "FAIL  fully_forbidden_refused" in failure.value.report


@needs_torch
def test_torch_float32_held_to_float64_fails():
    # Without a declared precision a float32 kernel is held to the float64 bound.
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(kernels.torch_attention_float32, cases=CASES,
                            fully_forbidden=kernels.torch_fully_forbidden(),
                            prop="oracle_agreement")
    assert "FAIL  oracle_agreement" in failure.value.report


@needs_torch
def test_torch_sdpa_float32_passes():
    attnlab_check.check(kernels.torch_attention_float32, precision="float32", cases=CASES,
                        fully_forbidden=kernels.torch_fully_forbidden())


@needs_torch
def test_torch_bfloat16_flash_style_passes():
    # bfloat16 storage with the logits, maximum and sums in float32 and the
    # weights rounded before P V: what --precision bfloat16 declares.
    attnlab_check.check(kernels.torch_attention_bfloat16_float32_accumulation,
                        precision="bfloat16", cases=CASES,
                        fully_forbidden=kernels.torch_fully_forbidden())


@needs_torch
def test_torch_bfloat16_math_path_is_low_precision_unless_declared():
    # PyTorch's own attention on bfloat16 tensors rounds the logits to
    # bfloat16 but sums in float32: held to float32 accumulation it fails;
    # it is neither the definition nor a whole bfloat16 computation, so no key
    # but low_precision may be named (none is, since the battery's 512 tied
    # logits show its sums are exact); declared --accumulate bfloat16, it passes.
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(kernels.torch_attention_bfloat16, precision="bfloat16", cases=100,
                            fully_forbidden=kernels.torch_fully_forbidden(),
                            prop="oracle_agreement")
    report = failure.value.report
    assert "FAIL  oracle_agreement" in report
    assert "Keep float64" not in report, report
    named = [line for line in report.splitlines() if "diagnosis: misconception" in line
             or "diagnosis: several" in line]
    assert all("low_precision" in line for line in named), named
    attnlab_check.check(kernels.torch_attention_bfloat16, precision="bfloat16",
                        accumulate="bfloat16", cases=100,
                        fully_forbidden=kernels.torch_fully_forbidden())


def test_a_gap_outside_the_catalogue_names_no_misconception():
    # O only and NaN for a fully forbidden row, as declared, but a wrongly
    # shaped mask is cut instead of refused: shape_mismatch_refused fails and
    # no key is named (not transposed_output, which changes only A, nor
    # fully_forbidden_answered, which is the declared convention).
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(kernels.numpy_attention_crops_mask, cases=100, fully_forbidden="nan")
    report = failure.value.report
    # Every listed property ran: the one failure, those about A skipped (the
    # kernel returns O only), the rest passed.
    every = len(attnlab_check.list_properties(kernels.numpy_attention_crops_mask, fully_forbidden="nan"))
    skipped = [line for line in report.splitlines() if line.startswith("SKIP  ")]
    assert skipped and all("does not return the weights A" in line for line in skipped), report
    assert every > 1 + len(skipped)
    assert "FAIL  shape_mismatch_refused" in report, report
    assert "%d passed, 1 failed, %d skipped" % (every - 1 - len(skipped), len(skipped)) in report, report
    assert "diagnosis: no known mistake" in report, report
    for key in ("transposed_output", "fully_forbidden_answered", "misconception "):
        assert key not in report, report


def test_another_convention_than_declared_is_said_plainly():
    # NaN rows where the kernel declares zeros: fully_forbidden_zeros fails,
    # and the diagnosis says the other rows agree, without naming a mistake.
    attnlab_check.check(kernels.numpy_attention_nan_rows, cases=CASES, fully_forbidden="nan")
    with pytest.raises(attnlab_check.PropertyFailure) as failure:
        attnlab_check.check(kernels.numpy_attention_nan_rows, cases=CASES, fully_forbidden="zeros")
    report = failure.value.report
    assert "FAIL  fully_forbidden_zeros" in report, report
    assert "apart from the rows with every key forbidden" in report, report
    assert "misconception " not in report, report


def _batched_kernel(name):
    """A kernel of grader/tests/data/batched/ (grouped-query attention)."""
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "grader", "tests", "data", "batched", name + ".py")
    spec = importlib.util.spec_from_file_location("batched_" + name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the client finds the function by its module
    spec.loader.exec_module(module)
    return module.gqa


def test_batched_gqa_kernel_passes():
    result = attnlab_check.check(_batched_kernel("gqa"), op="batched_attention", cases=CASES)
    assert "7 passed, 0 failed" in result.report


def test_batched_tiled_heads_fail_kv_heads_grouped():
    with pytest.raises(AssertionError) as failure:
        attnlab_check.check(_batched_kernel("gqa_tile_heads"), op="batched_attention",
                            cases=CASES, prop="kv_heads_grouped")
    assert "FAIL  kv_heads_grouped" in str(failure.value)
