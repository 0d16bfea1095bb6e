"""Verdicts the grader makes itself, outside the kernel, from plain data: a trained network's loss
(and accuracy), an order of a graph's nodes (:func:`judge_order`), a gradcheck (:func:`judge_gradcheck`).

A task that trains (set 11's ``train``, set 12's ``train`` on the student's own engine) is judged by what the training produced, and the
judgement must not run in the kernel the student controls: a helper that measures the loss
there can be rebound by the student's code through its caller's frame, and then a verdict like
``final_loss < 0.1`` is whatever the student says. So a check cell hands over the trained
network as plain data::

    with t.test("150 steps on the lesson's moons: the loss falls below 0.1"):
        points, labels = two_moons(100, noise=0.2, seed=11)
        model = network(16, seed=0)
        train(model, points, labels, steps=150, lr=0.05)
        t.measure("the trained network", model, points, labels, loss_below=0.1)

(:meth:`.checks.TaskCheck.measure`): the kernel sends a record of the network's layers and
parameters (:func:`network_of`, by duck typing: ``Linear`` weights and biases, ``Tanh``,
``ReLU``, ``Sigmoid``) and of the data. The grader (:func:`judge`) takes from the student's
record **only the parameters**: the layers, the points, the labels and the targets come from
the record of the instructor's solution for the same test, and the loss (mean cross-entropy)
and the accuracy are computed here, in NumPy, from those plain numbers. Set 12's network is
made of its own engine's ``Value`` objects, so its check cell hands over plain floats, one list
of tanh units ``(weights, bias)`` per layer, and asks for the mean squared error instead::

    t.measure("the trained network", net.plain(), XOR_POINTS, XOR_TARGETS,
              loss="squared error", loss_below=0.05)

Both are one mechanism: :func:`network_of` turns either form into the same layers, which
:func:`forward` evaluates, and only the loss at the end differs (``options["measure"]``:
:data:`CLASSIFIER` or :data:`SQUARED_ERROR`). A student who rebinds
anything in the kernel, or forges the record, can change only the parameters the grader
measures. The student's own self-check runs the same :func:`judge` on its own record, so it
says what the grader will say.
"""

from __future__ import annotations

import sys
from typing import Any

from .texts import say

#: The measurements a ``t.measure`` record asks for (its ``options["measure"]``): a classifier's
#: mean cross-entropy and accuracy, or the mean squared error of a network's first output.
CLASSIFIER = "classifier"
SQUARED_ERROR = "squared error"
#: The other judgements made here from plain data: an order of a graph's nodes (``t.order``),
#: and a backward checked against finite differences of its forward (``t.gradcheck``).
ORDER = "order"
GRADCHECK = "gradcheck"
KINDS = (CLASSIFIER, SQUARED_ERROR, ORDER, GRADCHECK)
#: ``t.measure(loss=...)``: the loss it names, and the measurement that computes it.
LOSSES = {"cross entropy": CLASSIFIER, "squared error": SQUARED_ERROR}
ACTIVATIONS = ("tanh", "relu", "sigmoid")


def network_of(model: Any) -> list[dict]:
    """The layers of ``model`` as plain values, for :func:`.values.encode` (runs in the kernel).

    A plain list (or tuple) is a network of tanh units, as set 12's ``Net`` hands it over: one
    item per layer, each a list of units ``(weights, bias)`` of floats, every layer followed by
    ``tanh`` (:func:`_tanh_units`). Otherwise a container that iterates over its layers
    (``Sequential``) gives one entry per layer; any other model is one layer. ``Linear`` layers
    give their ``weight`` and ``bias`` (``None`` without one), activations their name; anything
    else is named by its class and cannot be measured.
    """
    if isinstance(model, (list, tuple)):
        return _tanh_units(model)
    try:
        layers = list(model) if hasattr(type(model), "__iter__") else [model]
    except Exception:  # noqa: BLE001 - a model that cannot be listed is one layer
        layers = [model]
    out: list[dict] = []
    for layer in layers[:64]:
        kind = type(layer).__name__.lower()
        if kind == "linear":
            weight, bias = getattr(layer, "weight", None), getattr(layer, "bias", None)
            detach = getattr(weight, "detach", None)
            out.append({"layer": "linear", "weight": detach() if callable(detach) else weight,
                        "bias": bias.detach() if callable(getattr(bias, "detach", None)) else bias})
        elif kind in ACTIVATIONS:
            out.append({"layer": kind})
        else:
            out.append({"layer": "other", "class": type(layer).__name__})
    return out


