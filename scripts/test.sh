#!/usr/bin/env bash
# Sets everything up, builds, and runs the whole test suite with CTest.
#   scripts/test.sh [ctest arguments]     e.g. scripts/test.sh -L kernels
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
"$root/scripts/setup.sh" "$build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$build"
ctest --output-on-failure --timeout 900 "$@"
