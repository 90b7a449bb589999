#!/usr/bin/env python3
"""The inner loops of CUDA kernels as compiled: instructions, multiply-adds and memory operations
per pass, read from `cuobjdump -sass` (a static count: what the loop issues, not how long it
stalls). Where instruction issue bounds a kernel, multiply-adds per issued instruction is its
ceiling as a fraction of the card's FMA rate.

usage: cuobjdump -sass FILE | bench/gpu/sass_loops.py [--kernel REGEX] [--all]
  FILE: a cubin, an object file or a program with sm_90 code (nvcc -cubin -arch=sm_90 ...).
  Prints, per kernel whose name matches, its innermost loop with the most multiply-adds (--all:
  every innermost loop that has any).
"""
import argparse
import re
import subprocess
import sys

FMA = re.compile(r"^(FFMA|DFMA|HFMA2|FMUL|DMUL)")


def parse(lines):
    """Yields (kernel name, [(address, opcode, text)]) per function of a cuobjdump listing."""
    name, body = None, []
    for line in lines:
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
            continue
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m and name:
            text = m.group(2).strip()
            op = re.sub(r"^@!?U?P[T0-9]+\s+", "", text).split()[0] if text else ""
            body.append((int(m.group(1), 16), op, text))
    if name:
        yield name, body


def loops(body):
    """Backward branches as (first, last) address ranges: a BRA whose target (its last operand)
    is at or before it."""
    found = []
    for address, op, text in body:
        m = re.search(r"(0x[0-9a-f]+)\s*$", text) if op == "BRA" else None
        if m and int(m.group(1), 16) <= address:
            found.append((int(m.group(1), 16), address))
    return found


def innermost(ranges):
    return [r for r in ranges if not any(o != r and r[0] <= o[0] and o[1] <= r[1] for o in ranges)]


def count(body, first, last):
    ops = [op for address, op, _ in body if first <= address <= last]
    return {"instructions": len(ops), "fma": sum(bool(FMA.match(o)) for o in ops),
            "lds": sum(o.startswith("LDS") for o in ops), "ldg": sum(o.startswith("LDG") for o in ops)}


def demangled(names):
    """The names demangled by one c++filt (a program holds thousands of kernels); as they are without it."""
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    except OSError:
        return list(names)
    return out if len(out) == len(names) else list(names)


def short(name):
    """The kernel's template arguments without the namespaces: grouped_ell_kernel<4, 16, true, float, long>."""
    m = re.search(r"(\w+_kernel\w*)<(.*)>\(", name)
    if not m:
        return name
    args = re.sub(r"\(anonymous namespace\)::|tessel::|cuda::|detail::", "", m.group(2))
    return f"{m.group(1)}<{args}>"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernel", default=".", help="a regular expression on the demangled name")
    parser.add_argument("--all", action="store_true", help="every innermost loop, not only the one with most FMAs")
    args = parser.parse_args()
    pattern = re.compile(args.kernel)
    functions = list(parse(sys.stdin))
    names = demangled([raw for raw, _ in functions])
    print(f"{'kernel':<64} {'loop':>11} {'instr':>6} {'fma':>5} {'lds':>4} {'ldg':>4} {'fma/instr':>9}")
    for name, (_, body) in zip(map(short, names), functions):
        if not pattern.search(name):
            continue
        tallies = [(r, count(body, *r)) for r in innermost(loops(body))]
        tallies = [t for t in tallies if t[1]["fma"] > 0]
        if not args.all:
            tallies = sorted(tallies, key=lambda t: -t[1]["fma"])[:1]
        for (first, last), t in tallies:
            print(f"{name:<64} {first:>5x}-{last:<5x} {t['instructions']:>6} {t['fma']:>5} {t['lds']:>4} {t['ldg']:>4} "
                  f"{t['fma'] / t['instructions']:>9.2f}")


if __name__ == "__main__":
    main()
