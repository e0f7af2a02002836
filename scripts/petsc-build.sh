#!/usr/bin/env bash
# Builds PETSc from a vendored source into a prefix, for building and testing the plugin against it:
# the release 3.25.4 by default, or a snapshot of PETSc's main branch. Nothing is downloaded: PETSc
# uses the MPI and BLAS/LAPACK at hand.
#
#   scripts/petsc-build.sh cpu  [prefix]   this machine: Debian's Open MPI and reference BLAS/LAPACK
#   scripts/petsc-build.sh cuda [prefix]   a GPU host: CUDA (SM 80 and 90), the gpu-kit's Open MPI
#                                          and BLAS/LAPACK (source .kit/env.sh with KIT_MPI_ONLY=1 first)
#
# Which PETSc: $BSRCUSTOM_PETSC, 3.25.4 by default; main-2026-08-21 for the snapshot of main in
# petsc-main-2026-08-21.tar.xz (it reports 3.25.99); `main` for the newest petsc-main-*.tar.xz found.
# Default prefix: $BSRCUSTOM_PETSC_CACHE/petsc-<version>-<variant>, where BSRCUSTOM_PETSC_CACHE defaults
# to ~/.cache/bsrcustom (outside the clone, so fresh clones reuse it). A prefix that holds a complete
# build (lib/petsc/conf/petscvariables and the library) is reused as it is; make install puts PETSc's
# example sources under share/petsc/examples/src, which the tests build. Prints the prefix on the
# last line of its output. The source comes from $PETSC_TARBALL, else the first
# petsc-<version>.tar.xz (unpacking to petsc-<version>/) found in ../shared/vendor, shared/vendor
# (from the repository's root).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
vendor=("$root/../shared/vendor" "$root/shared/vendor")
version=${BSRCUSTOM_PETSC:-3.25.4}
if [[ $version == main ]]; then
  # the newest snapshot at hand (dated names sort by date)
  newest=$(for d in "${vendor[@]}"; do compgen -G "$d/petsc-main-*.tar.xz" || true; done | xargs -r -n1 basename | sort | tail -n 1)
  [[ -n $newest ]] || { echo "petsc-build: no petsc-main-*.tar.xz in ../shared/vendor or shared/vendor" >&2; exit 1; }
  version=${newest#petsc-}
  version=${version%.tar.xz}
fi
variant=${1:-}
case $variant in
cpu | cuda) ;;
*)
  echo "usage: [BSRCUSTOM_PETSC=3.25.4|main-2026-08-21|main] scripts/petsc-build.sh cpu|cuda [prefix]" >&2
  exit 2
  ;;
esac
prefix=${2:-${BSRCUSTOM_PETSC_CACHE:-$HOME/.cache/bsrcustom}/petsc-$version-$variant}
jobs=${PETSC_BUILD_JOBS:-$(nproc)}

die() {
  echo "petsc-build: $*" >&2
  exit 1
}
stamp() { date +%s; }
took() { echo "petsc-build: $1 took $(($(stamp) - $2)) s"; }

if [[ -f $prefix/lib/petsc/conf/petscvariables && -n $(compgen -G "$prefix/lib/libpetsc.so*") ]]; then
  echo "petsc-build: PETSc $version ($variant) already built in $prefix"
  echo "$prefix"
  exit 0
fi

# What the build needs, checked before anything long starts.
need() { command -v "$1" > /dev/null || die "$1 is missing: $2"; }
need python3 "PETSc's configure is Python (apt-get install python3)"
need make "apt-get install build-essential"
need mpicc "an MPI with compiler wrappers is needed (apt-get install libopenmpi-dev openmpi-bin; on a GPU host: source .kit/env.sh)"
need mpicxx "an MPI with compiler wrappers is needed (apt-get install libopenmpi-dev openmpi-bin)"
tarball=${PETSC_TARBALL:-}
if [[ -z $tarball ]]; then
  for d in "${vendor[@]}"; do
    [[ -f $d/petsc-$version.tar.xz ]] && tarball=$d/petsc-$version.tar.xz && break
  done
fi
[[ -n $tarball && -f $tarball ]] || die "the PETSc $version source (petsc-$version.tar.xz) was not found: set PETSC_TARBALL, or put it in ../shared/vendor"

# BLAS/LAPACK: the reference libraries of Debian, or those of the gpu-kit on a GPU host.
blaslapack=()
if [[ $variant == cuda ]]; then
  need nvcc "the CUDA variant needs the CUDA toolkit (PATH or /usr/local/cuda/bin)"
  kitlib=${PETSC_KIT_LIBDIR:-/opt/petsc-kit/usr/lib/x86_64-linux-gnu}
  if [[ -f $kitlib/blas/libblas.so.3 && -f $kitlib/lapack/liblapack.so.3 ]]; then
    blaslapack=("--with-blaslapack-lib=[$kitlib/lapack/liblapack.so.3,$kitlib/blas/libblas.so.3]")
  fi
fi
if ((${#blaslapack[@]} == 0)); then
  lib=/usr/lib/x86_64-linux-gnu
  if [[ -f $lib/liblapack.so && -f $lib/libblas.so ]]; then
    blaslapack=("--with-blaslapack-lib=[$lib/liblapack.so,$lib/libblas.so]")
  else
    die "no BLAS/LAPACK found (apt-get install libblas-dev liblapack-dev; on a GPU host: source .kit/env.sh)"
  fi
fi

src=$(mktemp -d "${TMPDIR:-/tmp}/petsc-src.XXXXXX")
trap 'rm -rf "$src"' EXIT
t=$(stamp)
tar -xJf "$tarball" -C "$src"
took "unpacking $tarball" "$t"
cd "$src/petsc-$version"
# a PETSC_DIR/PETSC_ARCH in the environment (the gpu-kit exports its 3.18) would steer configure elsewhere
unset PETSC_DIR PETSC_ARCH

opts=(--prefix="$prefix" --with-debugging=0 --with-shared-libraries=1 --with-fc=0 --with-fortran-bindings=0
  --with-cc=mpicc --with-cxx=mpicxx --with-x=0 --with-ssl=0
  COPTFLAGS=-O3 CXXOPTFLAGS=-O3 "${blaslapack[@]}")
if [[ $variant == cuda ]]; then
  opts+=(--with-cuda=1 --with-cuda-arch=80,90 CUDAOPTFLAGS=-O3)
else
  opts+=(--with-cuda=0) # configure would otherwise pick up an nvcc on the PATH
fi
log=$prefix.log
mkdir -p "$(dirname "$prefix")"
echo "petsc-build: configuring PETSc $version ($variant) for $prefix (log: $log)"
t=$(stamp)
python3 ./configure PETSC_ARCH=arch-bsrcustom "${opts[@]}" > "$log" 2>&1 || {
  tail -30 "$log" >&2
  die "configure failed (whole log: $log, and configure.log in the source, removed on exit)"
}
took configure "$t"
t=$(stamp)
make PETSC_DIR="$PWD" PETSC_ARCH=arch-bsrcustom MAKE_NP="$jobs" all >> "$log" 2>&1 || {
  tail -30 "$log" >&2
  die "the build failed (log: $log)"
}
took "make all (-j$jobs)" "$t"
t=$(stamp)
make PETSC_DIR="$PWD" PETSC_ARCH=arch-bsrcustom install >> "$log" 2>&1 || {
  tail -30 "$log" >&2
  die "make install failed (log: $log)"
}
took "make install" "$t"
echo "petsc-build: PETSc $version ($variant) installed in $prefix"
echo "$prefix"
