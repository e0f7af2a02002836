#!/usr/bin/env bash
# Runs the whole test suite (gpu label included), compute-sanitizer and the main job on a lent GPU
# host that has CUDA but no PETSc and no package access.
#
# Here (the build machine), once:    scripts/gpu-host.sh prepare
#   packs this machine's PETSc + Open MPI (../shared/tools/gpu-kit -> .kit/) and, into .gpu-extra/, the
#   PETSc headers the kit lacks, GoogleTest and PETSc's example sources the tests build. Both folders
#   are git-ignored (.git/info/exclude).
# On the GPU host (device tool, carry [".kit", ".gpu-extra"]):    bash scripts/gpu-host.sh <step>...
#   build       CMake + nvcc into build-gpu/ (git-ignored, so it stays on the host between calls while
#               the machine is held); every other step builds first if needed
#   run         the test suite (gpu label, then the rest), compute-sanitizer and the main job on the GPU
#   bench-gpu   scripts/bench.sh, GPU cases only (BENCH_CPU=0); results in $OUT/bench
#   bench-cpu   scripts/bench.sh, CPU cases only (BENCH_GPU=0), shorter budgets; results in $OUT/bench
#   scale       MatMult weak and strong scaling over the visible GPUs (one rank each), bench_matmult
#               with -mat_bsrcustom_backend cuda: thesis-type band (bs 5) and 27-point stencil (bs 3),
#               >= 1 GB of matrix per GPU; results in $OUT/bench (scale-*.json, scale-*.log)
#   overlap16   bench_matmult on 16 CPU ranks (the halo overlap at 16 ranks, MatMult with and without MPI
#               progress during the local product); OVERLAP16_RUNS='opts;opts' for more runs; results in $OUT/bench
# PETSc 3.25.4 with CUDA (device vectors), in the same call or while the machine is held:
#   petsc-cuda  PETSc 3.25.4 with CUDA into /tmp/petsc-3.25.4-cuda: unpacked from
#               .gpu-extra/petsc-3.25.4-cuda.tar.xz where `prepare-cuda` put one (built on the build
#               machine with the same Debian Open MPI and CUDA 13), else built from the source tarball by
#               scripts/petsc-build.sh cuda (the kit's Open MPI and BLAS/LAPACK; minutes of the device call)
#   build-325   the project against it into build-gpu-325/ (needs petsc-cuda first)
#   run-325     the whole test suite against it (gpu label included, PETSc 3.25's own programs, the
#               petsc-examples sweep with the cuda backend), compute-sanitizer memcheck and racecheck
#   gpu-325     run-325's gpu label and sanitizers only (without the examples sweep)
#   examples-cuda-325  the petsc-examples sweep with the cuda backend (PETSc 3.25.4's own programs)
#   solve-325   the main job on CUDA vectors against MATAIJCUSPARSE, and on 16 CPU ranks against MATBAIJ
#               (SOLVE_SIZES='60 100': nodes a direction)
#   ksp-325     KSPSolve (fixed GMRES iterations) on the thesis-type band and the 27-point stencil, 1 GB each:
#               bsrcustom cuda vs MATAIJCUSPARSE on CUDA vectors, MATBAIJ vs bsrcustom on 16 CPU ranks
#   scale-325   multi-GPU scaling on CUDA vectors, one rank per GPU: MatMult (bench_matmult, weak and
#               strong, the halo/local/ghost split) and KSPSolve (the main job, weak and strong), both
#               against MATAIJCUSPARSE; results in $OUT/scale.tgz (SCALE_KSP=0 / SCALE_MULT=0 skip a part)
#   products-325 transposes and products with dense matrices on 1 GPU (bench_matmult -bench_transpose
#               -bench_spmm, CUDA vectors, against MATAIJCUSPARSE) and bench_cuda --spmm (against cuSPARSE's
#               SpMM paths); results in $OUT/products
#   compare-325 the same measurements on an earlier tree and on this one, alternated (before, after,
#               before, after) in one call: bench_matmult on the GPU (thesis-type band and 27-point
#               stencil, 1 GB each, cuda backend, CUDA vectors, against MATAIJCUSPARSE), the main job at
#               60^3 on CUDA vectors (CG + PBJacobi) and bench_matmult on 16 CPU threads (MATBAIJ
#               against the cpu backend); COMPARE_ROUNDS (default 2) rounds. The earlier tree: a source tree in $BEFORE (default .before/,
#               e.g. `git archive <commit> | tar -x -C .before`, carried), built into build-gpu-325-before/
#               (COMPARE_BUILD_ONLY=1: only that, for a later call while the machine is held);
#               results in $OUT/compare
#   gamg-325    PCGAMG (smoothed aggregation) on CUDA vectors, each type in its own process, on GAMG_NP
#               ranks (default 1; one GPU a rank): the main job (CG, rtol 1e-8; GAMG_SIZES, default
#               '60 80 100': nodes a direction; GAMG_AIJCUSPARSE=0 leaves MATAIJCUSPARSE out,
#               GAMG_AIJCUSPARSE_EXTRA adds options to its runs, GAMG_OURS=0 leaves ours out), its
#               second setup with new values (GAMG_RESETUP_SIZES, default none) and PETSc's ksp ex56 (-ne
#               GAMG_NE, default 59, rigid-body near null space; GAMG_NE= leaves it out), bsrcustom cuda
#               against MATAIJCUSPARSE; then the
#               cpu backend against MATAIJ on GAMG_CPU_RANKS (16) ranks (GAMG_CPU_SIZES, default none):
#               PCSetUp, KSPSolve and their main events from -log_view, iterations, and the peak device
#               memory nvidia-smi saw (summed over the GPUs); results in $OUT/gamg
#   nvml        copies nvml.h and the NVML stub library to $OUT (to build PETSc with CUDA elsewhere)
# A device call holds the machine while it runs and 30 s after: put petsc-cuda, build-325 and run-325
# in one call (`bash scripts/gpu-host.sh petsc-cuda build-325 run-325`), or chain calls at once.
# Logs go to $OUT. valgrind is not on those hosts: memcheck is off.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
case "${1:-}" in
prepare)
  ../shared/tools/gpu-kit
  grep -qx '/.gpu-extra/' .git/info/exclude || echo '/.gpu-extra/' >> .git/info/exclude
  rm -rf .gpu-extra && mkdir -p .gpu-extra/examples
  E=/usr/share/petsc/3.18/share/petsc/examples/src
  # every example source tests/examples builds (bsrc_petsc_example(<target> <source>)), where it is
  for f in $(sed -n 's/^bsrc_petsc_example([A-Za-z0-9_]* \([^ )]*\).*/\1/p' tests/examples/CMakeLists.txt); do
    mkdir -p ".gpu-extra/examples/$(dirname "$f")" && cp "$E/$f" ".gpu-extra/examples/$f"
  done
  tar -cf - /usr/include/gtest /usr/include/gmock /usr/lib/x86_64-linux-gnu/cmake/GTest \
    /usr/lib/x86_64-linux-gnu/libgtest*.a /usr/lib/x86_64-linux-gnu/libgmock*.a 2>/dev/null | xz -T0 > .gpu-extra/gtest.tar.xz
  # the kit's include/petsc is a relative link to share/petsc/3.18/include/petsc, which it does not carry
  tar -cf - /usr/share/petsc/3.18/include 2>/dev/null | xz -T0 > .gpu-extra/petsc-include.tar.xz
  # PETSc 3.25.4 with CUDA: prebuilt (prepare-cuda) or its source, for petsc-cuda
  if [[ -d /tmp/petsc-3.25.4-cuda/lib ]]; then
    tar -C /tmp -cf - petsc-3.25.4-cuda | xz -T0 > .gpu-extra/petsc-3.25.4-cuda.tar.xz
  else
    cp ../shared/vendor/petsc-3.25.4.tar.xz .gpu-extra/
  fi
  du -sh .kit .gpu-extra
  ;;
