#!/usr/bin/env bash
# A subset of the test suite against Debian's PETSc 3.18 with 64-bit PetscInt (libpetsc64-real3.18-dev,
# installed through apt as scripts/setup.sh installs its packages), built into build-petsc64/: the
# kernels (compiled with 64-bit indices), the petsc label on 1 and 2 ranks (products, conformance,
# options, KSP, derived types, bad input, the benchmark's JSON) and the main job on 1 and 2 ranks
# against BAIJ (CG + PBJacobi) and AIJ (GAMG); CPU only (no CUDA backend, no valgrind runs). About 10
# minutes on a 2-core machine, build included.
#   scripts/test-petsc64.sh [ctest arguments, added to both CTest runs]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-petsc64
start=$SECONDS
"$root/scripts/setup.sh" --packages-only
pkg=libpetsc64-real3.18-dev
if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
  line="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkg"
  if [[ $(id -u) -ne 0 ]]; then
    echo "test-petsc64: the Debian package $pkg is missing; install it as root, then run this again:" >&2
    echo "  sudo sh -c '$line'" >&2
    exit 1
  fi
  echo "test-petsc64: installing $pkg"
  sh -c "$line"
fi
prefix=$(pkg-config --variable=prefix PETSc64)
grep -q "^#define PETSC_USE_64BIT_INDICES 1" "$prefix/include/petscconf.h" || {
  echo "test-petsc64: $prefix (pkg-config PETSc64) is not a PETSc with 64-bit indices" >&2
  exit 1
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPETSC_DIR="$prefix" -DPETSC_ARCH= -DBSRCUSTOM_MEMCHECK=OFF -DBSRCUSTOM_CUDA=OFF \
  ${BSRCUSTOM_CMAKE_ARGS:-} | tee "$log"
grep -q "at $prefix .*64-bit PetscInt" "$log" || {
  echo "test-petsc64: $build was not configured against $prefix with 64-bit PetscInt" >&2
  exit 1
}
# only what the subset runs: the plugin, the main job's program, the benchmark and the test programs
targets=(petscbsrcustom ksp_block_elasticity bench_matmult)
targets+=($(cmake --build "$build" --target help | sed -n -e 's/^\.\.\. \(test_[A-Za-z0-9_]*\)$/\1/p' -e 's/^\(test_[A-Za-z0-9_]*\): phony$/\1/p'))
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
echo "test-petsc64: built after $((SECONDS - start)) s"
cd "$build"
rc=0
ctest --output-on-failure --timeout 900 -L "kernels|petsc" -LE "memcheck|gpu" -E "_np[34]|^petsc_examples$" "$@" || rc=1
ctest --output-on-failure --timeout 900 -R "^example_main_job(_gamg)?_np[12]$" "$@" || rc=1
echo "test-petsc64: done after $((SECONDS - start)) s"
exit $rc
