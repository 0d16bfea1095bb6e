"""Tests for tensorgrad.printing: the exact text of a tensor's repr, as PyTorch's.

Three groups:
1. PyTorch's printed examples, as exact strings;
2. print options (set_printoptions / get_printoptions);
3. when torch is installed, a seeded random sweep comparing with torch's repr.
"""

import math

import numpy as np
import pytest

from tensorgrad.printing import format_tensor, get_printoptions, set_printoptions


@pytest.fixture(autouse=True)
def default_print_options():
    """Every test starts and ends with the default options."""
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")


def f32(values):
    return np.array(values, dtype=np.float32)


def f64(values):
    return np.array(values, dtype=np.float64)


def i64(values):
    return np.array(values, dtype=np.int64)


def show(array, **kwargs):
    """format_tensor with the dtype name taken from the array."""
    return format_tensor(array, dtype_name=array.dtype.name, **kwargs)


nan, inf = float("nan"), float("inf")

# ---------------------------------------------------------------------------
# 1. PyTorch's printed examples
# ---------------------------------------------------------------------------

# (array, keyword arguments, expected text); comments name the torch call.
SPEC_EXAMPLES = [
    # Creating tensors
    (f32([1., 2., 3.]), dict(requires_grad=True), "tensor([1., 2., 3.], requires_grad=True)"),
    (f32(5.), dict(requires_grad=True), "tensor(5., requires_grad=True)"),
    (f32([1, 2.5]), dict(requires_grad=True), "tensor([1.0000, 2.5000], requires_grad=True)"),
    (f64([1., 2.]), dict(requires_grad=True),
     "tensor([1., 2.], dtype=tensorgrad.float64, requires_grad=True)"),
    (f32([0., 0., 0.]), dict(requires_grad=True), "tensor([0., 0., 0.], requires_grad=True)"),
    (f32([1., 2.]), dict(requires_grad=True), "tensor([1., 2.], requires_grad=True)"),
    (f32([1., 2.]), {}, "tensor([1., 2.])"),
    (f32([2.]), {}, "tensor([2.])"),
    (f32([3.]), {}, "tensor([3.])"),
    (f32([2.]), dict(requires_grad=True), "tensor([2.], requires_grad=True)"),
    (f64([1.0, 2.0]), dict(requires_grad=True),
     "tensor([1., 2.], dtype=tensorgrad.float64, requires_grad=True)"),
    (np.ones((2, 2), np.float32), dict(requires_grad=True),
     "tensor([[1., 1.],\n"
     "        [1., 1.]], requires_grad=True)"),
    # changing requires_grad later
    (f32([2., 4.]), dict(grad_fn_name="MulBackward0"), "tensor([2., 4.], grad_fn=<MulBackward0>)"),
    # How float elements are formatted
    (f32([2., 4.]), {}, "tensor([2., 4.])"),
    (f32([1.5, 2.]), {}, "tensor([1.5000, 2.0000])"),
    (f32(5.), {}, "tensor(5.)"),
    (f32(4.5), {}, "tensor(4.5000)"),
    (f32(1 / 3), {}, "tensor(0.3333)"),
    (f32(0.), {}, "tensor(0.)"),
    (f32(-0.), {}, "tensor(-0.)"),
    (f32([0., 0., 0.]), {}, "tensor([0., 0., 0.])"),
    (f32([-0., 1.]), {}, "tensor([-0., 1.])"),
    (f32([1., 10., 100.]), {}, "tensor([  1.,  10., 100.])"),
    (f32([-1., 2.]), {}, "tensor([-1.,  2.])"),
    (f32([-1.5, 2.]), {}, "tensor([-1.5000,  2.0000])"),
    (f32([1.5, 10.25, -100.125]), {}, "tensor([   1.5000,   10.2500, -100.1250])"),
    (f32([1.00001, 2.]), {}, "tensor([1.0000, 2.0000])"),
    (f32([0.1, 0.2]) * np.float32(3), {}, "tensor([0.3000, 0.6000])"),
    (f32([0., 0.5, 400.]), {}, "tensor([  0.0000,   0.5000, 400.0000])"),
    (f32([1., 1000.]), {}, "tensor([   1., 1000.])"),
    (f32([1., 1001.]), {}, "tensor([1.0000e+00, 1.0010e+03])"),
    (f32([0.5, 600.]), {}, "tensor([5.0000e-01, 6.0000e+02])"),
    (f32([0.123456, 12345.678]), {}, "tensor([1.2346e-01, 1.2346e+04])"),
    (f32([-2000., 1.5]), {}, "tensor([-2.0000e+03,  1.5000e+00])"),
    (f32([12345678.]), {}, "tensor([12345678.])"),
    (f32([1e8]), {}, "tensor([100000000.])"),
    (f32([100000001.]), {}, "tensor([100000000.])"),
    (f32([2e8]), {}, "tensor([2.0000e+08])"),
    (f32([1e9]), {}, "tensor([1.0000e+09])"),
    (f32([1e8, 1.]), {}, "tensor([1.0000e+08, 1.0000e+00])"),
    (f32(123456789.), {}, "tensor(1.2346e+08)"),
    (f32([0.0002]), {}, "tensor([0.0002])"),
    (f32([1e-4]), {}, "tensor([1.0000e-04])"),
    (f64([1e-4]), {}, "tensor([0.0001], dtype=tensorgrad.float64)"),
    (f32([0.00009]), {}, "tensor([9.0000e-05])"),
    (f32([0.00015, 1.]), {}, "tensor([1.5000e-04, 1.0000e+00])"),
    (f32([1e-5, 1.]), {}, "tensor([1.0000e-05, 1.0000e+00])"),
    (f32([-1e-5, 1.]), {}, "tensor([-1.0000e-05,  1.0000e+00])"),
    (f32(1e-5), {}, "tensor(1.0000e-05)"),
    (f32([nan, inf, 1.]), {}, "tensor([nan, inf, 1.])"),
    (f32([nan, -inf, 1.5]), {}, "tensor([   nan,   -inf, 1.5000])"),
    (f32([nan, nan]), {}, "tensor([nan, nan])"),
    (f32(nan), {}, "tensor(nan)"),
    (f32(-inf), {}, "tensor(-inf)"),
    (i64([1, 2, 300]), {}, "tensor([  1,   2, 300])"),
    (np.array([1, 2], np.int32), {}, "tensor([1, 2], dtype=tensorgrad.int32)"),
    (np.array([True, False]), {}, "tensor([ True, False])"),
    (f64([1., 2.5]), {}, "tensor([1.0000, 2.5000], dtype=tensorgrad.float64)"),
    (np.array([1., 2.5], np.float16), {}, "tensor([1.0000, 2.5000], dtype=tensorgrad.float16)"),
    (f32([]), {}, "tensor([])"),
    (np.zeros((0, 3), np.float32), {}, "tensor([], size=(0, 3))"),
    (i64([]), {}, "tensor([], dtype=tensorgrad.int64)"),
    (f32([[2., 3.]]), {}, "tensor([[2., 3.]])"),
    # Layout
    (np.ones((2, 2), np.float32) * np.float32(4.5), {},
     "tensor([[4.5000, 4.5000],\n"
     "        [4.5000, 4.5000]])"),
    (np.ones((2, 2), np.float32) * np.float32(3), {},
     "tensor([[3., 3.],\n"
     "        [3., 3.]])"),
    (f32([[1., 1000.], [-5., 20.]]), {},
     "tensor([[   1., 1000.],\n"
     "        [  -5.,   20.]])"),
    (i64([[1, -2], [300, 4]]), {},
     "tensor([[  1,  -2],\n"
     "        [300,   4]])"),
    (f32([[1e-5, 1.], [2., 3.]]), {},
     "tensor([[1.0000e-05, 1.0000e+00],\n"
     "        [2.0000e+00, 3.0000e+00]])"),
    (f32([[1.], [2.]]), {},
     "tensor([[1.],\n"
     "        [2.]])"),
    (np.arange(8, dtype=np.float32).reshape(2, 2, 2), {},
     "tensor([[[0., 1.],\n"
     "         [2., 3.]],\n"
     "\n"
     "        [[4., 5.],\n"
     "         [6., 7.]]])"),
    (np.arange(30, dtype=np.float32) / np.float32(7), {},
     "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
     "        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286,\n"
     "        2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, 3.7143,\n"
     "        3.8571, 4.0000, 4.1429])"),
    (np.arange(40, dtype=np.float32), {},
     "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
     "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
     "        28., 29., 30., 31., 32., 33., 34., 35., 36., 37., 38., 39.])"),
    (np.arange(24, dtype=np.float32).reshape(2, 12) / np.float32(7), {},
     "tensor([[0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
     "         1.2857, 1.4286, 1.5714],\n"
     "        [1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286, 2.5714, 2.7143, 2.8571,\n"
     "         3.0000, 3.1429, 3.2857]])"),
    # Suffixes
    (f32(5.), dict(grad_fn_name="AddBackward0"), "tensor(5., grad_fn=<AddBackward0>)"),
    (f32(4.5), dict(requires_grad=True), "tensor(4.5000, requires_grad=True)"),
    (f32([1.5, 2.]), dict(requires_grad=True), "tensor([1.5000, 2.0000], requires_grad=True)"),
    (np.full((2, 2), 3, np.float32), dict(grad_fn_name="AddBackward0"),
     "tensor([[3., 3.],\n"
     "        [3., 3.]], grad_fn=<AddBackward0>)"),
    (f64([2., 4.]), dict(grad_fn_name="MulBackward0"),
     "tensor([2., 4.], dtype=tensorgrad.float64, grad_fn=<MulBackward0>)"),
    (np.arange(5, dtype=np.float32) / np.float32(7), dict(grad_fn_name="DivBackward0"),
     "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714], grad_fn=<DivBackward0>)"),
    (np.arange(6, dtype=np.float32) / np.float32(7), dict(grad_fn_name="DivBackward0"),
     "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143],\n"
     "       grad_fn=<DivBackward0>)"),
    (np.arange(5, dtype=np.float64) / 7, dict(grad_fn_name="DivBackward0"),
     "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714], dtype=tensorgrad.float64,\n"
     "       grad_fn=<DivBackward0>)"),
    (np.arange(20, dtype=np.float32) / np.float32(3), dict(grad_fn_name="DivBackward0"),
     "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
     "        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n"
     "        6.0000, 6.3333], grad_fn=<DivBackward0>)"),
    (f32([1., 2.]), dict(grad_fn_name="CopySlices"), "tensor([1., 2.], grad_fn=<CopySlices>)"),
    (f32([1., 2.7182817]), dict(grad_fn_name="ExpBackward"),
     "tensor([1.0000, 2.7183], grad_fn=<ExpBackward>)"),
    # Summarising large tensors
    (np.arange(2000, dtype=np.float32), {},
     "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
     "        1.9990e+03])"),
    (np.arange(1200, dtype=np.float32).reshape(40, 30), {},
     "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 2.7000e+01, 2.8000e+01,\n"
     "         2.9000e+01],\n"
     "        [3.0000e+01, 3.1000e+01, 3.2000e+01,  ..., 5.7000e+01, 5.8000e+01,\n"
     "         5.9000e+01],\n"
     "        [6.0000e+01, 6.1000e+01, 6.2000e+01,  ..., 8.7000e+01, 8.8000e+01,\n"
     "         8.9000e+01],\n"
     "        ...,\n"
     "        [1.1100e+03, 1.1110e+03, 1.1120e+03,  ..., 1.1370e+03, 1.1380e+03,\n"
     "         1.1390e+03],\n"
     "        [1.1400e+03, 1.1410e+03, 1.1420e+03,  ..., 1.1670e+03, 1.1680e+03,\n"
     "         1.1690e+03],\n"
     "        [1.1700e+03, 1.1710e+03, 1.1720e+03,  ..., 1.1970e+03, 1.1980e+03,\n"
     "         1.1990e+03]])"),
    # Other printed values (backward, grad, hooks, tutorials) that exercise the layout rules
    (f32([2., 20.]), {}, "tensor([ 2., 20.])"),
    (f32([6., 12.]), {}, "tensor([ 6., 12.])"),
    (f32([100., 2.]), dict(requires_grad=True), "tensor([100.,   2.], requires_grad=True)"),
    (f32([3., 1.5]), {}, "tensor([3.0000, 1.5000])"),
    (f32([[4.], [4.], [4.]]), {},
     "tensor([[4.],\n"
     "        [4.],\n"
     "        [4.]])"),
    (f32([[4., 27.]]), dict(grad_fn_name="CopySlices"), "tensor([[ 4., 27.]], grad_fn=<CopySlices>)"),
    (f32([5.75, 8.]), dict(grad_fn_name="AddBackward0"),
     "tensor([5.7500, 8.0000], grad_fn=<AddBackward0>)"),
    (f32([[2., 0.], [0., 4.]]), {},
     "tensor([[2., 0.],\n"
     "        [0., 4.]])"),
    (np.array([True]), {}, "tensor([True])"),
    (np.array(True), {}, "tensor(True)"),
    (f32(27.), dict(grad_fn_name="CopyBackwards"), "tensor(27., grad_fn=<CopyBackwards>)"),
    # The "autograd basics" lesson
    (np.full((2, 2), 27, np.float32), dict(grad_fn_name="MulBackward0"),
     "tensor([[27., 27.],\n"
     "        [27., 27.]], grad_fn=<MulBackward0>)"),
    (f32(27.), dict(grad_fn_name="MeanBackward0"), "tensor(27., grad_fn=<MeanBackward0>)"),
    (np.full((2, 2), 4.5, np.float32), {},
     "tensor([[4.5000, 4.5000],\n"
     "        [4.5000, 4.5000]])"),
    (f32([788.9900, -150.2356, -1115.5402]), dict(grad_fn_name="MulBackward0"),
     "tensor([  788.9900,  -150.2356, -1115.5402], grad_fn=<MulBackward0>)"),
    (f32([0.1, 1.0, 0.0001]) * np.float32(512), {}, "tensor([5.1200e+01, 5.1200e+02, 5.1200e-02])"),
    # the dynamic-graph tutorial
    (f32([20.]), {}, "tensor([20.])"),
]


