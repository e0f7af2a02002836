static const char help[] = "What PETSc does on bsrcustom through its AIJ copy, against the same on MATAIJ and MATBAIJ: sub-matrices whose\n"
                           "index sets are not whole blocks (PCFIELDSPLIT by components), MatConvert to MATHYPRE (PCHYPRE) and MATIS,\n"
                           "PCGAMG's classical AMG. The system: a 3D block diffusion operator (bs 3) on an -n^3 grid.\n";

/* Coverage (cases, -test_list), bs 3, -n 8, against MATAIJ (and MATBAIJ where it can):
     submatrix_components: MatCreateSubMatrix with fields 0,1 by rows and field 2 by columns (and one
       rank of whole blocks while the others are not, where there are several ranks): AIJ results
       equal to MATAIJ's, again after new values with MAT_REUSE_MATRIX; whole blocks still ours
     submatrices_components: the same through MatCreateSubMatrices (sequential pieces, as ASM's)
     fieldsplit_additive, fieldsplit_multiplicative, fieldsplit_schur: PCFIELDSPLIT by components
       (-pc_fieldsplit_block_size 3, fields 0,1 and 2): MATAIJ's iterations and solution
     hypre_boomeramg: PCHYPRE BoomerAMG: MATAIJ's and MATBAIJ's iterations and solution, and again
       after new values (PCHYPRE reuses its hypre matrix)
     convert_hypre: MatConvert to MATHYPRE, new, reused after new values, in place: the products
     convert_is: MatConvert to MATIS, new, reused after new values, in place, and back to AIJ: MATBAIJ's
     gamg_classical: PCGAMG -pc_gamg_type classical: MATAIJ's iterations (+-1) and solution
   Ranks: 1, 2, 3 (CMakeLists.txt). */

#include "testutils.h"
#include <petscksp.h>
#include <string.h>

static PetscInt n = 8;
#define BS 3

static PetscErrorCode Build(MatType type, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, type, n, BS, A));
  PetscFunctionReturn(0);
}

/* the same change of values in every matrix: A = 2 A + I, and one block row made heavier */
static PetscErrorCode NewValues(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatShift(A, 1.0));
  PetscFunctionReturn(0);
}

/* the type name of an object, for messages */
static const char *TypeName(void *obj)
{
  const char *t = NULL;
  if (PetscObjectGetType((PetscObject)obj, &t)) return "?";
  return t ? t : "?";
}

static PetscErrorCode IsAIJ(Mat M, PetscBool *aij)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)M, aij, MATSEQAIJ, MATMPIAIJ, ""));
  PetscFunctionReturn(0);
}

/* this rank's rows of the components in `fields` (comm: that of the IS) */
static PetscErrorCode ComponentIS(MPI_Comm comm, Mat A, PetscInt nf, const PetscInt fields[], IS *is)
{
  PetscInt rs, re, *idx, k = 0;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(PetscMalloc1((re - rs) / BS * nf, &idx));
  for (PetscInt b = rs / BS; b < re / BS; b++)
    for (PetscInt f = 0; f < nf; f++) idx[k++] = b * BS + fields[f];
  PetscCall(ISCreateGeneral(comm, k, idx, PETSC_OWN_POINTER, is));
  PetscFunctionReturn(0);
}

/* this rank's rows, whole blocks */
static PetscErrorCode WholeIS(MPI_Comm comm, Mat A, IS *is)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(ISCreateStride(comm, re - rs, rs, 1, is));
  PetscFunctionReturn(0);
}

