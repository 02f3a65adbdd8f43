"""Reports RAGFlow's agent tests from pytest's JUnit XML files, against the list of tests
canvasc is known not to pass yet (ragflow_known_failures.txt: one test id a line, `#` starts
a comment giving the reason).

Exit 0 when every failing test is listed and every listed test ran; 1 when a test outside the
list failed, a listed test did not run or no test ran. A listed test that passes is reported
as FIXED (remove it from the list); it does not fail the run, since the fix may reach main
through another branch before the list is updated.

    python junit_report.py KNOWN_FAILURES REPORT.xml...
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

PREFIX = "test.testcases."


def known_failures(path: Path) -> dict[str, str]:
    known = {}
    for line in path.read_text().splitlines():
        test, _, reason = line.partition("#")
        if test.strip():
            known[test.strip()] = reason.strip()
    return known


def outcomes(reports: list[Path]) -> dict[str, tuple[str, str]]:
    """`{test id: (passed|failed|skipped, first line of the failure)}`."""
    found = {}
    for report in reports:
        for case in ET.parse(report).getroot().iter("testcase"):
            test = f"{case.get('classname', '')}.{case.get('name', '')}".removeprefix(PREFIX)
            failure = case.find("failure")
            if failure is None:
                failure = case.find("error")
            if failure is not None:
                message = (failure.get("message") or failure.text or "").strip().splitlines()
                found[test] = ("failed", message[0][:300] if message else "")
            elif case.find("skipped") is not None:
                found[test] = ("skipped", "")
            else:
                found[test] = ("passed", "")
    return found


def main() -> int:
    known = known_failures(Path(sys.argv[1]))
    found = outcomes([Path(p) for p in sys.argv[2:]])
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    unexpected = []
    for test, (outcome, message) in sorted(found.items()):
        counts[outcome] += 1
        if outcome == "failed":
            if test in known:
                print(f"known failure: {test}: {known[test]}")
            else:
                unexpected.append(test)
                print(f"FAILED: {test}: {message}")
        elif outcome == "passed" and test in known:
            print(f"FIXED: {test} passes now: remove it from the known failures")
    missing = sorted(set(known) - set(found))
    for test in missing:
        print(f"NOT RUN: {test} is listed as a known failure but did not run")
    total = sum(counts.values())
    known_failed = counts["failed"] - len(unexpected)
    print(
        f"RAGFlow agent tests: {counts['passed']} passed, {counts['failed']} failed "
        f"({known_failed} known), {counts['skipped']} skipped"
    )
    return 1 if unexpected or missing or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
