static const char help[] = "MATSOLVERPETSC factorizations of a singular seqbsrcustom matrix (exactly zero rows, columns and\n"
                           "blocks, as PCGAMG's coarsest operators have) with a zero-pivot shift give MATAIJ's solution; without\n"
                           "a shift they fail as MATAIJ's do (zero pivot: a PC failure, no crash).\n";

/* Coverage (cases, -test_list), one rank, against the same matrix in MATAIJ (explicit zeros kept):
   a symmetric block tridiagonal matrix, 8 block rows, whose point rows and columns are exactly zero at
   the last point of block 1, the first point of block 3 and every point of block 5 (its diagonal
   block stored, all zeros); the right-hand side A y (zero on those rows). KSPPREONLY with
     lu_<shift>_bs<k>      PCLU, -pc_factor_shift_type nonzero|inblocks|positive_definite, bs 6
                           (the 6 x 6 kernel, which cannot shift a block's last pivot), 3, 8 (the
                           generic kernel, which shifts none) and 1 (BAIJ's scalar path, which shifts)
     lu_nd_inblocks_bs6    the same with PCLU's default ordering (nested dissection of the blocks)
     lu_<nd,rcm,>_inblocks_dense_bs6  every block stored (MATAIJ's inodes cross blocks), orderings
                           nested dissection, reverse Cuthill-McKee and natural
     ilu_<shift>_bs<k>     PCILU (ILU(0)), bs 6 and 3
     cholesky_<shift>_bs6  PCCHOLESKY, icc_bs6: PCICC with its default shift (positive_definite)
     *_new_values_bs6      LU (nested dissection, every block) and ILU: solved again after A's values
                           changed (MatScale), the numeric phase on the AIJ copy brought up to date
     noshift_lu_bs<k>, noshift_lu_nd_dense_bs6  PCLU without a shift: DIVERGED_PC_FAILED with a zero
                           pivot, as MATAIJ
   Natural ordering unless named; solutions equal to 1e-10 (relative, max norm); residuals of the
   complete factorizations with nonzero or inblocks below 1e-10 (the shift touches only the zero rows);
   the factor is MATAIJ's where blocks of 2 or more ask for a shift, BAIJ's otherwise. */

#include "testutils.h"
#include <petscksp.h>
#include <string.h>

static const PetscInt nb = 8;

/* point (block b, component k) of a matrix in blocks of bs: exactly zero row and column? */
static PetscBool Dead(PetscInt bs, PetscInt b, PetscInt k)
{
  return (PetscBool)((b == 1 && k == bs - 1) || (b == 3 && k == 0) || b == 5);
}

