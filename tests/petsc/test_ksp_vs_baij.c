static const char help[] = "KSP CG and GMRES with their usual preconditioners give the same iteration counts and residuals\n"
                           "on bsrcustom as on MATBAIJ. The system: a 3D block (bs = -bs, default 3) diffusion operator on an\n"
                           "-n^3 grid, 7-point coupling between nodes, SPD blocks.\n";

#include "testutils.h"
#include <petscksp.h>
#include <string.h>

static PetscInt failures = 0;

/* SPD block operator: diagonal block D = 6 I + C, off-diagonal blocks -I - C/8 per neighbour, with C
   a fixed symmetric coupling (so it is a genuine block system, not bs decoupled scalar ones). */
static PetscErrorCode Assemble(MatType type, PetscInt n, PetscInt bs, Mat *A)
{
  PetscInt     N = n * n * n, *d;
  PetscScalar *diag, *off;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N * bs, N * bs));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetUp(*A));
  PetscCall(PetscMalloc3(N, &d, bs * bs, &diag, bs * bs, &off));
  for (PetscInt i = 0; i < N; i++) d[i] = 7;
  PetscCall(MatXAIJSetPreallocation(*A, bs, d, d, NULL, NULL));
  for (PetscInt r = 0; r < bs; r++) {
    for (PetscInt c = 0; c < bs; c++) {
      PetscScalar coupling = (r == c) ? 0.0 : 0.5 / (1.0 + PetscAbsInt(r - c));
      diag[r * bs + c]     = (r == c ? 6.0 + 0.1 * r : 0.0) + coupling;
      off[r * bs + c]      = (r == c ? -1.0 : 0.0) - coupling / 8.0;
    }
  }
  {
    PetscInt rs, re;
    PetscCall(MatGetOwnershipRange(*A, &rs, &re));
    for (PetscInt gi = rs / bs; gi < re / bs; gi++) {
      PetscInt i = gi % n, j = (gi / n) % n, k = gi / (n * n);
      PetscInt nb[6], cnt = 0;
      if (i > 0) nb[cnt++] = gi - 1;
      if (i < n - 1) nb[cnt++] = gi + 1;
      if (j > 0) nb[cnt++] = gi - n;
      if (j < n - 1) nb[cnt++] = gi + n;
      if (k > 0) nb[cnt++] = gi - n * n;
      if (k < n - 1) nb[cnt++] = gi + n * n;
      PetscCall(MatSetValuesBlocked(*A, 1, &gi, 1, &gi, diag, INSERT_VALUES));
      for (PetscInt q = 0; q < cnt; q++) PetscCall(MatSetValuesBlocked(*A, 1, &gi, 1, &nb[q], off, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree3(d, diag, off));
  PetscFunctionReturn(0);
}

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
  PetscCall(Assemble(MATBAIJ, n, bs, &Ref));
  PetscCall(Assemble(MATBSRCUSTOM, n, bs, &A));
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