prepare-cuda)
  # PETSc 3.25.4 with CUDA, built here for the GPU hosts (needs nvml.h and the NVML stub, which the
  # `nvml` step fetches from a GPU host, in /usr/local/cuda), then `prepare`
  scripts/petsc-build.sh cuda /tmp/petsc-3.25.4-cuda
  "$0" prepare
  ;;
petsc-cuda | build-325 | run-325 | gpu-325 | examples-cuda-325 | solve-325 | compare-325 | gamg-325 | ksp-325 | scale-325 | products-325 | nvml)
  : "${OUT:=/tmp/out}"
  mkdir -p "$OUT"
  export KIT_MPI_ONLY=1 PATH=/usr/local/cuda/bin:$PATH
  source .kit/env.sh
  # the kit's Open MPI is not CUDA-aware: PETSc refuses to start its CUDA device with it unless told
  export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
  [[ -d /usr/include/gtest ]] || tar -xJf .gpu-extra/gtest.tar.xz -C / 2>/dev/null
  P=/tmp/petsc-3.25.4-cuda
  B=$root/build-gpu-325
  for step in "$@"; do
    case $step in
    petsc-cuda)
      if [[ -f .gpu-extra/petsc-3.25.4-cuda.tar.xz ]]; then
        [[ -d $P/lib ]] || tar -xJf .gpu-extra/petsc-3.25.4-cuda.tar.xz -C /tmp
        echo "petsc-cuda: prebuilt PETSc 3.25.4 with CUDA unpacked into $P"
        continue
      fi
      PETSC_TARBALL=$root/.gpu-extra/petsc-3.25.4.tar.xz PETSC_BUILD_JOBS=$(nproc) scripts/petsc-build.sh cuda "$P" > "$OUT/petsc-cuda.log" 2>&1 || { tail -40 "$OUT/petsc-cuda.log"; exit 1; }
      grep -E "took|installed" "$OUT/petsc-cuda.log"
      ;;
    build-325)
      cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DPETSC_DIR="$P" -DBSRCUSTOM_MEMCHECK=OFF > "$OUT/configure-325.log" 2>&1 || { tail -30 "$OUT/configure-325.log"; exit 1; }
      grep -E "PETSc .* at|CUDA backend" "$OUT/configure-325.log"
      cmake --build "$B" -j "$(nproc)" -- -k > "$OUT/build-325.log" 2>&1 || { grep -E "error" "$OUT/build-325.log" | head -30; exit 1; }
      ;;
    run-325 | gpu-325)
      # a failing test must not stop the rest (set -e)
      # gpu-325 leaves the sweep of PETSc's examples with the cuda backend (petsc_examples_cuda) to run-325 and examples-cuda-325
      if [[ $step == gpu-325 ]]; then sel=(-L gpu -LE petsc-examples); else sel=(-L gpu); fi
      (cd "$B" && { ctest "${sel[@]}" -j4 --output-on-failure --timeout 300 > "$OUT/ctest-325-gpu.log" 2>&1 || true; }; grep -E "tests passed|\*\*\*Failed|Timeout|Skipped" "$OUT/ctest-325-gpu.log" | tail -40)
      S=/usr/local/cuda/bin/compute-sanitizer
      [[ ${SANITIZE:-1} == 1 ]] && for t in test_gpu_backend test_device_vectors test_gpu_spmm test_transpose_products; do
        $S --tool memcheck --leak-check full "$B/tests/petsc/$t" -use_gpu_aware_mpi 0 > "$OUT/memcheck-325-$t.log" 2>&1 || true; echo "memcheck $t: $(tail -1 "$OUT/memcheck-325-$t.log")"
        $S --tool racecheck --kernel-name kns=bsrc "$B/tests/petsc/$t" -use_gpu_aware_mpi 0 > "$OUT/racecheck-325-$t.log" 2>&1 || true; echo "racecheck $t: $(tail -1 "$OUT/racecheck-325-$t.log")"
      done
      # GAMG's block products computed on the GPU (their numeric phase), a block size of each kind and a GAMG solve
      [[ ${SANITIZE:-1} == 1 ]] && for tool in memcheck racecheck; do
        $S --tool $tool --kernel-name kns=bsrc "$B/tests/petsc/test_galerkin_products" -mat_bsrcustom_backend cuda -test_case products_bs1,products_bs3,products_bs6,new_structure,gamg_levels > "$OUT/$tool-325-galerkin.log" 2>&1 || true; echo "$tool test_galerkin_products (cuda): $(tail -1 "$OUT/$tool-325-galerkin.log")"
      done
      # MatSetValuesCOO from device memory (the gather kernel into the device copy)
      [[ ${SANITIZE:-1} == 1 ]] && for tool in memcheck racecheck; do
        $S --tool $tool --kernel-name kns=bsrc "$B/tests/petsc/test_coo" -test_case device_cuda,device_cpu -use_gpu_aware_mpi 0 > "$OUT/$tool-325-coo.log" 2>&1 || true; echo "$tool test_coo (device values): $(tail -1 "$OUT/$tool-325-coo.log")"
      done
      # the staged halo of several ranks on CUDA vectors (copies on a stream of its own)
      [[ ${SANITIZE:-1} == 1 ]] && { OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec -n 2 $S --tool memcheck "$B/tests/petsc/test_device_vectors" -use_gpu_aware_mpi 0 > "$OUT/memcheck-325-np2.log" 2>&1 || true; echo "memcheck test_device_vectors np2: $(grep -c "ERROR SUMMARY: 0 errors" "$OUT/memcheck-325-np2.log") of 2 ranks with 0 errors"; }
      "$B/tests/petsc/test_device_vectors" -info :mat > "$OUT/device-vectors-info.log" 2>&1 || true
      grep -E "Diagonal block|block diagonal|FAIL" "$OUT/device-vectors-info.log" | head -12 || true
      [[ $step == gpu-325 ]] && continue
      (cd "$B" && { ctest -LE gpu -j8 --output-on-failure --timeout 300 > "$OUT/ctest-325-cpu.log" 2>&1 || true; }; grep -E "tests passed|\*\*\*Failed|Timeout" "$OUT/ctest-325-cpu.log" | tail -25)
      ;;
    examples-cuda-325)
      # PETSc 3.25.4's own example programs whose TEST blocks select baij, with bsrcustom on the cuda backend
      # -V streams each case's line to the log as it ends, so a run cut short still shows what it did
      (cd "$B" && { timeout "${EXAMPLES_TIMEOUT:-1500}" ctest -R '^petsc_examples_cuda$' -V > "$OUT/ctest-325-examples-cuda.log" 2>&1 || true; })
      grep -E "^(FAIL|KNOWN)|passed|failed|tests passed|Skipped" "$OUT/ctest-325-examples-cuda.log" | tail -40
      ;;
    solve-325)
      # the main job on CUDA vectors: (a) bsrcustom cuda vs (b) MATAIJCUSPARSE in one process, then
      # (d) bsrcustom cpu vs (c) MATBAIJ on 16 ranks, for n^3 nodes, n in SOLVE_SIZES (default 60 100;
      # 60^3 = 648,000 unknowns); the 16-rank runs only up to SOLVE_CPU16_MAX (default 100), since
      # a CPU solve of the largest GPU sizes takes longer than a device call
      E=$B/examples/ksp_block_elasticity L=$B/src/mat/impls/bsrcustom/libpetscbsrcustom.so
      read -r -a extra <<<"${SOLVE_EXTRA:-}" # e.g. -dm_preallocate_only: DMDA skips writing zeros before the assembly (large sizes)
      common=(-ksp_type cg -pc_type pbjacobi -ksp_rtol 1e-8 -mult_reps 200 -compare_assemble "${extra[@]}")
      for n in ${SOLVE_SIZES:-60 100}; do
        timeout "${SOLVE_TIMEOUT:-560}" mpiexec -n 1 "$E" -dll_append "$L" -dm_mat_type bsrcustom -mat_bsrcustom_backend cuda -dm_vec_type cuda -use_gpu_aware_mpi 0 \
          -compare_type aijcusparse "${common[@]}" -nx $n -ny $n -nz $n > "$OUT/solve-gpu-$n.log" 2>&1 || echo "solve-gpu-$n failed"
        logs=("$OUT/solve-gpu-$n.log")
        if [[ $n -le ${SOLVE_CPU16_MAX:-100} ]]; then
          OMP_NUM_THREADS=1 mpiexec -n 16 --bind-to core "$E" -dll_append "$L" -dm_mat_type bsrcustom -mat_bsrcustom_threads 1 \
            -compare_type baij "${common[@]}" -nx $n -ny $n -nz $n > "$OUT/solve-cpu16-$n.log" 2>&1 || echo "solve-cpu16-$n failed"
          logs+=("$OUT/solve-cpu16-$n.log")
        fi
        for f in "${logs[@]}"; do echo "== $(basename "$f")"; grep -E "^Matrix:|^Solve \[|Timing: (assembly|KSPSolve|MatMult loop)" "$f"; done
      done
      nvidia-smi --query-gpu=memory.total --format=csv,noheader || true
      ;;
    compare-325)
      BEF=${BEFORE:-.before}
      [[ -f $BEF/CMakeLists.txt ]] || { echo "compare-325: no source tree in $BEF"; exit 1; }
      BB=$root/build-gpu-325-before
      if [[ ! -x $BB/bench/bench_matmult ]]; then
        cmake -S "$BEF" -B "$BB" -DCMAKE_BUILD_TYPE=Release -DPETSC_DIR="$P" -DBSRCUSTOM_MEMCHECK=OFF -DBSRCUSTOM_BUILD_TESTS=OFF > "$OUT/configure-325-before.log" 2>&1 || { tail -30 "$OUT/configure-325-before.log"; exit 1; }
        cmake --build "$BB" -j "$(nproc)" > "$OUT/build-325-before.log" 2>&1 || { grep -E "error" "$OUT/build-325-before.log" | head -30; exit 1; }
      fi
      [[ ${COMPARE_BUILD_ONLY:-0} == 1 ]] && continue # the earlier tree built, to measure in a later call
      mkdir -p "$OUT/compare"
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      gb=(-bench_sweep false -bench_loaded false -bench_one_rank false -bench_overlap false -bench_transpose false -bench_spmm ""
        -bench_trials 5 -bench_time_budget 1 -bench_warmup 3 -bench_matrices thesis,stencil27 -stream_mb 40
        -thesis_rows 80000 -thesis_density 0.02 -stencil_n 82)
      cb=(-bench_sweep false -bench_loaded false -bench_one_rank false -bench_overlap false -bench_transpose false -bench_spmm ""
        -bench_trials 5 -bench_time_budget 1 -bench_warmup 3 -bench_matrices thesis,stencil27 -stream_mb 200)
      for round in $(seq 1 "${COMPARE_ROUNDS:-2}"); do
        for tree in before after; do
          if [[ $tree == before ]]; then TB=$BB; else TB=$B; fi
          tag=$tree-$round
          "$TB/bench/bench_matmult" -bench_types aijcusparse,bsrcustom -mat_bsrcustom_backend cuda "${gb[@]}" > "$OUT/compare/gpu-$tag.log" 2>&1 || echo "   (failed: gpu-$tag.log)"
          timeout 300 mpiexec -n 1 "$TB/examples/ksp_block_elasticity" -dll_append "$TB/src/mat/impls/bsrcustom/libpetscbsrcustom.so" -dm_mat_type bsrcustom -mat_bsrcustom_backend cuda -dm_vec_type cuda -use_gpu_aware_mpi 0 \
            -compare_type aijcusparse -ksp_type cg -pc_type pbjacobi -ksp_rtol 1e-8 -mult_reps 200 -nx 60 -ny 60 -nz 60 > "$OUT/compare/solve-$tag.log" 2>&1 || echo "   (failed: solve-$tag.log)"
          OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores "$TB/bench/bench_matmult" -bench_types baij,bsrcustom "${cb[@]}" > "$OUT/compare/cpu-$tag.log" 2>&1 || echo "   (failed: cpu-$tag.log)"
          echo "== $tag"
          grep -E "^(thesis|stencil27) " "$OUT/compare/gpu-$tag.log" "$OUT/compare/cpu-$tag.log" | sed "s|$OUT/compare/||" | head -12
          grep -E "^Solve \[|Timing: (KSPSolve|MatMult loop)" "$OUT/compare/solve-$tag.log" | head -6
        done
      done
      ;;
    gamg-325)
      mkdir -p "$OUT/gamg"
      E=$B/examples/ksp_block_elasticity L=$B/src/mat/impls/bsrcustom/libpetscbsrcustom.so X=$B/tests/examples/petsc_ksp_ex56
      np=${GAMG_NP:-1}
      run=()
      [[ $np -gt 1 ]] && run=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec -n "$np" --bind-to none)
      gamg_run() { # name command... : the run, its peak device memory (MiB, nvidia-smi every 0.1 s, summed over the GPUs), its -log_view lines
        local name=$1 log=$OUT/gamg/$1.log
        shift
        nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$OUT/gamg/$name.mem" 2>/dev/null &
        local smi=$!
        timeout "${GAMG_TIMEOUT:-300}" "${run[@]}" "$@" > "$log" 2>&1 || echo "   ($name failed or timed out: $log)"
        kill $smi 2>/dev/null || true
        wait $smi 2>/dev/null || true
        local ngpu
        ngpu=$(nvidia-smi -L | wc -l)
        echo "== $name ($np rank(s)): peak device memory $(awk -v g="$ngpu" '{s+=$1; if (NR % g == 0) {if (s > m) m = s; s = 0}} END {print m}' "$OUT/gamg/$name.mem") MiB"
        rm -f "$OUT/gamg/$name.mem"
        grep -E "^Solve|Linear solve converged|KSPSetUp|^(PCSetUp|PCApply|KSPSolve|MatPtAPSymbolic|MatPtAPNumeric|MatMatMultSym|MatMatMultNum|MatTrnMatMultSym|MatCreateGraph|MatConvert|MatAXPY|MatAssemblyEnd|MatMult|MatMultAdd|MatMultTranspose|MatCUSPARSCopyTo|MatCUSPARSGenT|BSRCustomUpload|BSRCustomTasks|BSRCustomGraph|BSRCustomBlkProd|PCGAMG[A-Za-z]*|GAMG [A-Za-z/]*) " "$log" | cut -c1-150 || true
      }
      common=(-ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -log_view -log_view_gpu_time -use_gpu_aware_mpi 0 -dm_vec_type cuda)
      for n in ${GAMG_SIZES:-60 80 100}; do
        [[ ${GAMG_AIJCUSPARSE:-1} == 1 ]] && gamg_run main-$n-aijcusparse "$E" -dm_mat_type aijcusparse "${common[@]}" -nx $n -ny $n -nz $n ${GAMG_AIJCUSPARSE_EXTRA:-}
        [[ ${GAMG_OURS:-1} == 1 ]] && gamg_run main-$n-bsrcustom "$E" -dll_append "$L" -dm_mat_type bsrcustom -mat_bsrcustom_backend cuda "${common[@]}" -nx $n -ny $n -nz $n
      done
      # a second setup with new values of the same pattern (-resetup), GAMG's interpolation kept
      for n in ${GAMG_RESETUP_SIZES:-}; do
        gamg_run resetup-$n-aijcusparse "$E" -dm_mat_type aijcusparse "${common[@]}" -nx $n -ny $n -nz $n -resetup -pc_gamg_reuse_interpolation
        gamg_run resetup-$n-bsrcustom "$E" -dll_append "$L" -dm_mat_type bsrcustom -mat_bsrcustom_backend cuda "${common[@]}" -nx $n -ny $n -nz $n -resetup -pc_gamg_reuse_interpolation
      done
      if [[ -n ${GAMG_NE-59} ]]; then
        ex=(-ne "${GAMG_NE-59}" -pc_type gamg -pc_gamg_agg_nsmooths 1 -use_mat_nearnullspace -ksp_type cg -ksp_rtol 1e-8 -ksp_converged_reason -log_view -log_view_gpu_time -use_gpu_aware_mpi 0)
        gamg_run ex56-aijcusparse "$X" -mat_type aijcusparse -vec_type cuda "${ex[@]}"
        gamg_run ex56-bsrcustom "$X" -dll_append "$L" -mat_type bsrcustom -mat_bsrcustom_backend cuda -vec_type cuda "${ex[@]}"
      fi
      # the cpu backend on GAMG_CPU_RANKS ranks of this host (one thread each) against MATAIJ, host vectors
      for n in ${GAMG_CPU_SIZES:-}; do
        np=${GAMG_CPU_RANKS:-16}
        run=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 mpiexec -n "$np" --bind-to core)
        cpu=(-ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -log_view -nx $n -ny $n -nz $n)
        gamg_run cpu-$n-aij "$E" -dm_mat_type aij "${cpu[@]}"
        gamg_run cpu-$n-bsrcustom "$E" -dll_append "$L" -dm_mat_type bsrcustom -mat_bsrcustom_backend cpu -mat_bsrcustom_threads 1 "${cpu[@]}"
      done
      ;;
    ksp-325)
      # KSPSolve on the thesis-type band (320 5x5 blocks a block row) and the 27-point bs 3 stencil, 1 GB of
      # matrix each: KSP_ITS (default 300) GMRES(30) + PBJacobi iterations exactly (the band matrix is
      # nearly singular: a fixed count times the solver's iterations, not its convergence), solutions
      # compared between the types; (a) bsrcustom cuda vs (b) MATAIJCUSPARSE on CUDA vectors, then
      # (c) MATBAIJ vs (d) bsrcustom on 16 CPU ranks; results in $OUT/ksp
      mkdir -p "$OUT/ksp"
      kb=(-bench_sweep false -bench_loaded false -bench_one_rank false -bench_overlap false -bench_transpose false -bench_spmm ""
        -bench_trials 5 -bench_time_budget 1 -bench_warmup 3 -bench_matrices thesis,stencil27 -stream_mb 40
        -thesis_rows 80000 -thesis_density 0.02 -stencil_n 82 -bench_ksp "${KSP_ITS:-300}")
      "$B/bench/bench_matmult" -bench_types aijcusparse,bsrcustom -mat_bsrcustom_backend cuda "${kb[@]}" \
        -bench_json "$OUT/ksp/ksp-gpu.json" > "$OUT/ksp/ksp-gpu.log" 2>&1 || echo "   (failed: ksp-gpu.log)"
      grep -E "^ksp |^(thesis|stencil27) " "$OUT/ksp/ksp-gpu.log" | head -20
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 mpiexec -n 16 --bind-to core "$B/bench/bench_matmult" -bench_types baij,bsrcustom -mat_bsrcustom_threads 1 "${kb[@]}" \
        -bench_json "$OUT/ksp/ksp-cpu16.json" > "$OUT/ksp/ksp-cpu16.log" 2>&1 || echo "   (failed: ksp-cpu16.log)"
      grep -E "^ksp |^(thesis|stencil27) " "$OUT/ksp/ksp-cpu16.log" | head -20
      ;;
    scale-325)
      # multi-GPU scaling on CUDA vectors, one rank per GPU (PETSc gives rank r the GPU r % ngpu):
      # (1) MatMult, bench_matmult: MATAIJCUSPARSE against bsrcustom (cuda backend), weak (1 GB of
      #     matrix per GPU: the thesis-type band, bs 5, and the 27-point stencil, bs 3) and strong (the
      #     largest size on 1 GPU), with the split of mpibsrcustom's MatMult into halo exchange, local
      #     kernel and ghost kernel (-bench_overlap);
      # (2) KSPSolve, the main job (CG + PBJacobi, rtol 1e-8) against MATAIJCUSPARSE, weak (100^3 nodes
      #     per GPU) and strong (100^3 on every count), with -log_view (copies between host and device)
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      ngpu=$(nvidia-smi -L | wc -l)
      mkdir -p "$OUT/scale"
      exe=$B/bench/bench_matmult E=$B/examples/ksp_block_elasticity L=$B/src/mat/impls/bsrcustom/libpetscbsrcustom.so
      mopts=(-bench_types aijcusparse,bsrcustom -mat_bsrcustom_backend cuda -bench_sweep false -bench_loaded false -bench_one_rank false
        -bench_trials 5 -bench_time_budget 1 -bench_warmup 3 -bench_matrices "${SCALE_MATRICES:-thesis,stencil27}" -stream_mb 40
        -bench_transpose "${SCALE_TRANSPOSE:-false}" -bench_spmm "${SCALE_SPMM:-1}")
      msize() { # gpus -> matrix options: 80,000 rows x 1,600 nonzeros (1.0 GB) and 82^3 nodes (1.05 GB) per GPU
        echo "-thesis_rows $((80000 * $1)) -thesis_density $(python3 -c "print(1600/(80000*$1))") -stencil_n $(python3 -c "print(round(82 * $1 ** (1/3)))")"
      }
      mrun() { # name ranks options...
        local name=$1 ranks=$2
        shift 2
        echo "== $name: mpiexec -n $ranks bench_matmult ${mopts[*]} $*"
        timeout "${SCALE_TIMEOUT:-240}" mpiexec --bind-to none -n "$ranks" "$exe" "${mopts[@]}" "$@" -bench_json "$OUT/scale/$name.json" > "$OUT/scale/$name.log" 2>&1 || echo "   (failed: $name.log)"
        grep -E "^(thesis|stencil27) |^matrix" "$OUT/scale/$name.log" | head -12
      }
      kopts=(-dll_append "$L" -dm_mat_type bsrcustom -mat_bsrcustom_backend cuda -dm_vec_type cuda -compare_type aijcusparse
        -ksp_type cg -pc_type pbjacobi -ksp_rtol 1e-8 -mult_reps 100)
      krun() { # name ranks nx ny nz
        echo "== $1: mpiexec -n $2 ksp_block_elasticity ${kopts[*]} -nx $3 -ny $4 -nz $5 -log_view"
        timeout "${SCALE_TIMEOUT:-240}" mpiexec --bind-to none -n "$2" "$E" "${kopts[@]}" -nx "$3" -ny "$4" -nz "$5" -log_view > "$OUT/scale/$1.log" 2>&1 || echo "   (failed: $1.log)"
        grep -E "^Solve \[|Timing: (KSPSolve|MatMult loop)|^Timing:" "$OUT/scale/$1.log" | head -8
        grep -E "^(MatMult|KSPSolve|SFPack|SFUnpack|VecScatterBegin|VecScatterEnd|VecTDot|VecAXPY|VecAYPX|VecPointwiseMult) " "$OUT/scale/$1.log" | head -24
      }
      if [[ ${SCALE_KSP:-1} == 1 ]]; then
        n=${SCALE_KSP_N:-100}
        krun ksp-1gpu 1 $n $n $n
        [[ $ngpu -ge 2 ]] && krun ksp-weak-2gpu 2 $((2 * n)) $n $n
        [[ $ngpu -ge 2 ]] && krun ksp-strong-2gpu 2 $n $n $n
        [[ $ngpu -ge 4 ]] && krun ksp-weak-4gpu 4 $((2 * n)) $((2 * n)) $n
        [[ $ngpu -ge 4 ]] && krun ksp-strong-4gpu 4 $n $n $n
      fi
      if [[ ${SCALE_MULT:-1} == 1 ]]; then
        read -r -a s1 <<<"$(msize 1)"
        mrun mult-1gpu 1 "${s1[@]}"
        for g in 2 4; do
          [[ $ngpu -ge $g ]] || continue
          read -r -a sg <<<"$(msize $g)"
          mrun "mult-weak-${g}gpu" $g "${sg[@]}"
          mrun "mult-strong-${g}gpu" $g "${s1[@]}"
        done
      fi
      tar -czf "$OUT/scale.tgz" -C "$OUT" scale && rm -rf "$OUT/scale"
      ;;
    products-325)
      # transposes and products with dense matrices on 1 GPU, CUDA vectors and MATDENSECUDA: MATAIJCUSPARSE
      # against bsrcustom (the transposed copy on the device, the GPU block SpMM), about 1 GB of matrix;
      # then the block SpMM against cuSPARSE's SpMM paths (bsrmm, CSR SpMM) in bench_cuda
      mkdir -p "$OUT/products"
      "$B/bench/bench_matmult" -bench_types aijcusparse,bsrcustom -mat_bsrcustom_backend cuda -bench_sweep false -bench_loaded false \
        -bench_one_rank false -bench_trials 5 -bench_time_budget 1 -bench_warmup 3 -bench_matrices thesis,stencil27 -stream_mb 40 \
        -thesis_rows 80000 -thesis_density 0.02 -stencil_n 82 -bench_transpose true -bench_spmm 1,4,8,32 \
        -bench_json "$OUT/products/products-1gpu.json" > "$OUT/products/products-1gpu.log" 2>&1 || echo "   (failed: products-1gpu.log)"
      grep -E "MultT|MatMatMult|TARGET.*(Transpose|SpMM|MatMatMult)|^(thesis|stencil27) " "$OUT/products/products-1gpu.log" | head -60
      timeout "${PRODUCTS_CUDA_TIMEOUT:-240}" "$B/bench/bench_cuda" --spmm --json "$OUT/products/gpu-spmm.json" > "$OUT/products/gpu-spmm.log" 2>&1 || echo "   (failed: gpu-spmm.log)"
      grep -E "TARGET|spmm|SpMM" "$OUT/products/gpu-spmm.log" | head -40
      ;;
    nvml)
      cp /usr/local/cuda/include/nvml.h "$OUT/" 2>/dev/null || find / -name nvml.h -path "*cuda*" -exec cp {} "$OUT/" \; -quit
      cp /usr/local/cuda/lib64/stubs/libnvidia-ml.so "$OUT/" 2>/dev/null || true
      ls -la "$OUT"
      ;;
    *) echo "unknown step $step" >&2 ;;
    esac
  done
  ;;
