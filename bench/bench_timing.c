/* Timing: operations timed in trials on all ranks, medians, calls per trial within the time budget, alternating trials, the products checked against each other. */
#include "bench_timing.h"

PetscErrorCode Median(PetscInt n, PetscReal t[], double *med)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSortReal(n, t));
  *med = (n % 2) ? (double)t[n / 2] : 0.5 * (double)(t[n / 2 - 1] + t[n / 2]);
  PetscFunctionReturn(0);
}

/* Whether v is a CUDA vector, whose operations return before the device has run them. */
PetscErrorCode IsDeviceVec(Vec v, PetscBool *dev)
{
  PetscFunctionBeginUser;
  *dev = PETSC_FALSE;
  if (v) PetscCall(PetscObjectTypeCompareAny((PetscObject)v, dev, VECSEQCUDA, VECMPICUDA, ""));
  PetscFunctionReturn(0);
}

/* Waits for the work queued on PETSc's current device stream when op writes device memory (a CUDA
   vector y, or a MATDENSECUDA product B of OP_MATMATMULT); a no-op on host memory. */
PetscErrorCode SyncDevice(const Op *op)
{
  PetscBool dev;

  PetscFunctionBeginUser;
  PetscCall(IsDeviceVec(op->y, &dev));
  if (!dev && op->B) PetscCall(PetscObjectTypeCompareAny((PetscObject)op->B, &dev, MATSEQDENSECUDA, MATMPIDENSECUDA, ""));
#if defined(BENCH_DEVICE_VECTORS)
  if (dev) {
    PetscDeviceContext dctx;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
#endif
  PetscFunctionReturn(0);
}

/* Seconds per call of n calls of op on every rank of comm, after an MPI_Barrier (the slowest rank's
   time); with CUDA vectors, the device has finished the n calls when the clock stops. */
PetscErrorCode TimeOnAllRanks(MPI_Comm comm, const Op *op, PetscInt n, double *dt)
{
  double t0, mine;

  PetscFunctionBeginUser;
  PetscCall(SyncDevice(op));
  PetscCallMPI(MPI_Barrier(comm));
  t0 = MPI_Wtime();
  for (PetscInt i = 0; i < n; i++) PetscCall(RunOp(op));
  PetscCall(SyncDevice(op));
  mine = (MPI_Wtime() - t0) / (double)n;
  PetscCallMPI(MPI_Allreduce(&mine, dt, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(0);
}

/* Calls per trial: reps, or fewer (at least 1) when trials x reps calls of dt seconds would exceed budget (> 0). */
PetscInt RepsForBudget(PetscInt reps, PetscInt trials, PetscReal budget, double dt)
{
  if (budget > 0.0 && dt * (double)reps * (double)trials > (double)budget) return PetscMax(1, (PetscInt)((double)budget / ((double)trials * dt)));
  return reps;
}

/*
  Median over trials of the time per call (max over the ranks of comm) of each of nops operations.
  Every rank calls them the same number of times, even when an operation itself is local (the local
  and ghost products of the overlap measurement). The warm-up calls are timed too; when reps calls per
  trial would exceed budget seconds over all trials, fewer calls per trial are made (at least 1), for
  each operation separately. The trials are interleaved: trial k times one batch of every operation in
  turn, so slow drifts of the machine affect all operations alike. An MPI_Barrier precedes every timed
  batch, and the estimate is the max over ranks, so all ranks agree. ttrial (nops x trials, may be
  NULL) receives the time per call of every trial.
*/
PetscErrorCode TimeOps(MPI_Comm comm, PetscInt nops, const Op ops[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double tcall[], PetscInt repsused[], double ttrial[])
{
  PetscReal *t;
  PetscInt   j, k;
  double     dt;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(nops * trials, &t));
  for (j = 0; j < nops; j++) {
    PetscCall(TimeOnAllRanks(comm, &ops[j], PetscMax(warmup, 1), &dt));
    repsused[j] = RepsForBudget(reps, trials, budget, dt);
  }
  for (k = 0; k < trials; k++) {
    for (j = 0; j < nops; j++) {
      PetscCall(TimeOnAllRanks(comm, &ops[j], repsused[j], &dt));
      t[j * trials + k] = dt;
      if (ttrial) ttrial[j * trials + k] = dt;
    }
  }
  for (j = 0; j < nops; j++) PetscCall(Median(trials, &t[j * trials], &tcall[j]));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

/* One operation, timed as TimeOps() does. */
static PetscErrorCode TimeOp(MPI_Comm comm, const Op *op, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double *tcall, PetscInt *repsused)
{
  PetscFunctionBeginUser;
  PetscCall(TimeOps(comm, 1, op, warmup, reps, trials, budget, tcall, repsused, NULL));
  PetscFunctionReturn(0);
}

/* MatMult (add = PETSC_FALSE) or MatMultAdd of A, timed as TimeOp() does. */
PetscErrorCode TimeProduct(Mat A, Vec x, Vec z, Vec y, PetscBool add, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double *tcall, PetscInt *repsused)
{
  Op op = {add ? OP_MULTADD : OP_MULT, A, x, z, y, NULL, NULL};

  PetscFunctionBeginUser;
  PetscCall(TimeOp(PetscObjectComm((PetscObject)A), &op, warmup, reps, trials, budget, tcall, repsused));
  PetscFunctionReturn(0);
}

/* ||y - yref||_inf / ||yref||_inf; y may have another Vec type than yref. */
PetscErrorCode RelDiff(Vec y, Vec yref, double *rel)
{
  Vec       d;
  PetscReal nd, nr;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(yref, &d));
  PetscCall(VecCopy(y, d));
  PetscCall(VecAXPY(d, -1.0, yref));
  PetscCall(VecNorm(d, NORM_INFINITY, &nd));
  PetscCall(VecNorm(yref, NORM_INFINITY, &nr));
  *rel = (double)(nr > 0.0 ? nd / nr : nd);
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

/* per-trial ratios a[k] / b[k]: median and quartiles */
PetscErrorCode TrialRatios(PetscInt trials, const double a[], const double b[], double *med, double *q1, double *q3)
{
  PetscReal *r;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(trials, &r));
  for (PetscInt k = 0; k < trials; k++) r[k] = (PetscReal)(a[k] / b[k]);
  PetscCall(Median(trials, r, med));
  *q1 = (double)r[trials / 4];
  *q3 = (double)r[(3 * trials) / 4 < trials ? (3 * trials) / 4 : trials - 1];
  PetscCall(PetscFree(r));
  PetscFunctionReturn(0);
}

/*
  Two products timed for the busy-core case. On busy cores the operating system's turns make the
  first batch after the other product's systematically slower (whichever product came first), so:
  both run untimed for a while first, both get the same
  number of calls per batch (from the slower of the two), every batch follows one untimed call of its
  own product, and the order alternates from trial to trial. Medians per call as TimeOps gives.
*/
PetscErrorCode TimeAlternating(const Op ops[2], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double tcall[2], PetscInt repsused[2], double ttrial[])
{
  PetscReal *t;
  double     dt[2];
  PetscInt   n;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2 * trials, &t));
  for (int j = 0; j < 2; j++) PetscCall(TimeOnAllRanks(PETSC_COMM_SELF, &ops[j], PetscMax(warmup, 3), &dt[j]));
  n           = RepsForBudget(reps, trials, budget / 2, PetscMax(dt[0], dt[1]));
  repsused[0] = repsused[1] = n;
  for (PetscInt k = 0; k < trials; k++) {
    for (int i = 0; i < 2; i++) {
      const int j = (int)((k + i) % 2);
      double    d;
      PetscCall(RunOp(&ops[j]));
      PetscCall(TimeOnAllRanks(PETSC_COMM_SELF, &ops[j], n, &d));
      t[j * trials + k]      = d;
      ttrial[j * trials + k] = d;
    }
  }
  for (int j = 0; j < 2; j++) PetscCall(Median(trials, &t[j * trials], &tcall[j]));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}
