"""The tensors and operations of one graph, read once, with stable ids and names.

A grad_fn graph is made of *operations* (nodes). The tensors between them are not stored in the
graph: a node knows only, for each input, which node produced it (`next_functions`) and its
shape and dtype. This module puts the tensors back, so that pictures and step-by-step text can
talk about `a`, `b` and `y` instead of node objects:

  * the output is `t0`; every other tensor gets the next `t<k>` when the breadth-first walk
    first meets it; operations are `op<k>` in walk order; constants (inputs that need no
    gradient) are `c<k>`;
  * a tensor's name comes from `names={"x": x, ...}`, else from a `name` attribute set on the
    tensor (`x.name = "x"`), else it is shown by its id;
  * its values are known for the output, the leaves, tensors named or retained by the learner,
    and tensors that backward saved (while they are not freed).
"""

from ..core.tensor import Tensor
from . import nodes as node_facts


class TensorInfo:
    """One tensor of the graph, as pictures show it."""

    __slots__ = ("id", "kind", "name", "tensor", "shape", "data", "producer", "output_nr")

    def __init__(self, id, kind, shape, producer=None, output_nr=0):  # noqa: A002  (the DOT id)
        self.id = id
        self.kind = kind  # "output", "leaf", "intermediate" or "constant"
        self.name = None
        self.tensor = None
        self.shape = shape  # None for a Python number used as a constant
        self.data = None
        self.producer = producer  # the grad_fn node that made it (AccumulateGrad for a leaf)
        self.output_nr = output_nr

    @property
    def label(self):
        """What text calls this tensor: its name, else its id."""
        return self.name if self.name else self.id

    @property
    def grad(self):
        """The `.grad` stored on the tensor (leaves, and tensors that called retain_grad())."""
        tensor = self.tensor
        if tensor is None or (tensor._grad_fn is not None and not tensor._retains_grad):
            return None  # reading .grad of a non-leaf would only warn
        return tensor._grad


def name_table(names):
    """Check `names=` ({name: tensor}) and turn it around: {tensor: name}."""
    if names is None:
        return {}
    if not hasattr(names, "items"):
        raise TypeError(f"names= must be a dict of name: Tensor, got {type(names).__name__}")
    table = {}
    for name, tensor in names.items():
        if not isinstance(tensor, Tensor):
            raise TypeError(f"names[{name!r}] must be a Tensor, got {type(tensor).__name__}")
        table[tensor] = str(name)  # tensors hash by identity: each object gets its name
    return table


class GraphModel:
    """Operations and tensors of the graph behind `root`, in a fixed order.

    max_nodes: keep only the first operations of the walk (the ones nearest the output);
    `hidden` then counts the others. None keeps all.
    """

    def __init__(self, root, names=None, max_nodes=None):
        self.root = root
        self._names = name_table(names)
        root_node = root.grad_fn
        roots = [] if root_node is None else [root_node]
        self.nodes, total = node_facts.walk(roots, max_nodes)
        self.hidden = total - len(self.nodes)
        self.node_ids = {node: f"op{index}" for index, node in enumerate(self.nodes)}
        self.tensors = []
        self.constants = []
        self._slots = {}  # (node, output_nr) -> TensorInfo; a leaf is (its AccumulateGrad, 0)
        self._outputs = {}  # node -> the TensorInfos it produced
        self.inputs = {}  # node -> one TensorInfo per next_function (constants included)

        self.output = TensorInfo("t0", "output", tuple(root.shape), root_node, root._output_nr)
        self.output.tensor = root
        self.output.data = root._data
        self.tensors.append(self.output)
        if root_node is not None:
            self._add_slot(root_node, root._output_nr, self.output)
        for node in self.nodes:
            self.inputs[node] = [self._input_info(node, index) for index in
                                 range(len(node.next_functions))]
        self._fill_in_known_tensors()
        for info in self.tensors:
            info.name = self._name_of(info)

    # -- building ------------------------------------------------------------------------------
    def _input_info(self, node, index):
        next_node, output_nr = node.next_functions[index]
        meta = node._input_meta[index] if index < len(node._input_meta) else None
        shape = None if meta is None else tuple(meta[0])
        if next_node is None:
            info = TensorInfo(f"c{len(self.constants)}", "constant", shape)
            self.constants.append(info)
            return info
        key = (next_node, output_nr)
        info = self._slots.get(key)
        if info is None:
            kind = "leaf" if node_facts.is_leaf_node(next_node) else "intermediate"
            info = TensorInfo(f"t{len(self.tensors)}", kind, shape, next_node, output_nr)
            if kind == "leaf":
                info.tensor = next_node.variable
                info.data = next_node.variable._data
                info.shape = tuple(next_node.variable.shape)
            self._add_slot(next_node, output_nr, info)
            self.tensors.append(info)
        return info

    def _add_slot(self, node, output_nr, info):
        self._slots[(node, output_nr)] = info
        self._outputs.setdefault(node, []).append(info)

    def _fill_in_known_tensors(self):
        """Find tensor objects and values for intermediate results, where the graph has them."""
        found = {}
        for tensor in self._names:
            if tensor._grad_fn is not None:
                found[(tensor._grad_fn, tensor._output_nr)] = tensor
        for node in self.nodes:
            for output_nr, tensor in node_facts.retained_tensors(node).items():
                found.setdefault((node, output_nr), tensor)
            for tensor in node_facts.saved_input_tensors(node):
                if tensor._grad_fn is not None:
                    found.setdefault((tensor._grad_fn, tensor._output_nr), tensor)
        for key, tensor in found.items():
            info = self._slots.get(key)
            if info is not None and info.kind == "intermediate":
                info.tensor = tensor
                info.data = tensor._data
        for node in self.nodes:
            for output_nr, data in node_facts.saved_output_data(node).items():
                info = self._slots.get((node, output_nr))
                if info is not None and info.data is None:
                    info.data = data

    def _name_of(self, info):
        tensor = info.tensor
        if tensor is None:
            return None
        if tensor in self._names:
            return self._names[tensor]
        name = getattr(tensor, "name", None)  # tensors accept attributes: `x.name = "x"`
        return name if isinstance(name, str) and name else None

    # -- reading -------------------------------------------------------------------------------
    def produced_by(self, node, output_nr=0):
        """The TensorInfo of output `output_nr` of `node` (for AccumulateGrad: its leaf)."""
        return self._slots.get((node, output_nr))

    def outputs_of(self, node):
        """The tensors a node produced that this graph uses, by output number."""
        return self._outputs.get(node, [])

    @property
    def edge_count(self):
        """Links between operations (next_functions that are not None), among those kept."""
        return sum(1 for node in self.nodes for next_node, _ in node.next_functions
                   if next_node is not None and next_node in self.node_ids)
