"""PyTorch's behaviour: broadcasting — each input's gradient is summed back to that input's shape;
dtype promotion with Python scalars and mixed dtypes; shape errors.
"""

from .conftest import raises_exactly, show


def test_column_plus_row(tg):
    a = tg.ones(3, 1, requires_grad=True)
    b = tg.ones(1, 4, requires_grad=True)
    c = a + b
    c.sum().backward()
    assert show(c.shape) == "tensorgrad.Size([3, 4])"
    assert show(a.grad) == "tensor([[4.],\n        [4.],\n        [4.]])"
    assert show(a.grad.shape) == "tensorgrad.Size([3, 1])"
    assert show(b.grad) == "tensor([[3., 3., 3., 3.]])"
    assert show(b.grad.shape) == "tensorgrad.Size([1, 4])"


def test_vector_broadcast_over_matrix_rows(tg):
    a = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    m = tg.ones(2, 3, requires_grad=True)
    (m + a).sum().backward()
    assert show(a.grad) == "tensor([2., 2., 2.])"
    assert show(m.grad) == "tensor([[1., 1., 1.],\n        [1., 1., 1.]])"


def test_column_times_vector(tg):
    a = tg.tensor([[1.0], [2.0]], requires_grad=True)
    b = tg.tensor([10.0, 20.0, 30.0], requires_grad=True)
    (a * b).sum().backward()
    assert show(a.grad) == "tensor([[60.],\n        [60.]])"
    assert show(b.grad) == "tensor([3., 3., 3.])"


def test_0d_times_vector_keeps_0d_grad(tg):
    s = tg.tensor(2.0, requires_grad=True)
    v = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (s * v).sum().backward()
    assert show(s.grad) == "tensor(6.)"
    assert show(s.grad.shape) == "tensorgrad.Size([])"
    assert show(v.grad) == "tensor([2., 2., 2.])"


def test_3d_times_2d(tg):
    a = tg.ones(2, 1, 3, requires_grad=True)
    b = tg.ones(4, 1, requires_grad=True)
    c = a * b
    assert show(c.shape) == "tensorgrad.Size([2, 4, 3])"
    c.sum().backward()
    assert show(a.grad.shape) == "tensorgrad.Size([2, 1, 3])"
    assert show(b.grad.shape) == "tensorgrad.Size([4, 1])"
    assert show(b.grad) == "tensor([[6.],\n        [6.],\n        [6.],\n        [6.]])"
    assert show(a.grad) == "tensor([[[4., 4., 4.]],\n\n        [[4., 4., 4.]]])"


def test_expand_sum_backward(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    x.expand(3, 2).sum().backward()
    assert show(x.grad) == "tensor([3., 3.])"


def test_python_scalars_on_both_sides(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = 3 * x + 2 - x / 4 + 1 / x
    assert show(y) == "tensor([5.7500, 8.0000], grad_fn=<AddBackward0>)"
    y.sum().backward()
    assert show(x.grad) == "tensor([1.7500, 2.5000])"


def test_int64_times_python_float_gives_float32(tg):
    r = tg.tensor([1, 2]) * 2.5
    assert show(r) == "tensor([2.5000, 5.0000])"
    assert r.dtype == tg.float32


def test_int64_plus_python_int_stays_int64(tg):
    r = tg.tensor([1, 2]) + 1
    assert r.dtype == tg.int64
    assert show(r) == "tensor([2, 3])"


def test_float32_times_python_int_stays_float32(tg):
    r = tg.tensor([1.0, 2.0]) * 2
    assert r.dtype == tg.float32


def test_float32_requiring_grad_times_int64_tensor(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    r = x * tg.tensor([3, 4])
    assert show(r) == "tensor([3., 8.], grad_fn=<MulBackward0>)"
    assert r.dtype == tg.float32
    r.sum().backward()
    assert show(x.grad) == "tensor([3., 4.])"


def test_float64_times_float32_grads_keep_input_dtypes(tg):
    a = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    b = tg.tensor([3.0, 4.0], requires_grad=True)
    r = a * b
    assert r.dtype == tg.float64
    r.sum().backward()
    assert a.grad.dtype == tg.float64
    assert b.grad.dtype == tg.float32
    assert show(a.grad) == "tensor([3., 4.], dtype=tensorgrad.float64)"
    assert show(b.grad) == "tensor([1., 2.])"


def test_incompatible_shapes_raise(tg):
    with raises_exactly(
        tg,
        RuntimeError,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0",
    ):
        tg.ones(3) + tg.ones(4)


def test_matmul_shape_mismatch_raises(tg):
    with raises_exactly(
        tg, RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"
    ):
        tg.ones(2, 3) @ tg.ones(2, 3)


def test_sum_to_size_sums_back_what_broadcasting_stretched(tg):
    x = tg.ones(2, 3, requires_grad=True) * 1
    assert show(x.sum_to_size(3)) == "tensor([2., 2., 2.], grad_fn=<ViewBackward0>)"
    assert show(x.sum_to_size(1, 3)) == "tensor([[2., 2., 2.]], grad_fn=<SumBackward1>)"
    assert show(x.sum_to_size((2, 1))) == "tensor([[3.],\n        [3.]], grad_fn=<SumBackward1>)"
    assert show(x.sum_to_size(())) == "tensor(6., grad_fn=<SumBackward0>)"
    assert x.sum_to_size(2, 3) is x
    raises_exactly(lambda: x.sum_to_size(2), RuntimeError,
                   "size {[2]} is not expandable to size {[2, 3]}.")


def test_gradient_of_a_broadcast_0d_input_is_one_sum_under_create_graph(tg):
    # the engine undoes broadcasting as PyTorch's does (sum_to): a 0-d input's gradient is a
    # plain sum, not a sum with keepdim and then a view
    s = tg.tensor(2.0, requires_grad=True)
    v = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    g, = tg.autograd.grad((s * v).sum(), s, create_graph=True)
    assert show(g) == "tensor(6., grad_fn=<SumBackward0>)"
    b = tg.ones(1, 3, requires_grad=True)
    w = tg.ones(4, 3, requires_grad=True)
    g, = tg.autograd.grad((b * w).sum(), b, create_graph=True)
    assert show(g) == "tensor([[4., 4., 4.]], grad_fn=<SumBackward1>)"
