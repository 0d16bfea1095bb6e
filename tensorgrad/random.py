"""The random number generator behind rand, randn, randint and weight initialisation.

tensorgrad draws from NumPy's PCG64 generator, so `manual_seed(0)` makes results repeatable,
but the numbers are not the ones PyTorch draws with the same seed. Lessons that need the same
numbers under both libraries write their values out instead of drawing them.
"""

import numpy as np

from .autograd import messages

_generator = np.random.default_rng(0)


class Generator:
    """What `manual_seed` returns (PyTorch returns its generator too)."""

    def __init__(self, seed):
        self._seed = seed

    def initial_seed(self):
        return self._seed

    def __repr__(self):
        return f"<tensorgrad.Generator object at {id(self):#x}>"


def manual_seed(seed):
    """Restart the random stream from `seed`: an int that fits 64 bits, signed or not (a
    negative seed is its unsigned twin, -1 is 2 ** 64 - 1, as in PyTorch)."""
    global _generator
    seed = int(seed)
    if not -2 ** 63 <= seed < 2 ** 64:
        raise ValueError(messages.INT_OVERFLOW)
    seed %= 2 ** 64
    _generator = np.random.default_rng(seed)
    return Generator(seed)



def _uniform_array(shape, low, high, np_dtype):
    return _generator.uniform(low, high, size=tuple(shape)).astype(np_dtype)


def _normal_array(shape, mean, std, np_dtype):
    return (_generator.standard_normal(size=tuple(shape)) * std + mean).astype(np_dtype)


def _integer_array(low, high, shape):
    return _generator.integers(low, high, size=tuple(shape), dtype=np.int64)


def _permutation_array(n):
    return _generator.permutation(n).astype(np.int64)
