#!/usr/bin/env python3
"""Run the Python tests; the last line is "N passed, N failed" (skips are
reported on the line before). Exit status 1 when any test fails.

The tests import chessforge_data as installed (make test-python installs it
into a virtual environment and runs this from outside the source tree)."""

import os
import sys
import unittest

import chessforge_data

here = os.path.dirname(os.path.abspath(__file__))
print(f"chessforge_data from {os.path.dirname(chessforge_data.__file__)}", flush=True)
suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py", top_level_dir=here)
result = unittest.TextTestRunner(verbosity=2).run(suite)
failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
skipped = len(result.skipped)
passed = result.testsRun - failed - skipped
for test, why in result.skipped:
    print(f"skipped: {test.id()}: {why}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