@pytest.mark.parametrize(
    "array, kwargs, expected", SPEC_EXAMPLES,
    ids=[f"{i}:{expected.splitlines()[0][:40]}" for i, (_, _, expected) in enumerate(SPEC_EXAMPLES)])
def test_spec_example(array, kwargs, expected):
    assert show(array, **kwargs) == expected


def test_parameter_repr_reuses_the_default_prefix():
    # torch.nn.Parameter(torch.tensor([1., 2.]))
    text = "Parameter containing:\n" + show(f32([1., 2.]), requires_grad=True)
    assert text == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"


def test_grad_fn_wins_over_requires_grad():
    # a tensor never shows both suffixes.
    assert show(f32([1.]), grad_fn_name="AddBackward0", requires_grad=True) == (
        "tensor([1.], grad_fn=<AddBackward0>)")


def test_empty_tensor_suffixes():
    # the shape is named unless it is (0,); any dtype but float32 is named.
    assert show(np.zeros((2, 0, 4), np.float64)) == (
        "tensor([], size=(2, 0, 4), dtype=tensorgrad.float64)")
    assert show(np.zeros(0, bool)) == "tensor([], dtype=tensorgrad.bool)"
    assert show(f32([]), requires_grad=True) == "tensor([], requires_grad=True)"


