"""The server processes' collector settings (``garbage_collection.py``): start-up's objects are
frozen and the thresholds raised. Run in a child process so this test's own collector is left as
it is."""

from __future__ import annotations

import json
import subprocess
import sys

from boundless.server.garbage_collection import (
    MIDDLE_THRESHOLD,
    OLDEST_THRESHOLD,
    YOUNGEST_THRESHOLD,
)

PROBE = """
import gc, json
from boundless.server.garbage_collection import tune_garbage_collector
before = gc.get_threshold()
tune_garbage_collector()
class Node:
    pass
a, b = Node(), Node()
a.other, b.other = b, a  # a cycle made after the freeze is still collected
del a, b
found = gc.collect()
print(json.dumps({"before": before, "after": gc.get_threshold(),
                  "frozen": gc.get_freeze_count(), "found": found}))
"""


def test_start_up_is_frozen_the_thresholds_raised_and_cycles_still_collected() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    seen = json.loads(out.stdout)
    assert seen["before"] == [700, 10, 10]
    assert seen["after"] == [YOUNGEST_THRESHOLD, MIDDLE_THRESHOLD, OLDEST_THRESHOLD]
    assert seen["frozen"] > 1_000  # the modules imported so far
    assert seen["found"] >= 2
