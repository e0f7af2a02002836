/* The BAIJ copies of ours (bench_copies.c). */
#ifndef BENCH_COPIES_H
#define BENCH_COPIES_H

#include "bench_base.h"

/* The BAIJ copies of ours (-bench_copies): MatMult of MatConvert(ours, MATBAIJ) and of
   MatConvert(MatDuplicate(ours), MATBAIJ) against the BAIJ assembled here, in interleaved trials. */
typedef struct {
  char     matrix[32];
  char     type[64];      /* ours */
  char     baij_type[64]; /* what the copies are */
  PetscInt bs, trials, reps[3];
  double   t[3];                   /* ms medians: assembled, converted, duplicated then converted */
  double   ratio[2], q1[2], q3[2]; /* per-trial time ratios converted / assembled, duplicated then converted / assembled */
  double   diff;                   /* max relative difference of the copies' products to the assembled one's */
} CopiesRow;

PetscErrorCode BenchBAIJCopies(Mat base, Vec x, const char ours_type[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, CopiesRow *row);

#endif
