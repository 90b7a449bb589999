# Shared by bench/gpu's short calls (ab_xct.sh, recheck.sh, sweep.sh); sourced, not run.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# median_ms LOG SLICES: the median of a tessel-xct log's per-iteration lines, in ms (read from the
# log, so that binaries older than the metrics' iteration_seconds_median compare too).
median_ms() {
  grep -o '[0-9.]* slices/s' "$1" | awk -v k="$2" '{print 1000 * k / $1}' | sort -n |
    awk '{v[NR] = $1} END {if (NR) printf "%.3f", v[int((NR + 1) / 2)]; else printf "-"}'
}

# cuda_tests BUILD OUT: `ctest -L cuda` in BUILD, its log in OUT/ctest.txt, the summary here.
cuda_tests() {
  (cd "$1" && OMP_NUM_THREADS=8 timeout 150 ctest -L cuda -j8 --timeout 60 > "$2/ctest.txt" 2>&1)
  grep -E 'tests passed|tests failed|\*\*\*|Failed' "$2/ctest.txt" | head -12
}

# ncu_products OUT XCT_COMMAND...: Nsight Compute on the two tiled ELL products of one iteration.
ncu_products() {
  local out=$1; shift
  local ncu; ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  timeout 60 "$ncu" --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
    -k regex:tiled_ell_kernel --launch-count 2 "$@" --iterations 1 > "$out/ncu.txt" 2>&1
  grep -E 'Duration|DRAM Throughput|Warp Cycles Per Issued|Achieved Occupancy' "$out/ncu.txt"
}

# nsys_summary OUT NAME COMMAND...: Nsight Systems' timeline of one run, summed by kernel, by
# copy and by runtime call (where the time of a run goes: overlap, waits, small kernels); the
# kernel and copy tables' first lines here, all in OUT/NAME-nsys.txt. Nothing when nsys is absent.
nsys_summary() {
  local out=$1 name=$2; shift 2
  local nsys; nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys \
    /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
  [ -n "$nsys" ] || { echo "$name: no nsys"; return 0; }
  timeout 90 "$nsys" profile --force-overwrite true -o "$out/$name" --stats=false "$@" > "$out/$name-run.log" 2>&1
  timeout 60 "$nsys" stats --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_api_sum --format csv \
    "$out/$name.nsys-rep" > "$out/$name-nsys.txt" 2>&1
  rm -f "$out/$name.nsys-rep" "$out/$name.sqlite"
  grep -E '^"?[0-9]' "$out/$name-nsys.txt" | head -8
}