static PetscErrorCode SingularMatrix(MatType type, PetscInt bs, PetscBool dense, PetscBool inodes, Mat *A)
{
  PetscInt    *nnz;
  PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, nb * bs, nb * bs, nb * bs, nb * bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(PetscMalloc2(nb, &nnz, bs * bs, &v));
  for (PetscInt i = 0; i < nb; i++) nnz[i] = dense ? nb : 1 + (i > 0) + (i < nb - 1);
  PetscCall(MatXAIJSetPreallocation(*A, bs, nnz, NULL, NULL, NULL));
  if (!inodes) PetscCall(MatSetOption(*A, MAT_USE_INODES, PETSC_FALSE));
  for (PetscInt i = 0; i < nb; i++) {
    for (PetscInt j = dense ? 0 : PetscMax(i - 1, 0); j <= (dense ? nb - 1 : PetscMin(i + 1, nb - 1)); j++) {
      for (PetscInt r = 0; r < bs; r++) {
        for (PetscInt c = 0; c < bs; c++) {
          PetscScalar a;
          if (i == j) a = r == c ? 4.0 + 2 * bs : -1.0 / (1 + r + c);                   /* symmetric, diagonally dominant */
          else a = -0.5 / ((1 + PetscAbsInt(r - c) + (i + j) % 3) * (i - j) * (i - j)); /* symmetric: (i, j) and (j, i) alike */
          if (Dead(bs, i, r) || Dead(bs, j, c)) a = 0.0;
          v[r * bs + c] = a;
        }
      }
      PetscCall(MatSetValuesBlocked(*A, 1, &i, 1, &j, v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(PetscFree2(nnz, v));
  PetscFunctionReturn(0);
}

typedef struct {
  PCType             pc;
  MatFactorShiftType shift; /* PETSC_DECIDE: the PC's default */
  PetscInt           bs;
  MatOrderingType    ordering; /* NULL: the PC's default (nested dissection for LU) */
  PetscBool          dense;    /* every block stored: rows of neighbouring blocks alike, so AIJ's inodes cross blocks */
  PetscBool          again;    /* solved once more after new values (A scaled by 2): the numeric phase again */
} Setup;

/* KSPPREONLY with s on A: x, the reason, the PC's failure, the factor's type */
static PetscErrorCode Solve(Mat A, const Setup *s, Vec b, Vec x, KSPConvergedReason *reason, PCFailedReason *failed, char ftype[], size_t len, PetscInt *fbs)
{
  KSP     ksp;
  PC      pc;
  Mat     F;
  MatType t;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, s->pc));
  if (s->shift != (MatFactorShiftType)PETSC_DECIDE) PetscCall(PCFactorSetShiftType(pc, s->shift));
  if (s->ordering) PetscCall(PCFactorSetMatOrderingType(pc, s->ordering));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x));
  if (s->again) {
    PetscCall(MatScale(A, 2.0));
    PetscCall(KSPSolve(ksp, b, x));
  }
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(PCGetFailedReason(pc, failed));
  PetscCall(PCFactorGetMatrix(pc, &F));
  PetscCall(MatGetType(F, &t));
  PetscCall(PetscStrncpy(ftype, t, len));
  PetscCall(MatGetBlockSize(F, fbs));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(TestContext *ctx, const Setup *s, PetscBool solves)
{
  Mat                A, Ref;
  Vec                y, b, x, xr, r;
  PetscRandom        rnd;
  KSPConvergedReason reason, rreason;
  PCFailedReason     failed, rfailed;
  char               ftype[64], rftype[64];
  PetscInt           fbs, rfbs, wantbs;
  PetscBool          lu = (PetscBool)(!strcmp(s->pc, PCLU) || !strcmp(s->pc, PCILU));
  PetscReal          rel, res, bnorm;
  const char        *want;

  PetscFunctionBegin;
  /* PETSc 3.25.4's inode LU with positive_definite reads a diagonal it has not made (a crash): the
     reference without inodes there, as our AIJ copy always is */
  PetscCall(SingularMatrix(MATBSRCUSTOM, s->bs, s->dense, PETSC_TRUE, &A));
  PetscCall(SingularMatrix(MATAIJ, s->bs, s->dense, (PetscBool)(s->shift != MAT_SHIFT_POSITIVE_DEFINITE), &Ref));
  PetscCall(MatCreateVecs(Ref, &y, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &xr));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(VecSetRandom(y, rnd));
  PetscCall(MatMult(Ref, y, b)); /* zero on the zero rows: the shifted systems have a solution */
  PetscCall(Solve(A, s, b, x, &reason, &failed, ftype, sizeof(ftype), &fbs));
  PetscCall(Solve(Ref, s, b, xr, &rreason, &rfailed, rftype, sizeof(rftype), &rfbs));
  TEST_CHECK(PETSC_COMM_SELF, reason == rreason, ctx->failures, "KSP reason %s, MATAIJ's %s", KSPConvergedReasons[reason], KSPConvergedReasons[rreason]);
  TEST_CHECK(PETSC_COMM_SELF, failed == rfailed, ctx->failures, "PC failure %s, MATAIJ's %s", PCFailedReasons[failed], PCFailedReasons[rfailed]);
  if (solves) {
    TEST_CHECK(PETSC_COMM_SELF, reason > 0 && failed == PC_NOERROR, ctx->failures, "no solution: KSP %s, PC %s", KSPConvergedReasons[reason], PCFailedReasons[failed]);
    PetscCall(TestRelDiff(x, xr, &rel));
    TEST_CHECK(PETSC_COMM_SELF, rel <= 1e-10, ctx->failures, "solutions differ from MATAIJ's by %g", (double)rel);
    if ((!strcmp(s->pc, PCLU) || !strcmp(s->pc, PCCHOLESKY)) && (s->shift == MAT_SHIFT_NONZERO || s->shift == MAT_SHIFT_INBLOCKS)) { /* A x = b (A as last factored) */
      PetscCall(MatMult(A, x, r));
      PetscCall(VecAXPY(r, -1.0, b));
      PetscCall(VecNorm(r, NORM_INFINITY, &res));
      PetscCall(VecNorm(b, NORM_INFINITY, &bnorm));
      TEST_CHECK(PETSC_COMM_SELF, res <= 1e-10 * bnorm, ctx->failures, "residual %g of %g", (double)res, (double)bnorm);
    }
  } else {
    TEST_CHECK(PETSC_COMM_SELF, reason == KSP_DIVERGED_PC_FAILED && failed == PC_FACTOR_NUMERIC_ZEROPIVOT, ctx->failures, "no zero pivot reported: KSP %s, PC %s", KSPConvergedReasons[reason], PCFailedReasons[failed]);
  }
  /* AIJ's factors: seqaij (LU, ILU), seqsbaij in blocks of 1 (Cholesky, ICC); BAIJ's: seqbaij,
     seqsbaij in its blocks */
  want   = lu ? (s->bs > 1 && s->shift != MAT_SHIFT_NONE ? MATSEQAIJ : MATSEQBAIJ) : MATSEQSBAIJ;
  wantbs = !lu && s->bs > 1 && s->shift != MAT_SHIFT_NONE ? 1 : s->bs;
  TEST_CHECK(PETSC_COMM_SELF, !strcmp(ftype, want) && fbs == wantbs, ctx->failures, "the factor is %s in blocks of %" PetscInt_FMT ", expected %s in blocks of %" PetscInt_FMT, ftype, fbs, want, wantbs);
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

#define NAT MATORDERINGNATURAL
static const Setup setups[] = {
  {PCLU, MAT_SHIFT_NONZERO, 6, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_INBLOCKS, 6, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_POSITIVE_DEFINITE, 6, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_NONZERO, 3, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_INBLOCKS, 3, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_NONZERO, 8, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_INBLOCKS, 8, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_NONZERO, 1, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_INBLOCKS, 6, NULL, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_INBLOCKS, 6, NULL, PETSC_TRUE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_INBLOCKS, 6, MATORDERINGRCM, PETSC_TRUE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_INBLOCKS, 6, NAT, PETSC_TRUE, PETSC_FALSE},
  {PCILU, MAT_SHIFT_NONZERO, 6, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCILU, MAT_SHIFT_INBLOCKS, 6, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCILU, MAT_SHIFT_INBLOCKS, 3, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCCHOLESKY, MAT_SHIFT_NONZERO, 6, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCCHOLESKY, MAT_SHIFT_INBLOCKS, 6, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCICC, (MatFactorShiftType)PETSC_DECIDE, 6, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_NONE, 6, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_NONE, 3, NAT, PETSC_FALSE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_NONE, 6, NULL, PETSC_TRUE, PETSC_FALSE},
  {PCLU, MAT_SHIFT_INBLOCKS, 6, NULL, PETSC_TRUE, PETSC_TRUE},
  {PCILU, MAT_SHIFT_INBLOCKS, 6, NAT, PETSC_FALSE, PETSC_TRUE},
};

static PetscErrorCode Shifted(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(Compare(ctx, &setups[ctx->param], PETSC_TRUE));
  PetscFunctionReturn(0);
}

static PetscErrorCode NoShift(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(Compare(ctx, &setups[ctx->param], PETSC_FALSE));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"lu_nonzero_bs6", Shifted, 0},
    {"lu_inblocks_bs6", Shifted, 1},
    {"lu_positive_definite_bs6", Shifted, 2},
    {"lu_nonzero_bs3", Shifted, 3},
    {"lu_inblocks_bs3", Shifted, 4},
    {"lu_nonzero_bs8", Shifted, 5},
    {"lu_inblocks_bs8", Shifted, 6},
    {"lu_nonzero_bs1", Shifted, 7},
    {"lu_nd_inblocks_bs6", Shifted, 8},
    {"lu_nd_inblocks_dense_bs6", Shifted, 9},
    {"lu_rcm_inblocks_dense_bs6", Shifted, 10},
    {"lu_inblocks_dense_bs6", Shifted, 11},
    {"ilu_nonzero_bs6", Shifted, 12},
    {"ilu_inblocks_bs6", Shifted, 13},
    {"ilu_inblocks_bs3", Shifted, 14},
    {"cholesky_nonzero_bs6", Shifted, 15},
    {"cholesky_inblocks_bs6", Shifted, 16},
    {"icc_bs6", Shifted, 17},
    {"noshift_lu_bs6", NoShift, 18},
    {"noshift_lu_bs3", NoShift, 19},
    {"noshift_lu_nd_dense_bs6", NoShift, 20},
    {"lu_nd_inblocks_dense_new_values_bs6", Shifted, 21},
    {"ilu_inblocks_new_values_bs6", Shifted, 22},
  };
  int status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(TestRunCases("factor_shift", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
