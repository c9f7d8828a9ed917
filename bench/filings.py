"""Benchmark of the filings document layer: render + validate, as sar-validate / ctr-validate do.

    .venv/bin/python bench/filings.py [--transactions 1000] [--subjects 10] [--runs 7]

For each report the example form data (filings.documents.examples) is parsed once, then timed:
render (build the document) plus validate (the regulator's schema and the business checks) —
`Renderer.review(form)`, what an API call does after reading the request. Goal (issue 5, "Figures"):
a US SAR with 1,000 transactions and 10 subjects in at most 1 s; the same for a CTR. Prints the
median, minimum and maximum of `--runs` runs (the first, which loads the schemas, is not counted).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from filings.documents.examples import example_large_transaction, example_suspicious_activity  # noqa: E402
from filings.renderers import renderer_for  # noqa: E402

GOAL_SECONDS = 1.0


def timed(kind: str, jurisdiction: str, data: dict, runs: int) -> list[float]:
    renderer = renderer_for(kind, jurisdiction)
    form = renderer.parse(data)
    review = renderer.review(form)  # warm-up: loads and compiles the schema
    assert review.valid, [issue.as_dict() for issue in review.errors]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        renderer.review(form)
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transactions", type=int, default=1000)
    parser.add_argument("--subjects", type=int, default=10)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--all", action="store_true", help="also time the other jurisdictions' reports")
    args = parser.parse_args()
    cases = [("SAR", "US", example_suspicious_activity("US", transactions=args.transactions, subjects=args.subjects)),
             ("CTR", "US", example_large_transaction("US", transactions=args.transactions, subjects=args.subjects))]
    if args.all:
        cases += [("STR", "CA", example_suspicious_activity("CA", transactions=args.transactions, subjects=args.subjects)),
                  ("LCTR", "CA", example_large_transaction("CA", transactions=args.transactions, subjects=args.subjects)),
                  ("SMR", "AU", example_suspicious_activity("AU", transactions=args.transactions, subjects=args.subjects)),
                  ("TTR", "AU", example_large_transaction("AU", transactions=args.transactions, subjects=args.subjects)),
                  ("STR", "GB", example_suspicious_activity("GB", transactions=args.transactions, subjects=args.subjects))]
    print(f"render + validate, {args.transactions} transactions, {args.subjects} subjects, median of {args.runs} runs")
    failed = False
    for kind, jurisdiction, data in cases:
        times = timed(kind, jurisdiction, data, args.runs)
        median = statistics.median(times)
        goal = "" if jurisdiction != "US" else (" ok (goal <= 1 s)" if median <= GOAL_SECONDS else " OVER the 1 s goal")
        failed |= jurisdiction == "US" and median > GOAL_SECONDS
        spread = f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})"
        print(f"  {kind:<4} {jurisdiction}: median {median * 1000:7.1f} ms  {spread}{goal}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
