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
prefix=$("$root/scripts/petsc-build.sh" cpu | tee /dev/stderr | tail -n 1)
echo "test-petsc-current: PETSc ready after $((SECONDS - start)) s"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPETSC_DIR="$prefix" -DPETSC_ARCH= ${BSRCUSTOM_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
echo "test-petsc-current: built after $((SECONDS - start)) s"
cd "$build"
ctest --output-on-failure --timeout 1800 "$@"
