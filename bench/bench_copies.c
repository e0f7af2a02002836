/* The BAIJ copies of ours (-bench_copies): MatMult of MatConvert(ours, MATBAIJ) against the BAIJ assembled here. */
#include "bench_copies.h"
#include "bench_timing.h"

/* The BAIJ matrices ours hands back must multiply as fast as the BAIJ PETSc assembled (base): the
   copies and base timed in interleaved trials on x. */
PetscErrorCode BenchBAIJCopies(Mat base, Vec x, const char ours_type[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, CopiesRow *row)
{
  Mat     ours, dup, B[3];
  Vec     y[3];
  Op      ops[3];
  double *tt, t[3], d;
  MatType type;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(row, sizeof(*row)));
  PetscCall(MatConvert(base, ours_type, MAT_INITIAL_MATRIX, &ours));
  PetscCall(MatGetType(ours, &type));
  PetscCall(PetscStrncpy(row->type, type, sizeof(row->type)));
  B[0] = base;
  PetscCall(PetscObjectReference((PetscObject)base));
  PetscCall(MatConvert(ours, MATBAIJ, MAT_INITIAL_MATRIX, &B[1]));
  PetscCall(MatDuplicate(ours, MAT_COPY_VALUES, &dup));
  PetscCall(MatConvert(dup, MATBAIJ, MAT_INITIAL_MATRIX, &B[2]));
  PetscCall(MatDestroy(&dup));
  PetscCall(MatDestroy(&ours));
  PetscCall(MatGetType(B[1], &type));
  PetscCall(PetscStrncpy(row->baij_type, type, sizeof(row->baij_type)));
  PetscCall(MatGetBlockSize(base, &row->bs));
  row->trials = trials;
  for (int k = 0; k < 3; k++) {
    PetscCall(MatCreateVecs(B[k], NULL, &y[k]));
    ops[k] = (Op){OP_MULT, B[k], x, NULL, y[k], NULL, NULL};
    PetscCall(RunOp(&ops[k]));
    if (k > 0) {
      PetscCall(RelDiff(y[k], y[0], &d));
      row->diff = PetscMax(row->diff, d);
    }
  }
  PetscCall(PetscMalloc1(3 * trials, &tt));
  PetscCall(TimeOps(PetscObjectComm((PetscObject)base), 3, ops, warmup, reps, trials, budget, t, row->reps, tt));
  for (int k = 0; k < 3; k++) row->t[k] = 1e3 * t[k];
  for (int k = 0; k < 2; k++) PetscCall(TrialRatios(trials, &tt[(k + 1) * trials], &tt[0], &row->ratio[k], &row->q1[k], &row->q3[k]));
  PetscCall(PetscFree(tt));
  for (int k = 0; k < 3; k++) {
    PetscCall(VecDestroy(&y[k]));
    PetscCall(MatDestroy(&B[k]));
  }
  PetscFunctionReturn(0);
}
