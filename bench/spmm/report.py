#!/usr/bin/env python3
"""Markdown tables from tessel-bench-spmm JSON files (as pasted into docs/BENCHMARKS.md).

usage: report.py RUN.json [RUN2.json ...]   -- one section per file
"""
import json
import sys


def fmt_ms(seconds):
    ms = seconds * 1e3
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 10:
        return f"{ms:.1f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.3f}"


def pct(x):
    return "-" if x is None else f"{100 * x:.0f}%"


def section(doc):
    out = []
    m = doc["machine"]
    st = doc["stream_triad"]
    out.append(f"Run: {doc['threads']} threads, {doc['repeat']} timed runs (median), "
               f"STREAM triad {st['gb_per_s']:.1f} GB/s, total {doc['total_s']:.0f} s, "
               f"all checks passed: {'yes' if doc['all_checks_passed'] else 'NO'}; "
               f"CPU {m['cpu']}, {m['hardware_threads']} hardware threads, "
               f"GraphBLAS method {doc.get('graphblas_method', '?')}.")
    out.append("")
    results = doc["results"]
    ks = doc["ks"]
    matrices = []
    for r in results:
        if r["matrix"] not in matrices:
            matrices.append(r["matrix"])
    info = {(mm["name"], mm["precision"]): mm for mm in doc["matrices"]}
    for name in matrices:
        for prec in ("float", "double"):
            rows = [r for r in results if r["matrix"] == name and r["precision"] == prec]
            if not rows:
                continue
            mi = info.get((name, prec), {})
            out.append(f"**{name}**, {prec}: {mi.get('rows', '?')} rows, nnz {mi.get('nnz', '?')}, "
                       f"CSR {mi.get('csr_bytes', 0) / 1e6:.0f} MB. "
                       "Cells: ms per multiply / fraction of the STREAM bound.")
            out.append("")
            out.append("| kernel | " + " | ".join(f"K={k}" for k in ks) + " |")
            out.append("|---|" + "---:|" * len(ks))
            kernels = []
            for r in rows:
                if r["kernel"] not in kernels:
                    kernels.append(r["kernel"])
            for kern in kernels:
                cells = []
                for k in ks:
                    rr = [r for r in rows if r["kernel"] == kern and r["k"] == k]
                    if not rr:
                        cells.append("")
                        continue
                    r = rr[0]
                    if r.get("error") or not r["check"]["ok"]:
                        cells.append("FAIL")
                        continue
                    mark = "†" if r.get("other_processes_cpu_fraction", 0) > 0.05 else ""
                    cells.append(f"{fmt_ms(r['median_s'])} / {pct(r['stream_fraction'])}{mark}")
                label = kern if rows[0]["family"] != "peer" else kern
                fam = [r["family"] for r in rows if r["kernel"] == kern][0]
                out.append(f"| {label} ({fam}) | " + " | ".join(cells) + " |")
            out.append("")
    out.append("Best tessel cpu kernel against the best peer (speedup = peer time / tessel time):")
    out.append("")
    out.append("| matrix | prec | K | best tessel | ms | STREAM | best peer | ms | STREAM | speedup |")
    out.append("|---|---|---:|---|---:|---:|---|---:|---:|---:|")
    for c in doc["comparisons"]:
        if c["side"] != "cpu":
            continue
        sp = c["tessel_over_peer_speedup"]
        out.append(f"| {c['matrix']} | {c['precision']} | {c['k']} | {c['best_tessel'] or '-'} | "
                   f"{fmt_ms(c['best_tessel_s']) if c['best_tessel_s'] else '-'} | "
                   f"{pct(c['best_tessel_stream_fraction'])} | {c['best_peer'] or '-'} | "
                   f"{fmt_ms(c['best_peer_s']) if c['best_peer_s'] else '-'} | "
                   f"{pct(c['best_peer_stream_fraction'])} | "
                   f"{'-' if sp is None else f'{sp:.2f}x'} |")
    out.append("")
    return "\n".join(out)


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for path in sys.argv[1:]:
        with open(path) as f:
            print(section(json.load(f)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
