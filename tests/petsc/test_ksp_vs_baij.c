static const char help[] = "KSP CG and GMRES with their usual preconditioners give the same iteration counts and residuals\n"
                           "on bsrcustom as on MATBAIJ. The system: a 3D block (bs = -bs, default 3) diffusion operator on an\n"
                           "-n^3 grid, 7-point coupling between nodes, SPD blocks.\n";

/* Coverage (cases, -test_list): iterations equal to MATBAIJ's, residual to 1e-6, solution to 1e-8,
   on the block diffusion system (-n 12, -bs 3) with a random right-hand side:
     cg_jacobi, cg_pbjacobi, cg_bjacobi (ILU(0)/ICC per rank), cg_none, gmres_bjacobi, gmres_jacobi,
     gmres_pbjacobi, gmres_ilu (one rank only: skipped on several), gmres_sor, bcgs_asm,
     preonly_lu_mumps (skipped where PETSc has no MUMPS)
   Ranks: 1, 2, 3; 1, 2, 4 with -mat_bsrcustom_backend cuda and 1 with cusparse (skipped without a
   GPU); valgrind (-n 6). */

#include "testutils.h"
#include <petscksp.h>
#include <string.h>

static PetscErrorCode Solve(TestContext *ctx, Mat A, KSPType ksptype, PCType pctype, MatSolverType solver, Vec b, Vec x, PetscInt *its, PetscReal *rnorm)
{
  KSP                ksp;
  PC                 pc;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, ksptype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  if (solver) PetscCall(PCFactorSetMatSolverType(pc, solver));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  TEST_CHECK(PETSC_COMM_WORLD, reason > 0, ctx->failures, "%s/%s did not converge (%s)", ksptype, pctype, KSPConvergedReasons[reason]);
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetResidualNorm(ksp, rnorm));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

/* The system all cases solve, made once (as a program would solve it with one KSP after another) */
typedef struct {
  Mat A, Ref; /* ours and MATBAIJ */
  Vec b, x, xr;
} System;

static const struct {
  KSPType       ksp;
  PCType        pc;
  MatSolverType solver;
} solvers[] = {
  {KSPCG, PCJACOBI, NULL}, {KSPCG, PCPBJACOBI, NULL},   {KSPCG, PCBJACOBI, NULL},                                                                  /* ILU(0)/ICC on each rank's block */
  {KSPCG, PCNONE, NULL},   {KSPGMRES, PCBJACOBI, NULL}, {KSPGMRES, PCJACOBI, NULL},         {KSPGMRES, PCPBJACOBI, NULL}, {KSPGMRES, PCILU, NULL}, /* one rank only */
  {KSPGMRES, PCSOR, NULL}, {KSPBCGS, PCASM, NULL},      {KSPPREONLY, PCLU, MATSOLVERMUMPS},                                                        /* where PETSc has MUMPS */
};

/* solvers[ctx->param] on ours and on MATBAIJ */
static PetscErrorCode SolveBoth(TestContext *ctx)
{
  const System  *sys = (const System *)ctx->data;
  const PetscInt c   = ctx->param;
  PetscInt       its, itsr;
  PetscReal      rn, rnr, rel;

  PetscFunctionBegin;
  if (ctx->size > 1 && !strcmp(solvers[c].pc, PCILU)) {
    PetscCall(TestSkip(ctx, "PCILU runs on one rank only"));
    PetscFunctionReturn(0);
  }
  if (solvers[c].solver) {
    PetscBool         found, foundm;
    MatSolverFunction f = NULL;
    PetscCall(MatSolverTypeGet(solvers[c].solver, ctx->size > 1 ? MATMPIBAIJ : MATSEQBAIJ, MAT_FACTOR_LU, &found, &foundm, &f));
    if (!f) {
      PetscCall(TestSkip(ctx, "this PETSc has no %s", solvers[c].solver));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(Solve(ctx, sys->Ref, solvers[c].ksp, solvers[c].pc, solvers[c].solver, sys->b, sys->xr, &itsr, &rnr));
  PetscCall(Solve(ctx, sys->A, solvers[c].ksp, solvers[c].pc, solvers[c].solver, sys->b, sys->x, &its, &rn));
  PetscCall(TestRelDiff(sys->x, sys->xr, &rel));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-7s %-9s %-6s iterations %4" PetscInt_FMT " (baij %4" PetscInt_FMT ")  residual %.6e (baij %.6e)  solution difference %.1e\n", solvers[c].ksp, solvers[c].pc, solvers[c].solver ? solvers[c].solver : "", its, itsr, (double)rn, (double)rnr, (double)rel));
  TEST_CHECK(PETSC_COMM_WORLD, its == itsr, ctx->failures, "%s/%s: %" PetscInt_FMT " iterations, BAIJ %" PetscInt_FMT, solvers[c].ksp, solvers[c].pc, its, itsr);
  TEST_CHECK(PETSC_COMM_WORLD, PetscAbsReal(rn - rnr) <= 1e-6 * rnr, ctx->failures, "%s/%s: residual %g, BAIJ %g", solvers[c].ksp, solvers[c].pc, (double)rn, (double)rnr);
  TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-8, ctx->failures, "%s/%s: solutions differ by %g", solvers[c].ksp, solvers[c].pc, (double)rel);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"cg_jacobi", SolveBoth, 0},      {"cg_pbjacobi", SolveBoth, 1}, {"cg_bjacobi", SolveBoth, 2}, {"cg_none", SolveBoth, 3},  {"gmres_bjacobi", SolveBoth, 4},     {"gmres_jacobi", SolveBoth, 5},
    {"gmres_pbjacobi", SolveBoth, 6}, {"gmres_ilu", SolveBoth, 7},   {"gmres_sor", SolveBoth, 8},  {"bcgs_asm", SolveBoth, 9}, {"preonly_lu_mumps", SolveBoth, 10},
  };
  PetscInt    n = 12, bs = 3;
  System      sys;
  PetscRandom rnd;
  int         status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCheck(PETSC_STATIC_ARRAY_LENGTH(cases) == PETSC_STATIC_ARRAY_LENGTH(solvers), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "a case for every solver");
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  {
    /* where run with -mat_bsrcustom_backend cuda without a GPU, the runner skips every case: the
       matrices are not made then (ours would refuse the backend) */
    PetscBool missing;
    PetscCall(TestGPUMissing(&missing, NULL, 0));
    if (!missing) {
      PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBAIJ, n, bs, &sys.Ref));
      PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, n, bs, &sys.A));
      PetscCall(MatCreateVecs(sys.Ref, &sys.x, &sys.b));
      PetscCall(VecDuplicate(sys.x, &sys.xr));
      PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
      PetscCall(VecSetRandom(sys.b, rnd));
      PetscCall(PetscRandomDestroy(&rnd));
    } else PetscCall(PetscMemzero(&sys, sizeof(sys)));
  }
  PetscCall(TestRunCases("ksp vs baij", PETSC_STATIC_ARRAY_LENGTH(cases), cases, &sys, &status));
  PetscCall(VecDestroy(&sys.x));
  PetscCall(VecDestroy(&sys.xr));
  PetscCall(VecDestroy(&sys.b));
  PetscCall(MatDestroy(&sys.A));
  PetscCall(MatDestroy(&sys.Ref));
  PetscCall(PetscFinalize());
  return status;
}
