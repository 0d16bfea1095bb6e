"""Turning DOT text into pictures, and showing them in Jupyter.

Pictures are made by Graphviz's `dot` program, run as a subprocess. That program is not a Python
package: `pip install graphviz` installs only a wrapper around it. So a learner's machine may
well lack it, and this module makes sure that nothing breaks then:

  * displaying a graph falls back to its DOT text plus a one-line install hint, and warns once
    (per display);
  * `Graph.render()` raises `GraphvizNotFoundError`, whose message says how to install it;
  * a `dot` that fails or takes longer than `DOT_TIMEOUT` seconds is reported the same way,
    so a huge graph never hangs a notebook.

The `text/plain` part of every bundle is a short, stable summary, so notebooks whose outputs
are compared in CI (nbval) do not depend on the SVG, which differs between Graphviz versions.
"""

import re
import shutil
import subprocess
import warnings
from pathlib import Path

DOT_TIMEOUT = 30  # seconds

INSTALL_HINT = (
    "Graphviz's 'dot' program was not found, so the graph is shown as DOT text; to see "
    "pictures install it: 'apt-get install graphviz', 'brew install graphviz' or "
    "'conda install -c conda-forge graphviz' ('pip install graphviz' alone is not enough)."
)

FORMATS = ("svg", "png", "pdf")


class GraphvizNotFoundError(RuntimeError):
    """The Graphviz `dot` executable is not installed (or not on PATH)."""


class GraphvizWarning(UserWarning):
    """A graph is shown as DOT text because `dot` is missing or failed."""


def run_dot(source, format="svg", timeout=None):  # noqa: A002  (graphviz's name)
    """Run `dot -T<format>` on DOT text and return the output bytes."""
    timeout = DOT_TIMEOUT if timeout is None else timeout
    executable = shutil.which("dot")
    if executable is None:
        raise GraphvizNotFoundError(INSTALL_HINT)
    try:
        finished = subprocess.run([executable, f"-T{format}"], input=source.encode("utf-8"),
                                  capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise RuntimeError(
            f"Graphviz's 'dot' took more than {timeout} s to lay out this graph; draw fewer "
            "nodes (the max_nodes= argument of draw) or use the DOT text (.source)."
        ) from None
    except OSError as error:
        raise GraphvizNotFoundError(f"{INSTALL_HINT} ({error})") from None
    if finished.returncode != 0:
        message = finished.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"Graphviz's 'dot' failed: {message}")
    return finished.stdout


_SVG_SIZE = re.compile(r'<svg width="(?P<w>[0-9.]+)pt" height="(?P<h>[0-9.]+)pt"\s*'
                       r'viewBox="0\.00 0\.00 [0-9.]+ [0-9.]+"')
_SCALE = re.compile(r'(<g id="graph0" class="graph" transform=")scale\((?P<s>[0-9.]+) [0-9.]+\)')


#: The least a picture is scaled down: its smallest text (9 pt edge labels, 4/3 px a point) stays
#: at least 10 px high on screen at 100% zoom.
MIN_SCALE = 0.85


def natural_size(svg):
    """The picture scaled down no further than MIN_SCALE: a DOT `size=` makes `dot` shrink a
    wide graph until it fits (text 7-9 px high on screen); a graph that would need more than
    that keeps readable text and scrolls sideways in the output area instead (see UNCONFINED)."""
    scale = _SCALE.search(svg)
    size = _SVG_SIZE.search(svg)
    if scale is None or size is None or float(scale["s"]) >= MIN_SCALE:
        return svg
    factor = float(scale["s"]) / MIN_SCALE
    width, height = float(size["w"]) / factor, float(size["h"]) / factor
    svg = svg[:size.start()] + (f'<svg width="{width:.0f}pt" height="{height:.0f}pt"\n'
                                f' viewBox="0.00 0.00 {width:.2f} {height:.2f}"') + svg[size.end():]
    return _SCALE.sub(rf"\g<1>scale({MIN_SCALE:g} {MIN_SCALE:g})", svg, count=1)


#: Display metadata: JupyterLab shows the SVG at its own size (not shrunk to the output area's
#: width: `max-width: 100%`), and a graph wider than the area scrolls sideways, never cut.
UNCONFINED = {"image/svg+xml": {"unconfined": True}}


def svg_or_none(source):
    """The SVG text at its natural size, or None with one GraphvizWarning when `dot` is missing
    or fails."""
    try:
        return natural_size(run_dot(source, "svg").decode("utf-8"))
    except RuntimeError as error:  # GraphvizNotFoundError is a RuntimeError too
        warnings.warn(str(error), GraphvizWarning, stacklevel=3)
        return None


def fallback_hint():
    """The one-line hint shown in place of a picture (the reason `dot` is unavailable)."""
    if shutil.which("dot") is None:
        return INSTALL_HINT
    return "Graphviz's 'dot' could not draw this graph, so it is shown as DOT text."


def mimebundle(source, summary, svg):
    """What Jupyter displays: SVG when there is one, else the DOT text and a hint."""
    if svg is None:
        return {
            "text/plain": f"{summary}\n{fallback_hint()}\n{source}",
            "text/vnd.graphviz": source,
        }
    return {"image/svg+xml": svg, "text/plain": summary, "text/vnd.graphviz": source}


class Graph:
    """A drawn graph: its DOT text, a summary line, and ways to display or save it.

    In Jupyter it displays as a picture. `.source` is the DOT text; `.render(path)` writes an
    SVG/PNG/PDF file (needs Graphviz's `dot`), `.save(path)` writes the DOT text.
    """

    def __init__(self, source, summary):
        self.source = source
        self.summary = summary
        self._svg = None

    def __repr__(self):
        return self.summary

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        if self._svg is None:
            self._svg = svg_or_none(self.source)
        bundle = mimebundle(self.source, self.summary, self._svg)
        if include is not None:
            bundle = {key: value for key, value in bundle.items() if key in include}
        if exclude is not None:
            bundle = {key: value for key, value in bundle.items() if key not in exclude}
        if "image/svg+xml" in bundle:
            return bundle, dict(UNCONFINED)
        return bundle

    def render(self, path, format=None):  # noqa: A002  (graphviz's name)
        """Draw the picture into a file and return its path.

        format: "svg", "png" or "pdf"; by default the path's suffix, else "svg" (which is then
        added to the path). Raises GraphvizNotFoundError, saying how to install Graphviz, when
        its `dot` program is missing.
        """
        path = Path(path)
        suffix = path.suffix[1:].lower()
        if format is None:
            format = suffix if suffix in FORMATS else "svg"  # noqa: A001
        if format not in FORMATS:
            raise ValueError(f"render() can write {', '.join(FORMATS)}, not {format!r}")
        if suffix != format:
            path = path.with_name(path.name + "." + format)
        data = run_dot(self.source, format)
        path.write_bytes(data)
        return path

    def save(self, path):
        """Write the DOT text to `path` (no Graphviz needed) and return the path."""
        path = Path(path)
        path.write_text(self.source, encoding="utf-8")
        return path