static PetscErrorCode SubMatrixComponents(TestContext *ctx)
{
  const PetscInt f01[] = {0, 1}, f2[] = {2};
  Mat            A, R, SA, SR, SA2, SR2, W;
  IS             rows, cols, mixed;
  PetscReal      rel;
  PetscBool      aij, ours;

  PetscFunctionBegin;
  PetscCall(Build(MATBSRCUSTOM, &A));
  PetscCall(Build(MATAIJ, &R));
  PetscCall(ComponentIS(PETSC_COMM_WORLD, A, 2, f01, &rows));
  PetscCall(ComponentIS(PETSC_COMM_WORLD, A, 1, f2, &cols));
  PetscCall(MatCreateSubMatrix(A, rows, cols, MAT_INITIAL_MATRIX, &SA));
  PetscCall(MatCreateSubMatrix(R, rows, cols, MAT_INITIAL_MATRIX, &SR));
  PetscCall(MatCreateSubMatrix(A, rows, rows, MAT_INITIAL_MATRIX, &SA2));
  PetscCall(MatCreateSubMatrix(R, rows, rows, MAT_INITIAL_MATRIX, &SR2));
  PetscCall(IsAIJ(SA, &aij));
  TEST_CHECK(PETSC_COMM_WORLD, aij, ctx->failures, "sub-matrix of components is %s, not AIJ", TypeName(SA));
  PetscCall(TestSameOperator(SA, SR, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "rows 0,1 x columns 2 differ from MATAIJ's by %g", (double)rel);
  PetscCall(TestSameOperator(SA2, SR2, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "rows 0,1 x columns 0,1 differ from MATAIJ's by %g", (double)rel);
  PetscCall(NewValues(A));
  PetscCall(NewValues(R));
  PetscCall(MatCreateSubMatrix(A, rows, cols, MAT_REUSE_MATRIX, &SA));
  PetscCall(MatCreateSubMatrix(R, rows, cols, MAT_REUSE_MATRIX, &SR));
  PetscCall(TestSameOperator(SA, SR, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "reused after new values: differs from MATAIJ's by %g", (double)rel);
  /* whole blocks: still ours */
  PetscCall(WholeIS(PETSC_COMM_WORLD, A, &mixed));
  PetscCall(MatCreateSubMatrix(A, mixed, mixed, MAT_INITIAL_MATRIX, &W));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)W, &ours, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
  TEST_CHECK(PETSC_COMM_WORLD, ours, ctx->failures, "sub-matrix of whole blocks is %s, not ours", TypeName(W));
  PetscCall(MatDestroy(&W));
  PetscCall(ISDestroy(&mixed));
  if (ctx->size > 1) { /* whole blocks on rank 0 only: every rank must take the AIJ copy's path together */
    Mat WR;
    if (ctx->rank == 0) PetscCall(WholeIS(PETSC_COMM_WORLD, A, &mixed));
    else PetscCall(ComponentIS(PETSC_COMM_WORLD, A, 2, f01, &mixed));
    PetscCall(MatCreateSubMatrix(A, mixed, mixed, MAT_INITIAL_MATRIX, &W));
    PetscCall(MatCreateSubMatrix(R, mixed, mixed, MAT_INITIAL_MATRIX, &WR));
    PetscCall(IsAIJ(W, &aij));
    TEST_CHECK(PETSC_COMM_WORLD, aij, ctx->failures, "whole blocks on rank 0 only: %s, not AIJ", TypeName(W));
    PetscCall(TestSameOperator(W, WR, &rel));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "whole blocks on rank 0 only: differs from MATAIJ's by %g", (double)rel);
    PetscCall(MatDestroy(&W));
    PetscCall(MatDestroy(&WR));
    PetscCall(ISDestroy(&mixed));
  }
  PetscCall(MatDestroy(&SA));
  PetscCall(MatDestroy(&SR));
  PetscCall(MatDestroy(&SA2));
  PetscCall(MatDestroy(&SR2));
  PetscCall(ISDestroy(&rows));
  PetscCall(ISDestroy(&cols));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(0);
}

static PetscErrorCode SubMatricesComponents(TestContext *ctx)
{
  const PetscInt f01[] = {0, 1}, f2[] = {2};
  Mat            A, R, *SA, *SR;
  IS             is[2];
  PetscReal      rel;
  PetscBool      aij;

  PetscFunctionBegin;
  PetscCall(Build(MATBSRCUSTOM, &A));
  PetscCall(Build(MATAIJ, &R));
  PetscCall(ComponentIS(PETSC_COMM_SELF, A, 2, f01, &is[0]));
  PetscCall(ComponentIS(PETSC_COMM_SELF, A, 1, f2, &is[1]));
  PetscCall(MatCreateSubMatrices(A, 2, is, is, MAT_INITIAL_MATRIX, &SA));
  PetscCall(MatCreateSubMatrices(R, 2, is, is, MAT_INITIAL_MATRIX, &SR));
  for (int k = 0; k < 2; k++) {
    PetscCall(IsAIJ(SA[k], &aij));
    TEST_CHECK(PETSC_COMM_SELF, aij, ctx->failures, "piece %d is %s, not AIJ", k, TypeName(SA[k]));
    PetscCall(TestSameOperator(SA[k], SR[k], &rel));
    TEST_CHECK(PETSC_COMM_SELF, rel <= 1e-13, ctx->failures, "piece %d differs from MATAIJ's by %g", k, (double)rel);
  }
  PetscCall(NewValues(A));
  PetscCall(NewValues(R));
  PetscCall(MatCreateSubMatrices(A, 2, is, is, MAT_REUSE_MATRIX, &SA));
  PetscCall(MatCreateSubMatrices(R, 2, is, is, MAT_REUSE_MATRIX, &SR));
  for (int k = 0; k < 2; k++) {
    PetscCall(TestSameOperator(SA[k], SR[k], &rel));
    TEST_CHECK(PETSC_COMM_SELF, rel <= 1e-13, ctx->failures, "piece %d reused after new values: differs from MATAIJ's by %g", k, (double)rel);
  }
  PetscCall(MatDestroySubMatrices(2, &SA));
  PetscCall(MatDestroySubMatrices(2, &SR));
  PetscCall(ISDestroy(&is[0]));
  PetscCall(ISDestroy(&is[1]));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(0);
}

typedef PetscErrorCode (*SetUpPC)(PC pc, PetscInt param);

/* KSP (GMRES unless the set-up says otherwise) on A from a zero guess, to 1e-10 */
static PetscErrorCode Solve(TestContext *ctx, Mat A, SetUpPC setup, PetscInt param, Vec b, Vec x, PetscInt *its)
{
  KSP                ksp;
  PC                 pc;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall((*setup)(pc, param));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 300));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  TEST_CHECK(PETSC_COMM_WORLD, reason > 0, ctx->failures, "%s on %s did not converge (%s)", TypeName(pc), TypeName(A), KSPConvergedReasons[reason]);
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

