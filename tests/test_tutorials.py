"""Tutorial code runs unchanged: each program of tests/tutorials/programs.py, run with tensorgrad
standing in for `torch`, prints what torch 2.13 printed (recorded in torch_outputs.json by
`python -m tests.tutorials.run`; with torch installed, the recording is checked to be current).

Programs that do not run the same yet are listed in KNOWN_GAPS with the reason; they are
expected to fail (strictly: when one starts passing, the test says so, and the entry goes)."""

import json

import pytest

from tutorials.programs import PROGRAMS
from tutorials.run import OUTPUTS, normalized, run

RECORDED = json.loads(OUTPUTS.read_text(encoding="utf-8"))

KNOWN_GAPS = {}  # topic -> why tensorgrad does not print the same yet


@pytest.mark.parametrize("topic", [
    pytest.param(topic, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[topic]))
    if topic in KNOWN_GAPS else topic for topic in sorted(PROGRAMS)])
def test_prints_what_torch_prints(topic):
    assert normalized(run(PROGRAMS[topic], "tensorgrad")) == RECORDED[topic]


@pytest.mark.parametrize("topic", sorted(PROGRAMS))
def test_the_recording_is_torchs_output(topic):
    pytest.importorskip("torch")
    assert normalized(run(PROGRAMS[topic], "torch")) == RECORDED[topic]


def test_known_gaps_are_real_programs():
    assert set(KNOWN_GAPS) <= set(PROGRAMS)