def test_suffix_stays_on_the_line_only_when_k_is_at_most_54():
    # K + 2 + len(", grad_fn=<DivBackward0>") must not exceed 80.
    stays = np.full((2, 9), 10., np.float32)  # last line '        [10., ..., 10.]]': K = 54
    assert show(stays, grad_fn_name="DivBackward0").endswith(" 10.]], grad_fn=<DivBackward0>)")
    wraps = np.full(8, 100., np.float32)      # 'tensor([100., ..., 100.]': K = 55
    assert show(wraps, grad_fn_name="DivBackward0") == (
        "tensor([100., 100., 100., 100., 100., 100., 100., 100.],\n"
        "       grad_fn=<DivBackward0>)")


def test_scientific_mode_uses_the_stored_value():
    # rule 3 of the element format: float32 1e-4 is below 1e-4; float64 1e-4 is not.
    assert show(f32([1e-4, 1.])) == "tensor([1.0000e-04, 1.0000e+00])"
    assert show(f64([1e-4, 1.])) == "tensor([1.0000e-04, 1.0000e+00], dtype=tensorgrad.float64)"
    assert show(f64([1e-4])) == "tensor([0.0001], dtype=tensorgrad.float64)"


def test_nan_and_inf_are_padded_but_do_not_set_the_width():
    # rule 5 of the element format
    assert show(f32([inf, 1.5, -inf])) == "tensor([   inf, 1.5000,   -inf])"
    assert show(f32([nan, 1e-5])) == "tensor([       nan, 1.0000e-05])"


