"""Measurements the grader makes itself: a trained network's loss (and accuracy), outside the kernel.

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

from typing import Any

from .texts import say

#: The measurements a ``t.measure`` record asks for (its ``options["measure"]``): a classifier's
#: mean cross-entropy and accuracy, or the mean squared error of a network's first output.
CLASSIFIER = "classifier"
SQUARED_ERROR = "squared error"
KINDS = (CLASSIFIER, SQUARED_ERROR)
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
