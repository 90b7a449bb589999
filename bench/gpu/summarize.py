#!/usr/bin/env python3
"""One table from run_gpu_benchmarks.sh's folder: each job on the GPU and on the host's cores,
and the GPU's figure as a per cent of the card's own limit measured in the same run
(limits.json: triad bandwidth for the sparse jobs, cuBLAS DGEMM at 1024^3 for abcd).
usage: summarize.py OUT_DIR"""
import json
import os
import sys


def load(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except ValueError:
        return None


def steady(doc):
    t = (doc or {}).get("device_traffic")
    if not t or not t.get("steady_steps"):
        return ""
    s, n = t["steady"], t["steady_steps"]
    return f"{(s['h2d_bytes'] + s['d2h_bytes']) / n:.0f} B, {s['synchronizations'] / n:.1f} syncs /step"


def main():
    out = sys.argv[1]
    limits = load(out, "limits.json") or {}
    triad = limits.get("triad_gbs", 0.0)
    dgemm = limits.get("dgemm_tflops", {}).get("1024", 0.0)
    rows = [("job", "GPU", "host cores", "GPU/host", "GPU vs card limit", "steady traffic")]

    def add(job, gpu, host, unit, lower_is_better, limit_text, traffic):
        ratio = ""
        if gpu and host:
            ratio = f"{(host / gpu if lower_is_better else gpu / host):.1f}x"
        fmt = lambda v: f"{v:.4g} {unit}" if v else "-"
        rows.append((job, fmt(gpu), fmt(host), ratio, limit_text, traffic))

    for name in ("xct-k16", "xct-k16-stored", "xct-k16-stored-nobank", "xct-k16-off", "xct-k16-b1024",
                 "xct-k16-stored-b1024", "xct-k16-off-b1024", "xct-k16-stored-b1024-scalar", "xct-sirt", "xct-big", "xct-big-groups4"):
        g, h = load(out, f"{name}-cuda.json"), load(out, f"{name}-cpu.json")
        if not g:
            continue
        # The median iteration (the steady rate; older metrics lack it), then the iterate phase
        # per iteration, which adds each round's start (b up, the first products) and images down.
        per_it = lambda doc: (doc or {}).get("iteration_seconds_median", (doc or {}).get("iteration_seconds", 0.0)) * 1e3
        gbs = g.get("spmm", {}).get("gbytes_per_s", 0.0)
        tflops = g.get("spmm", {}).get("gflops", 0.0) / 1e3
        limit = f"SpMM {gbs:.0f} GB/s = {100 * gbs / triad:.0f}% of triad, {tflops:.2f} TFLOP/s" if triad else ""
        add(name + " (ms/iteration)", per_it(g), per_it(h), "ms", True, limit, steady(g))
        if "iteration_seconds_median" in g:
            add(name + " (iterate phase / iterations)", g.get("iteration_seconds", 0.0) * 1e3,
                (h or {}).get("iteration_seconds", 0.0) * 1e3, "ms", True, "", "")
        total_g = g.get("phases", {}).get("total", 0.0)
        total_h = (h or {}).get("phases", {}).get("total", 0.0)
        phases = g.get("phases", {})
        where = ", ".join(f"{k} {phases[k]:.3f}" for k in ("build", "preprocess", "iterate", "write") if k in phases)
        build = g.get("operator", {}).get("build_seconds", {})
        if build:
            where += " (" + ", ".join(f"{k} {v:.3f}" for k, v in build.items()) + ")"
        op = g.get("operator", {})
        for m in ("A", "At"):  # the bank order on the device: wavefronts per slot row and its seconds
            b = op[m].get("bank_order") if isinstance(op.get(m), dict) else None
            if b:
                where += (f"; {m} bank order {b['wavefronts_before']:.2f}->{b['wavefronts_after']:.2f} "
                          f"in {b.get('seconds', 0):.3f} s")
            r = op[m].get("row_groups") if isinstance(op.get(m), dict) else None
            if r:  # row groups made on the host: nonzeros per staged read and seconds
                where += f"; {m} groups of {r['group']}: {r['entries_per_slot']:.2f} per read in {r['seconds']:.2f} s"
        parts = g.get("iterate_parts")
        if parts:
            where += f"; iterate = start {parts['start']:.3f} + steps {parts['steps']:.3f} + finish {parts['finish']:.3f}"
        if "device_context_seconds" in g:
            where += f"; context {g['device_context_seconds']:.3f} beside"
        add(name + " (whole process)", total_g, total_h, "s", True, where, "")
    g, h = load(out, "xct-fbp-cuda.json"), load(out, "xct-fbp-cpu.json")
    if g:
        add("xct-fbp (whole process)", g.get("phases", {}).get("total", 0.0),
            (h or {}).get("phases", {}).get("total", 0.0), "s", True, "", "")
    for n in (1024, 4096, 16384):
        g = load(out, f"spdnn-{n}-cuda-core.json")
        if not g:
            continue
        c = load(out, f"spdnn-{n}-cuda-cusparse.json") or {}
        h = load(out, f"spdnn-{n}-cpu-auto.json") or {}
        rate = lambda doc: doc.get("inference", {}).get("edges_per_second", 0.0)
        eps = rate(g)
        vs = f"{eps / rate(c):.1f}x cuSPARSE path" if rate(c) else ""
        add(f"spdnn {n} x 120 (edges/s)", eps, rate(h), "", False, vs, steady(g))
        r = load(out, f"spdnn-{n}-cuda-groups4.json")
        if r:  # the row-group layer kernel, neurons with equal inputs side by side
            add(f"spdnn {n}, row groups of 4 (edges/s)", rate(r), rate(h), "", False,
                f"{rate(r) / rate(c):.1f}x cuSPARSE path" if rate(c) else "", steady(r))
        # Where T goes: the layers' device time, the images' (device, and the host's hand-over).
        inf = g.get("inference", {})
        ph = inf.get("inference_phases", {})
        layers = ph.get("kernel", 0.0) + ph.get("compaction", 0.0)
        add(f"spdnn {n}: T (s)", inf.get("seconds", 0.0), 0.0, "s", True,
            f"layers {layers:.4f} s, images {ph.get('images_to_device', 0.0):.4f} s on the device, "
            f"{ph.get('start_batch', 0.0):.4f} s host hand-over", "")
    g, h = load(out, "abcd-cuda.json"), load(out, "abcd-cpu.json")
    if g:
        rate = g.get("gflops_per_second", 0.0) / 1e3
        limit = f"{100 * rate / dgemm:.0f}% of cuBLAS DGEMM 1024^3 ({dgemm:.1f})" if dgemm else ""
        add("abcd synthetic (TFLOP/s)", rate, (h or {}).get("gflops_per_second", 0.0) / 1e3, "TFLOP/s", False, limit,
            steady(g))
        runs = g.get("repeats", [])
        if len(runs) > 1:  # the first run registers the host buffers with the device
            first = runs[0]
            add("abcd synthetic, first run (s)", first["seconds"], 0.0, "s", True,
                f"registered {first['registered_bytes'] / 2**20:.0f} MiB in {first['register_seconds']:.3f} s", "")
        parts = g.get("device_setup_parts")
        if parts:  # in every run's executor time
            add("abcd synthetic, device setup (s)", g.get("device_setup_seconds", 0.0), 0.0, "s", True,
                ", ".join(f"{k} {v:.4f}" for k, v in parts.items()), "")
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    if limits:
        print(f"card: triad {triad:.0f} GB/s, DGEMM 1024^3 {dgemm:.1f} TFLOP/s, "
              f"H2D pageable {limits.get('h2d_pageable_gbs', 0):.1f} / pinned {limits.get('h2d_pinned_gbs', 0):.1f} GB/s, "
              f"D2H pinned {limits.get('d2h_pinned_gbs', 0):.1f} GB/s, "
              f"both ways {limits.get('both_ways_pinned_gbs_each', 0):.1f} GB/s each")


if __name__ == "__main__":
    main()
