"""The failure a student's self-check raises: :class:`CheckFailure`.

A failed self-check (:func:`.checks.check`'s tests, outside grading) raises it. It is an
``AssertionError`` subclass, so graders and pytest treat it as a failed test; in Jupyter it
renders as one ``✗`` line (via IPython's ``_render_traceback_`` hook) instead of a traceback
through the course's internals. The message itself comes from :mod:`.texts`, in the
student's language.
"""

from __future__ import annotations

__all__ = ["CheckFailure"]


class CheckFailure(AssertionError):
    """A failed self-check. The message is the whole story; no traceback is needed."""

    def _render_traceback_(self) -> list[str]:
        # IPython calls this instead of formatting a traceback.
        return [f"\N{BALLOT X} {line}" if i == 0 else f"  {line}" for i, line in enumerate(str(self).splitlines())]
