/* The benchmark's matrices (bench_matrices.c): their random values, specs, assembly, traffic model and
   what a type is and where it runs. */
#ifndef BENCH_MATRICES_H
#define BENCH_MATRICES_H

#include "bench_result.h"

static inline uint64_t SplitMix64(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double Uniform(uint64_t *s)
{
  return (double)(SplitMix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Each generated row gets its own stream, so values do not depend on the partition. */
static inline uint64_t RowSeed(PetscInt seed, PetscInt64 tag, PetscInt64 row)
{
  uint64_t s = (uint64_t)seed * 0xD1B54A32D192ED03ULL ^ ((uint64_t)tag << 56) ^ (uint64_t)row * 0x9E3779B97F4A7C15ULL;
  (void)SplitMix64(&s);
  return s;
}

typedef struct {
  char       name[32];
  PetscInt   bs;
  PetscInt   nbrows;  /* global block rows (= block columns) */
  PetscInt64 nblocks; /* global nonzero blocks */
  PetscInt   rstart;  /* first local block row */
  PetscInt   nlocal;  /* local block rows */
  /* thesis */
  PetscInt band;
  /* stencil27 */
  PetscInt n;
} MatrixSpec;

PetscErrorCode SetupSpec(const char name[], PetscInt thesis_rows, PetscInt thesis_bs, PetscReal density, PetscInt sn, PetscInt sbs, MatrixSpec *spec);
PetscErrorCode AssembleBAIJOn(MPI_Comm comm, const MatrixSpec *spec, PetscInt seed, Mat *A);
PetscErrorCode AssembleBAIJ(const MatrixSpec *spec, PetscInt seed, Mat *A);
PetscErrorCode TrafficModel(Mat A, const MatrixSpec *spec, Result *res);
PetscErrorCode FillRandom(Vec x, PetscInt seed);
PetscErrorCode IsBaseType(Mat base, const char type[], PetscBool *same);
PetscErrorCode RunsOnDevice(Mat A, PetscBool *dev);
/* whether A is a bsrcustom type whose products run on the cpu backend, or on a GPU backend */
PetscErrorCode IsCPUBSRCustom(Mat A, PetscBool *cpu_bsr);
PetscErrorCode IsGPUBSRCustom(Mat A, PetscBool *gpu_bsr);

#endif
