/* The busy-core case (-bench_loaded): seqbaij and seqbsrcustom while CPU-bound processes run on every CPU, and the fallback's cost on the idle machine. */
#include "bench_busy.h"
#include "bench_timing.h"

/* CPUs this process may run on (-1 if unknown): mpiexec binds ranks to cores by default. */
int AffinityCPUs(void)
{
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
#endif
  return -1;
}

#if defined(__linux__)
/* n CPU-bound processes beside this one, started as another program would be (posix_spawn, so that
   this process's memory is not shared copy-on-write with them, which alone slowed seqbaij 5x); each
   checks every ~0.1 s that its parent lives, so none outlives a benchmark that dies. */
static PetscErrorCode BusyStart(int n, pid_t pids[])
{
  char *const argv[] = {(char *)"sh", (char *)"-c", (char *)"p=$PPID; while kill -0 $p 2>/dev/null; do i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; done", NULL};

  PetscFunctionBeginUser;
  for (int i = 0; i < n; i++) PetscCheck(posix_spawnp(&pids[i], "sh", NULL, NULL, argv, environ) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "posix_spawnp(sh) failed for the busy-core case");
  PetscFunctionReturn(0);
}

static void BusyStop(int n, const pid_t pids[])
{
  for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
  for (int i = 0; i < n; i++) waitpid(pids[i], NULL, 0);
}
#endif

PetscErrorCode LoadedVsBAIJ(Mat base, Vec x, const char bsr_type[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, LoadedRow *row)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(row, sizeof(*row)));
#if defined(__linux__)
  {
    Mat            B[3]; /* seqbaij (the assembled matrix itself); seqbsrcustom; seqbsrcustom without the busy-core fallback */
    Vec            y[3];
    Op             ops[3];
    double        *tt, t[2];
    pid_t         *pids;
    PetscErrorCode ierr;

    row->busy   = AffinityCPUs() > 0 ? AffinityCPUs() : 1;
    row->trials = trials;
    PetscCall(PetscStrncpy(row->type, bsr_type, sizeof(row->type)));
    B[0] = base;
    PetscCall(PetscObjectReference((PetscObject)base));
    PetscCall(MatConvert(base, bsr_type, MAT_INITIAL_MATRIX, &B[1]));
    PetscCall(MatConvert(base, bsr_type, MAT_INITIAL_MATRIX, &B[2]));
    PetscCall(MatBSRCustomSetCPUBusyFallback(B[2], PETSC_FALSE));
    PetscCall(MatBSRCustomGetNumThreads(B[1], &row->threads));
    for (int k = 0; k < 3; k++) {
      PetscCall(MatCreateVecs(B[k], NULL, &y[k]));
      ops[k] = (Op){OP_MULT, B[k], x, NULL, y[k], NULL, NULL};
    }
    PetscCall(PetscMalloc2(2 * trials, &tt, row->busy, &pids));
    /* idle: with and without the fallback */
    PetscCall(TimeOps(PETSC_COMM_SELF, 2, &ops[1], warmup, reps, trials, budget, t, &row->reps[0], tt));
    row->t_on  = 1e3 * t[0];
    row->t_off = 1e3 * t[1];
    PetscCall(TrialRatios(trials, &tt[trials], &tt[0], &row->idle, &row->idle_q1, &row->idle_q3));
    /* busy: seqbaij and seqbsrcustom, a CPU-bound process on every CPU; stopped before any error returns */
    PetscCall(BusyStart((int)row->busy, pids));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = TimeAlternating(ops, warmup, reps, trials, budget, t, &row->reps[2], tt);
    PetscCall(PetscPopErrorHandler());
    BusyStop((int)row->busy, pids);
    PetscCall(ierr);
    row->t_baij = 1e3 * t[0];
    row->t_bsr  = 1e3 * t[1];
    PetscCall(TrialRatios(trials, &tt[0], &tt[trials], &row->ratio, &row->q1, &row->q3));
    PetscCall(PetscFree2(tt, pids));
    for (int k = 0; k < 3; k++) {
      PetscCall(VecDestroy(&y[k]));
      PetscCall(MatDestroy(&B[k]));
    }
  }
#else
  (void)base, (void)x, (void)bsr_type, (void)warmup, (void)reps, (void)trials, (void)budget;
#endif
  PetscFunctionReturn(0);
}
