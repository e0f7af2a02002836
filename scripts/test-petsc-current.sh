#!/usr/bin/env bash
# The whole test suite against the current PETSc release (3.25.4, CPU), PETSc's own example programs
# of that release included: installs the packages (scripts/setup.sh --packages-only), builds PETSc
# from the vendored source (scripts/petsc-build.sh cpu, cached in $BSRCUSTOM_PETSC_CACHE, by default
# ~/.cache/bsrcustom: 10-16 minutes from scratch on 2 cores), builds the project against it into
# build-petsc-3.25.4/ and runs CTest there.
#   scripts/test-petsc-current.sh [ctest arguments]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-petsc-3.25.4
start=$SECONDS
"$root/scripts/setup.sh" --packages-only
# its progress to our stderr as it comes (through the inherited descriptor: reopening /dev/stderr
# would truncate a log file it points to), its last line, the prefix, kept
out=$(mktemp)
"$root/scripts/petsc-build.sh" cpu | tee "$out" >&2
prefix=$(tail -n 1 "$out")
rm -f "$out"
echo "test-petsc-current: PETSc ready after $((SECONDS - start)) s"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPETSC_DIR="$prefix" -DPETSC_ARCH= ${BSRCUSTOM_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
echo "test-petsc-current: built after $((SECONDS - start)) s"
cd "$build"
ctest --output-on-failure --timeout 1800 "$@"
