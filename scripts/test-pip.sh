#!/usr/bin/env bash
# pip for Python users (issue 26): in a fresh virtual environment on Debian's python3 (its numpy
# through --system-site-packages), `pip install --no-build-isolation .` builds the package from
# this tree with the project's CMake build (pyproject.toml, offline), then the installed `tessel`
# reconstructs a small phantom. setuptools' folder build/pip is removed first: nothing of an
# earlier pip build is reused (ccache, as in scripts/build.sh, may supply unchanged objects).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$root/build/pip"
start=$(date +%s)
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
# Outside the tree, so that `import tessel` cannot find python/ or build/python.
cd "$work"
"$work/venv/bin/pip" install --no-build-isolation --no-index --quiet "$root" > "$work/pip.log" 2>&1 || {
  tail -40 "$work/pip.log" >&2; echo "test-pip: pip install failed" >&2; exit 1; }
echo "== pip install built and installed tessel in $(( $(date +%s) - start )) s"
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} "$work/venv/bin/python" - <<'PY'
import numpy as np
import tessel

assert "/venv/" in tessel.__file__, f"tessel imported from {tessel.__file__}, not the venv"
# A 48 x 48 disc with an off-centre square inside, 72 angles: its sinogram by tessel's own
# projector, then CGLS and FBP from it.
n = 48
y, x = np.mgrid[:n, :n] - (n - 1) / 2
image = ((x * x + y * y) < (0.4 * n) ** 2).astype(np.float32)
image[10:18, 26:34] += 1.0
theta = np.linspace(0, np.pi, 72, endpoint=False)
tomo = tessel.xct.project(image[None], theta)
error = {}
for algorithm, iterations in (("cgls", 30), ("fbp", 1)):
    rec = tessel.xct.reconstruct(tomo, theta, algorithm=algorithm, num_iter=iterations)
    assert rec.shape == (1, n, n), rec.shape
    error[algorithm] = float(np.linalg.norm(rec[0] - image) / np.linalg.norm(image))
print("test-pip: relative error of the installed tessel's reconstructions:", error)
# tessel.abcd.ladder's basis sets are inside the installed package, not read from this tree.
import os
basis = tessel.abcd._basis_dir()
assert basis.startswith(os.path.dirname(tessel.__file__)), basis
assert os.path.isfile(os.path.join(basis, "cc-pvdz.gbs")), basis
assert error["cgls"] < 0.05 and error["fbp"] < 0.25, error
PY
echo "== test-pip: passed in $(( $(date +%s) - start )) s"
