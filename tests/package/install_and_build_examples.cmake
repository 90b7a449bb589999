# cmake -P script of the test package-install-examples (tests/package/CMakeLists.txt).
set(prefix ${BUILD_DIR}/install-test)
set(examples ${BUILD_DIR}/examples-test)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "ok: ${ARGN}\n${out}")
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/check_api_doc.cmake)
check_api_doc(${SOURCE_DIR})

file(REMOVE_RECURSE ${prefix} ${examples})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# Only the public headers: internals (kernels' insides, cuda sources) stay out.
foreach(internal core/cpu/register_tile.hpp core/cpu/tiled_ell_block.hpp core/cuda/kernels/spmm_launch.hpp)
  if(EXISTS ${prefix}/include/tessel/${internal})
    message(FATAL_ERROR "internal header installed: include/tessel/${internal}")
  endif()
endforeach()
foreach(needed include/tessel/core/kernels/spmm.hpp include/tessel/core/operator/spmm_operator.hpp include/tessel/apps/xct/driver/api.hpp
               lib/cmake/tessel/tesselConfig.cmake lib/cmake/tessel/tesselConfigVersion.cmake bin/tessel-xct)
  if(NOT EXISTS ${prefix}/${needed})
    message(FATAL_ERROR "not installed: ${needed}")
  endif()
endforeach()

# tessel-abcd --molecule (built with libint2): the installed program reads the installed basis
# sets, not the source tree's (an unknown name makes it say which folder it looked in).
if(EXISTS ${prefix}/share/tessel/basis/cc-pvdz.gbs)
  execute_process(COMMAND ${prefix}/bin/tessel-abcd --molecule ${SOURCE_DIR}/tests/abcd/chem/water.xyz
                          --basis no-such-basis --plan-only
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "is not a basis set in ${prefix}/share/tessel/basis ")
    message(FATAL_ERROR "installed tessel-abcd does not use the installed basis sets (${rc}): ${err}")
  endif()
endif()

set(launcher "")
if(CXX_LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER})
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples -B ${examples} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${launcher})
run(${CMAKE_COMMAND} --build ${examples} -j 2)
run(${examples}/spmm_matrix_market ${SOURCE_DIR}/examples/data/tridiagonal.mtx)
run(${examples}/xct_phantom)
run(${examples}/xct_driver)
run(${examples}/spdnn_infer)

# The installed Python package imports from the prefix's site-packages.
if(PYTHON)
  file(GLOB site ${prefix}/lib/python*/site-packages)
  if(NOT site)
    message(FATAL_ERROR "the Python package was not installed below ${prefix}/lib")
  endif()
  set(ENV{PYTHONPATH} ${site})
  run(${PYTHON} -c "import tessel, tessel.xct, tessel.spdnn; print('tessel', tessel.__version__, tessel.__file__)")
endif()
