#!/usr/bin/env python3
"""Times tessel-xct's CGLS iterations with each local kernel, back to back in one run, and
prints the seconds per iteration, the operator's share of them (the products with A and Aᵀ,
as the app times them) and both ratios to the CSR row split of the same binary and rank
count (issue 12's table). Each case: BINARY:KERNEL[:RANKS[:PRECISION]] (precision
single, mixed or double; default single)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run_case(binary, kernel, ranks, precision, args):
    with tempfile.TemporaryDirectory() as tmp:
        metrics = os.path.join(tmp, "m.json")
        cmd = [binary, "--phantom", str(args.size), "--angles", str(args.angles), "--num-slices",
               str(args.slices), "--iterations", str(args.iterations), "--kernel", kernel, "--metrics", metrics]
        if precision != "single":
            cmd += ["--precision", precision]
        env = dict(os.environ)
        if ranks > 1:  # the same cores split among the ranks
            threads = int(env.get("OMP_NUM_THREADS", os.cpu_count()))
            env["OMP_NUM_THREADS"] = str(max(1, threads // ranks))
            cmd = ["mpiexec", "-n", str(ranks), "--bind-to", "none"] + cmd + ["--data-ranks", str(ranks)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
        with open(metrics) as f:
            m = json.load(f)
    # Seconds per iteration: the iterate phase over the iterations (first-touch included); the
    # operator's: every product with A and Aᵀ of the run (slowest rank) over the iterations.
    return m["iteration_seconds"], m["spmm"]["seconds"] / m["iterations_run"], m["phases"]["build"]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("cases", nargs="+", help="BINARY:KERNEL[:RANKS[:PRECISION]]")
    p.add_argument("--size", type=int, default=512)
    p.add_argument("--angles", type=int, default=750)
    p.add_argument("--slices", type=int, default=16)
    p.add_argument("--iterations", type=int, default=12)
    p.add_argument("--json", help="write the rows here")
    args = p.parse_args()
    rows = []
    for case in args.cases:
        parts = case.split(":")
        binary, kernel = parts[0], parts[1]
        ranks = int(parts[2]) if len(parts) > 2 else 1
        precision = parts[3] if len(parts) > 3 else "single"
        t, op, build = run_case(binary, kernel, ranks, precision, args)
        rows.append({"binary": binary, "kernel": kernel, "ranks": ranks, "precision": precision,
                     "s_per_iteration": t, "operator_s_per_iteration": op, "build_s": build})
        print(f"{binary} {kernel} ranks={ranks} {precision}: {t:.4f} s/iteration, operator {op:.4f} "
              f"(build {build:.1f} s)", file=sys.stderr)
    print("| binary | kernel | precision | data ranks | s / iteration | vs csr | operator s / iteration | vs csr | build s |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        csr = [q for q in rows if q["binary"] == r["binary"] and q["ranks"] == r["ranks"] and q["kernel"] == "csr"]
        ratio = f"{r['s_per_iteration'] / csr[0]['s_per_iteration']:.2f}x" if csr else "-"
        op_ratio = f"{r['operator_s_per_iteration'] / csr[0]['operator_s_per_iteration']:.2f}x" if csr else "-"
        print(f"| {r['binary']} | {r['kernel']} | {r['precision']} | {r['ranks']} | {r['s_per_iteration']:.4f} | "
              f"{ratio} | {r['operator_s_per_iteration']:.4f} | {op_ratio} | {r['build_s']:.1f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"size": args.size, "angles": args.angles, "slices": args.slices,
                       "iterations": args.iterations, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
