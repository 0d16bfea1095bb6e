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
