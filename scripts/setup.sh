#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for bsrcustom and builds it: installs what is missing through apt
# (as root; otherwise prints the exact apt line and stops), configures with CMake, builds.
#   scripts/setup.sh [build-dir]        (default: build)
#   scripts/setup.sh --targets "a b" [build-dir]   only those targets (the demo: the plugin and its program)
#   scripts/setup.sh --packages-only    only the packages (for building against another PETSc)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
packages_only=0
targets=()
if [[ ${1:-} == --packages-only ]]; then
  packages_only=1
  shift
elif [[ ${1:-} == --targets ]]; then
  read -r -a targets <<< "$2"
  shift 2
fi
build=${1:-$root/build}

packages=(build-essential cmake pkg-config python3 python3-matplotlib valgrind
          petsc-dev libpetsc3.18-dev-examples libopenmpi-dev openmpi-bin libblas-dev liblapack-dev
          googletest libgtest-dev clang-format
          python3-petsc4py python3-slepc4py python3-mpi4py python3-dolfinx python-petsc4py-doc)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  line="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: these Debian packages are missing: ${missing[*]}" >&2
    echo "setup: install them as root, then run this again:" >&2
    echo "  sudo sh -c '$line'" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  sh -c "$line"
fi

(( packages_only )) && exit 0

# Open MPI refuses to run as root without these (CI and the GPU hosts run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${BSRCUSTOM_CMAKE_ARGS:-}
build_args=(-j "$(nproc)")
((${#targets[@]})) && build_args+=(--target "${targets[@]}")
cmake --build "$build" "${build_args[@]}"
