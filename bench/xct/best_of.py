#!/usr/bin/env python3
"""Merges several tessel-bench-xct JSON files taken on a shared machine: per case (image,
angles, order, K) the run with the fastest iteration, the fastest build, the best STREAM triad
of all runs for the bound, and the scikit-image comparison; prints a Markdown table."""
import json
import sys

runs = [json.load(open(path)) for path in sys.argv[1:]]
if not runs:
    sys.exit("usage: best_of.py RUN.json [RUN.json ...]")
triad = max(r["stream_triad"]["gb_per_s"] for r in runs)
best, builds, skipped, peers = {}, {}, {}, {}
for run in runs:
    for r in run["results"]:
        if "skipped" in r:
            skipped[(r["n"], r["angles"])] = r
            continue
        key = (r["n"], r["angles"], r["order"], r["k"])
        if key not in best or r["iteration_seconds_best"] < best[key]["iteration_seconds_best"]:
            best[key] = r
        bkey = (r["n"], r["angles"], r["order"])
        builds[bkey] = min(builds.get(bkey, 1e30), r["build_seconds"])
    for p in run.get("peers", []):
        if "seconds_per_iteration" in p:
            key = (p["n"], p["angles"])
            if key not in peers or p["seconds_per_iteration"] < peers[key]["seconds_per_iteration"]:
                peers[key] = p


def fmt(x, digits=3):
    return f"{x:.{digits}g}"


print(f"STREAM triad (best of all runs): {triad:.1f} GB/s\n")
print("| image | angles | order | K | build s | s/iteration | s/iteration/slice | GFLOP/s | effective GB/s "
      "| STREAM bound s | fraction of bound | others' CPU |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for key in sorted(best, key=lambda k: (k[0], k[1], k[2] != "hilbert", k[3])):
    r = best[key]
    bound = r["matrix_bytes"] / (triad * 1e9)
    t = r["iteration_seconds_best"]
    print(f"| {r['n']} | {r['angles']} | {r['order']} | {r['k']} | {fmt(builds[key[:3]])} | {fmt(t)} | "
          f"{fmt(t / r['k'])} | {fmt(r['gflops'])} | {fmt(r['effective_gbytes_per_s'])} | {fmt(bound)} | "
          f"{100 * bound / t:.0f}% | {100 * r['others_cpu_fraction']:.0f}% |")
for (n, angles), r in sorted(skipped.items()):
    print(f"| {n} | {angles} | | | does not fit: needs about {r['estimate_bytes'] / 2**30:.1f} GiB "
          f"(A and Aᵀ {r['matrix_bytes_estimate'] / 2**30:.1f} GiB), "
          f"{r['available_bytes'] / 2**30:.1f} GiB available | | | | | | | |")
if peers:
    print("\n| image | angles | scikit-image iradon_sart s/iteration | tessel s/iteration/slice, K = 1 | best K "
          "| speedup K = 1 | speedup best K |")
    print("|---|---|---|---|---|---|---|")
    for (n, angles), p in sorted(peers.items()):
        k1 = best.get((n, angles, "hilbert", 1))
        per_slice = [best[k]["iteration_seconds_best"] / k[3] for k in best if k[:3] == (n, angles, "hilbert")]
        if not k1 or not per_slice:
            continue
        t1, tb = k1["iteration_seconds_best"], min(per_slice)
        s = p["seconds_per_iteration"]
        print(f"| {n} | {angles} | {fmt(s)} | {fmt(t1)} | {fmt(tb)} | {s / t1:.0f}x | {s / tb:.0f}x |")
