#!/usr/bin/env python3
"""Checks the steady phase of a run's device traffic (the "device_traffic" of its --metrics
JSON, core/device_traffic.hpp) against per-step limits, and prints what it found.

usage: check_traffic.py METRICS.json (--max-bytes-per-step B | --exchange-bytes-plus-per-slice P)
                        --max-syncs-per-step S [--min-steps N] [--built-beside]

--exchange-bytes-plus-per-slice P (xct with data ranks, host-staged): the limit per step is what
MPI carries for this rank, K x value size x the rows its exchange steps send and receive in one
forward and one backward product (the operator's forward/backward_rows_sent/received, from the
partition's reduction plans), plus P bytes per slice for the per-slice scalars the solver sums
over ranks and reads.

--built-beside (xct on one rank): the build left the critical path: A went up on a thread of its
own and, with a stored Aᵀ, another thread made Aᵀ's layout and then its slots on the device (the
operator's build_seconds name upload_a_beside, transpose_layout_beside and
transpose_on_device_beside), and Aᵀ's slots never went up (the set-up moved less than A and
half of Aᵀ up).
"""
import argparse
import json
import sys


def exchange_bound(metrics, per_slice):
    """Bytes per iteration that MPI needs on this rank (see the usage above)."""
    op = metrics["operator"]
    if op.get("staging") != "host-staged":
        sys.exit(f"check_traffic: the exchange bound needs host-staged data ranks, found {op.get('staging')}")
    value = 8 if metrics["solver"]["precision"] == "double" else 4
    k = metrics["batch_slices"]
    rows = sum(op[f"{d}_rows_{w}"] for d in ("forward", "backward") for w in ("sent", "received"))
    bound = k * value * rows + per_slice * k
    print(f"exchange bound: {k} slices x {value} B x {rows} rows + {per_slice:g} B x {k} slices = {bound:g} B per step")
    return bound


def beside_failures(op, setup_up):
    """What of the one-rank build did not run beside the host's work (see --built-beside)."""
    build = op.get("build_seconds", {})
    expected = ["upload_a_beside"]
    stored_at = isinstance(op.get("At"), dict)
    if stored_at:
        expected += ["transpose_layout_beside", "transpose_on_device_beside"]
    print("build: " + ", ".join(f"{k} {v:.4f}" for k, v in build.items()))
    failures = [f"the build's {key} is missing: it did not run beside" for key in expected if key not in build]
    if stored_at and setup_up >= op["A"]["bytes"] + op["At"]["bytes"] / 2:
        failures.append(f"the set-up moved {setup_up} B up: Aᵀ's slots ({op['At']['bytes']:.0f} B) went up")
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("metrics")
    limit = parser.add_mutually_exclusive_group(required=True)
    limit.add_argument("--max-bytes-per-step", type=float)
    limit.add_argument("--exchange-bytes-plus-per-slice", type=float)
    parser.add_argument("--max-syncs-per-step", type=float, required=True)
    parser.add_argument("--min-steps", type=int, default=1)
    parser.add_argument("--built-beside", action="store_true")
    args = parser.parse_args()
    with open(args.metrics) as f:
        metrics = json.load(f)
    traffic = metrics["device_traffic"]
    if args.exchange_bytes_plus_per_slice is not None:
        args.max_bytes_per_step = exchange_bound(metrics, args.exchange_bytes_plus_per_slice)
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
    if args.built_beside:
        failures += beside_failures(metrics["operator"], traffic["setup"]["h2d_bytes"])
    for failure in failures:
        print("check_traffic: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
