# pytest set-up of the Python module's tests: ctest sets PYTHONPATH=build/python and
# TESSEL_XCT=<the tessel-xct binary> (python/CMakeLists.txt).
import os
import shutil

import pytest


@pytest.fixture(scope="session")
def tessel_xct():
    path = os.environ.get("TESSEL_XCT") or shutil.which("tessel-xct")
    if not path or not os.path.exists(path):
        pytest.skip("tessel-xct not found (set TESSEL_XCT)")
    return path
