"""bench/gpu/sass_loops.py on a hand-written cuobjdump listing: the innermost loops found from
their backward branches, and what each issues."""
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

LISTING = """
	code for sm_90
		Function : _Z6kernelPfi
	.headerflags	@"EF_CUDA_TEXMODE_INDEPENDENT"
        /*0000*/                   LDC R1, c[0x0][0x28] ;              /* 0x00000a00ff017b82 */
        /*0010*/                   MOV R2, RZ ;                        /* 0x000fe20000000800 */
        /*0020*/                   LDG.E.U16.CONSTANT R4, desc[UR6][R8.64] ;
        /*0030*/                   LDS.128 R12, [R4+0x80] ;
        /*0040*/                   FFMA R20, R12, R5, R20 ;
        /*0050*/                   FFMA R21, R13, R5, R21 ;
        /*0060*/                   IADD3 R2, R2, 0x1, RZ ;
        /*0070*/                   ISETP.NE.AND P0, PT, R2, R3, PT ;
        /*0080*/               @P0 BRA 0x20 ;
        /*0090*/                   LDS R6, [R7] ;
        /*00a0*/                   FFMA R22, R6, R6, R22 ;
        /*00b0*/              @!P1 BRA 0x90 ;
        /*00c0*/                   BRA 0x0 ;
        /*00d0*/                   EXIT ;
"""


@pytest.fixture(scope="module")
def sass_loops():
    spec = importlib.util.spec_from_file_location("sass_loops", ROOT / "bench" / "gpu" / "sass_loops.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_innermost_loops_and_what_they_issue(sass_loops):
    [(name, body)] = list(sass_loops.parse(LISTING.splitlines()))
    assert name == "_Z6kernelPfi"
    assert len(body) == 14
    found = sass_loops.loops(body)
    assert sorted(found) == [(0x0, 0xc0), (0x20, 0x80), (0x90, 0xb0)]
    inner = sorted(sass_loops.innermost(found))
    assert inner == [(0x20, 0x80), (0x90, 0xb0)]  # the outer loop holds both
    assert sass_loops.count(body, 0x20, 0x80) == {"instructions": 7, "fma": 2, "lds": 1, "ldg": 1}
    assert sass_loops.count(body, 0x90, 0xB0) == {"instructions": 3, "fma": 1, "lds": 1, "ldg": 0}


def test_forward_branches_are_not_loops(sass_loops):
    body = [(0x0, "BRA", "BRA 0x20"), (0x10, "FFMA", "FFMA R1, R2, R3, R1"), (0x20, "EXIT", "EXIT")]
    assert sass_loops.loops(body) == []
