#!/usr/bin/env bash
# The whole test suite against a PETSc built from the vendored sources, PETSc's own example programs
# of that PETSc included: installs the packages (scripts/setup.sh --packages-only), builds PETSc
# (scripts/petsc-build.sh cpu, cached in $BSRCUSTOM_PETSC_CACHE, by default ~/.cache/bsrcustom), builds
# the project against it into build-petsc-<version>/ and runs CTest there.
#   scripts/test-petsc-current.sh [--petsc VERSION] [ctest arguments]
# VERSION (or $BSRCUSTOM_PETSC): 3.25.4, the default; main-2026-08-21, the snapshot of PETSc's main
# branch (3.25.99); main, the newest snapshot at hand. Building PETSc is the long step (hence the
# cache); the project and CTest take minutes more.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ ${1:-} == --petsc ]]; then
  export BSRCUSTOM_PETSC=${2:?--petsc needs a version: 3.25.4, main-2026-08-21 or main}
  shift 2
fi
start=$SECONDS
"$root/scripts/setup.sh" --packages-only
# its progress to our stderr as it comes (through the inherited descriptor: reopening /dev/stderr
# would truncate a log file it points to), its last line, the prefix, kept
out=$(mktemp)
"$root/scripts/petsc-build.sh" cpu | tee "$out" >&2
prefix=$(tail -n 1 "$out")
rm -f "$out"
version=$(basename "$prefix")
version=${version#petsc-}
version=${version%-cpu}
build=$root/build-petsc-$version
echo "test-petsc-current: PETSc $version ready after $((SECONDS - start)) s"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPETSC_DIR="$prefix" -DPETSC_ARCH= ${BSRCUSTOM_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
echo "test-petsc-current: built after $((SECONDS - start)) s"
cd "$build"
ctest --output-on-failure --timeout 1800 "$@"
