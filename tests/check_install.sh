#!/usr/bin/env bash
# make install, as a user would use it: installs the build into a fresh prefix, then builds
# tests/install/use_bsrcustom.c against it twice, with pkg-config (petscbsrcustom.pc) and with
# CMake (find_package(PETScBSRCustom)), and runs both.
#   check_install.sh <build dir> <scratch dir> <mpiexec>
set -euo pipefail
build=$1 scratch=$2 mpiexec=$3
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/install" && pwd)
rm -rf "$scratch" && mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" > "$scratch/install.log"
export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig:$(sed -n 's/^PETSC_PC_DIR:INTERNAL=//p' "$build/CMakeCache.txt"):${PKG_CONFIG_PATH:-}"
echo "--- pkg-config: $(pkg-config --modversion petscbsrcustom), requires $(pkg-config --print-requires petscbsrcustom | tr '\n' ' ')"
# a PETSc outside the loader's path needs its library folder as a run path, as for any program linking it
mpicc -o "$scratch/use_pkgconfig" "$src/use_bsrcustom.c" $(pkg-config --cflags --libs petscbsrcustom) -Wl,-rpath,"$(pkg-config --variable=libdir PETSc)"
$mpiexec -n 1 "$scratch/use_pkgconfig"
echo "--- CMake: find_package(PETScBSRCustom)"
cmake -S "$src" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$scratch/prefix" > "$scratch/cmake.log"
cmake --build "$scratch/cmake" > "$scratch/cmake-build.log"
$mpiexec -n 1 "$scratch/cmake/use_bsrcustom"
echo "1 passed (pkg-config), 1 passed (find_package)"
