static const char help[] = "KSP CG and GMRES with their usual preconditioners give the same iteration counts and residuals\n"
                           "on bsrcustom as on MATBAIJ. The system: a 3D block (bs = -bs, default 3) diffusion operator on an\n"
                           "-n^3 grid, 7-point coupling between nodes, SPD blocks.\n";

#include "testutils.h"
#include <petscksp.h>
#include <string.h>

static PetscInt failures = 0;

static PetscErrorCode Solve(Mat A, KSPType ksptype, PCType pctype, MatSolverType solver, Vec b, Vec x, PetscInt *its, PetscReal *rnorm)
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
  TEST_CHECK(PETSC_COMM_WORLD, reason > 0, failures, "%s/%s did not converge (%s)", ksptype, pctype, KSPConvergedReasons[reason]);
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetResidualNorm(ksp, rnorm));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    n = 12, bs = 3;
  Mat         A, Ref;
  Vec         b, x, xr;
  PetscRandom rnd;
  const struct {
    KSPType       ksp;
    PCType        pc;
    MatSolverType solver;
  } cases[] = {
    {KSPCG,      PCJACOBI,   NULL          },
    {KSPCG,      PCPBJACOBI, NULL          },
    {KSPCG,      PCBJACOBI,  NULL          }, /* ILU(0)/ICC on each rank's block */
    {KSPCG,      PCNONE,     NULL          },
    {KSPGMRES,   PCBJACOBI,  NULL          },
    {KSPGMRES,   PCJACOBI,   NULL          },
    {KSPGMRES,   PCPBJACOBI, NULL          },
    {KSPGMRES,   PCILU,      NULL          }, /* one rank only */
    {KSPGMRES,   PCSOR,      NULL          },
    {KSPBCGS,    PCASM,      NULL          },
    {KSPPREONLY, PCLU,       MATSOLVERMUMPS}, /* where PETSc has MUMPS */
  };
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  TEST_RETURN_IF_GPU_MISSING(); /* where run with -mat_bsrcustom_backend cuda */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBAIJ, n, bs, &Ref));
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, n, bs, &A));
  PetscCall(MatCreateVecs(Ref, &x, &b));
  PetscCall(VecDuplicate(x, &xr));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(b, rnd));

  for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(cases); c++) {
    PetscInt  its, itsr;
    PetscReal rn, rnr, rel;
    if (size > 1 && !strcmp(cases[c].pc, PCILU)) continue;
    if (cases[c].solver) {
      PetscBool         found, foundm;
      MatSolverFunction f = NULL;
      PetscCall(MatSolverTypeGet(cases[c].solver, size > 1 ? MATMPIBAIJ : MATSEQBAIJ, MAT_FACTOR_LU, &found, &foundm, &f));
      if (!f) continue;
    }
    PetscCall(Solve(Ref, cases[c].ksp, cases[c].pc, cases[c].solver, b, xr, &itsr, &rnr));
    PetscCall(Solve(A, cases[c].ksp, cases[c].pc, cases[c].solver, b, x, &its, &rn));
    PetscCall(TestRelDiff(x, xr, &rel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-7s %-9s %-6s iterations %4" PetscInt_FMT " (baij %4" PetscInt_FMT ")  residual %.6e (baij %.6e)  solution difference %.1e\n", cases[c].ksp, cases[c].pc, cases[c].solver ? cases[c].solver : "", its, itsr, (double)rn, (double)rnr, (double)rel));
    TEST_CHECK(PETSC_COMM_WORLD, its == itsr, failures, "%s/%s: %" PetscInt_FMT " iterations, BAIJ %" PetscInt_FMT, cases[c].ksp, cases[c].pc, its, itsr);
    TEST_CHECK(PETSC_COMM_WORLD, PetscAbsReal(rn - rnr) <= 1e-6 * rnr, failures, "%s/%s: residual %g, BAIJ %g", cases[c].ksp, cases[c].pc, (double)rn, (double)rnr);
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-8, failures, "%s/%s: solutions differ by %g", cases[c].ksp, cases[c].pc, (double)rel);
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ksp: %" PetscInt_FMT " failures\n", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