build | run | bench-gpu | bench-cpu | scale | overlap16)
  : "${OUT:=/tmp/out}"
  mkdir -p "$OUT" "$OUT/bench"
  source .kit/env.sh
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  B=$root/build-gpu
  if [[ ! -x $B/bench/bench_matmult || ! -x $B/tests/petsc/test_gpu_backend ]]; then
    tar -xJf .gpu-extra/gtest.tar.xz -C / 2>/dev/null
    tar -xJf .gpu-extra/petsc-include.tar.xz -C /opt/petsc-kit 2>/dev/null
    nvidia-smi -L
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DPETSC_EXAMPLES_DIR="$root/.gpu-extra/examples" -DBSRCUSTOM_MEMCHECK=OFF > "$OUT/configure.log" 2>&1
    cmake --build "$B" -j "$(nproc)" -- -k > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
  fi
  for step in "$@"; do
    case $step in
    build) ;;
    run)
      # a failing test must not stop the sanitizers and the main job below (set -e)
      (cd "$B" && { ctest -L gpu --output-on-failure --timeout 140 > "$OUT/ctest_gpu.log" 2>&1 || true; }; grep -E "Test +#|tests passed|^FAIL" "$OUT/ctest_gpu.log" || true)
      [[ ${RUN_CPU_TESTS:-1} == 0 ]] || (cd "$B" && { ctest -LE gpu -j8 --output-on-failure --timeout 190 > "$OUT/ctest_cpu.log" 2>&1 || true; }; grep -E "tests passed|Failed" "$OUT/ctest_cpu.log" | tail -5 || true)
      S=/usr/local/cuda/bin/compute-sanitizer
      $S --tool memcheck --leak-check full "$B/tests/petsc/test_gpu_backend" > "$OUT/memcheck.log" 2>&1; tail -3 "$OUT/memcheck.log"
      OMPI_ALLOW_RUN_AS_ROOT=1 $S --tool racecheck --kernel-name kns=bsrc "$B/tests/petsc/test_gpu_backend" > "$OUT/racecheck.log" 2>&1; tail -2 "$OUT/racecheck.log"
      OMP_NUM_THREADS=$(nproc) mpiexec --bind-to none -n 1 "$B/examples/ksp_block_elasticity" \
        -dll_append "$B/src/mat/impls/bsrcustom/libpetscbsrcustom.so" -dm_mat_type bsrcustom -mat_bsrcustom_backend cuda \
        -compare_type baij -compare_assemble -ksp_type cg -pc_type pbjacobi -ksp_rtol 1e-8 -nx 60 -ny 60 -nz 60 > "$OUT/demo_cuda.log" 2>&1
      grep -E "Solve \[|MatMult us/call" "$OUT/demo_cuda.log"
      ;;
    bench-gpu)
      BENCH_SKIP_SETUP=1 BENCH_CPU=0 scripts/bench.sh "$B" > "$OUT/bench-gpu.log" 2>&1 || echo "bench-gpu failed"
      cp "$B"/bench/*.json "$B"/bench/*.log "$B"/bench/*.md "$OUT/bench/" 2>/dev/null
      grep -E "^TARGET|PASS|MISS" "$OUT/bench-gpu.log" | tail -40
      ;;
    bench-cpu)
      BENCH_SKIP_SETUP=1 BENCH_GPU=0 BENCH_TIME_BUDGET=${BENCH_TIME_BUDGET:-1} BENCH_SWEEP_BUDGET=${BENCH_SWEEP_BUDGET:-0.5} BENCH_TRIALS=${BENCH_TRIALS:-5} \
        scripts/bench.sh "$B" > "$OUT/bench-cpu.log" 2>&1 || echo "bench-cpu failed"
      cp "$B"/bench/cpu-*.json "$B"/bench/cpu-*.log "$OUT/bench/" 2>/dev/null
      grep -E "PASS|MISS" "$OUT/bench-cpu.log" | tail -30
      ;;
    scale)
      ngpu=$(nvidia-smi -L | wc -l)
      exe=$B/bench/bench_matmult
      opts=(-bench_types baij,bsrcustom -mat_bsrcustom_backend cuda -bench_sweep false -bench_trials 5 -bench_time_budget 2 -bench_warmup 3 -bench_matrices thesis,stencil27)
      # sizes: thesis-type band of 320 5x5 blocks per block row (density 1600/rows) and 27-point bs 3
      # stencils; 1 GPU: 80000 rows (1.0 GB) and 82^3 (1.05 GB); g GPUs: g times that (weak), and the
      # largest size on 1 GPU (strong)
      size() { # gpus -> options of the weak size for that many GPUs
        local g=$1 rows n
        rows=$((80000 * g))
        n=$(python3 -c "print(round(82 * $g ** (1/3)))")
        echo "-thesis_rows $rows -thesis_density $(python3 -c "print(1600/$rows)") -stencil_n $n"
      }
      scale_run() { # name ranks size-options...
        local name=$1 ranks=$2
        shift 2
        echo "    scale $name: mpiexec -n $ranks $exe ${opts[*]} $* -bench_json $OUT/bench/$name.json"
        local t=$(($(nproc) / ranks))
        OMP_NUM_THREADS=$t mpiexec --bind-to none -n "$ranks" -x OMP_NUM_THREADS=$t "$exe" "${opts[@]}" "$@" -bench_json "$OUT/bench/$name.json" > "$OUT/bench/$name.log" 2>&1 || echo "    (failed: $OUT/bench/$name.log)"
        grep -E "bsrcustom|overlap|exchange|full/bd" "$OUT/bench/$name.log" | head -20
      }
      read -r -a s1 <<<"$(size 1)"
      read -r -a sg <<<"$(size "$ngpu")"
      scale_run scale-weak-1gpu 1 "${s1[@]}"
      scale_run scale-strong-1gpu 1 "${sg[@]}"
      scale_run "scale-weak-${ngpu}gpu" "$ngpu" "${sg[@]}"
      cp "$OUT/bench/scale-weak-${ngpu}gpu.json" "$OUT/bench/scale-strong-${ngpu}gpu.json"
      scale_run "scale-$((2 * ngpu))ranks-${ngpu}gpu" $((2 * ngpu)) "${sg[@]}" # two ranks per GPU, for comparison
      ;;
    overlap16)
      # mpibsrcustom on 16 ranks of one thread; the overlap table also times MatMult without MPI progress
      # during the local product, interleaved. OVERLAP16_RUNS: option sets separated by ';', one run each
      exe=$B/bench/bench_matmult
      ompi_info --param btl vader --level 9 2>/dev/null | grep -E "single_copy_mechanism|\"btl_vader_eager_limit\"" | sed 's/^ *//' || true
      IFS=';' read -r -a runs <<<"${OVERLAP16_RUNS:- }"
      for r in "${!runs[@]}"; do
        read -r -a extra <<<"${runs[$r]}"
        echo "== run $r: ${extra[*]:-(defaults)}"
        OMP_NUM_THREADS=1 mpiexec --bind-to core -n 16 "$exe" -bench_types baij,bsrcustom -bench_sweep false -bench_one_rank false -bench_loaded false -bench_trials 7 -bench_time_budget 2 \
          -bench_transpose false -bench_spmm "" "${extra[@]}" -bench_json "$OUT/bench/overlap16-$r.json" > "$OUT/bench/overlap16-$r.log" 2>&1 || echo "overlap16 failed"
        grep -A3 "overlap of" "$OUT/bench/overlap16-$r.log" | grep -v "^--" | grep -v "overlap of"
      done
      ;;
    *) echo "unknown step $step" >&2 ;;
    esac
  done
  # one archive: the device tool brings back a limited number of files
  if [[ -d $OUT/bench ]]; then tar -czf "$OUT/bench.tgz" -C "$OUT" bench && rm -rf "$OUT/bench"; fi
  ;;
*)
  echo "usage: scripts/gpu-host.sh prepare | build | run | bench-gpu | bench-cpu | scale | overlap16 | petsc-cuda | build-325 | run-325 | nvml ..." >&2
  exit 2
  ;;
esac
