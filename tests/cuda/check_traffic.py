#!/usr/bin/env python3
"""Checks the steady phase of a run's device traffic (the "device_traffic" of its --metrics
JSON, core/device_traffic.hpp) against per-step limits, and prints what it found.

usage: check_traffic.py METRICS.json --max-bytes-per-step B --max-syncs-per-step S [--min-steps N]
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("metrics")
    parser.add_argument("--max-bytes-per-step", type=float, required=True)
    parser.add_argument("--max-syncs-per-step", type=float, required=True)
    parser.add_argument("--min-steps", type=int, default=1)
    args = parser.parse_args()
    with open(args.metrics) as f:
        traffic = json.load(f)["device_traffic"]
    steady, steps = traffic["steady"], traffic["steady_steps"]
    moved = steady["h2d_bytes"] + steady["d2h_bytes"]
    print(f"steady: {steps} steps, {moved} bytes in {steady['copies']} copies "
          f"({steady['pageable_copies']} pageable), {steady['synchronizations']} synchronizations, "
          f"{steady['launches']} launches; setup {traffic['setup']['h2d_bytes']} B up, "
          f"finish {traffic['finish']['d2h_bytes']} B down")
    failures = []
    if steps < args.min_steps:
        failures.append(f"{steps} steady steps, expected at least {args.min_steps}")
    if steps and moved / steps > args.max_bytes_per_step:
        failures.append(f"{moved / steps:.1f} bytes per step, limit {args.max_bytes_per_step:g}")
    if steps and steady["synchronizations"] / steps > args.max_syncs_per_step:
        failures.append(f"{steady['synchronizations'] / steps:.2f} synchronizations per step, "
                        f"limit {args.max_syncs_per_step:g}")
    if steps and steady["launches"] == 0:
        failures.append("no launch in the steady phase: nothing ran on the device")
    for failure in failures:
        print("check_traffic: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
