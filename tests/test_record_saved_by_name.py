"""An operation names what it saves for backward, and `record` takes the values by the names of
the rule's `saves` (issue 30): not by position, so the order of the call's dict does not matter.

Whether a call names the right values is a fact about the library's source, not about the values
an operation runs with, so it is checked here, once, for every call of `record` in tensorgrad/
(test_every_call_of_record_names_what_its_rule_saves), not by `record` on every operation. At
run time `record` says so only where a lookup fails: a name missing stops the library's
developer with a TypeError naming both sides."""

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad.core.node import Node
from tensorgrad.core.record import _names_differ, record
from tensorgrad.derivatives import MulBackward0  # saves=("other", "self")

LIBRARY = Path(tg.__file__).resolve().parent


def product(a, b, saved):
    """`a * b` recorded by hand, saving what `saved` names (tensorgrad's own `mul`, spelled out)."""
    return record(MulBackward0, a._data * b._data, (a, b), saved=saved)


def leaves():
    return (tg.tensor([1., 2.], requires_grad=True), tg.tensor([3., 5.], requires_grad=True))


# -- at run time --------------------------------------------------------------------------------
@pytest.mark.parametrize("order", ["as saves", "reversed"])
def test_values_are_matched_by_name_not_by_position(order):
    a, b = leaves()
    saved = {"other": b, "self": a} if order == "as saves" else {"self": a, "other": b}
    c = product(a, b, saved)
    assert c.grad_fn._saved_self is a and c.grad_fn._saved_other is b
    c.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3., 5.])
    np.testing.assert_array_equal(b.grad.numpy(), [1., 2.])


def test_a_missing_name_is_refused_with_the_names():
    a, b = leaves()
    with pytest.raises(TypeError) as error:
        product(a, b, {"self": a})
    assert str(error.value) == ("record(MulBackward0, ...): the rule saves ('other', 'self'), "
                                "but saved= lacks ['other']")


def test_a_name_missing_is_refused_even_for_a_value_that_is_not_kept():
    a, b = leaves()
    b.requires_grad_(False)  # only self's formula runs: it reads `other`; `self` is not kept
    with pytest.raises(TypeError, match=r"lacks \['self'\]"):
        product(a, b, {"other": b})


def test_a_misspelt_name_is_both_missing_and_unknown():
    a, b = leaves()
    with pytest.raises(TypeError, match=r"lacks \['other'\] and names \['othre'\]"):
        product(a, b, {"self": a, "othre": b})


def test_saving_nothing_for_a_rule_that_saves_is_refused():
    a, b = leaves()
    with pytest.raises(TypeError, match=r"lacks \['other', 'self'\]"):
        record(MulBackward0, a._data * b._data, (a, b))


def test_a_saved_tensor_hooks_own_key_error_is_not_taken_for_a_name():
    a, b = leaves()

    def pack(tensor):
        raise KeyError("the hook's own")

    with tg.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
        with pytest.raises(KeyError, match="the hook's own"):
            product(a, b, {"other": b, "self": a})


def test_forward_mode_reads_the_saved_values_by_name():
    import tensorgrad.autograd.forward_ad as fwAD
    a, b = tg.tensor([1., 2.]), tg.tensor([3., 5.])
    with fwAD.dual_level():
        dual = fwAD.make_dual(a, tg.tensor([1., 0.]))
        c = product(dual, b, {"other": b, "self": dual})
        np.testing.assert_array_equal(fwAD.unpack_dual(c).tangent.numpy(), [3., 0.])


