"""Print every failed or errored test from JUnit XML reports, so the end of a red CI log names them.

Usage: python scripts/print_test_failures.py REPORT.xml...
"""

import sys
import xml.etree.ElementTree as ET


def failures(path):
    for case in ET.parse(path).getroot().iter("testcase"):
        for outcome in ("failure", "error"):
            found = case.find(outcome)
            if found is not None:
                name = f"{case.get('classname')}::{case.get('name')}"
                yield outcome, name, (found.get("message") or "").strip()


def main(paths):
    for path in paths:
        for outcome, name, message in failures(path):
            print(f"{outcome.upper()} {name}\n    {message[:600]}")


if __name__ == "__main__":
    main(sys.argv[1:])
