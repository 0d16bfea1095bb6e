"""autograd.graph.saved_tensors_hooks and save_on_cpu, as in PyTorch: what the graph saves goes
through pack when it is saved and through unpack when backward reads it. Run on tensorgrad and
on torch (skipped without torch), comparing the printed text."""

import pytest

from parity import lib, raises, show  # noqa: F401  (lib is a fixture)


def test_pack_and_unpack_are_called_as_in_pytorch(lib, capsys):
    def pack(t):
        print("pack", show(t))
        return t * 1

    def unpack(p):
        print("unpack", show(p))
        return p

    x = lib.tensor([1., 2.], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
        z = y.exp()
    print("forward done")
    z.sum().backward()
    print(show(x.grad))
    assert capsys.readouterr().out == (
        "pack tensor([1., 2.], requires_grad=True)\n"
        "pack tensor([1., 2.], requires_grad=True)\n"
        "pack tensor([ 2.7183, 54.5981], grad_fn=<ExpBackward0>)\n"
        "forward done\n"
        "unpack tensor([ 2.7183, 54.5981])\n"
        "unpack tensor([1., 2.])\n"
        "unpack tensor([1., 2.])\n"
        "tensor([  5.4366, 218.3926])\n")


def test_the_unpacked_value_stands_in_for_the_saved_tensor(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: 5, lambda p: lib.tensor([7., 7.])):
        q = x.sin()
    assert show(q.grad_fn._saved_self) == "tensor([7., 7.], requires_grad=True)"
    q.sum().backward()
    assert show(x.grad) == "tensor([0.7539, 0.7539])"  # cos(7): the stand-in was used


def test_double_backward_through_hooked_tensors(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda p: p):
        y = (x ** 3).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    (h,) = lib.autograd.grad(g.sum(), x)
    assert show(g) == "tensor([ 3., 12.], grad_fn=<MulBackward0>)"
    assert show(h) == "tensor([ 6., 12.])"


def test_save_on_cpu_and_errors(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    with lib.autograd.graph.save_on_cpu(pin_memory=False):
        w = (x * 3).sin()
    w.sum().backward()
    assert show(x.grad) == "tensor([-2.9700,  2.8805])"
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 3):
        r = x.sin()
    raises(TypeError, "Output of saved tensor unpack_hook expected to be a Tensor but got result "
           "of type int", lambda: r.sum().backward())
    with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="^no hooks here$"):
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
                pass


# -- in-place operations under the hooks ---------------------------------------------------------
# x = a * 1.5 (x = [1.5, 2.25]), then one in-place op under hooks whose pack notes what it sees;
# then x.sum().backward(). What PyTorch 2.13 packs, and the gradients of a and b it gives:
IN_PLACE = {
    "div_": (lambda x, b: x.div_(b), "[[2.0, 3.0], [1.5, 2.25]] [0.75, 0.5] [-0.375, -0.25]"),
    "mul_": (lambda x, b: x.mul_(b), "[[2.0, 3.0], [1.5, 2.25]] [3.0, 4.5] [1.5, 2.25]"),
    "pow_": (lambda x, b: x.pow_(2), "[[1.5, 2.25]] [4.5, 6.75] None"),
    "pow_(b)": (lambda x, b: x.pow_(b),
                "[[2.0, 3.0], [1.5, 2.25], [2.25, 11.3906]] [4.5, 22.7812] [0.9123, 9.237]"),
    "log_": (lambda x, b: x.log_(), "[[1.5, 2.25]] [1.0, 0.6667] None"),
    "clamp_": (lambda x, b: x.clamp_(0, 1.6), "[[1.5, 2.25]] [1.5, 0.0] None"),
    "sin_": (lambda x, b: x.sin_(), "[[1.5, 2.25]] [0.1061, -0.9423] None"),
    "exp_": (lambda x, b: x.exp_(), "[[4.4817, 9.4877]] [6.7225, 14.2316] None"),
    "mul_(2.)": (lambda x, b: x.mul_(2.), "[] [3.0, 3.0] None"),
    # the rule's `self` is a copy of the old x; its `other` is x itself, read after the write:
    "mul_(x)": (lambda x, b: x.mul_(x), "[[1.5, 2.25], [1.5, 2.25]] [5.625, 10.9688] None"),
    "div_(x)": (lambda x, b: x.div_(x), "[[1.5, 2.25], [1.5, 2.25]] [-0.75, -1.875] None"),
    "sub_(b * x)": (lambda x, b: x.sub_(b * x),
                    "[[1.5, 2.25], [2.0, 3.0]] [-1.5, -3.0] [1.5, 4.5]"),
}


