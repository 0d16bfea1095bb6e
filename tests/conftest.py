"""Project-wide pytest hooks.

nbval (``./run test`` runs the lessons and solutions with ``--nbval``) compares every
stored output of a notebook with the output of running it again. Some output types
cannot be byte-stable across machines, so they are left out of the comparison here:

* ``image/svg+xml``: graphviz's SVG differs between graphviz builds (ids, coordinates,
  version comments). The DOT source (``text/vnd.graphviz``) and the ``text/plain``
  summary that every graph picture also carries *are* compared.
* ``image/png``: matplotlib's PNG bytes differ between versions and font sets
  (nbval already skips it unless ``--nbdime``; listed to be explicit).
* ``application/vnd.jupyter.widget-view+json``: widget model ids are random.

This file is not a conftest of ``lessons/`` or ``solutions/``, so the notebook run loads
it as a plugin: ``python -m pytest -p tests.conftest --nbval ... lessons/ solutions/``.
"""

NBVAL_SKIP_COMPARE = (
    "image/svg+xml",
    "image/png",
    "application/vnd.jupyter.widget-view+json",
)


def pytest_collectstart(collector):
    """Extend nbval's ``IPyNbFile.skip_compare`` (set in its ``__init__``, read per cell)."""
    skip = getattr(collector, "skip_compare", None)
    if skip is None or type(collector).__name__ != "IPyNbFile":
        return
    collector.skip_compare = tuple(skip) + tuple(
        key for key in NBVAL_SKIP_COMPARE if key not in skip
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "lab_args(*args): more arguments for ./run lab in tests/test_browser.py")
