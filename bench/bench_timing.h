/* Timing (bench_timing.c): one timed operation, and the medians, budgets and interleaved trials every
   measurement of the benchmark goes through. */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include "bench_base.h"

/* One timed operation: MatMult(A, x, y), MatMultAdd(A, x, z, y), or the halo exchange x -> y through sc. */
typedef enum {
  OP_MULT,
  OP_MULTADD,
  OP_SCATTER,
  OP_LOCALGHOST,    /* the local then the ghost product of an mpibsrcustom rank, no exchange */
  OP_MULTTRANSPOSE, /* MatMultTranspose(A, x, y) */
  OP_MATMATMULT     /* MatProductNumeric(B) of B = MatMatMult(A, dense, MAT_INITIAL_MATRIX): MatMatMult's MAT_REUSE_MATRIX step */
} OpKind;

typedef struct {
  OpKind     kind;
  Mat        A;
  Vec        x, z, y;
  VecScatter sc;
  Mat        B; /* OP_LOCALGHOST: the ghost block (A the local block), z its input; OP_MATMATMULT: the product */
} Op;

static inline PetscErrorCode RunOp(const Op *op)
{
  PetscFunctionBeginUser;
  switch (op->kind) {
  case OP_MULT:
    PetscCall(MatMult(op->A, op->x, op->y));
    break;
  case OP_MULTADD:
    PetscCall(MatMultAdd(op->A, op->x, op->z, op->y));
    break;
  case OP_SCATTER:
    PetscCall(VecScatterBegin(op->sc, op->x, op->y, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(op->sc, op->x, op->y, INSERT_VALUES, SCATTER_FORWARD));
    break;
  case OP_LOCALGHOST:
    PetscCall(MatMult(op->A, op->x, op->y));
    PetscCall(MatMultAdd(op->B, op->z, op->y, op->y));
    break;
  case OP_MULTTRANSPOSE:
    PetscCall(MatMultTranspose(op->A, op->x, op->y));
    break;
  case OP_MATMATMULT:
    PetscCall(MatProductNumeric(op->B));
    break;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode Median(PetscInt n, PetscReal t[], double *med);
PetscErrorCode IsDeviceVec(Vec v, PetscBool *dev);
PetscErrorCode SyncDevice(const Op *op);
PetscErrorCode TimeOnAllRanks(MPI_Comm comm, const Op *op, PetscInt n, double *dt);
PetscInt       RepsForBudget(PetscInt reps, PetscInt trials, PetscReal budget, double dt);
PetscErrorCode TimeOps(MPI_Comm comm, PetscInt nops, const Op ops[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double tcall[], PetscInt repsused[], double ttrial[]);
PetscErrorCode TimeProduct(Mat A, Vec x, Vec z, Vec y, PetscBool add, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double *tcall, PetscInt *repsused);
PetscErrorCode RelDiff(Vec y, Vec yref, double *rel);
PetscErrorCode TrialRatios(PetscInt trials, const double a[], const double b[], double *med, double *q1, double *q3);
PetscErrorCode TimeAlternating(const Op ops[2], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double tcall[2], PetscInt repsused[2], double ttrial[]);

#endif