/* ours and references solved alike: iterations within slack, solutions to 1e-8 */
static PetscErrorCode SolveAgainst(TestContext *ctx, const char *what, SetUpPC setup, PetscInt param, PetscInt slack, PetscInt nref, const MatType refs[])
{
  Mat         A;
  Vec         b, x, xr;
  PetscRandom rnd;
  PetscInt    its, itsr;
  PetscReal   rel;

  PetscFunctionBegin;
  PetscCall(Build(MATBSRCUSTOM, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &xr));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(Solve(ctx, A, setup, param, b, x, &its));
  for (PetscInt r = 0; r < nref; r++) {
    Mat R;
    PetscCall(Build(refs[r], &R));
    PetscCall(Solve(ctx, R, setup, param, b, xr, &itsr));
    PetscCall(TestRelDiff(x, xr, &rel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s iterations %3" PetscInt_FMT " (%s %3" PetscInt_FMT ")  solution difference %.1e\n", what, its, refs[r], itsr, (double)rel));
    TEST_CHECK(PETSC_COMM_WORLD, PetscAbsInt(its - itsr) <= slack, ctx->failures, "%s: %" PetscInt_FMT " iterations, %s %" PetscInt_FMT, what, its, refs[r], itsr);
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-8, ctx->failures, "%s: solution differs from %s's by %g", what, refs[r], (double)rel);
    PetscCall(MatDestroy(&R));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUpFieldSplit(PC pc, PetscInt type)
{
  const PetscInt f01[] = {0, 1}, f2[] = {2};

  PetscFunctionBegin;
  PetscCall(PCSetType(pc, PCFIELDSPLIT));
  PetscCall(PCFieldSplitSetBlockSize(pc, BS));
  PetscCall(PCFieldSplitSetFields(pc, "0", 2, f01, f01));
  PetscCall(PCFieldSplitSetFields(pc, "1", 1, f2, f2));
  PetscCall(PCFieldSplitSetType(pc, (PCCompositeType)type));
  PetscFunctionReturn(0);
}

static PetscErrorCode FieldSplit(TestContext *ctx)
{
  const MatType refs[] = {MATAIJ};

  PetscFunctionBegin;
  PetscCall(SolveAgainst(ctx, PCCompositeTypes[ctx->param], SetUpFieldSplit, ctx->param, 0, 1, refs));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUpGAMGClassical(PC pc, PetscInt param)
{
  PetscFunctionBegin;
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(PCGAMGSetType(pc, PCGAMGCLASSICAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode GAMGClassical(TestContext *ctx)
{
  const MatType refs[] = {MATAIJ};

  PetscFunctionBegin;
  PetscCall(SolveAgainst(ctx, "gamg classical", SetUpGAMGClassical, 0, 1, 1, refs));
  PetscFunctionReturn(0);
}

static PetscErrorCode HaveHypre(TestContext *ctx, PetscBool *have)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_HYPRE)
  *have = PETSC_TRUE;
#else
  *have = PETSC_FALSE;
  PetscCall(TestSkip(ctx, "this PETSc has no hypre"));
#endif
  PetscFunctionReturn(0);
}

/* PCHYPRE BoomerAMG, and a second solve with new values of the same pattern (PCHYPRE converts into
   the hypre matrix it has), on ours, MATAIJ and MATBAIJ */
static PetscErrorCode HypreBoomerAMG(TestContext *ctx)
{
  const MatType types[] = {MATBSRCUSTOM, MATAIJ, MATBAIJ};
  PetscInt      its[3][2];
  Vec           x[3][2], b;
  PetscRandom   rnd;
  PetscBool     have;

  PetscFunctionBegin;
  PetscCall(HaveHypre(ctx, &have));
  if (!have) PetscFunctionReturn(0);
  for (int t = 0; t < 3; t++) {
    Mat                A;
    KSP                ksp;
    PC                 pc;
    KSPConvergedReason reason;

    PetscCall(Build(types[t], &A));
    if (!t) {
      PetscCall(MatCreateVecs(A, NULL, &b));
      PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
      PetscCall(VecSetRandom(b, rnd));
      PetscCall(PetscRandomDestroy(&rnd));
    }
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCHYPRE));
    PetscCall(PCHYPRESetType(pc, "boomeramg"));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
    for (int s = 0; s < 2; s++) {
      if (s) {
        PetscCall(NewValues(A));
        PetscCall(KSPSetOperators(ksp, A, A));
      }
      PetscCall(VecDuplicate(b, &x[t][s]));
      PetscCall(KSPSolve(ksp, b, x[t][s]));
      PetscCall(KSPGetConvergedReason(ksp, &reason));
      TEST_CHECK(PETSC_COMM_WORLD, reason > 0, ctx->failures, "BoomerAMG on %s, solve %d, did not converge (%s)", types[t], s + 1, KSPConvergedReasons[reason]);
      PetscCall(KSPGetIterationNumber(ksp, &its[t][s]));
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&A));
  }
  for (int t = 1; t < 3; t++) {
    for (int s = 0; s < 2; s++) {
      PetscReal rel;
      PetscCall(TestRelDiff(x[0][s], x[t][s], &rel));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "boomeramg solve %d: iterations %3" PetscInt_FMT " (%s %3" PetscInt_FMT ")  solution difference %.1e\n", s + 1, its[0][s], types[t], its[t][s], (double)rel));
      TEST_CHECK(PETSC_COMM_WORLD, its[0][s] == its[t][s], ctx->failures, "solve %d: %" PetscInt_FMT " iterations, %s %" PetscInt_FMT, s + 1, its[0][s], types[t], its[t][s]);
      TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-8, ctx->failures, "solve %d: solution differs from %s's by %g", s + 1, types[t], (double)rel);
    }
  }
  for (int t = 0; t < 3; t++)
    for (int s = 0; s < 2; s++) PetscCall(VecDestroy(&x[t][s]));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

