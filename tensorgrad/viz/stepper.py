"""`BackwardStepper`: watch the backward pass run, one node at a time.

In JupyterLab it is an ipywidgets widget: a slider with prev/next buttons above the backward
picture. At each step the node that runs is highlighted (gold, red border), the edges carry
the gradients computed so far, nodes still waiting are white, and below the picture the step's
arithmetic is written out, e.g. `∂y/∂a = b = 2 → grad a = 1 × 2 = 2`.

Where widgets cannot run (ipywidgets missing, a static notebook viewer, nbconvert) it shows a
static list of all the steps instead: its display bundle always carries that list as
`text/plain` and `text/html` next to the widget view.

A stepper saved with the notebook (JupyterLab's widget saveState) reopens as a picture whose
controls no longer reach a kernel. ipywidgets then marks each view `jupyter-widgets-disconnected`
(and draws a broken-link icon in front of it); the stepper's own style sheet hides the dead
controls and those icons in that state and shows instead a plain note (words.py's "reopened"): re-run
the cell. While the kernel is connected the note stays hidden.

The steps come from `trace_backward`, so the learner's `.grad` values are not touched.
"""

import html
import warnings

from . import display
from .draw import MAX_NODES, Flow, picture
from .model import GraphModel
from . import words
from .trace import trace_backward


# Shown by ipywidgets in every saved view whose kernel is gone: `.jupyter-widgets-disconnected`.
_STYLE = """<style>
.tg-stepper-reopened { display: none; }
.tg-stepper:has(.jupyter-widgets-disconnected) .tg-stepper-reopened,
.tg-stepper.jupyter-widgets-disconnected .tg-stepper-reopened {
  display: block; padding: 6px 10px; margin: 4px 0; border-left: 4px solid #d9822b;
  background: #fff4e5; color: #333; font-size: 14px; }
.tg-stepper:has(.jupyter-widgets-disconnected) .tg-stepper-controls { display: none; }
.tg-stepper .jupyter-widgets-disconnected::before,
.tg-stepper.jupyter-widgets-disconnected::before { content: none; display: none; }
</style>"""


class BackwardStepper:
    """Step through `root.backward(gradient)`: `.step` moves, `.widget` is the ipywidgets view.

    names: {name: tensor} to name tensors in the picture and text (or `t.name = "t"`).
    """

    def __init__(self, root, gradient=None, *, names=None, values=True):
        self.trace = trace_backward(root, gradient, names=names)
        self._model = GraphModel(root, names, MAX_NODES)
        self._values = values
        self._step = 0
        self._graphs = {}  # step -> Graph, drawn on first use
        self._warned = False
        self.widget = self._build_widget()

    # -- moving ------------------------------------------------------------------------------
    def __len__(self):
        return len(self.trace)

    @property
    def step(self):
        """The index of the current step (0 is the first node backward runs)."""
        return self._step

    @step.setter
    def step(self, index):
        index = max(0, min(int(index), len(self.trace) - 1))
        self._step = index
        if self.widget is not None:
            if self._slider.value != index + 1:
                self._slider.value = index + 1  # its observer calls back here and refreshes
                return
            self._html.value = self.html(index)

    def next(self):
        self.step = self._step + 1

    def prev(self):
        self.step = self._step - 1

    # -- what each step shows -------------------------------------------------------------------
    def graph(self, index=None):
        """The backward picture at a step: current node highlighted, gradients so far."""
        index = self._step if index is None else index
        if index not in self._graphs:
            steps = self.trace[:index + 1]
            flow = Flow(steps, current=self.trace[index].node)
            self._graphs[index] = picture(self._model, view="backward", values=self._values,
                                          flow=flow)
        return self._graphs[index]

    def text(self, index=None):
        index = self._step if index is None else index
        step = self.trace[index]
        # Counted from 1, as a learner counts: the last of 5 steps is "step 5 of 5".
        return words.word("step of", number=step.number, count=len(self.trace), text=step.text)

    def html(self, index=None):
        """The picture (SVG, or DOT text with an install hint) and the arithmetic, as HTML."""
        index = self._step if index is None else index
        graph = self.graph(index)
        svg = self._svg(graph)
        if svg is None:
            image = (f"<p>{html.escape(display.fallback_hint())}</p>"
                     f"<pre>{html.escape(graph.source)}</pre>")
        else:
            image = svg
        return f"<div>{image}</div><pre>{html.escape(self.text(index))}</pre>"

    def _svg(self, graph):
        if graph._svg is None:
            try:
                graph._svg = display.run_dot(graph.source, "svg").decode("utf-8")
            except RuntimeError as error:
                if not self._warned:  # one warning per stepper, not one per step
                    self._warned = True
                    warnings.warn(str(error), display.GraphvizWarning, stacklevel=3)
                return None
        return graph._svg

    # -- display -------------------------------------------------------------------------------
    def static_text(self):
        """All steps as text: what is shown where widgets cannot run."""
        return f"{self.trace!r}\n\n{self.trace.explain()}"

    def __repr__(self):
        return words.word("stepper", count=words.count_of("steps", len(self.trace)),
                          root=self.trace.model.output.label)

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        text = self.static_text()
        bundle = {"text/plain": f"{self!r}\n{text}",
                  "text/html": f"<pre>{html.escape(text)}</pre>"}
        if self.widget is not None:
            widget_bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude)
            view = (widget_bundle or {}).get("application/vnd.jupyter.widget-view+json")
            if view is not None:
                bundle["application/vnd.jupyter.widget-view+json"] = view
        return bundle

    def _build_widget(self):
        """The ipywidgets view, or None when ipywidgets is not installed."""
        try:
            import ipywidgets as widgets
        except ImportError:
            return None
        # The slider counts steps from 1 (its value is .step + 1), as the text below it does.
        self._slider = widgets.IntSlider(value=1, min=1, max=len(self.trace), description=words.word("slider"),
                                         continuous_update=False)
        previous = widgets.Button(description=words.word("previous"), layout=widgets.Layout(width="80px"))
        following = widgets.Button(description=words.word("next"), layout=widgets.Layout(width="80px"))
        self._html = widgets.HTML(value=self.html(0))
        self._slider.observe(self._on_slider, names="value")
        previous.on_click(lambda _: self.prev())
        following.on_click(lambda _: self.next())
        self._buttons = (previous, following)
        note = widgets.HTML(value=f'{_STYLE}<div class="tg-stepper-reopened">'
                                  f'{html.escape(words.word("reopened"))}</div>')
        controls = widgets.HBox([previous, self._slider, following])
        controls.add_class("tg-stepper-controls")
        box = widgets.VBox([note, controls, self._html])
        box.add_class("tg-stepper")
        return box

    def _on_slider(self, change):
        self.step = change["new"] - 1
