"""setuptools commands of pyproject.toml: the extension tessel._tessel comes from the project's
CMake build, so pip builds exactly what `cmake --build` builds (docs/xct.md "Python and pip").

Environment: TESSEL_CMAKE_ARGS, extra configure arguments (e.g. "-DTESSEL_ENABLE_CUDA=OFF");
CMAKE_BUILD_PARALLEL_LEVEL, build jobs (default: the CPU count).
"""
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

ROOT = Path(__file__).resolve().parent.parent


class BuildPy(build_py):
    """Copies python/tessel/*.py as usual, then configures and builds the CMake target
    tessel_python in a fresh folder under setuptools' build_temp and copies _tessel*.so."""

    def run(self):
        super().run()
        build = Path(self.get_finalized_command("build").build_temp).resolve() / "cmake"
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                     "-DTESSEL_BUILD_TESTS=OFF", "-DTESSEL_BUILD_BENCHMARKS=OFF", "-DTESSEL_PYTHON=ON",
                     # A wheel runs on any x86-64: the kernels pick their level at run time
                     # (TESSEL_CMAKE_ARGS=-DTESSEL_NATIVE=ON builds for this machine only).
                     "-DTESSEL_NATIVE=OFF",
                     # The interpreter pip runs is the one the module is for (a venv's python).
                     f"-DPython3_EXECUTABLE={sys.executable}"]
        # ccache, as scripts/build.sh: objects the project's own build compiled are reused.
        if shutil.which("ccache"):
            configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache",
                          "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"]
        configure += shlex.split(os.environ.get("TESSEL_CMAKE_ARGS", ""))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "tessel_python", "-j", jobs], check=True)
        modules = sorted((build / "python" / "tessel").glob("_tessel*.so"))
        if not modules:
            raise RuntimeError(f"the CMake build made no _tessel*.so in {build / 'python' / 'tessel'}")
        target = Path(self.build_lib) / "tessel"
        target.mkdir(parents=True, exist_ok=True)
        for module in modules:
            shutil.copy2(module, target / module.name)
        # tessel.abcd.ladder's basis sets, inside the package: the wheel needs no source tree.
        basis = target / "basis"
        basis.mkdir(exist_ok=True)
        for gbs in sorted((ROOT / "apps" / "ccsd_abcd" / "integrals" / "basis").glob("*.gbs")):
            shutil.copy2(gbs, basis / gbs.name)


class BdistWheel(bdist_wheel):
    """A platform wheel (cpXY-cpXY-linux_...): the package holds a compiled extension."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False
