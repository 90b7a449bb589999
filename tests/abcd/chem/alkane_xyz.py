#!/usr/bin/python3
"""An all-trans alkane C_n H_2n+2 as an XYZ file (Angstrom): zig-zag backbone in the x-y plane,
C-C 1.54, C-H 1.09, tetrahedral angles. Usage: alkane_xyz.py N > cN.xyz"""
import math
import sys

import numpy as np


def alkane(n):
    cc, ch = 1.54, 1.09
    half = math.radians(109.471 / 2)
    dx, dy = cc * math.sin(half), cc * math.cos(half)
    carbons = [np.array([i * dx, (i % 2) * dy, 0.0]) for i in range(n)]
    z = np.array([0.0, 0.0, 1.0])
    hydrogens = []
    for i, c in enumerate(carbons):
        bonds = [carbons[j] - c for j in (i - 1, i + 1) if 0 <= j < n]
        bonds = [b / np.linalg.norm(b) for b in bonds]
        if len(bonds) == 2:  # CH2: the two H in the plane through the bisector and z
            b = -(bonds[0] + bonds[1])
            b /= np.linalg.norm(b)
            for s in (1, -1):
                hydrogens.append(c + ch * (b * math.cos(half) + s * z * math.sin(half)))
        else:  # CH3 (or CH4): H at 109.47 degrees from the C-C bond, 120 degrees apart around it
            u = bonds[0] if bonds else np.array([1.0, 0.0, 0.0])
            p0 = np.cross(z, u)
            p0 /= np.linalg.norm(p0)
            if n > 1 and np.dot(p0, np.array([0.0, 1.0, 0.0])) * (1 if i % 2 else -1) < 0:
                p0 = -p0  # anti to the backbone's next bend
            for p in (p0, -p0 / 2 + z * math.sqrt(3) / 2, -p0 / 2 - z * math.sqrt(3) / 2):
                hydrogens.append(c + ch * (-u / 3 + math.sqrt(8 / 9) * p))
            if not bonds:
                hydrogens.append(c + ch * u)
    lines = [str(n + len(hydrogens)), f"C{n}H{len(hydrogens)} all-trans"]
    lines += [f"C {p[0]:12.6f} {p[1]:12.6f} {p[2]:12.6f}" for p in carbons]
    lines += [f"H {p[0]:12.6f} {p[1]:12.6f} {p[2]:12.6f}" for p in hydrogens]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(alkane(int(sys.argv[1])))