def test_3d_with_suffix_and_blank_lines():
    array = np.arange(12, dtype=np.float32).reshape(3, 2, 2) / np.float32(4)
    assert show(array, grad_fn_name="DivBackward0") == (
        "tensor([[[0.0000, 0.2500],\n"
        "         [0.5000, 0.7500]],\n"
        "\n"
        "        [[1.0000, 1.2500],\n"
        "         [1.5000, 1.7500]],\n"
        "\n"
        "        [[2.0000, 2.2500],\n"
        "         [2.5000, 2.7500]]], grad_fn=<DivBackward0>)")


def test_summarised_3d_tensor_shows_dots_between_blocks():
    array = np.zeros((10, 10, 11), np.int64)
    lines = show(array).splitlines()
    assert lines[0] == "tensor([[[0, 0, 0,  ..., 0, 0, 0],"
    assert "        ...," in lines
    # Every dimension longer than 6 is cut to 3 + 3: 6 blocks of 7 lines each.
    assert sum(line.strip() == "" for line in lines) == 6


def test_summary_statistics_use_only_the_shown_values():
    # the hidden 1e6 in the middle does not switch to scientific mode.
    array = np.ones(1001, np.float32)
    array[500] = 1e6
    assert show(array) == "tensor([1., 1., 1.,  ..., 1., 1., 1.])"


