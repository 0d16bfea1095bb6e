"""Conformance tests generated from ../shared/reference/pytorch-autograd-behaviour.md (§1–§6, §8).

Each test runs on tensorgrad and, when it is installed, on PyTorch 2.13 (parity).
"""
