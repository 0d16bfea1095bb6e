"""The version counter: how many times some memory was changed in place.

Tensors that share memory (a view and its base, a tensor and its detached alias) share one
counter. A value saved for backward remembers the count it had when it was saved; if the count
has moved by the time backward needs it, the value was changed in place, and backward refuses
to use it (core/node.py: SavedTensor).
"""


class VersionCounter:
    """No __init__: a new counter is 0 from the class, so making one runs no Python code."""

    value = 0