def rounded(t):
    return None if t is None else [round(v, 4) for v in t.tolist()]


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_ops_under_hooks_pack_a_copy_of_the_old_self(lib, name):
    """An in-place op whose rule reads the old `self` saves a copy of it (PyTorch saves
    `self.clone()`), and pack sees that copy, once. Backward then runs as in PyTorch instead of
    finding `self` overwritten."""
    op, expected = IN_PLACE[name]
    a = lib.tensor([1., 1.5], requires_grad=True)
    b = lib.tensor([2., 3.], requires_grad=True)
    x = a * 1.5
    packed = []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(rounded(t)) or t,
                                                lambda p: p):
        op(x, b)
    x.sum().backward()
    assert f"{packed} {rounded(a.grad)} {rounded(b.grad)}" == expected


@pytest.mark.parametrize("op", [lambda x: x.mul_(x), lambda x: x.div_(x),
                                lambda x: x.sub_(x.sin())],
                         ids=["mul_(x)", "div_(x)", "sub_(x.sin())"])
def test_without_hooks_only_the_rules_own_self_is_copied(lib, op):
    """x.mul_(x): the copy is the rule's `self` alone. Its `other` is x too, and x has changed by
    backward: PyTorch's version check says so, and so must tensorgrad's."""
    a = lib.tensor([1., 1.5], requires_grad=True)
    x = a * 1.5
    op(x)
    raises(RuntimeError, "one of the variables needed for gradient computation has been "
           "modified by an inplace operation: [tensorgrad.FloatTensor [2]], which is output 0 of "
           f"{x.grad_fn.name().removesuffix('Backward0')}, is at version 1; expected version 0 "
           "instead. Hint: enable anomaly detection to find the operation that failed to compute "
           "its gradient, with tensorgrad.autograd.set_detect_anomaly(True, check_nan=False).",
           lambda: x.sum().backward())


def test_save_on_cpu_with_in_place_ops(lib):
    a = lib.tensor([1., 2.], requires_grad=True)
    with lib.autograd.graph.save_on_cpu():
        x = a * 1
        x.div_(lib.tensor([1., 2.]))
        x.log_()
    x.sum().backward()
    assert rounded(a.grad) == [1.0, 0.5]


def test_a_hooked_value_is_not_version_checked(lib):
    """PyTorch checks a saved tensor's version only without hooks: through the hooks it cannot
    know what the packed value is. With pack = identity, backward reads x as it is then."""
    a = lib.tensor([1., 1.5], requires_grad=True)
    x = a * 1.5
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
        y = x * x
        z = x.exp()
    x.add_(1)
    z.add_(1)
    (y.sum() + z.sum()).backward()
    assert rounded(a.grad) == [15.7225, 25.4816]


# -- custom Functions ------------------------------------------------------------------------------
def cube(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x ** 3
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            return grad * 3 * y / x
    return Cube


def test_a_custom_functions_saves_go_through_the_hooks(lib):
    """ctx.save_for_backward saves as an operation does: pack sees the input and the output."""
    x = lib.tensor([1., 2.], requires_grad=True)
    packed, unpacked = [], []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.tolist()) or t,
                                                lambda p: unpacked.append(p.tolist()) or p):
        y = cube(lib).apply(x)
    y.sum().backward()
    assert (packed, unpacked, x.grad.tolist()) == (
        [[1., 2.], [1., 8.]], [[1., 2.], [1., 8.]], [3., 12.])


def test_a_custom_function_saves_through_the_one_extension_point():
    """ctx.save_for_backward asks what is plugged into core/instruments.py's `savers`, as record
    does (the saved-tensor hooks plug in there), instead of reaching the hooks another way."""
    import tensorgrad as tg
    from tensorgrad.core import instruments
    from tensorgrad.core.node import SavedTensor

    seen = []

    def saver(value, is_output, producer, name):
        seen.append((value.tolist(), is_output))
        return SavedTensor(value, is_output, producer)

    x = tg.tensor([1., 2.], requires_grad=True)
    with instruments.plugged_in(savers=saver):
        y = cube(tg).apply(x)
    y.sum().backward()
    assert (seen, x.grad.tolist()) == ([([1., 2.], False), ([1., 8.], True)], [3., 12.])