def _tanh_units(layers: Any) -> list[dict]:
    """Layers of tanh units, ``[[(weights, bias), ...], ...]`` of floats, as ``Linear`` + ``tanh`` layers."""
    import numpy as np

    out: list[dict] = []
    for layer in list(layers)[:64]:
        try:
            units = [(list(weights), bias) for weights, bias in layer]
            weight = np.asarray([[float(w) for w in weights] for weights, _ in units], dtype=np.float64)
            bias = np.asarray([float(b) for _, b in units], dtype=np.float64)
        except Exception:  # noqa: BLE001 - not a layer of (weights, bias) floats: cannot be measured
            out.append({"layer": "other", "class": type(layer).__name__})
            continue
        out += [{"layer": "linear", "weight": weight, "bias": bias}, {"layer": "tanh"}]
    return out


def data_of(data: Any) -> Any:
    """Points or targets as ``t.measure`` records them: a list or tuple of numbers as a float64 array
    (tensors and arrays as they are; runs in the kernel)."""
    import numpy as np

    if isinstance(data, (list, tuple)):
        try:
            return np.asarray(data, dtype=np.float64)
        except (TypeError, ValueError):
            return data
    return data


# ------------------------------------------------------------- the grader's side


def _items(record: dict) -> dict:
    """A dict record's items as {key: record} (records were checked by values.record_problem)."""
    if not isinstance(record, dict) or record.get("type") != "dict" or not isinstance(record.get("items"), list):
        return {}
    return {pair[0]: pair[1] for pair in record["items"] if isinstance(pair, list) and len(pair) == 2}


def _array(record: Any):
    """The NumPy array (float64) of a tensor or ndarray record, or None."""
    import numpy as np

    if not isinstance(record, dict) or record.get("type") not in ("tensor", "ndarray"):
        return None
    if record.get("numeric") is False or record.get("element") == "complex":
        return None
    shape, data = record.get("shape"), record.get("data")
    if not isinstance(shape, list) or not isinstance(data, list):
        return None
    try:
        return np.asarray([float(x) for x in data], dtype=np.float64).reshape(shape)
    except (TypeError, ValueError):
        return None


def _layers(record: Any) -> list[dict] | None:
    """[{"layer": kind, "weight": array, "bias": array or None}] of a network record, or None."""
    if not isinstance(record, dict) or record.get("type") not in ("list", "tuple"):
        return None
    layers = []
    for item in record.get("items", []):
        entry = _items(item)
        kind = entry.get("layer", {}).get("data") if isinstance(entry.get("layer"), dict) else None
        if kind == "linear":
            bias = entry.get("bias")
            layers.append({"layer": kind, "weight": _array(entry.get("weight")),
                           "bias": None if isinstance(bias, dict) and bias.get("type") == "none" else _array(bias),
                           "has_bias": not (isinstance(bias, dict) and bias.get("type") == "none")})
        elif kind in ACTIVATIONS:
            layers.append({"layer": kind})
        else:
            cls = entry.get("class", {}).get("data") if isinstance(entry.get("class"), dict) else None
            layers.append({"layer": "other", "class": cls if isinstance(cls, str) else "?"})
    return layers


def _structure(layers: list[dict]) -> list[tuple]:
    out = []
    for layer in layers:
        if layer["layer"] == "linear":
            weight, bias = layer["weight"], layer["bias"]
            out.append(("linear", None if weight is None else weight.shape,
                        (None if bias is None else bias.shape) if layer["has_bias"] else "no bias"))
        else:
            out.append((layer["layer"], layer.get("class")))
    return out


def forward(layers: list[dict], points):
    """The outputs of the network ``layers`` for the batch ``points`` (NumPy, float64)."""
    import numpy as np

    h = points
    with np.errstate(all="ignore"):
        for layer in layers:
            kind = layer["layer"]
            if kind == "linear":
                h = h @ layer["weight"].T
                if layer["bias"] is not None:
                    h = h + layer["bias"]
            elif kind == "tanh":
                h = np.tanh(h)
            elif kind == "relu":
                h = np.maximum(h, 0.0)
            elif kind == "sigmoid":
                h = 1.0 / (1.0 + np.exp(-h))
    return h


