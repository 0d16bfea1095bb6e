"""Behaviours found by the differential fuzzer (tests/test_fuzz_parity.py), pinned down.

Each case ran on PyTorch 2.13 and the text it gave is written below, so these tests check
tensorgrad without torch (in CI) and, through the `lib` fixture, check that torch still gives
it when torch is installed. The text is the repr of the result, or "ErrorClass: message".
"""

import warnings

import pytest

from parity import lib, show  # noqa: F401  (lib is a fixture)


def change_saved_output_of_pow1(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x ** x  # PowBackward1 saves its result
    with lib.no_grad():
        y.add_(1)
    y.sum().backward()


def write_into_an_expanded_slice(lib):
    base = lib.ones(2, 2, 3)
    base.expand(2, 2, 2, 3)[1:].fill_(3)  # no two elements of the slice share memory
    return base


def change_saved_bool_condition(lib):
    x = lib.ones(2, requires_grad=True)
    condition = lib.tensor([True, False])
    y = lib.where(condition, x, 0.0)  # WhereBackward0 saves the condition
    condition.fill_(False)
    y.sum().backward()


# (name, an expression using `lib`)
CASES = [
 ("clamp_int_float_bounds", "lib.tensor([1, -2, 3]).clamp(-0.5, 0.5)"),
 ("clamp_int_int_bounds", "lib.tensor([1, -2, 3]).clamp(0, 2)"),
 ("clamp_bool_float_bound", "lib.tensor([True, False]).clamp(None, 0.5)"),
 ("log_softmax_0d", "lib.tensor(2.0, requires_grad=True).log_softmax(0)"),
 ("softmax_0d", "lib.tensor(2.0).softmax(-1)"),
 ("softmax_empty", "lib.tensor([1.0, 2.0])[lib.tensor([False, False])].softmax(0)"),
 ("softmax_int_lastdim", "lib.tensor([[1, 2]]).softmax(-1)"),
 ("softmax_int_dim0", "lib.tensor([[1, 2]]).softmax(0)"),
 ("log_softmax_int_lastdim", "lib.tensor([[1, 2]]).log_softmax(1)"),
 ("log_softmax_bool_dim0", "lib.tensor([[True, False]]).log_softmax(0)"),
 ("logsumexp_int", "lib.tensor([1, 2]).logsumexp(0)"),
 ("var_int", "lib.tensor([1, 2, 4]).var()"),
 ("std_bool", "lib.tensor([True, False]).std()"),
 ("relu_bool", "lib.tensor([True, False]).relu()"),
 ("abs_bool", "lib.tensor([True, False]).abs()"),
 ("permute_no_dims", "lib.tensor(1.0).permute()"),
 ("max_dim_empty", "lib.ones(0, 2).max(dim=0)"),
 ("max_dim_empty_other_dim", "lib.ones(0, 2).max(dim=1)"),
 ("bool_minus_python_bool", "lib.tensor([True]) - True"),
 ("float_minus_python_bool", "lib.tensor([1.0]) - True"),
 ("python_bool_minus_float", "True - lib.tensor([1.0])"),
 ("two_bool_tensors", "lib.tensor([True]) - lib.tensor([False])"),
 ("bool_tensor_minus_float", "lib.tensor([True]) - lib.tensor([1.0])"),
 ("int_pow_negative_int_tensor", "lib.tensor([[1], [3], [-1], [0], [-2]]) ** lib.tensor([[-2, -1, 0, 1, 2]])"),
 ("number_pow_negative_int_tensor", "2 ** lib.tensor([-1, 2])"),
 ("bool_pow_int_tensor", "lib.tensor([True, False]) ** lib.tensor([-1, 2])"),
 ("bool_pow_bool", "lib.tensor([True]) ** lib.tensor([False])"),
 ("cat_scalar", "lib.cat([lib.ones(3), lib.tensor(1.0)])"),
 ("cat_scalar_bad_dim", "lib.cat([lib.tensor(1.0), lib.ones(3)], dim=1)"),
 ("cat_ndim", "lib.cat([lib.ones(2, 1), lib.ones(2, 2, 3)], dim=1)"),
 ("cat_sizes", "lib.cat([lib.ones(2, 1), lib.ones(3, 3)], dim=-1)"),
 ("stack_bad_dim_first", "lib.stack([lib.ones(2, 1), lib.ones(2, 2, 3)], dim=3)"),
 ("stack_sizes", "lib.stack([lib.ones(2, 1), lib.ones(2, 2)], dim=-1)"),
 ("mv_dtypes", "lib.ones(2, 2, dtype=lib.float64) @ lib.ones(2)"),
 ("dot_dtypes", "lib.ones(2) @ lib.ones(2, dtype=lib.float64)"),
 ("dot_dtype_before_size", "lib.ones(3) @ lib.ones(1, dtype=lib.int64)"),
 ("bmm_dtypes", "lib.ones(3, 2, 2, dtype=lib.float64) @ lib.ones(3, 2, 2)"),
 ("bmm_size_before_dtype", "lib.ones(2, 2, 3, dtype=lib.bool) @ lib.ones(2, 2, dtype=lib.int64)"),
 ("mm_bool", "lib.ones(2, 2, dtype=lib.bool) @ lib.ones(2, 2, dtype=lib.bool)"),
 ("mv_bool", "lib.ones(2, 2, dtype=lib.bool) @ lib.ones(2, dtype=lib.bool)"),
 ("dot_bool", "lib.ones(2, dtype=lib.bool) @ lib.ones(2, dtype=lib.bool)"),
 ("empty_bool_matmul_is_answered", "lib.ones(2, 0, dtype=lib.bool) @ lib.ones(0, dtype=lib.bool)"),
 ("bmm_bool", "lib.ones(3, 2, 2, dtype=lib.bool) @ lib.ones(3, 2, 2, dtype=lib.bool)"),
 ("batch_mismatch", "lib.ones(2, 2, 2) @ lib.ones(3, 2, 2)"),
 ("folded_vector_size", "lib.ones(3, 2, 2) @ lib.ones(3)"),
 ("folded_matrix_size", "lib.ones(3, 2, 2) @ lib.ones(3, 4)"),
 ("maximum_tie_signed_zero", "lib.maximum(lib.tensor([-0.0, 0.0]), lib.tensor([0.0, -0.0]))"),
 ("minimum_tie_signed_zero", "lib.minimum(lib.tensor([-0.0, 0.0]), lib.tensor([0.0, -0.0]))"),
 ("add_into_expanded", "lib.ones(3).expand(2, 3).add_(1)"),
 ("copy_into_expanded", "lib.ones(3).expand(2, 3).copy_(lib.zeros(2, 3))"),
 ("add_partly_overlapping", "(lambda x: x[1:].add_(x[:-1]))(lib.arange(6.0))"),
 ("add_same_memory_is_fine", "(lambda x: x.add_(x))(lib.arange(3.0))"),
 ("add_disjoint_halves_is_fine", "(lambda x: (x[:3].add_(x[3:]), x)[1])(lib.arange(6.0))"),
 ("overlap_before_shape_check", "(lambda x: x.add_(x[1:]))(lib.arange(3.0))"),
 ("full_overlap_then_shape_check", "(lambda x: x.t().mul_(x))(lib.ones(2, 1))"),
 ("leaf_rule_before_bool_subtraction", "lib.tensor([1.0], requires_grad=True).sub_(lib.tensor([True]))"),
 ("reshape_copy_nodes", "(lambda y: (y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()))(lib.ones(2, 3, requires_grad=True).t().reshape(-1))"),
 ("contiguous_copy_node", "lib.ones(2, 3, requires_grad=True).t().contiguous()"),
 ("contiguous_of_contiguous_is_itself", "(lambda x: x.contiguous() is x)(lib.ones(2, 3))"),
 ("numpy_force", "lib.ones(2, requires_grad=True).numpy(force=True)"),
 ("integer_index_is_a_view", "(lambda x: (x[-1].sub_(1), x)[1])(lib.tensor([1.0, 2.0, 3.0]))"),
 ("relu_keeps_negative_zero", "lib.tensor([-0.0, 0.0, -1.0]).relu()"),
 ("cat_skips_empty_vectors", "lib.cat([lib.ones(0), lib.ones(2, 3)], dim=1)"),
 ("cat_of_empty_vectors_any_dim", "lib.cat([lib.ones(0), lib.ones(0)], dim=3)"),
 ("matmul_batch_of_one_folded", "(lambda a, b: [n[0].name() for n in (a @ b).grad_fn.next_functions[0][0].next_functions[0][0].next_functions if n[0] is not None])(lib.ones(1, 2, 3, requires_grad=True), lib.ones(2, 3, 2))"),
 ("matmul_fold_3d_2d", "(lambda y: (y.grad_fn.name(), [n[0].name() for n in y.grad_fn.next_functions[0][0].next_functions]))(lib.ones(2, 2, 3, requires_grad=True) @ lib.ones(3, 3, requires_grad=True))"),
 ("matmul_batched_nodes", "(lambda y: (y.grad_fn.name(), [n[0].name() for n in y.grad_fn.next_functions[0][0].next_functions]))(lib.ones(3, 2, 2, requires_grad=True) @ lib.ones(3, 2, 2, requires_grad=True))"),
 ("version_message_names_current_producer", "(lambda x: (lambda a: (lambda b: (a.mul_(2), b.sum().backward()))(a * a))(x ** 2))(lib.tensor([1.0, 2.0], requires_grad=True))"),
 ("sign_of_nan_and_negative_zero", "lib.sign(lib.tensor([float('nan'), -0.0, 0.0, 2.0, -3.0]))"),
 ("same_memory_through_a_size_one_dim", "(lambda a: a[-1][None].mul_(a))(lib.ones(1, dtype=lib.float64))"),
 ("overlap_with_a_reshaped_view", "(lambda x: x.mul_(x.view(-1)))(lib.ones(2, 1))"),
 ("overlap_with_an_unsqueezed_view", "(lambda x: x.unsqueeze(2).mul_(x))(lib.ones(2, 1))"),
 ("bmm_bool_before_dtype", "lib.ones(3, 2, 2, dtype=lib.bool) @ lib.ones(3, 2, 2)"),
 ("write_into_an_expanded_slice", "write_into_an_expanded_slice(lib)"),
 ("float32_minus_float64_scalar_tensor", "(lambda a: a - lib.tensor(0.95665094, dtype=lib.float64))(lib.tensor([0.95665094]))"),
 ("int_true_division_in_float32", "lib.tensor([1, 2]) / lib.tensor([3, 7])"),
 ("sigmoid_far_below_zero", "lib.tensor([-20.0, -88.0, -100.0]).sigmoid()"),
 ("version_message_pow1", "change_saved_output_of_pow1(lib)"),
 ("version_message_bool_tensor", "change_saved_bool_condition(lib)"),
]

GRAD_CASES = [
 # (name, a function of the leaves, the leaves' values): the text of
 # autograd.grad(f(leaves).sum(), leaves, create_graph=True), as (gradient, requires_grad) pairs
 ("clamp_negative_upstream", "lambda x: x.clamp(-0.5, 0.5) * -1.5", [[1.0, 0.2, -1.0]]),
 ("maximum_negative_upstream", "lambda x, y: lib.maximum(x, y) * -1.5", [[1.0, 2.0, 3.0], [2.0, 1.0, 3.0]]),
 ("minimum_negative_upstream", "lambda x, y: lib.minimum(x, y) * -1.5", [[1.0, 2.0, 3.0], [2.0, 1.0, 3.0]]),
 ("where_negative_upstream", "lambda x, y: lib.where(x > 1.5, x, y) * -1.5", [[1.0, 2.0], [2.0, 1.0]]),
 ("relu_negative_upstream", "lambda x: x.relu() * -1.5", [[1.0, -2.0]]),
 ("max_negative_upstream", "lambda x: x.max() * -1.5", [[1.0, 2.0]]),
 ("pow_zero_negative_upstream", "lambda x: x ** 0 * -1.5", [[1.0, 2.0]]),
 ("zero_negative_upstream", "lambda x: (x * 1).zero_() * -1.5 + x", [[1.0, 2.0]]),
 ("relu_blocks_nan", "lambda x: x.relu().log() * 0 + x.relu()", [[1.0, -2.0]]),
 ("relu_of_0d_tensors", "lambda x, y: x.relu() * -1.5 + y.relu()", [-2.0, 3.0]),
 ("cat_of_empty_vectors_gradient", "lambda x: lib.cat([x, x]).sin()", [[]]),
 ("maximum_nan_gives_both", "lambda x, y: lib.maximum(x, y)", [[float('nan'), 1.0], [1.0, 2.0]]),
 ("abs_of_nan", "lambda x: x.abs()", [[float('nan'), -1.0]]),
 ("max_with_nan_goes_to_the_nans", "lambda x: x.max()", [[1.0, float('nan'), 2.0, float('nan')]]),
 ("pow_of_zero_saves_the_exponent", "lambda x: 0 ** x", [[0.5, 0.0, -1.0]]),
 ("var_of_one_value", "lambda x: x.var()", [[2.0]]),
 ("var_of_one_value_along_a_dim", "lambda x: x.var(dim=0)", [[2.0]]),
 ("prod_of_a_0d_tensor", "lambda x: x.prod()", [2.0]),
 ("prod_along_a_dim_of_size_one", "lambda x: x.prod(dim=0)", [[[2.0, 3.0]]]),
 ("prod_of_zeros_along_a_dim_of_size_one", "lambda x: x.prod(dim=0)", [[[0.0, 3.0]]]),
 ("prod_with_a_zero", "lambda x: x.prod(dim=0)", [[0.0, 3.0]]),
 ("prod_of_a_single_zero", "lambda x: x.prod()", [[[0.0]]]),
]

EXPECTED = {
    'clamp_int_float_bounds': 'tensor([ 0.5000, -0.5000,  0.5000])',
    'clamp_int_int_bounds': 'tensor([1, 0, 2])',
    'clamp_bool_float_bound': 'tensor([0.5000, 0.0000])',
    'log_softmax_0d': 'tensor(0., grad_fn=<LogSoftmaxBackward0>)',
    'softmax_0d': 'tensor(1.)',
    'softmax_empty': 'tensor([])',
    'softmax_int_lastdim': 'NotImplementedError: "softmax_lastdim_kernel_impl" not implemented for \'Long\'',
    'softmax_int_dim0': 'NotImplementedError: "softmax_kernel_impl" not implemented for \'Long\'',
    'log_softmax_int_lastdim': 'NotImplementedError: "log_softmax_lastdim_kernel_impl" not implemented for \'Long\'',
    'log_softmax_bool_dim0': 'NotImplementedError: "log_softmax_kernel_impl" not implemented for \'Bool\'',
    'logsumexp_int': 'tensor(2.3133)',
    'var_int': 'RuntimeError: std and var only support floating point and complex dtypes',
    'std_bool': 'RuntimeError: std and var only support floating point and complex dtypes',
    'relu_bool': 'RuntimeError: Boolean inputs not supported for relu',
    'abs_bool': 'NotImplementedError: "abs_cpu" not implemented for \'Bool\'',
    'permute_no_dims': 'TypeError: permute() missing 1 required positional arguments: "dims"',
    'max_dim_empty': 'IndexError: max(): Expected reduction dim 0 to have non-zero size.',
    'max_dim_empty_other_dim': 'tensorgrad.return_types.max(\nvalues=tensor([]),\nindices=tensor([], dtype=tensorgrad.int64))',
    'bool_minus_python_bool': 'RuntimeError: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.',
    'float_minus_python_bool': 'RuntimeError: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.',
    'python_bool_minus_float': 'RuntimeError: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.',
    'two_bool_tensors': 'RuntimeError: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.',
    'bool_tensor_minus_float': 'RuntimeError: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.',
    'int_pow_negative_int_tensor': 'tensor([[ 1,  1,  1,  1,  1],\n        [ 0,  0,  1,  3,  9],\n        [ 1, -1,  1, -1,  1],\n        [ 0,  0,  1,  0,  0],\n        [ 0,  0,  1, -2,  4]])',
    'number_pow_negative_int_tensor': 'tensor([0, 4])',
    'bool_pow_int_tensor': 'tensor([1, 0])',
    'bool_pow_bool': 'NotImplementedError: "pow" not implemented for \'Bool\'',
    'cat_scalar': 'RuntimeError: zero-dimensional tensor (at position 1) cannot be concatenated',
    'cat_scalar_bad_dim': 'RuntimeError: zero-dimensional tensor (at position 0) cannot be concatenated',
    'cat_ndim': 'RuntimeError: Tensors must have same number of dimensions: got 2 and 3',
    'cat_sizes': 'RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list.',
    'stack_bad_dim_first': 'IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 3)',
    'stack_sizes': 'RuntimeError: stack expects each tensor to be equal size, but got [2, 1] at entry 0 and [2, 2] at entry 1',
    'mv_dtypes': 'RuntimeError: addmv input tensors must have the same dtype, but got Float, Double, and Float',
    'dot_dtypes': 'RuntimeError: dot : expected both vectors to have same dtype, but found Float and Double',
    'dot_dtype_before_size': 'RuntimeError: dot : expected both vectors to have same dtype, but found Float and Long',
    'bmm_dtypes': 'RuntimeError: expected scalar type Double but found Float',
    'bmm_size_before_dtype': 'RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 2x2)',
    'mm_bool': 'NotImplementedError: "addmm_impl_cpu_" not implemented for \'Bool\'',
    'mv_bool': 'NotImplementedError: "addmv_impl_cpu" not implemented for \'Bool\'',
    'dot_bool': 'NotImplementedError: "dot" not implemented for \'Bool\'',
    'empty_bool_matmul_is_answered': 'tensor([False, False])',
    'bmm_bool': 'NotImplementedError: "bmm" not implemented for \'Bool\'',
    'batch_mismatch': 'RuntimeError: The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0',
    'folded_vector_size': 'RuntimeError: size mismatch, got input (6), mat (6x2), vec (3)',
    'folded_matrix_size': 'RuntimeError: mat1 and mat2 shapes cannot be multiplied (6x2 and 3x4)',
    'maximum_tie_signed_zero': 'tensor([-0., 0.])',
    'minimum_tie_signed_zero': 'tensor([-0., 0.])',
    'add_into_expanded': 'RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.',
    'copy_into_expanded': 'RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.',
    'add_partly_overlapping': 'RuntimeError: unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.',
    'add_same_memory_is_fine': 'tensor([0., 2., 4.])',
    'add_disjoint_halves_is_fine': 'tensor([3., 5., 7., 3., 4., 5.])',
    'overlap_before_shape_check': 'RuntimeError: unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.',
    'full_overlap_then_shape_check': "RuntimeError: output with shape [1, 2] doesn't match the broadcast shape [2, 2]",
    'leaf_rule_before_bool_subtraction': 'RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.',
    'reshape_copy_nodes': "('UnsafeViewBackward0', 'CloneBackward0')",
    'contiguous_copy_node': 'tensor([[1., 1.],\n        [1., 1.],\n        [1., 1.]], grad_fn=<CloneBackward0>)',
    'contiguous_of_contiguous_is_itself': 'True',
    'numpy_force': 'array([1., 1.], dtype=float32)',
    'integer_index_is_a_view': 'tensor([1., 2., 2.])',
    'relu_keeps_negative_zero': 'tensor([-0., 0., 0.])',
    'cat_skips_empty_vectors': 'tensor([[1., 1., 1.],\n        [1., 1., 1.]])',
    'cat_of_empty_vectors_any_dim': 'tensor([])',
    'matmul_batch_of_one_folded': "['MmBackward0']",
    'matmul_fold_3d_2d': "('UnsafeViewBackward0', ['ViewBackward0', 'tensorgrad::autograd::AccumulateGrad'])",
    'matmul_batched_nodes': "('UnsafeViewBackward0', ['ViewBackward0', 'ViewBackward0'])",
    'version_message_names_current_producer': 'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [tensorgrad.FloatTensor [2]], which is output 0 of Mul, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with tensorgrad.autograd.set_detect_anomaly(True, check_nan=False).',
    'sign_of_nan_and_negative_zero': 'tensor([ 0.,  0.,  0.,  1., -1.])',
    'same_memory_through_a_size_one_dim': 'tensor([1.], dtype=tensorgrad.float64)',
    'overlap_with_a_reshaped_view': 'RuntimeError: unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.',
    'overlap_with_an_unsqueezed_view': 'RuntimeError: unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.',
    'bmm_bool_before_dtype': 'NotImplementedError: "bmm" not implemented for \'Bool\'',
    'write_into_an_expanded_slice': 'tensor([[[3., 3., 3.],\n         [3., 3., 3.]],\n\n        [[3., 3., 3.],\n         [3., 3., 3.]]])',
    'float32_minus_float64_scalar_tensor': 'tensor([0.])',
    'int_true_division_in_float32': 'tensor([0.3333, 0.2857])',
    'sigmoid_far_below_zero': 'tensor([2.0612e-09, 6.0546e-39, 0.0000e+00])',
    'version_message_pow1': 'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [tensorgrad.FloatTensor [2]], which is output 0 of Pow1, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with tensorgrad.autograd.set_detect_anomaly(True, check_nan=False).',
    'version_message_bool_tensor': 'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [CPUBoolType [2]] is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with tensorgrad.autograd.set_detect_anomaly(True, check_nan=False).',
    'clamp_negative_upstream': '((tensor([ 0.0000, -1.5000,  0.0000]), False),)',
    'maximum_negative_upstream': '((tensor([ 0.0000, -1.5000, -0.7500]), False), (tensor([-1.5000,  0.0000, -0.7500]), False))',
    'minimum_negative_upstream': '((tensor([-1.5000,  0.0000, -0.7500]), False), (tensor([ 0.0000, -1.5000, -0.7500]), False))',
    'where_negative_upstream': '((tensor([ 0.0000, -1.5000]), False), (tensor([-1.5000,  0.0000]), False))',
    'relu_negative_upstream': '((tensor([-1.5000,  0.0000], grad_fn=<ThresholdBackwardBackward0>), True),)',
    'max_negative_upstream': '((tensor([ 0.0000, -1.5000]), False),)',
    'pow_zero_negative_upstream': '((tensor([0., 0.]), False),)',
    'zero_negative_upstream': '((tensor([1., 1.]), False),)',
    'relu_blocks_nan': '((tensor([1., 0.], grad_fn=<AddBackward0>), True),)',
    'relu_of_0d_tensors': '((tensor(0., grad_fn=<ThresholdBackwardBackward0>), True), (tensor(1., grad_fn=<ThresholdBackwardBackward0>), True))',
    'cat_of_empty_vectors_gradient': '((tensor([]), False),)',
    'maximum_nan_gives_both': '((tensor([1., 0.]), False), (tensor([1., 1.]), False))',
    'abs_of_nan': '((tensor([ 0., -1.], grad_fn=<MulBackward0>), True),)',
    'max_with_nan_goes_to_the_nans': '((tensor([0.0000, 0.5000, 0.0000, 0.5000]), False),)',
    'pow_of_zero_saves_the_exponent': '((tensor([0., 0., -inf], grad_fn=<MulBackward0>), True),)',
    'var_of_one_value': '((tensor([nan]), False),)',
    'var_of_one_value_along_a_dim': '((tensor([nan], grad_fn=<MulBackward0>), True),)',
    'prod_of_a_0d_tensor': '((tensor(1.), False),)',
    'prod_along_a_dim_of_size_one': '((tensor([[1., 1.]], grad_fn=<MulBackward0>), True),)',
    'prod_of_zeros_along_a_dim_of_size_one': '((tensor([[1., 1.]]), False),)',
    'prod_with_a_zero': '((tensor([3., 0.], grad_fn=<MulBackward0>), True),)',
    'prod_of_a_single_zero': '((tensor([[1.]]), False),)',
}


def outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return show(repr(call()))
        except Exception as error:  # noqa: BLE001  (the error is the outcome)
            return f"{type(error).__name__}: {show(str(error))}"


@pytest.mark.parametrize("name, code", CASES, ids=[name for name, _ in CASES])
def test_outcome_is_pytorchs(lib, name, code):
    assert outcome(lambda: eval(code, {**globals(), "lib": lib})) == EXPECTED[name]


@pytest.mark.parametrize("name, code, values", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_are_pytorchs(lib, name, code, values):
    def gradients():
        leaves = [lib.tensor(v, requires_grad=True) for v in values]
        result = eval(code, {"lib": lib})(*leaves)
        grads = lib.autograd.grad(result.sum(), leaves, create_graph=True, allow_unused=True)
        return tuple((g, g.requires_grad) for g in grads)

    assert outcome(gradients) == EXPECTED[name]
