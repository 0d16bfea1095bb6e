"""The one place where instruments plug into recording and the backward pass.

An instrument watches what the core does, or changes one detail of it:

    the profiler                  notes each operation, and times each node in backward
    anomaly mode                  remembers where each node was made; reports a failing node
    saved-tensor hooks            keep a saved value as whatever a pack hook returns
    an in-place operation         keeps its rule's `self` as it was before the write, and
                                  its result as it is after the write (ops/inplace.py)
    forward-mode AD               gives each result a tangent
    tensorgrad.viz's trace        watches the backward pass node by node
    the gradient-graph marker     marks the nodes that a create_graph=True backward records

The core (core/record.py: record, core/engine.py: execute) imports none of them. It asks one
question per event, `if instruments.on_operation:` and so on: an empty list is all that an
operation or a backward step pays while nothing is plugged in. An instrument plugs in a
function for each event it needs, and unplugs it when it is switched off:

    on_operation   f(node_class, result, inputs, saved, attributes): an operation has run
    on_node        f(node): a node has been made for it
    savers         f(value, is_output, producer, name): how a value is saved for backward (the
                   last plugged in decides; `name` is the rule's name for it, as in `saves`)
    around_node    f(node, run): runs one node's derivative rule, `run()`, in backward
    after_node     f(node, grads_in, grads_out): a node has run in backward
"""

on_operation = []
on_node = []
savers = []
around_node = []
after_node = []

_EVENTS = {"on_operation": on_operation, "on_node": on_node, "savers": savers,
           "around_node": around_node, "after_node": after_node}


def plug_in(**functions):
    """Add a function to each named event; returns what `unplug` takes to remove them again."""
    plugged = []
    for event, function in functions.items():
        _EVENTS[event].append(function)
        plugged.append((event, function))
    return plugged


def unplug(plugged):
    for event, function in plugged:
        _EVENTS[event].remove(function)


class plugged_in:  # noqa: N801  (used like no_grad)
    """`with plugged_in(after_node=watch):` the functions are in force inside the block only."""

    def __init__(self, **functions):
        self._functions = functions

    def __enter__(self):
        self._plugged = plug_in(**self._functions)
        return self

    def __exit__(self, *exc_info):
        unplug(self._plugged)
        return False


def operation_ran(node_class, result, inputs, saved, attributes):
    for function in list(on_operation):
        function(node_class, result, inputs, saved, attributes)


def node_made(node):
    for function in list(on_node):
        function(node)


def run_node(node, grads):
    """One node's work in backward, `node.apply(grads)`, inside every `around_node` function
    plugged in; then every `after_node` function sees what it returned."""
    def run():
        return node.apply(grads)

    for function in around_node:
        run = _wrapped(function, node, run)
    input_grads = run()
    for function in list(after_node):
        function(node, grads, input_grads)
    return input_grads


def _wrapped(function, node, run):
    return lambda: function(node, run)


__all__ = ["plug_in", "unplug", "plugged_in"]