# -- every call in the library, once --------------------------------------------------------------
def calls_of_record(source, module):
    """Each call of `record` in `source` (the text of `module`): (line, the node classes it can
    record, the names its `saved=` gives, the number of inputs or None), or (line, the reason it
    cannot be read) where the call is written in a way this reading cannot follow."""
    tree = ast.parse(source)
    functions = [node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def enclosing(call):
        inside = [f for f in functions if f.lineno <= call.lineno <= f.end_lineno]
        return max(inside, key=lambda f: f.lineno) if inside else None

    def classes_named_in(expression):
        found = [getattr(module, n.id) for n in ast.walk(expression) if isinstance(n, ast.Name)
                 and isinstance(getattr(module, n.id, None), type)
                 and issubclass(getattr(module, n.id), Node)]
        return found

    def node_classes(argument, function):
        """Which classes the first argument can be: a class by its name, a dict of classes
        indexed, a local name given classes, or a parameter the module's calls fill in."""
        if isinstance(argument, ast.Name):
            value = getattr(module, argument.id, None)
            if isinstance(value, type) and issubclass(value, Node):
                return [value]
            if function is not None:
                given = [node.value for node in ast.walk(function) if isinstance(node, ast.Assign)
                         and any(isinstance(t, ast.Name) and t.id == argument.id
                                 for t in node.targets)]
                if given:
                    return [c for expression in given for c in classes_named_in(expression)] or None
                parameters = [a.arg for a in function.args.args]
                if argument.id in parameters:
                    position = parameters.index(argument.id)
                    passed = [call.args[position] for call in ast.walk(tree)
                              if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                              and call.func.id == function.name and len(call.args) > position]
                    passed += [k.value for call in ast.walk(tree) if isinstance(call, ast.Call)
                               and isinstance(call.func, ast.Name) and call.func.id == function.name
                               for k in call.keywords if k.arg == argument.id]
                    return [c for expression in passed for c in classes_named_in(expression)] or None
        if isinstance(argument, ast.Subscript) and isinstance(argument.value, ast.Name):
            table = getattr(module, argument.value.id, None)
            if isinstance(table, dict):
                return [c for c in table.values() if isinstance(c, type) and issubclass(c, Node)]
        return None

    found = []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and getattr(module, call.func.id, None) is record):  # (any name: `_record` too)
            continue
        classes = node_classes(call.args[0], enclosing(call)) if call.args else None
        keywords = {k.arg: k.value for k in call.keywords}
        saved = keywords.get("saved")
        if not classes:
            found.append((call.lineno, "cannot tell which node class it records"))
        elif None in keywords or len(call.args) > 3:
            found.append((call.lineno, "pass saved= as a keyword, and no **mapping"))
        elif saved is not None and not (isinstance(saved, ast.Dict) and all(
                isinstance(key, ast.Constant) and isinstance(key.value, str) for key in saved.keys)):
            found.append((call.lineno, "write saved= as a dict of names: {'self': input, ...}"))
        else:
            names = [] if saved is None else [key.value for key in saved.keys]
            inputs = call.args[2] if len(call.args) > 2 else keywords.get("inputs")
            count = len(inputs.elts) if isinstance(inputs, ast.Tuple) else None
            found.append((call.lineno, classes, names, count))
    return found


def differences(path):
    """What each call of `record` in the file at `path` gets wrong, in `record`'s own words."""
    module = importlib.import_module(
        ".".join(path.relative_to(LIBRARY.parent).with_suffix("").parts))
    problems = []
    for line, *what in calls_of_record(path.read_text(encoding="utf-8"), module):
        where = f"{path.relative_to(LIBRARY.parent)}:{line}"
        if len(what) == 1:
            problems.append(f"{where}: {what[0]}")
            continue
        classes, names, count = what
        for node_class in classes:
            if sorted(names) != sorted(node_class.saved_names):
                problems.append(f"{where}: " + _names_differ(node_class, dict.fromkeys(names)))
            formulas = [name for name, _ in getattr(node_class, "formulas", ())]
            if count is not None and formulas and formulas != ["tensors"] and count != len(formulas):
                # (record keeps a value that every formula reads without looking at the edges)
                problems.append(f"{where}: {count} inputs for the {len(formulas)} formulas of "
                                f"{node_class.__name__}")
    return problems


LIBRARY_FILES = sorted(path for path in LIBRARY.rglob("*.py") if "record(" in path.read_text("utf-8"))


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda p: str(p.relative_to(LIBRARY)))
def test_every_call_of_record_names_what_its_rule_saves(path):
    assert not differences(path)


def test_the_check_reads_every_call_of_record_in_the_library():
    """No call escapes the reading above: it reads as many calls as the library makes of
    `record`, under any name or through a module (`core_record.record(...)`)."""
    read = made = 0
    for path in LIBRARY.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        module = importlib.import_module(
            ".".join(path.relative_to(LIBRARY.parent).with_suffix("").parts))
        read += len(calls_of_record(source, module))
        made += sum(1 for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call) and (
            isinstance(node.func, ast.Attribute) and node.func.attr == "record"
            or isinstance(node.func, ast.Name) and getattr(module, node.func.id, None) is record))
    assert read == made and read >= 60


def test_an_unknown_name_at_a_call_is_found_with_the_names():
    source = ('def mul(input, other):\n'
              '    return record(MulBackward0, data, (input, other),\n'
              '                  saved={"other": other, "self": input, "input": input})\n')
    module = importlib.import_module("tensorgrad.ops.elementwise")
    ((line, classes, names, count),) = calls_of_record(source, module)
    assert (line, classes, count) == (2, [MulBackward0], 2)
    assert _names_differ(MulBackward0, dict.fromkeys(names)) == (
        "record(MulBackward0, ...): the rule saves ('other', 'self'), "
        "but saved= names ['input'], which the rule does not save")


def test_a_call_the_reading_cannot_follow_is_reported():
    source = 'def f(x, saved):\n    return record(pick(x), x._data, (x,), saved=saved)\n'
    module = importlib.import_module("tensorgrad.ops.elementwise")
    assert calls_of_record(source, module) == [(2, "cannot tell which node class it records")]
    source = 'def f(x, saved):\n    return record(ExpBackward0, x._data, (x,), saved=saved)\n'
    assert calls_of_record(source, module) == [
        (2, "write saved= as a dict of names: {'self': input, ...}")]