def test_prefix_sets_the_indent():
    text = format_tensor(f32([[1., 2.], [3., 4.]]), dtype_name="float32",
                         requires_grad=True, prefix="Tensor(")
    assert text == "Tensor([[1., 2.],\n        [3., 4.]], requires_grad=True)"
    # 9 characters of prefix: 8 elements per line, continuation indent 10,
    # and a wrapped suffix is indented by 9.
    wide = format_tensor(np.arange(16, dtype=np.float32) / np.float32(7),
                         dtype_name="float32", grad_fn_name="DivBackward0", prefix="MyTensor(")
    assert wide == (
        "MyTensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000,\n"
        "          1.1429, 1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429],\n"
        "         grad_fn=<DivBackward0>)")


# ---------------------------------------------------------------------------
# 2. Print options
# ---------------------------------------------------------------------------

DEFAULT_OPTIONS = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)


def test_default_options():
    assert get_printoptions() == DEFAULT_OPTIONS


def test_precision_then_default_profile():
    set_printoptions(precision=2)
    assert show(f32([1.12345, 2.])) == "tensor([1.12, 2.00])"
    set_printoptions(profile="default")
    assert show(f32([1.12345, 2.])) == "tensor([1.1235, 2.0000])"


def test_sci_mode_false():
    set_printoptions(sci_mode=False)
    assert show(f32([1e-5, 1.])) == "tensor([0.0000, 1.0000])"


def test_sci_mode_true_applies_to_whole_numbers_but_not_to_all_zeros():
    set_printoptions(sci_mode=True)
    assert show(f32([1., 2.])) == "tensor([1.0000e+00, 2.0000e+00])"
    # With no finite non-zero element there is nothing to measure (rule 1 of the element format).
    assert show(f32([0., nan])) == "tensor([0., nan])"


def test_any_call_without_sci_mode_resets_it():
    set_printoptions(sci_mode=False)
    set_printoptions(precision=3)
    assert get_printoptions()["sci_mode"] is None
    assert show(f32([1e-5, 1.])) == "tensor([1.000e-05, 1.000e+00])"


def test_precision_applies_to_fixed_and_scientific_not_integer_mode():
    set_printoptions(precision=1)
    assert show(f32([0.25, 1e-5])) == "tensor([2.5e-01, 1.0e-05])"
    assert show(f32([1., 20.])) == "tensor([ 1., 20.])"
    set_printoptions(precision=0)
    assert show(f32([1.5, 2.25])) == "tensor([2, 2])"  # fixed mode with no decimals: no dot