def squared_error(layers: list[dict], points, targets) -> float:
    """Mean squared error of the network's first output on ``points`` against ``targets``."""
    import numpy as np

    with np.errstate(all="ignore"):
        return float(np.mean((forward(layers, points)[:, 0] - targets) ** 2))


def loss_and_accuracy(layers: list[dict], points, labels) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of the network ``layers`` on ``points`` (NumPy, float64)."""
    import numpy as np

    h = forward(layers, points)
    with np.errstate(all="ignore"):
        top = h.max(axis=1, keepdims=True)
        log_probs = h - top - np.log(np.exp(h - top).sum(axis=1, keepdims=True))
        loss = float(-log_probs[np.arange(len(labels)), labels].mean())
        accuracy = float((h.argmax(axis=1) == labels).mean())
    return loss, accuracy


def judge(wanted: dict, actual: dict, *, name: str, reveal: bool = True) -> str | None:
    """None if the student's record ``actual`` passes the judgement that ``wanted`` (the solution's
    value entry for the same test) asks for, else why not: a network measured
    (:func:`judge_network`), an order (:func:`judge_order`) or a backward (:func:`judge_gradcheck`)."""
    options = wanted.get("options", {}) if isinstance(wanted.get("options"), dict) else {}
    if options.get("measure") == ORDER:
        return judge_order(wanted, actual, name=name, reveal=reveal)
    if options.get("measure") == GRADCHECK:
        return judge_gradcheck(wanted, actual, name=name, reveal=reveal)
    return judge_network(wanted, actual, name=name, reveal=reveal)


def judge_network(wanted: dict, actual: dict, *, name: str, reveal: bool = True) -> str | None:
    """None if the network in ``actual`` (the student's record) meets the targets, else why not.

    ``wanted`` is the solution's value entry for the same test (``{"value": record, "options":
    {...}}``): its layers, data and targets are the ones used; of ``actual`` only the layers'
    parameters are read, and they must have the shapes of the solution's. With ``reveal=False``
    (a hidden test) the message names neither the measured figures nor the targets.
    """
    import numpy as np

    options = wanted.get("options", {}) if isinstance(wanted.get("options"), dict) else {}
    theirs_items, ours_items = _items(actual), _items(wanted.get("value", {}))
    ours = _layers(ours_items.get("network"))
    points, labels = _array(ours_items.get("points")), _array(ours_items.get("labels"))
    if ours is None or points is None or labels is None or points.ndim != 2 or labels.ndim != 1:
        return say("measure.cannot", name=name, call="t.measure", layer="Linear")  # the solution's record: the instructor's check cell
    theirs = _layers(theirs_items.get("network"))
    if theirs is None or _structure(theirs) != _structure(ours) or any(
            layer["layer"] == "linear" and (layer["weight"] is None or (layer["has_bias"] and layer["bias"] is None))
            for layer in theirs):
        return say("measure.network", name=name)
    if options.get("measure") == SQUARED_ERROR:
        loss, accuracy = squared_error(theirs, points, labels), None
    else:
        loss, accuracy = loss_and_accuracy(theirs, points, labels.astype(np.int64))
    below, at_least = options.get("loss_below"), options.get("accuracy_at_least")
    failed = []
    if not np.isfinite(loss) or (below is not None and not loss < below):
        failed.append(say("measure.loss", loss=loss, below=below if below is not None else float("nan")))
    if at_least is not None and not (accuracy is not None and accuracy >= at_least):
        failed.append(say("measure.accuracy", accuracy=accuracy, at_least=at_least))
    if not failed:
        return None
    if not reveal:
        return say("measure.hidden", name=name)
    return say("measure.failed", name=name, what="; ".join(failed))


# ------------------------------------------------------------- plain records, read here


def _plain(record: Any, depth: int = 0) -> Any:
    """The Python value of a record of plain data (None, bools, numbers, strings, lists); else None."""
    if not isinstance(record, dict) or depth > 8:
        return None
    kind = record.get("type")
    if kind in ("bool", "int", "str"):
        return record.get("data")
    if kind == "float":
        data = record.get("data")
        return float(data) if isinstance(data, (int, float, str)) and not isinstance(data, bool) else None
    if kind in ("list", "tuple") and isinstance(record.get("items"), list):
        return [_plain(item, depth + 1) for item in record["items"]]
    return None


# ------------------------------------------------------------- an order of a graph's nodes
#
# Sets 10 and 12 ask for an order of a graph's nodes (the order backward runs the nodes in; a
# topological order of an engine's values). Whether an order is valid used to be decided in the
# kernel (a check cell's ``order_problem(y, order)``, then ``t.submit("order_is_valid", problem
# is None, expected=True)``), so the student's code could rebind the helper. Now ``t.order``
# hands over the graph and the order as plain labels (:func:`order_of`), and :func:`judge_order`
# decides here, with the graph of the solution's run and only the order from the student's.


def order_of(order: Any, root: Any, successors: Any, *, label: Any = None, describe: Any = None) -> dict:
    """The graph reachable from ``root`` and the learner's ``order`` of it, as plain data (runs in the kernel).

    ``successors(node)`` gives the nodes an edge leads to from ``node`` (``None`` items are
    skipped). The nodes are found depth first from ``root``; each is labelled by ``label(node)``
    (a number; by default its place in that search, the same in every run of the same graph) and
    named by ``describe(node)`` for messages (by default its class). The order's items are
    matched to the graph's nodes by identity: an item that is not one of them gets the label NaN.
    """
    import numpy as np

    nodes: list = []
    index: dict[int, int] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in index:
            continue
        index[id(node)] = len(nodes)
        nodes.append(node)
        stack.extend(reversed([n for n in successors(node) if n is not None]))
    edges = [(index[id(node)], index[id(n)]) for node in nodes for n in successors(node) if n is not None]

    def number(node, position):
        if label is None:
            return float(position)
        try:
            return float(label(node))
        except (TypeError, ValueError):
            return float("nan")

    labels = np.asarray([number(node, k) for k, node in enumerate(nodes)], dtype=np.float64)
    names = [str(describe(node)) if describe is not None else type(node).__name__ for node in nodes]
    try:
        items = list(order)
    except TypeError:
        items = None
    return {
        "nodes": labels,
        "names": names if len(names) <= 1_000 else [],  # names only for messages: a long graph goes without
        "edges": np.asarray([(labels[a], labels[b]) for a, b in edges], dtype=np.float64).reshape(-1, 2),
        "order": None if items is None else np.asarray(
            [labels[index[id(item)]] if id(item) in index else np.nan for item in items], dtype=np.float64),
    }


def judge_order(wanted: dict, actual: dict, *, name: str, reveal: bool = True) -> str | None:
    """None if the order in ``actual`` is a valid order of the graph of ``wanted``, else what is wrong.

    The graph (its node labels, names and edges) comes from the solution's record, only the order
    from the student's. ``options["first"]`` says which way the edges go: ``"root"`` (backward's
    order: a node comes before every node it sends a gradient to) or ``"inputs"`` (a topological
    order: a value comes after every one of its inputs). Every reachable node must appear once.
    """
    options = wanted.get("options", {}) if isinstance(wanted.get("options"), dict) else {}
    ours, theirs = _items(wanted.get("value", {})), _items(actual)
    nodes, edges = _array(ours.get("nodes")), _array(ours.get("edges"))
    names = _plain(ours.get("names")) or []
    first, root = options.get("first"), options.get("root") or "the root"
    if nodes is None or nodes.ndim != 1 or edges is None or edges.ndim != 2 or first not in ("root", "inputs"):
        return say("order.cannot", name=name, call="t.order")  # the solution's record: the instructor's check cell
    index = {label: i for i, label in enumerate(nodes.tolist())}

    def called(i: int) -> str:
        return names[i] if i < len(names) and isinstance(names[i], str) else f"{nodes[i]:g}"

    order = _array(theirs.get("order"))
    problem = None
    if order is None or order.ndim != 1:
        problem = say("order.not_list", name=name)
    position: dict[int, int] = {}
    for k, label in enumerate(order.tolist() if problem is None else []):
        i = index.get(label)
        if i is None:
            problem = say("order.foreign", k=k, root=root)
            break
        if i in position:
            problem = say("order.twice", node=called(i))
            break
        position[i] = k
    if problem is None and len(position) != len(nodes):
        problem = say("order.count", got=len(position), want=len(nodes), root=root)
    if problem is None:
        leads_to: dict[int, list[int]] = {}
        for a, b in edges.tolist():
            if a in index and b in index:
                leads_to.setdefault(index[a], []).append(index[b])
        for i in sorted(position, key=position.__getitem__):
            for j in leads_to.get(i, []):
                if first == "root" and position[j] < position[i]:
                    problem = say("order.sends", later=called(j), node=called(i))
                elif first == "inputs" and position[j] > position[i]:
                    problem = say("order.input", node=called(i), input=called(j))
                if problem is not None:
                    break
            if problem is not None:
                break
    if problem is None:
        return None
    return problem if reveal else say("order.hidden", name=name)


# ------------------------------------------------------------- a backward, checked against its forward
#
# Set 9 checks each custom Function's backward with gradcheck. ``tg.autograd.gradcheck(...)``
# submitted with ``expected=True`` was a verdict made in the kernel by code the student can
# replace (``tg.autograd.gradcheck = lambda *a, **k: True``). Now ``t.gradcheck`` hands over the
# function's values at the point and at every point gradcheck would try (one input element moved
# by +eps and by -eps) and what backward gives for each output element, as plain arrays
# (:func:`jacobians_of`); :func:`judge_gradcheck` takes the finite differences and compares here.


def jacobians_of(fn: Any, inputs: Any, eps: float) -> dict:
    """What gradcheck needs of ``fn`` at ``inputs``, as plain arrays (runs in the kernel).

    ``values``: the outputs, flattened and joined; ``plus`` and ``minus``: one row per element of
    the inputs that require grad, the outputs with that element moved by +eps and by -eps;
    ``jacobian`` (and ``again``, backward run a second time): PyTorch's layout, one row per input
    element, one column per output element, each column what backward sends for that output
    element's unit vector; ``zero``: what backward sends for zero gradients, with each gradient's
    shape and dtype. The tensors' own library (``type(x).__module__``) runs backward.
    """
    import numpy as np

    from .values import _array_of

    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff = [k for k, x in enumerate(inputs) if getattr(x, "requires_grad", False) is True]
    if not diff:
        raise ValueError("t.gradcheck needs at least one input tensor with requires_grad=True")
    lib = sys.modules[type(inputs[diff[0]]).__module__.split(".")[0]]

    def tensor_outputs(out):
        return [o for o in (out if isinstance(out, tuple) else (out,)) if hasattr(o, "detach")]

    def flat(tensors) -> Any:
        arrays = [np.asarray(_array_of(t.detach()), dtype=np.float64).ravel() for t in tensors]
        return np.concatenate(arrays) if arrays else np.zeros(0)

    def at(k: int, arr) -> tuple:
        moved = lib.tensor(arr, dtype=inputs[k].dtype)
        return inputs[:k] + (moved,) + inputs[k + 1:]

    with lib.no_grad():
        values_at = flat(tensor_outputs(fn(*inputs)))
    plus, minus = [], []
    for k in diff:
        original = np.array(_array_of(inputs[k].detach()))
        for j in range(original.size):
            for step, rows in ((eps, plus), (-eps, minus)):
                arr = original.copy()
                arr.flat[j] += step
                with lib.no_grad():
                    rows.append(flat(tensor_outputs(fn(*at(k, arr)))))
    outputs = [o for o in tensor_outputs(fn(*inputs)) if getattr(o, "requires_grad", False)]
    diff_inputs = [inputs[k] for k in diff]
    sizes = [int(np.asarray(_array_of(o.detach())).size) for o in outputs]

    def backward(units) -> tuple[Any, list]:
        grads = lib.autograd.grad(outputs, diff_inputs, grad_outputs=units, retain_graph=True, allow_unused=True)
        parts = [np.zeros(np.asarray(_array_of(x.detach())).size) if g is None
                 else np.asarray(_array_of(g.detach()), dtype=np.float64).ravel() for x, g in zip(diff_inputs, grads)]
        return np.concatenate(parts), grads

    def units(column: int | None) -> list:
        out, offset = [], 0
        for o, size in zip(outputs, sizes):
            unit = np.zeros(size)
            if column is not None and offset <= column < offset + size:
                unit[column - offset] = 1.0
            out.append(lib.tensor(unit.reshape(np.asarray(_array_of(o.detach())).shape), dtype=o.dtype))
            offset += size
        return out

    n_in = sum(np.asarray(_array_of(x.detach())).size for x in diff_inputs)
    if outputs:
        columns = [np.asarray([backward(units(c))[0] for c in range(sum(sizes))], dtype=np.float64)
                   .reshape(-1, n_in).T for _ in range(2)]
        zero, grads = backward(units(None))
    else:  # nothing requires grad: backward sends nothing, as gradcheck assumes (the differences must be 0)
        columns = [np.zeros((n_in, values_at.size))] * 2
        zero, grads = np.zeros(n_in), []
    return {
        "values": values_at,
        "plus": np.asarray(plus, dtype=np.float64).reshape(n_in, -1),
        "minus": np.asarray(minus, dtype=np.float64).reshape(n_in, -1),
        "jacobian": columns[0],
        "again": columns[1],
        "zero": zero,
        "shapes": [[int(n) for n in x.shape] for x in diff_inputs],
        "dtypes": [str(x.dtype) for x in diff_inputs],
        "grad_shapes": [None if g is None else [int(n) for n in g.shape] for g in grads],
        "grad_dtypes": [None if g is None else str(g.dtype) for g in grads],
    }


def judge_gradcheck(wanted: dict, actual: dict, *, name: str, reveal: bool = True) -> str | None:
    """gradcheck's verdict, made here: None if the backward in ``actual`` agrees with finite differences.

    As ``tg.autograd.gradcheck``: the numerical Jacobian, (f(x + eps) - f(x - eps)) / (2 eps)
    per input element, must match backward's within ``atol + rtol * |numerical|``; backward must
    give the same twice, nothing for zero gradients, and gradients of the inputs' shapes and
    dtypes. And since every number comes from the kernel, the function's values (at the point
    and at the moved points) must be those of the solution's run: a record that makes up a
    function and its derivative together does not pass.
    """
    import numpy as np

    options = wanted.get("options", {}) if isinstance(wanted.get("options"), dict) else {}
    eps, atol, rtol = (options.get(k) for k in ("eps", "atol", "rtol"))
    ours, theirs = _items(wanted.get("value", {})), _items(actual)
    want = {k: _array(ours.get(k)) for k in ("values", "plus", "minus")}
    if any(a is None for a in want.values()) or not all(isinstance(x, float) and x > 0 for x in (eps, atol)) \
            or not isinstance(rtol, float):
        return say("gradcheck.cannot", name=name, call="t.gradcheck")  # the solution's record: the instructor's check cell
    got = {k: _array(theirs.get(k)) for k in ("values", "plus", "minus", "jacobian", "again", "zero")}
    if any(got[k] is None or got[k].shape != want[k].shape for k in want):
        return say("gradcheck.values", name=name) if reveal else say("gradcheck.hidden", name=name)

    def close(a, b) -> bool:
        return bool(np.allclose(a, b, rtol=rtol, atol=atol))

    with np.errstate(all="ignore"):
        numerical = (got["plus"] - got["minus"]) / (2 * eps)
        expected = (want["plus"] - want["minus"]) / (2 * eps)
    problem = None
    if not (close(got["values"], want["values"]) and close(numerical, expected)):
        problem = say("gradcheck.values", name=name)
    elif got["jacobian"] is None or got["jacobian"].shape != numerical.shape:
        problem = say("gradcheck.shape", name=name)
    elif not close(got["jacobian"], numerical):
        with np.printoptions(precision=4, suppress=True, threshold=200):
            problem = say("gradcheck.mismatch", numerical=str(numerical), analytical=str(got["jacobian"]))
    elif got["again"] is None or got["again"].shape != got["jacobian"].shape \
            or not np.array_equal(got["again"], got["jacobian"]):
        problem = say("gradcheck.again")
    elif got["zero"] is None or np.any(got["zero"] != 0):
        problem = say("gradcheck.grad_output")
    else:
        shapes, dtypes = _plain(ours.get("shapes")) or [], _plain(ours.get("dtypes")) or []
        grad_shapes, grad_dtypes = _plain(theirs.get("grad_shapes")), _plain(theirs.get("grad_dtypes"))
        if not isinstance(grad_shapes, list) or not isinstance(grad_dtypes, list):
            problem = say("gradcheck.shape", name=name)
        elif any(g is not None and g != s for g, s in zip(grad_shapes, shapes)):
            problem = say("gradcheck.size")
        elif any(g is not None and g != d for g, d in zip(grad_dtypes, dtypes)):
            problem = say("gradcheck.type")
    if problem is None:
        return None
    return problem if reveal else say("gradcheck.hidden", name=name)
