"""Fixtures of the client tests: one `canvasc serve` per test session (serving.py), driven by
the scripted model of the golden case the tests replay."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import serving  # noqa: E402

# A turn with an LLM whose answer streams word by word after a reasoning block: it shows
# deltas, think markers and their `<think>` form in non-streaming answers.
GOLDEN = "llm-think-stream"


@pytest.fixture(scope="session")
def golden() -> serving.Golden:
    return serving.golden(GOLDEN)


@pytest.fixture(scope="session")
def served(golden: serving.Golden):
    running = serving.start(golden.script)
    yield running
    running.stop()
