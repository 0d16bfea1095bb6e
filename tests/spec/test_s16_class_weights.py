"""A class weight must be one weight per class. For an (N, C) or (C,) input PyTorch wants it 1-d
with C elements and refuses a (C, 1) or (1, C) weight; for an (N, C, d...) input its kernel reads
any weight with C elements. tensorgrad took a (C, 1) weight and broadcast it into a wrong loss
(sum 10.44 where 4.26 is right), and let NumPy's errors out for other shapes (the outside
review s16 of issue 32, F2). Each case runs on both libraries; the texts are PyTorch 2.13.0's."""

import pytest

from .conftest import raises_exactly

WEIGHT_SHAPES = [(3, 1), (1, 3), (), (2,)]


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", WEIGHT_SHAPES, ids=str)
def test_a_weight_that_is_not_one_per_class_is_refused(tg, loss, reduction, shape):
    x = tg.tensor([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2], [0.3, 0.3, 0.4], [0.9, 0.05, 0.05]]).log()
    target = tg.tensor([0, 1, 2, 1])
    weight = tg.ones(shape)
    with raises_exactly(tg, RuntimeError, (
            "weight tensor should be defined either for all 3 classes or no classes but got "
            f"weight tensor of shape: {list(shape)}")):
        getattr(tg.nn.functional, loss)(x, target, weight=weight, reduction=reduction)


@pytest.mark.parametrize("shape", [(3, 1), (1, 3)], ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_at_every_position_a_weight_with_one_element_per_class_is_read_flat(tg, shape, reduction):
    logits = tg.linspace(-1.0, 1.0, 24).reshape(2, 3, 4).requires_grad_()
    target = tg.tensor([[0, 1, 2, 1], [2, 2, 0, 1]])
    weight = tg.tensor([1.0, 2.0, 3.0]).reshape(shape)
    flat = tg.nn.functional.cross_entropy(logits, target, weight=weight.reshape(-1),
                                          reduction=reduction)
    loss = tg.nn.functional.cross_entropy(logits, target, weight=weight, reduction=reduction)
    assert tg.allclose(loss, flat)
    loss.sum().backward()
    expected = logits.grad.clone()
    logits.grad = None
    flat.sum().backward()
    assert tg.allclose(logits.grad, expected)
