/* MatMultTranspose and products with dense matrices (bench_products.c). */
#ifndef BENCH_PRODUCTS_H
#define BENCH_PRODUCTS_H

#include "bench_base.h"

typedef struct {
  char        type[64];
  PetscBool   cpu_bsr;  /* a bsrcustom type on the cpu backend: the cpu targets are about these */
  PetscBool   gpu_bsr;  /* a bsrcustom type on a GPU backend, its transposed copy on the device: the GPU transpose target */
  PetscBool   gpu_spmm; /* a bsrcustom type on a GPU backend: the GPU SpMM target is about these */
  const char *path;     /* where its MatMultTranspose runs */
  double      t_mult, t_trans, diff;
} TransposeRow;

typedef struct {
  PetscInt k;
  double   t_mult, t_spmm, diff; /* t_spmm: the whole MatMatMult of k columns */
} SpMMRow;

PetscErrorCode BenchTranspose(Mat A, Vec x, Vec y, Vec xtref, Vec ytref, PetscBool *have_ref, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, TransposeRow *row);
PetscErrorCode BenchSpMM(Mat A, Vec x, Vec y, PetscInt k, PetscInt seed, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, SpMMRow *row);
PetscErrorCode PrintTransposeSpMM(const char matrix[], const char ref_type[], PetscInt ntypes, const TransposeRow tr[], PetscBool dotranspose, const SpMMRow sp[], PetscInt nk, PetscBool gpu_run, PetscReal target_transpose, PetscReal target_transpose_gpu, PetscReal target_spmm, PetscReal target_gpu_spmm);

#endif
