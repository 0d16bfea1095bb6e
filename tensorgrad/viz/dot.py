"""A tiny writer for Graphviz's DOT language.

The teaching pictures (`draw`, the stepper) write their DOT text with this class instead of the
`graphviz` Python package, so they work, and can be tested, when that package is missing; only
turning DOT into SVG or PNG needs the `dot` program (see display.py).

Statements come out in the order they are added and attributes in the order they are given:
the same calls always produce byte-identical text.
"""

import re

_BARE_ID = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*|-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?))$")


def quote(value):
    """A DOT id or attribute value: bare when DOT allows it, otherwise in double quotes."""
    text = str(value)
    if _BARE_ID.match(text):
        return text
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


def attributes(attrs):
    """`[a=1 b="two words"]`, or an empty string for no attributes."""
    if not attrs:
        return ""
    return " [" + " ".join(f"{key}={quote(value)}" for key, value in attrs.items()) + "]"


class DotWriter:
    """Collects DOT statements for one directed graph."""

    def __init__(self, graph=None, node=None, edge=None):
        self._lines = []
        self._indent = "\t"
        for keyword, attrs in (("graph", graph), ("node", node), ("edge", edge)):
            if attrs:
                self._lines.append(f"{self._indent}{keyword}{attributes(attrs)}")

    def node(self, node_id, **attrs):
        self._lines.append(f"{self._indent}{quote(node_id)}{attributes(attrs)}")

    def edge(self, tail, head, **attrs):
        self._lines.append(f"{self._indent}{quote(tail)} -> {quote(head)}{attributes(attrs)}")

    def begin_cluster(self, name, **attrs):
        """Start a `subgraph cluster_<name>`: Graphviz draws a box around its nodes."""
        self._lines.append(f"{self._indent}subgraph cluster_{name} {{")
        self._indent += "\t"
        for key, value in attrs.items():
            self._lines.append(f"{self._indent}{key}={quote(value)}")

    def end_cluster(self):
        self._indent = self._indent[:-1]
        self._lines.append(f"{self._indent}}}")

    @property
    def source(self):
        return "digraph {\n" + "\n".join(self._lines) + "\n}\n"
