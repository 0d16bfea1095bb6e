"""Custom `autograd.Function`: PyTorch's behaviour, row by row.

Every test takes the `lib` fixture: tensorgrad, and PyTorch when it is installed, so each row is
also a parity test. Texts are compared after turning torch's `torch.` into `tensorgrad.` and
memory addresses into `0x…`.
"""

import warnings

from parity import lib, make_square, raises, show  # noqa: F401  (lib is a fixture)

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


# -- Functions used by several rows (built per library) ------------------------------------------
def make_exp(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    return Exp


def make_mul_const(lib, returns):
    class MulConst(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            return returns(g, ctx.k)

    return MulConst


# -- the basic Exp example ------------------------------------------------------------------------
def test_exp_forward_backward_and_names(lib):
    Exp = make_exp(lib)
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = Exp.apply(x)
    assert show(y) == "tensor([1.0000, 2.7183], grad_fn=<ExpBackward>)"
    assert type(y.grad_fn).__name__ == "ExpBackward"
    assert y.grad_fn.name() == "ExpBackward"
    y.sum().backward()
    assert show(x.grad) == "tensor([1.0000, 2.7183])"


def test_node_repr_is_module_qualified(lib):
    y = make_exp(lib).apply(lib.tensor([0.0, 1.0], requires_grad=True))
    assert show(y.grad_fn) == "<tensorgrad.autograd.function.ExpBackward object at 0x…>"
    mro = type(y.grad_fn).__mro__
    assert mro[0].__name__ == "ExpBackward"
    assert mro[1].__name__ == "BackwardCFunction"


def test_no_input_requires_grad(lib):
    y = make_exp(lib).apply(lib.tensor([0.0, 1.0]))
    assert show(y) == "tensor([1.0000, 2.7183])"
    assert y.requires_grad is False
    assert y.grad_fn is None


def test_grad_mode_inside_forward_and_backward(lib):
    seen = {}

    class Probe(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen["forward"] = lib.is_grad_enabled()
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            seen.setdefault("backward", []).append(lib.is_grad_enabled())
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = lib.tensor([3.0], requires_grad=True)
    Probe.apply(x).sum().backward()
    lib.autograd.grad(Probe.apply(x).sum(), x, create_graph=True)
    assert seen == {"forward": False, "backward": [False, True]}


def test_instantiating_warns_then_calling_raises(lib):
    Exp = make_exp(lib)
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        instance = Exp()
    assert [w.category for w in caught] == [DeprecationWarning]
    assert str(caught[0].message) == (
        f"{Exp} should not be instantiated. Methods on autograd functions are all static, so you "
        "should invoke them on the class itself. Instantiating an autograd function will raise an "
        "error in a future version of PyTorch.")
    raises(RuntimeError,
           "Legacy autograd function with non-static forward method is deprecated. Please use "
           "new-style autograd function with static forward method. (Example: "
           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)",
           lambda: instance(x))


# -- arguments and returned gradients ----------------------------------------------------------------
def test_non_tensor_argument_and_ctx_attributes(lib):
    MulConst = make_mul_const(lib, lambda g, k: (g * k, None))
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    MulConst.apply(x, 3.0).sum().backward()
    assert show(x.grad) == "tensor([3., 3.])"


def test_non_tensor_argument_is_not_an_edge(lib):
    MulConst = make_mul_const(lib, lambda g, k: (g * k, None))
    y = MulConst.apply(lib.tensor([1.0, 2.0], requires_grad=True), 3.0)
    assert len(y.grad_fn.next_functions) == 1
    assert y.grad_fn.needs_input_grad == (True, False)


def test_too_few_gradients(lib):
    MulConst = make_mul_const(lib, lambda g, k: g * k)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    raises(RuntimeError,
           "function MulConstBackward returned an incorrect number of gradients (expected 2, got 1)",
           lambda: MulConst.apply(x, 3.0).sum().backward())


def test_too_many_gradients(lib):
    class Id(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    raises(RuntimeError,
           "function IdBackward returned an incorrect number of gradients (expected 1, got 2)",
           lambda: Id.apply(x).sum().backward())


def test_extra_trailing_none_is_accepted(lib):
    class Id(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g, None

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    Id.apply(x).sum().backward()
    assert show(x.grad) == "tensor([1., 1.])"


def test_gradient_of_the_wrong_shape(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return lib.ones(3)

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    raises(RuntimeError,
           "Function BadBackward returned an invalid gradient at index 0 - got [3] but expected "
           "shape compatible with [2]",
           lambda: Bad.apply(x).sum().backward())


def test_gradient_with_broadcast_shape_is_summed(lib):
    class Broad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return lib.ones(3, 2)

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    Broad.apply(x).sum().backward()
    assert show(x.grad) == "tensor([3., 3.])"


def test_gradient_for_a_non_tensor_argument(lib):
    MulConst = make_mul_const(lib, lambda g, k: (g * k, g))
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    raises(RuntimeError,
           "function MulConstBackward returned a gradient different than None at position 2, but "
           "the corresponding forward input was not a Variable",
           lambda: MulConst.apply(x, 3.0).sum().backward())


def test_gradient_that_is_not_a_tensor(lib):
    class Number(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 3.0

    x = lib.tensor([1.0], requires_grad=True)
    raises(RuntimeError, "expected Variable or None (got float)",
           lambda: Number.apply(x).sum().backward())


def test_needs_input_grad_in_forward_and_backward(lib):
    seen = []

    class Both(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            seen.append(ctx.needs_input_grad)
            return a * b

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.needs_input_grad)
            return g, None

    a = lib.tensor([1.0], requires_grad=True)
    b = lib.tensor([2.0])
    Both.apply(a, b).sum().backward()
    assert seen == [(True, False), (True, False)]
    assert b.grad is None
    assert show(a.grad) == "tensor([1.])"


# -- saving tensors ---------------------------------------------------------------------------------
def test_save_for_backward_refuses_non_tensors(lib):
    class Save(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 1

    raises(TypeError, "save_for_backward can only save variables, but argument 1 is of type int",
           lambda: Save.apply(lib.tensor([1.0], requires_grad=True)))


def test_save_for_backward_accepts_none(lib):
    seen = []

    class Save(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, None)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            saved = ctx.saved_tensors
            seen.append(saved)
            return g * 2

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    Save.apply(x).sum().backward()
    (saved,) = seen
    assert saved[0] is x
    assert saved[1] is None


def test_second_backward_after_saving(lib):
    y = make_exp(lib).apply(lib.tensor([0.0, 1.0], requires_grad=True)).sum()
    y.backward()
    raises(RuntimeError, SECOND_BACKWARD, y.backward)


def test_second_backward_without_saving_works(lib):
    MulConst = make_mul_const(lib, lambda g, k: (g * k, None))
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = MulConst.apply(x, 3.0).sum()
    y.backward()
    y.backward()
    assert show(x.grad) == "tensor([6., 6.])"


def test_saved_tensors_with_retain_graph(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = make_exp(lib).apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert show(x.grad) == "tensor([2.0000, 5.4366])"


def test_saved_output_modified_in_place(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = make_exp(lib).apply(x)
    y.add_(1)
    raises(RuntimeError,
           "one of the variables needed for gradient computation has been modified by an inplace "
           "operation: [tensorgrad.FloatTensor [2]], which is output 0 of Exp, is at version 1; "
           "expected version 0 instead. Hint: enable anomaly detection to find the operation that "
           "failed to compute its gradient, with tensorgrad.autograd.set_detect_anomaly(True, "
           "check_nan=False).",
           lambda: y.sum().backward())


def test_saved_input_modified_in_place(lib):
    Square = make_square(lib)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = Square.apply(h)
    h.mul_(2)
    raises(RuntimeError,
           "one of the variables needed for gradient computation has been modified by an inplace "
           "operation: [tensorgrad.FloatTensor [2]], which is output 0 of Mul, is at "
           "version 1; expected version 0 instead. Hint: enable anomaly detection to find the "
           "operation that failed to compute its gradient, with "
           "tensorgrad.autograd.set_detect_anomaly(True, check_nan=False).",
           lambda: y.sum().backward())


def test_saved_output_does_not_keep_the_graph_alive(lib):
    import gc
    import weakref

    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = make_exp(lib).apply(x)
    node = weakref.ref(y.grad_fn)
    gc.disable()
    try:
        del y
        assert node() is None  # freed by reference counting alone: no cycle through the output
    finally:
        gc.enable()


# -- several outputs ----------------------------------------------------------------------------------
def make_split(lib, materialize=True):
    seen = []

    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1, g2))
            return g1 if g2 is None else g1 + 2 * g2

    return Split, seen


def test_two_outputs_unused_one_gets_zeros(lib):
    Split, seen = make_split(lib)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a, b = Split.apply(x)
    assert a.grad_fn is b.grad_fn
    assert (a.output_nr, b.output_nr) == (0, 1)
    a.sum().backward()
    ((g1, g2),) = seen
    assert show(g1) == "tensor([1., 1.])"
    assert show(g2) == "tensor([0., 0.])"


def test_two_outputs_both_used(lib):
    Split, _ = make_split(lib)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a, b = Split.apply(x)
    (a + b).sum().backward()
    assert show(x.grad) == "tensor([3., 3.])"


def test_set_materialize_grads_false(lib):
    Split, seen = make_split(lib, materialize=False)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a, _ = Split.apply(x)
    a.sum().backward()
    ((g1, g2),) = seen
    assert show(g1) == "tensor([1., 1.])"
    assert g2 is None


def test_non_tensor_output_gets_none(lib):
    seen = []

    class WithCount(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 5

        @staticmethod
        def backward(ctx, g, g_count):
            seen.append(g_count)
            return 2 * g

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y, count = WithCount.apply(x)
    assert count == 5
    y.sum().backward()
    assert seen == [None]


def test_mark_non_differentiable(lib):
    class SortIdx(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            index = lib.tensor([1, 2, 0])
            ctx.mark_non_differentiable(index)
            return x[index], index

        @staticmethod
        def backward(ctx, grad_values, grad_index):
            return None

    v, i = SortIdx.apply(lib.tensor([3.0, 1.0, 2.0], requires_grad=True))
    assert show(v) == "tensor([1., 2., 3.], grad_fn=<SortIdxBackward>)"
    assert show(i) == "tensor([1, 2, 0])"
    assert i.requires_grad is False


def test_mark_non_differentiable_float_output_gets_zero_grad(lib):
    seen = []

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a = x * 2
            ctx.mark_non_differentiable(a)
            return a, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            seen.append(ga)
            return 3 * gb

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a, b = Two.apply(x)
    assert a.requires_grad is False
    b.sum().backward()
    assert show(seen[0]) == "tensor([0., 0.])"
    assert show(x.grad) == "tensor([3., 3.])"


# -- setup_context, returning inputs, mark_dirty ---------------------------------------------------------
def test_setup_context(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = lib.tensor([3.0], requires_grad=True)
    Square.apply(x).backward()
    assert show(x.grad) == "tensor([6.])"


def test_setup_context_with_default_argument(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(x, k=2.0):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = lib.tensor([1.0], requires_grad=True)
    Scale.apply(x).backward()
    assert show(x.grad) == "tensor([2.])"


def test_returning_an_input_gives_a_new_tensor(lib):
    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = lib.tensor([3.0], requires_grad=True)
    y = Ident.apply(x)
    assert y is not x
    assert type(y.grad_fn).__name__ == "IdentBackward"
    assert y.is_leaf is False
    y.backward()
    assert show(x.grad) == "tensor([1.])"


def make_add_one_in_place(lib):
    class AddOneInplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    return AddOneInplace


def test_mark_dirty_returns_the_same_object(lib):
    leaf = lib.tensor([1.0], requires_grad=True)
    y = leaf.clone()
    z = make_add_one_in_place(lib).apply(y)
    assert z is y
    assert show(z) == "tensor([2.], grad_fn=<AddOneInplaceBackward>)"
    assert z._version == 2  # the add_ and the mark_dirty each count as a change
    z.backward()
    assert show(leaf.grad) == "tensor([1.])"


def test_mark_dirty_on_a_leaf(lib):
    leaf = lib.tensor([1.0], requires_grad=True)
    raises(RuntimeError,
           "a leaf Variable that requires grad has been used in an in-place operation.",
           lambda: make_add_one_in_place(lib).apply(leaf))


def test_mark_dirty_tensor_must_be_returned(lib):
    class Dirty(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    raises(RuntimeError,
           "Some elements marked as dirty during the forward method were not returned as output. "
           "The inputs that are modified inplace must all be outputs of the Function.",
           lambda: Dirty.apply(lib.tensor([1.0], requires_grad=True).clone()))


def test_ctx_is_the_backward_node(lib):
    seen = []

    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(ctx)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    y = F.apply(lib.tensor([1.0], requires_grad=True))
    (ctx,) = seen
    assert ctx is y.grad_fn
    assert type(ctx).__name__ == "FBackward"
    for name in ("save_for_backward", "saved_tensors", "needs_input_grad", "mark_dirty",
                 "mark_non_differentiable", "set_materialize_grads"):
        assert hasattr(ctx, name), name


# -- missing methods ---------------------------------------------------------------------------------------
def test_no_forward(lib):
    class NoForward(lib.autograd.Function):
        pass

    raises(NotImplementedError,
           "You must implement the forward function for custom autograd.Function.",
           lambda: NoForward.apply(lib.tensor([1.0], requires_grad=True)))


def test_no_backward(lib):
    class NoBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    y = NoBackward.apply(lib.tensor([1.0], requires_grad=True))
    raises(NotImplementedError,
           "You must implement either the backward or vjp method for your custom "
           "autograd.Function to use it with backward mode AD.",
           y.backward)


def test_vjp_instead_of_backward(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return 2 * g

    x = lib.tensor([1.0], requires_grad=True)
    Double.apply(x).backward()
    assert show(x.grad) == "tensor([2.])"


# -- higher derivatives ----------------------------------------------------------------------------------------
def test_double_backward(lib):
    x = lib.tensor([3.0], requires_grad=True)
    (g,) = lib.autograd.grad(make_square(lib).apply(x), x, create_graph=True)
    assert show(g) == "tensor([6.], grad_fn=<MulBackward0>)"
    assert show(lib.autograd.grad(g, x)) == "(tensor([2.]),)"


def test_double_backward_through_a_saved_output(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    (g,) = lib.autograd.grad(make_exp(lib).apply(x).sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    assert show(gg) == "tensor([1.0000, 2.7183])"


def test_once_differentiable_without_graph_outputs(lib):
    x = lib.tensor([3.0], requires_grad=True)
    (g,) = lib.autograd.grad(make_square(lib, once=True).apply(x), x, create_graph=True)
    assert show(g) == "tensor([6.])"
    assert g.requires_grad is False
    raises(RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn",
           lambda: lib.autograd.grad(g, x))


def test_once_differentiable_when_grad_outputs_require_grad(lib):
    x = lib.tensor([3.0], requires_grad=True)
    v = lib.tensor([1.0], requires_grad=True)
    (g,) = lib.autograd.grad(make_square(lib, once=True).apply(x), x, v, create_graph=True)
    assert show(g) == "tensor([6.], grad_fn=<Error>)"
    raises(RuntimeError,
           "The differentiated Tensor at index 0 appears to not have been used in the graph. Set "
           "allow_unused=True if this is the desired behavior.",
           lambda: lib.autograd.grad(g, x))


def test_once_differentiable_error_node_raises_when_reached(lib):
    x = lib.tensor([3.0], requires_grad=True)
    v = lib.tensor([1.0], requires_grad=True)
    (g,) = lib.autograd.grad(make_square(lib, once=True).apply(x), x, v, create_graph=True)
    raises(RuntimeError,
           "trying to differentiate twice a function that was marked with @once_differentiable",
           g.backward)


def test_once_differentiable_first_derivative_is_right(lib):
    x = lib.tensor([3.0], requires_grad=True)
    make_square(lib, once=True).apply(x).backward()
    assert show(x.grad) == "tensor([6.])"


def test_function_in_a_larger_graph(lib):
    Exp = make_exp(lib)
    x = lib.tensor([0.5, -1.0], requires_grad=True)
    w = lib.tensor([2.0, 3.0], requires_grad=True)
    (Exp.apply(x * w) * w).sum().backward()
    expected_x = (x * w).detach().exp() * w.detach() * w.detach()
    assert lib.allclose(x.grad, expected_x)


# -- the extending notes' QKVProjection: gradients boxed into one list --------------------------
def make_qkv_projection(lib, *, clear_saved=False):
    """One input projected by three weights; backward gets the three output gradients as one
    mutable list (boxed_grads_call) and drops each as soon as it is used."""
    class QKVProjection(lib.autograd.Function):
        boxed_grads_call = True
        clear_saved_tensors_on_access = clear_saved

        @staticmethod
        def forward(ctx, x, wq, wk, wv):
            ctx.save_for_backward(x, wq, wk, wv)
            return x @ wq, x @ wk, x @ wv

        @staticmethod
        def backward(ctx, grads):
            ctx.seen = (type(grads), len(grads))
            x, wq, wk, wv = ctx.saved_tensors
            grad_x, grad_ws = None, []
            for w in (wq, wk, wv):
                g = grads.pop(0)  # freed as soon as it has been used
                grad_x = g @ w.t() if grad_x is None else grad_x + g @ w.t()
                grad_ws.append(x.t() @ g)
            ctx.left = len(grads)
            return (grad_x, *grad_ws)

    return QKVProjection


def _qkv_inputs(lib):
    x = lib.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
    ws = [(lib.tensor([[0.5, -1.], [2., 0.25]]) * (k + 1)).requires_grad_() for k in range(3)]
    return x, ws


def test_boxed_grads_call_gives_backward_one_list(lib):
    assert lib.autograd.Function.boxed_grads_call is False
    x, ws = _qkv_inputs(lib)
    q, k, v = make_qkv_projection(lib).apply(x, *ws)
    (q.sum() + (k * 2).sum() + (v ** 2).sum()).backward()
    assert q.grad_fn.seen == (list, 3) and q.grad_fn.left == 0
    gq, gk, gv = lib.ones(3, 2), 2 * lib.ones(3, 2), 2 * v.detach()
    expected_x = gq @ ws[0].detach().t() + gk @ ws[1].detach().t() + gv @ ws[2].detach().t()
    assert x.grad.tolist() == expected_x.tolist()
    for w, g in zip(ws, (gq, gk, gv)):
        assert w.grad.tolist() == (x.detach().t() @ g).tolist()


def test_boxed_grads_are_materialized_for_unused_outputs(lib):
    x, ws = _qkv_inputs(lib)
    q, _, _ = make_qkv_projection(lib).apply(x, *ws)
    q.sum().backward()  # k and v get zero gradients in the list
    assert q.grad_fn.seen == (list, 3)
    assert x.grad.tolist() == (lib.ones(3, 2) @ ws[0].detach().t()).tolist()
    assert ws[1].grad.tolist() == [[0., 0.], [0., 0.]]


def test_clear_saved_tensors_on_access_allows_one_read(lib):
    x, ws = _qkv_inputs(lib)
    q, k, v = make_qkv_projection(lib, clear_saved=True).apply(x, *ws)
    (q.sum() + k.sum() + v.sum()).backward(retain_graph=True)
    raises(RuntimeError, "saved_tensors can only be accessed once when "
           "clear_saved_tensors_on_access=True is set on the autograd.Function. Either access "
           "saved_tensors only once, or set clear_saved_tensors_on_access=False.",
           lambda: q.sum().backward())
