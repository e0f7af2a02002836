/* One rank with threads against all ranks (-bench_one_rank). */
#include "bench_one_rank.h"
#include "bench_timing.h"

/* Every rank but 0 calls this while rank 0 works alone; rank 0 calls it when done. The sleepers wake
   every 10 ms, seldom enough that their wake-ups take next to nothing from the threads of rank 0 that
   share their cores (waking every 0.1 ms visibly slowed rank 0's product where ranks share cores). */
static PetscErrorCode SleepUntilRankZeroIsDone(MPI_Comm comm)
{
  MPI_Request     req;
  int             done = 0;
  struct timespec ts   = {0, 10000000};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Ibarrier(comm, &req));
  for (;;) {
    PetscCallMPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    if (done) break;
    nanosleep(&ts, NULL);
  }
  PetscFunctionReturn(0);
}

/* Rank 0's CPU sets: its own (what mpiexec bound it to) and the union of all ranks' sets. Rank 0 takes
   the union only while it works alone, so that its threads may run on the sleeping ranks' cores, and
   its own set back before the ranks work together. */
typedef struct {
  PetscBool differ;
#if defined(__linux__)
  cpu_set_t own, all;
#endif
} RankZeroCPUs;

static PetscErrorCode RankZeroCPUsGet(MPI_Comm comm, RankZeroCPUs *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(c, sizeof(*c)));
#if defined(__linux__)
  {
    int         ok = sched_getaffinity(0, sizeof(c->own), &c->own) == 0;
    PetscMPIInt rank;

    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm));
    if (!ok) PetscFunctionReturn(0);
    c->all = c->own;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &c->all, (int)sizeof(c->all), MPI_BYTE, MPI_BOR, comm));
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    c->differ = (PetscBool)(rank == 0 && !CPU_EQUAL(&c->all, &c->own));
  }
#endif
  PetscFunctionReturn(0);
}

static PetscErrorCode RankZeroCPUsUse(const RankZeroCPUs *c, PetscBool all)
{
  PetscFunctionBeginUser;
#if defined(__linux__)
  if (c->differ) PetscCheck(sched_setaffinity(0, sizeof(cpu_set_t), all ? &c->all : &c->own) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "sched_setaffinity failed");
#endif
  PetscFunctionReturn(0);
}

/* Seconds per call of n calls of op on rank 0 alone, on every ranks' CPUs (the other ranks sleep); rank 0's result, sent to all. */
static PetscErrorCode TimeOnRankZero(MPI_Comm comm, const RankZeroCPUs *cpus, const Op *op, PetscInt n, double *dt)
{
  PetscMPIInt rank;
  double      t0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Barrier(comm));
  *dt = 0.0;
  if (rank == 0) {
    PetscCall(RankZeroCPUsUse(cpus, PETSC_TRUE));
    t0 = MPI_Wtime();
    for (PetscInt i = 0; i < n; i++) PetscCall(RunOp(op));
    *dt = (MPI_Wtime() - t0) / (double)n;
    PetscCall(RankZeroCPUsUse(cpus, PETSC_FALSE));
  }
  PetscCall(SleepUntilRankZeroIsDone(comm));
  PetscCallMPI(MPI_Bcast(dt, 1, MPI_DOUBLE, 0, comm));
  PetscFunctionReturn(0);
}

