/* The fixed-iteration KSPSolve of each type (bench_ksp.c). */
#ifndef BENCH_KSP_H
#define BENCH_KSP_H

#include "bench_matrices.h"

/* The fixed-iteration KSPSolve of one type (-bench_ksp); times are medians of the max over ranks. */
typedef struct {
  char     matrix[32];
  char     type[64];
  char     ksp_type[64], pc_type[64];
  PetscInt restart; /* GMRES restart of the KSP types that have one, else 0 */
  PetscInt its, trials;
  double   solve_s; /* median seconds of one KSPSolve */
  double   ratio;   /* first type's solve_s / this type's */
  double   diff;    /* relative max-norm difference of the solution to the first type's */
  double   relres;  /* ||b - A x|| / ||b|| after the solve, with this type's matrix */
} KSPRow;

PetscErrorCode BenchKSP(const MatrixSpec *spec, Mat base, PetscInt ntypes, char *const types[], PetscInt its, const char ksp_type[], const char pc_type[], PetscInt seed, PetscInt trials, KSPRow rows[]);

#endif
