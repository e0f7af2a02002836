/* Fixed-iteration KSP solves with every type (-bench_ksp). */
#include "bench_ksp.h"
#include "bench_timing.h"

/* One KSPSolve(ksp, b, x) from x = 0 on every rank of its communicator after an MPI_Barrier: the slowest
   rank's seconds; with CUDA vectors, the device has finished the solve when the clock stops. Any ending
   but the one of a solve that made all its iterations is an error. */
static PetscErrorCode TimeSolve(const char matrix[], KSP ksp, Vec b, Vec x, PetscInt its, double *dt)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)ksp);
  const Op           sync = {OP_MULT, NULL, NULL, NULL, x, NULL, NULL}; /* only for SyncDevice(): x is what the solve writes */
  KSPConvergedReason reason;
  PetscInt           n;
  double             t0, mine;
  Mat                A;
  MatType            mtype;

  PetscFunctionBeginUser;
  PetscCall(VecZeroEntries(x));
  PetscCall(SyncDevice(&sync));
  PetscCallMPI(MPI_Barrier(comm));
  t0 = MPI_Wtime();
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(SyncDevice(&sync));
  mine = MPI_Wtime() - t0;
  PetscCallMPI(MPI_Allreduce(&mine, dt, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &n));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(MatGetType(A, &mtype));
  PetscCheck((reason == KSP_DIVERGED_ITS || reason == KSP_CONVERGED_ITS) && n == its, comm, PETSC_ERR_NOT_CONVERGED, "Matrix %s, type %s: -bench_ksp's KSPSolve stopped after %" PetscInt_FMT " of %" PetscInt_FMT " iterations with reason %s; the fixed-iteration timing needs all of them", matrix, mtype, n, its, KSPConvergedReasons[reason]);
  PetscFunctionReturn(0);
}

/* The solver of -bench_ksp on A: ksp_type with pc_type, exactly its iterations (*restart: 30 for
   the GMRES family, preconditioned on the right, else left as it is). */