/*
  spec, seed: the matrix (as assembled in mpibaij); x: its input, filled by FillRandom(x, seed).
  Returns with row->threads = 0 (and a message) when the ranks do not share one node.
*/
PetscErrorCode OneRankVsRanks(const MatrixSpec *spec, PetscInt seed, Mat mpibaij, Vec x, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, OneRankRow *row)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)mpibaij), node;
  PetscMPIInt  rank, size, nodesize;
  MatrixSpec   whole = *spec;
  Mat          sbaij = NULL, sbsr = NULL;
  Vec          y, xs = NULL, ys = NULL, y0 = NULL;
  VecScatter   tozero;
  Op           ops[3];
  PetscInt     nw = PetscMax(warmup, 1), j, k;
  double       dt, *tk;
  PetscReal   *r1, *r2, *tj;
  RankZeroCPUs cpus;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(row, sizeof(*row)));
  PetscCall(PetscStrncpy(row->matrix, spec->name, sizeof(row->matrix)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nodesize));
  PetscCallMPI(MPI_Comm_free(&node));
  if (nodesize != size) {
    PetscCall(PetscPrintf(comm, "  1 rank x %d threads against MATBAIJ on %d ranks: not measured (the ranks are not on one node)\n", (int)size, (int)size));
    PetscFunctionReturn(0);
  }
  row->threads = size;

  /* rank 0: the whole matrix, as seqbaij and seqbsrcustom; the other ranks hold empty vectors */
  PetscCall(MatCreateVecs(mpibaij, NULL, &y));
  PetscCall(VecScatterCreateToZero(y, &tozero, &y0));
  if (rank == 0) {
    whole.rstart = 0;
    whole.nlocal = spec->nbrows;
    PetscCall(AssembleBAIJOn(PETSC_COMM_SELF, &whole, seed, &sbaij));
    PetscCall(MatConvert(sbaij, MATSEQBSRCUSTOM, MAT_INITIAL_MATRIX, &sbsr));
    PetscCall(MatBSRCustomSetNumThreads(sbsr, size));
    PetscCall(PetscStrncpy(row->type, MATSEQBSRCUSTOM, sizeof(row->type)));
    PetscCall(MatCreateVecs(sbaij, &xs, &ys));
    PetscCall(FillRandom(xs, seed));
  }
  PetscCall(RankZeroCPUsGet(comm, &cpus));

  /* the three products agree with mpibaij's to rounding */
  PetscCall(MatMult(mpibaij, x, y));
  PetscCall(VecScatterBegin(tozero, y, y0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(tozero, y, y0, INSERT_VALUES, SCATTER_FORWARD));
  if (rank == 0) {
    double d;
    PetscCall(RankZeroCPUsUse(&cpus, PETSC_TRUE));
    PetscCall(MatMult(sbaij, xs, ys));
    PetscCall(RelDiff(ys, y0, &d));
    row->diff = d;
    PetscCall(MatMult(sbsr, xs, ys));
    PetscCall(RelDiff(ys, y0, &d));
    row->diff = PetscMax(row->diff, d);
    PetscCall(RankZeroCPUsUse(&cpus, PETSC_FALSE));
  }
  PetscCallMPI(MPI_Bcast(&row->diff, 1, MPI_DOUBLE, 0, comm));
  PetscCheck(row->diff < 1e-13, comm, PETSC_ERR_PLIB, "Matrix %s: seqbaij / seqbsrcustom products on rank 0 differ from mpibaij's by %g (relative max norm)", spec->name, row->diff);

  ops[0] = (Op){OP_MULT, mpibaij, x, NULL, y, NULL, NULL};
  ops[1] = (Op){OP_MULT, sbaij, xs, NULL, ys, NULL, NULL};
  ops[2] = (Op){OP_MULT, sbsr, xs, NULL, ys, NULL, NULL};
  /* calls per trial: as TimeOps() chooses them, from the warm-up calls */
  for (j = 0; j < 3; j++) {
    if (j == 0) PetscCall(TimeOnAllRanks(comm, &ops[j], nw, &dt));
    else PetscCall(TimeOnRankZero(comm, &cpus, &ops[j], nw, &dt));
    row->reps[j] = RepsForBudget(reps, trials, budget, dt);
  }
  PetscCall(PetscMalloc4(3 * trials, &tk, trials, &r1, trials, &r2, trials, &tj));
  for (k = 0; k < trials; k++) {
    PetscCall(TimeOnAllRanks(comm, &ops[0], row->reps[0], &tk[k]));
    PetscCall(TimeOnRankZero(comm, &cpus, &ops[1], row->reps[1], &tk[trials + k]));
    PetscCall(TimeOnRankZero(comm, &cpus, &ops[2], row->reps[2], &tk[2 * trials + k]));
    r1[k] = tk[k] / tk[2 * trials + k];
    r2[k] = tk[trials + k] / tk[2 * trials + k];
  }
  for (j = 0; j < 3; j++) {
    for (k = 0; k < trials; k++) tj[k] = tk[j * trials + k];
    PetscCall(Median(trials, tj, &row->t[j]));
  }
  PetscCall(Median(trials, r2, &row->vs_one));
  PetscCall(Median(trials, r1, &row->vs_ranks)); /* sorts r1 */
  row->vs_ranks_q1 = r1[trials / 4];
  row->vs_ranks_q3 = r1[(3 * trials) / 4];
  PetscCall(PetscFree4(tk, r1, r2, tj));

  PetscCall(VecScatterDestroy(&tozero));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xs));
  PetscCall(VecDestroy(&ys));
  PetscCall(MatDestroy(&sbsr));
  PetscCall(MatDestroy(&sbaij));
  PetscFunctionReturn(0);
}
