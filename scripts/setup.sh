#!/usr/bin/env bash
# Installs every Debian package tessel's build, tests and benchmarks need. Idempotent: quiet
# and quick when everything is already there.
set -euo pipefail

packages=(
  build-essential cmake pkg-config ccache
  libopenmpi-dev openmpi-bin
  libhdf5-dev libopenblas-dev libhwloc-dev
  catch2 libcli11-dev nlohmann-json3-dev libpng-dev
  # FFTW (xct's FBP filter and centre finding), libtiff (xct's --tiff stacks)
  libfftw3-dev libtiff-dev
  # xxHash: the checksum of xct's operator cache files
  libxxhash-dev
  # Boost.Context: the fibers of the CUDA simulator (-DTESSEL_ENABLE_CUDA=SIM, scripts/test-cuda-sim.sh)
  libboost-context-dev
  # peers for the benchmarks (built only when present)
  libeigen3-dev libgraphblas-dev librsb-dev libdbcsr-dev
  # scikit-image and h5py for bench/xct's comparisons (skimage_sart.py, fbp_vs_iradon.py; they
  # exit 3 and are skipped when these are missing)
  python3-skimage python3-h5py
  # libint2: the two-electron integrals of tessel-abcd --molecule (built only when present); psi4:
  # the independent check of its ladder term (tests/abcd/chem/psi4_ladder.py, Debian's python3)
  libint2-dev psi4
  # METIS row reordering, compared with k-means (partition/metis_reorder; built only when present)
  libmetis-dev
  # the Python module (import tessel) and its tests; h5py reads tessel-xct's output in them
  pybind11-dev python3-dev python3-numpy python3-scipy python3-pytest python3-h5py
  # `pip install --no-build-isolation .` (pyproject.toml) and its test in a fresh venv (scripts/test-pip.sh)
  python3-setuptools python3-wheel python3-pip python3-venv
  # libFuzzer harnesses of the readers (scripts/fuzz.sh; skipped when missing)
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  [[ "$p" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup.sh: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup.sh: done"