def test_threshold_and_edgeitems():
    set_printoptions(threshold=5)
    assert show(np.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    set_printoptions(threshold=5, edgeitems=1)
    assert show(np.arange(10)) == "tensor([0,  ..., 9])"
    assert show(np.arange(12.).reshape(3, 4)) == (
        "tensor([[ 0.,  ...,  3.],\n"
        "        ...,\n"
        "        [ 8.,  ..., 11.]], dtype=tensorgrad.float64)")


def test_edgeitems_zero_names_the_size():
    set_printoptions(edgeitems=0)
    assert show(np.arange(2000, dtype=np.float32).reshape(40, 50)) == (
        "tensor([...], size=(40, 50))")
    # Not summarised: everything is shown, but torch still adds the size.
    assert show(f32([0., 1., 2.])) == "tensor([0., 1., 2.], size=(3,))"
    assert show(f32([[0., 1.], [2., 3.]])) == (
        "tensor([[0., 1.],\n"
        "        [2., 3.]], size=(2, 2))")


def test_dtype_suffix_wraps_where_torch_wraps_it():
    # torch: 'tensor([...0.7143], dtype=torch.float64)' fits in 80 columns (K = 55).
    # 'tensorgrad.' is 5 characters longer, but the line break stays where torch has it.
    array = np.arange(6, dtype=np.float64) / 7
    assert show(array) == (
        "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143], dtype=tensorgrad.float64)")


def test_linewidth():
    set_printoptions(linewidth=30)
    assert show(np.arange(10, dtype=np.float32)) == (
        "tensor([0., 1., 2., 3., 4.,\n"
        "        5., 6., 7., 8., 9.])")
    # At least one element per line, however narrow.
    set_printoptions(linewidth=1)
    assert show(f32([1., 2.])) == "tensor([1.,\n        2.])"


def test_linewidth_moves_the_suffix():
    set_printoptions(linewidth=40)
    assert show(f32([1., 2.]), grad_fn_name="DivBackward0") == (
        "tensor([1., 2.],\n"
        "       grad_fn=<DivBackward0>)")


def test_profiles():
    set_printoptions(profile="short")
    assert get_printoptions() == dict(DEFAULT_OPTIONS, precision=2, edgeitems=2)
    assert show(f32([1 / 3])) == "tensor([0.33])"
    set_printoptions(profile="full")
    assert get_printoptions() == dict(DEFAULT_OPTIONS, threshold=math.inf)
    assert "..." not in show(np.arange(2000))
    set_printoptions(profile="full", precision=6)
    assert get_printoptions()["precision"] == 6


def test_get_printoptions_round_trips():
    set_printoptions(precision=7, linewidth=100, sci_mode=True)
    saved = get_printoptions()
    set_printoptions(profile="default")
    set_printoptions(**saved)
    assert get_printoptions() == saved
    saved["precision"] = 1  # a copy, not the live options
    assert get_printoptions()["precision"] == 7


# ---------------------------------------------------------------------------
# 3. Parity with torch on random tensors
# ---------------------------------------------------------------------------

FLOAT_SPECIALS = [0.0, -0.0, nan, inf, -inf]
BOUNDARY_VALUES = [1e-4, 9.9999e-5, 1.0001e-4, 1e8, 1e8 + 8, 2e8, 1000., 1001., 999.5, 1., 0.5,
                   600., 12345678., 123456789., 1e-45, 1e-38, 3e38, 0.0002, 1 / 3, 2.5, -1.]


def random_shape(rng):
    """Mostly small shapes; some empty ones and some past the summary threshold."""
    kind = rng.random()
    if kind < 0.08:                                    # empty
        ndim = int(rng.integers(1, 4))
        shape = [int(rng.integers(0, 4)) for _ in range(ndim)]
        shape[int(rng.integers(ndim))] = 0
        return tuple(shape)
    if kind < 0.22:                                    # summarised (> 1000 elements)
        ndim = int(rng.integers(1, 4))
        while True:
            shape = tuple(int(math.exp(rng.uniform(0, 7.5 / ndim * 1.3))) for _ in range(ndim))
            if 1000 < math.prod(shape) < 30000:
                return shape
    ndim = int(rng.integers(0, 4))
    longest = {0: 1, 1: 40, 2: 14, 3: 6}[ndim]
    return tuple(int(rng.integers(1, longest + 1)) for _ in range(ndim))


def random_floats(rng, size, dtype):
    """Values of one random scale, with specials and boundary values mixed in."""
    max_exponent = 37 if dtype == np.float32 else 300
    style = rng.integers(6)
    if style == 0:
        values = rng.integers(-20, 20, size).astype(np.float64)
    elif style == 1:
        values = rng.integers(-10**9, 10**9, size).astype(np.float64)
    elif style == 2:
        values = rng.standard_normal(size) * 10.0 ** rng.integers(-8, 9)
    elif style == 3:
        exponents = rng.uniform(-max_exponent, max_exponent, size)
        values = np.sign(rng.standard_normal(size)) * 10.0 ** exponents
    elif style == 4:
        values = rng.choice(BOUNDARY_VALUES, size)
    else:
        values = np.round(rng.standard_normal(size) * 100, int(rng.integers(0, 5)))
    if rng.random() < 0.5:
        mask = rng.random(size) < rng.uniform(0, 1)
        values[mask] = rng.choice(FLOAT_SPECIALS, int(mask.sum()))
    return values.astype(dtype)


def random_array(rng):
    shape = random_shape(rng)
    size = math.prod(shape)
    dtype = rng.choice(["float32", "float32", "float64", "int64", "bool"])
    if dtype == "bool":
        return (rng.random(size) < 0.5).reshape(shape)
    if dtype == "int64":
        bound = 10 ** int(rng.integers(1, 19))
        return rng.integers(-bound, bound, size, dtype=np.int64).reshape(shape)
    return random_floats(rng, size, np.dtype(dtype)).reshape(shape)


def torch_and_ours(torch, array, variant):
    """(torch's repr with 'torch.' renamed, our text) for one variant of one array."""
    tensor = torch.from_numpy(array.copy())
    dtype_name = array.dtype.name
    if variant == "grad_fn":
        result = tensor.requires_grad_() / 7
        ours = format_tensor(result.detach().numpy(), dtype_name=dtype_name,
                             grad_fn_name=type(result.grad_fn).__name__)
    elif variant == "requires_grad":
        result = tensor.requires_grad_()
        ours = format_tensor(array, dtype_name=dtype_name, requires_grad=True)
    else:
        result = tensor
        ours = format_tensor(array, dtype_name=dtype_name)
    return repr(result).replace("torch.", "tensorgrad."), ours


def compare_with_torch(torch, seed, cases, random_options):
    rng = np.random.default_rng(seed)
    mismatches = []
    for case in range(cases):
        array = random_array(rng)
        variants = ["plain"]
        if array.dtype.kind == "f":
            variants += ["requires_grad", "grad_fn"]
        variant = variants[int(rng.integers(len(variants)))]
        options = {}
        if random_options:
            options = dict(precision=int(rng.integers(0, 9)),
                           threshold=rng.choice([math.inf, 1000, 100, 20, 1]),
                           edgeitems=int(rng.integers(0, 5)),
                           linewidth=int(rng.integers(10, 160)),
                           sci_mode=rng.choice([None, True, False]))
        torch.set_printoptions(**options)
        set_printoptions(**options)
        try:
            expected, ours = torch_and_ours(torch, array, variant)
        finally:
            torch.set_printoptions(profile="default", sci_mode=None)
            set_printoptions(profile="default")
        if ours != expected:
            mismatches.append((case, array.dtype.name, array.shape, variant, options,
                               expected, ours))
    return mismatches


def report(mismatches):
    lines = []
    for case, dtype, shape, variant, options, expected, ours in mismatches[:5]:
        lines += [f"case {case}: {dtype} {shape} {variant} {options}",
                  f"torch: {expected!r}", f"ours:  {ours!r}"]
    return f"{len(mismatches)} mismatches\n" + "\n".join(lines)


@pytest.mark.parametrize("seed", range(5))
def test_matches_torch_on_random_tensors(seed):
    torch = pytest.importorskip("torch")
    mismatches = compare_with_torch(torch, seed, cases=500, random_options=False)
    assert not mismatches, report(mismatches)


@pytest.mark.parametrize("seed", range(100, 102))
def test_matches_torch_with_random_print_options(seed):
    torch = pytest.importorskip("torch")
    mismatches = compare_with_torch(torch, seed, cases=250, random_options=True)
    assert not mismatches, report(mismatches)
