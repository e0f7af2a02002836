/* One type's MatMult and MatMultAdd on one matrix: the row each of the benchmark's parts fills or reads. */
#ifndef BENCH_RESULT_H
#define BENCH_RESULT_H

#include "bench_base.h"

typedef struct {
  char       matrix[32];
  char       type[64];
  PetscInt   bs, nrows;
  PetscInt64 nblocks;
  double     matrix_bytes, mult_bytes, multadd_bytes;
  double     mult_s, multadd_s;         /* median seconds per call */
  double     ratio_mult, ratio_multadd; /* first type time / this type time */
  double     diff_mult, diff_multadd;   /* relative max-norm difference to the first type */
  double     convert_s;
  PetscInt   reps_mult, reps_multadd; /* calls per trial actually made */
  PetscBool  device;                  /* the product runs on a GPU: the host references say nothing of it */
} Result;

#endif
