# The programs that `ctest -L cuda` runs (the cuda tests' and their fixtures'), for the scripts
# that build only those: scripts/test-cuda-sim.sh and bench/gpu/build.sh. Sourced, not run.
# tessel-test-cuda-sim exists only in simulator builds.
cuda_test_programs=(tessel-test-core tessel-test-cuda-sim tessel-test-abcd tessel-abcd-test-problems tessel-test-mpi-dist
                    tessel-test-spdnn tessel-spdnn-traffic-check tessel-xct tessel-xct-test-tool tessel-spdnn tessel-abcd)