/* MatConvert of ours and of the MATBAIJ matrix to `target`: new, reused after new values, in place;
   each result (through MatConvert back to AIJ, where `back`) against the other's */
static PetscErrorCode ConvertBoth(TestContext *ctx, MatType target)
{
  Mat       A, R, CA, CR, DA, DR;
  PetscReal rel;
  PetscBool istarget;

  PetscFunctionBegin;
  PetscCall(Build(MATBSRCUSTOM, &A));
  PetscCall(Build(MATBAIJ, &R));
  for (int step = 0; step < 3; step++) {
    const char *what[] = {"new", "reused after new values", "in place"};
    if (step == 0) {
      PetscCall(MatConvert(A, target, MAT_INITIAL_MATRIX, &CA));
      PetscCall(MatConvert(R, target, MAT_INITIAL_MATRIX, &CR));
    } else if (step == 1) {
      PetscCall(NewValues(A));
      PetscCall(NewValues(R));
      PetscCall(MatConvert(A, target, MAT_REUSE_MATRIX, &CA));
      PetscCall(MatConvert(R, target, MAT_REUSE_MATRIX, &CR));
    } else {
      PetscCall(MatDestroy(&CA));
      PetscCall(MatDestroy(&CR));
      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &CA));
      PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &CR));
      PetscCall(MatConvert(CA, target, MAT_INPLACE_MATRIX, &CA));
      PetscCall(MatConvert(CR, target, MAT_INPLACE_MATRIX, &CR));
    }
    PetscCall(PetscObjectTypeCompare((PetscObject)CA, target, &istarget));
    TEST_CHECK(PETSC_COMM_WORLD, istarget, ctx->failures, "%s: %s, not %s", what[step], TypeName(CA), target);
    PetscCall(TestSameOperator(CA, CR, &rel));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "%s %s: products differ from MATBAIJ's by %g", what[step], target, (double)rel);
    PetscCall(TestSameOperator(CA, A, &rel));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "%s %s: products differ from the matrix's by %g", what[step], target, (double)rel);
    PetscCall(MatConvert(CA, MATAIJ, MAT_INITIAL_MATRIX, &DA));
    PetscCall(MatConvert(CR, MATAIJ, MAT_INITIAL_MATRIX, &DR));
    PetscCall(TestSameOperator(DA, DR, &rel));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "%s %s back to AIJ: differs from MATBAIJ's by %g", what[step], target, (double)rel);
    PetscCall(MatDestroy(&DA));
    PetscCall(MatDestroy(&DR));
  }
  /* the result is a copy: values of ours changed later do not reach it, even once our AIJ copy has them */
  {
    Mat Rold, T;
    PetscCall(MatConvert(A, target, MAT_REUSE_MATRIX, &CA));
    PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &Rold));
    PetscCall(NewValues(A));
    PetscCall(MatConvert(A, target, MAT_INITIAL_MATRIX, &T));
    PetscCall(MatDestroy(&T));
    PetscCall(TestSameOperator(CA, Rold, &rel));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "the %s matrix changed with values of ours set after the conversion (by %g)", target, (double)rel);
    PetscCall(MatDestroy(&Rold));
  }
  PetscCall(MatDestroy(&CR));
  PetscCall(MatDestroy(&CA));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(0);
}

static PetscErrorCode ConvertHypre(TestContext *ctx)
{
  PetscBool have;

  PetscFunctionBegin;
  PetscCall(HaveHypre(ctx, &have));
  if (have) PetscCall(ConvertBoth(ctx, MATHYPRE));
  PetscFunctionReturn(0);
}

static PetscErrorCode ConvertIS(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(ConvertBoth(ctx, MATIS));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"submatrix_components", SubMatrixComponents, 0},
    {"submatrices_components", SubMatricesComponents, 0},
    {"fieldsplit_additive", FieldSplit, PC_COMPOSITE_ADDITIVE},
    {"fieldsplit_multiplicative", FieldSplit, PC_COMPOSITE_MULTIPLICATIVE},
    {"fieldsplit_schur", FieldSplit, PC_COMPOSITE_SCHUR},
    {"hypre_boomeramg", HypreBoomerAMG, 0},
    {"convert_hypre", ConvertHypre, 0},
    {"convert_is", ConvertIS, 0},
    {"gamg_classical", GAMGClassical, 0},
  };
  int status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(TestRunCases("aij routes", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
