#!/usr/bin/env python3
"""Writes the Matrix Market inputs of tessel-bench-spgemm (no matrix collection is reachable
offline, so they are generated): a 27-point 3-D stencil (FEM-like, dense blocks of columns)
and an R-MAT graph (Graph500 parameters, skewed degrees). Deterministic for a seed.

usage: make_matrices.py OUTDIR [--stencil-n 48] [--rmat-scale 16] [--rmat-edges 8]
"""
import argparse
import os
import random


def write_mtx(path, rows, cols, entries, comment):
    with open(path, "w") as out:
        out.write("%%MatrixMarket matrix coordinate real general\n")
        out.write("% " + comment + "\n")
        out.write(f"{rows} {cols} {len(entries)}\n")
        out.write("".join(f"{i + 1} {j + 1} {v:.6g}\n" for i, j, v in entries))


def stencil_27(n):
    entries = []
    for z in range(n):
        for y in range(n):
            for x in range(n):
                i = (z * n + y) * n + x
                for dz in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        for dx in (-1, 0, 1):
                            zz, yy, xx = z + dz, y + dy, x + dx
                            if 0 <= zz < n and 0 <= yy < n and 0 <= xx < n:
                                j = (zz * n + yy) * n + xx
                                entries.append((i, j, 26.0 if i == j else -1.0))
    return entries


def rmat(scale, edge_factor, seed=5):
    rng = random.Random(seed)
    a, b, c = 0.57, 0.19, 0.19
    n = 1 << scale
    edges = set()
    while len(edges) < edge_factor * n:
        i = j = 0
        for _ in range(scale):
            r = rng.random()
            i, j = 2 * i + (r >= a + b), 2 * j + (a <= r < a + b or r >= a + b + c)
        edges.add((i, j))
    return [(i, j, rng.uniform(0.5, 1.5)) for i, j in sorted(edges)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--stencil-n", type=int, default=48)
    parser.add_argument("--rmat-scale", type=int, default=16)
    parser.add_argument("--rmat-edges", type=int, default=8)
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    n = args.stencil_n
    write_mtx(os.path.join(args.outdir, f"stencil27_{n}.mtx"), n ** 3, n ** 3, stencil_27(n),
              f"27-point 3-D stencil on a {n}^3 grid")
    s, e = args.rmat_scale, args.rmat_edges
    write_mtx(os.path.join(args.outdir, f"rmat_s{s}_e{e}.mtx"), 1 << s, 1 << s, rmat(s, e),
              f"R-MAT graph, scale {s}, edge factor {e}, a=0.57 b=0.19 c=0.19")


if __name__ == "__main__":
    main()
