"""Asserts what a ctest run ran: python3 scripts/check_ran.py BUILD_DIR JUNIT WHAT:FLOOR...

WHAT is a ctest label (unit, gui, integration) or /REGEX/ for the test names it matches from the
start (/RunController\\./ for the run worker's tests, which carry the label unit).

ctest passes when every test it selected passed, so a build that lost a part (the GUI, the run
worker) passes with fewer tests. This counts, per label, the tests the run's JUnit file says ran
(skipped ones do not count) and fails when a label has fewer than its floor. The labels come from
the build's own test list (ctest --show-only=json-v1), since the JUnit file has none.
"""
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET


def main():
    build, junit, floors = sys.argv[1], sys.argv[2], sys.argv[3:]
    listing = json.loads(subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], check=True,
                                        capture_output=True, text=True).stdout)
    labels = {}
    for test in listing.get("tests", []):
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels[test["name"]] = set(prop.get("value", []))
    ran = [case.get("name") for case in ET.parse(junit).getroot().iter("testcase") if case.get("status") == "run"]
    failed = False
    counts = []
    for spec in floors:
        label, floor = spec.rsplit(":", 1)
        if label.startswith("/") and label.endswith("/") and len(label) > 1:
            pattern = re.compile(label[1:-1])
            count = sum(1 for name in ran if pattern.match(name))
        else:
            count = sum(1 for name in ran if label in labels.get(name, ()))
        counts.append("%s %d (floor %s)" % (label, count, floor))
        if count < int(floor):
            print("check-ran: %s ran %d tests of %s, fewer than the floor %s: a part of the build or of "
                  "the tests is missing" % (build, count, label, floor), file=sys.stderr)
            failed = True
    print("check-ran: %s: %s" % (build, ", ".join(counts)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