static PetscErrorCode KSPCreateFixedIterations(Mat A, const char ksp_type[], const char pc_type[], PetscInt its, KSP *ksp, PetscInt *restart)
{
  PC pc;
  PetscErrorCode (*setrestart)(KSP, PetscInt) = NULL;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, ksp_type));
  PetscCall(PetscObjectQueryFunction((PetscObject)*ksp, "KSPGMRESSetRestart_C", &setrestart));
  if (setrestart) { /* the GMRES family, preconditioned on the right: it minimises ||b - A x|| itself */
    PetscCall(KSPGMRESSetRestart(*ksp, 30));
    PetscCall(KSPSetPCSide(*ksp, PC_RIGHT));
    *restart = 30;
  }
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, pc_type));
  PetscCall(KSPSetTolerances(*ksp, 0.0, 0.0, 1e300, its));
  PetscCall(KSPSetInitialGuessNonzero(*ksp, PETSC_FALSE));
  PetscCall(KSPSetUp(*ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode PrintKSPRows(MPI_Comm comm, const MatrixSpec *spec, const KSPRow rows[], PetscInt ntypes, PetscInt its, PetscInt trials, const char ref_type[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "  KSP solves, %s: %s%s + %s, exactly %" PetscInt_FMT " iterations from x0 = 0 (rtol = atol = 0: a fixed-iteration timing of the solver's products, orthogonalisation and PC, not of convergence); b = A u for one random u; medians of %" PetscInt_FMT " interleaved trials of the slowest rank's KSPSolve; ratio = time of %s / time of this type (> 1: faster); reldiff = max relative difference of the solution to %s's\n",
                        spec->name, rows[0].ksp_type, rows[0].restart ? "(30)" : "", rows[0].pc_type, its, trials, ref_type, ref_type));
  PetscCall(PetscPrintf(comm, "ksp %-10s %-14s %-8s %-10s %5s %10s %9s %8s %9s %10s\n", "matrix", "type", "ksp", "pc", "its", "solve ms", "ms/it", "ratio", "reldiff", "residual"));
  for (PetscInt j = 0; j < ntypes; j++) {
    const KSPRow *r = &rows[j];
    PetscCall(PetscPrintf(comm, "ksp %-10s %-14s %-8s %-10s %5" PetscInt_FMT " %10.3f %9.4f %8.3f %9.1e %10.4e\n", r->matrix, r->type, r->ksp_type, r->pc_type, r->its, 1e3 * r->solve_s, 1e3 * r->solve_s / (double)r->its, r->ratio, r->diff, r->relres));
  }
  PetscFunctionReturn(0);
}

/*
  The cost of a solver's iterations with each type of -bench_types: <its> iterations of ksp_type
  (GMRES(30) by default) preconditioned by pc_type (PCPBJACOBI by default) on A x = b from x0 = 0.
  b = A u for u = FillRandom(seed), computed with the first type and copied to the others, so that
  all types solve the same system and their solutions differ only by the rounding of their own
  arithmetic, amplified by the solver. GMRES is preconditioned on the right, so that it minimises
  ||b - A x|| itself: preconditioned on the left, PBJacobi on the random 27-point blocks lets the
  true residuals of the types drift apart over a few hundred iterations by far more than the check
  allows, and the solutions more. The check is on the residuals ||b - A x|| / ||b||, which must agree
  to 1e-4 (relative);
  the solutions' difference is printed. rtol = atol = 0 and
  a divergence tolerance of 1e300 keep the default convergence test from stopping a solve early (no
  KSPSetConvergenceTest is needed): every solve makes exactly <its> iterations, and the thesis matrix,
  nearly singular, would not converge anyway. So this is a fixed-iteration timing of what one
  iteration costs (products, orthogonalisation, PC), not a convergence study. The solvers are set up
  here only, without KSPSetFromOptions, so that every type runs the same solver whatever else the
  options database holds.
  Every type has its own matrix (converted from base as the MatMult section does, the base itself for
  its own type) and vectors from MatCreateVecs (CUDA vectors for GPU types), all alive at once so that
  the trials can be interleaved as TimeOps() does: after one untimed solve per type (KSPSetUp and the
  PC's setup, first touches, device allocations), trial k times one solve of every type, beginning
  with type k mod ntypes, so that drifts of the machine and the place in the round affect all alike.
*/
PetscErrorCode BenchKSP(const MatrixSpec *spec, Mat base, PetscInt ntypes, char *const types[], PetscInt its, const char ksp_type[], const char pc_type[], PetscInt seed, PetscInt trials, KSPRow rows[])
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)base);
  Mat       *A;
  KSP       *ksp;
  Vec       *b, *x, u;
  PetscReal *t;
  PetscInt   i, j, k;
  double     dt, maxdiff = 0.0;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc5(ntypes, &A, ntypes, &ksp, ntypes, &b, ntypes, &x, ntypes * trials, &t));
  for (j = 0; j < ntypes; j++) {
    KSPRow   *r = &rows[j];
    PetscBool same;
    MatType   mtype;
    KSPType   kt;
    PCType    pt;
    PC        pc;

    PetscCall(PetscMemzero(r, sizeof(*r)));
    PetscCall(IsBaseType(base, types[j], &same));
    if (same) {
      A[j] = base;
      PetscCall(PetscObjectReference((PetscObject)base));
    } else PetscCall(MatConvert(base, types[j], MAT_INITIAL_MATRIX, &A[j]));
    PetscCall(MatGetType(A[j], &mtype));
    PetscCall(PetscStrncpy(r->matrix, spec->name, sizeof(r->matrix)));
    PetscCall(PetscStrncpy(r->type, mtype, sizeof(r->type)));
    PetscCall(MatCreateVecs(A[j], &x[j], &b[j]));
    if (j == 0) {
      PetscCall(VecDuplicate(x[0], &u));
      PetscCall(FillRandom(u, seed));
      PetscCall(MatMult(A[0], u, b[0]));
      PetscCall(VecDestroy(&u));
    } else PetscCall(VecCopy(b[0], b[j]));

    PetscCall(KSPCreateFixedIterations(A[j], ksp_type, pc_type, its, &ksp[j], &r->restart));
    PetscCall(KSPGetPC(ksp[j], &pc));
    PetscCall(TimeSolve(spec->name, ksp[j], b[j], x[j], its, &dt)); /* warm-up */
    PetscCall(KSPGetType(ksp[j], &kt));
    PetscCall(PCGetType(pc, &pt));
    PetscCall(PetscStrncpy(r->ksp_type, kt, sizeof(r->ksp_type)));
    PetscCall(PetscStrncpy(r->pc_type, pt, sizeof(r->pc_type)));
    r->its    = its;
    r->trials = trials;
  }
  for (k = 0; k < trials; k++)
    for (i = 0; i < ntypes; i++) {
      j = (k + i) % ntypes;
      PetscCall(TimeSolve(spec->name, ksp[j], b[j], x[j], its, &dt));
      t[j * trials + k] = dt;
    }
  for (j = 0; j < ntypes; j++) {
    Vec       r;
    PetscReal nr, nb;

    PetscCall(Median(trials, &t[j * trials], &rows[j].solve_s));
    rows[j].ratio = rows[0].solve_s / rows[j].solve_s;
    if (j > 0) PetscCall(RelDiff(x[j], x[0], &rows[j].diff));
    /* ||b - A x|| / ||b||, each type with its own matrix */
    PetscCall(VecDuplicate(b[j], &r));
    PetscCall(MatMult(A[j], x[j], r));
    PetscCall(VecAYPX(r, -1.0, b[j]));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(VecNorm(b[j], NORM_2, &nb));
    PetscCall(VecDestroy(&r));
    rows[j].relres = nr / nb;
    if (j > 0) maxdiff = PetscMax(maxdiff, PetscAbsReal(rows[j].relres - rows[0].relres) / rows[0].relres);
  }

  PetscCall(PrintKSPRows(comm, spec, rows, ntypes, its, trials, types[0]));

  for (j = 0; j < ntypes; j++) {
    PetscCall(KSPDestroy(&ksp[j]));
    PetscCall(VecDestroy(&x[j]));
    PetscCall(VecDestroy(&b[j]));
    PetscCall(MatDestroy(&A[j]));
  }
  PetscCall(PetscFree5(A, ksp, b, x, t));
  PetscCheck(maxdiff <= 1e-4, comm, PETSC_ERR_PLIB, "Matrix %s: after the -bench_ksp solves, ||b - A x|| / ||b|| differs from type %s's by %g (relative), more than 1e-4: the types do not compute the same iterations", spec->name, types[0], maxdiff);
  PetscFunctionReturn(0);
}
