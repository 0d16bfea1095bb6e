"""Conformance tests: PyTorch 2.13's observed autograd behaviour, row by row, one file per topic.

Each test runs on tensorgrad and, when it is installed, on PyTorch 2.13 (parity).
"""
