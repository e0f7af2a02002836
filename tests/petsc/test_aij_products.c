static const char help[] = "Sparse products of a bsrcustom matrix with AIJ matrices (AB, AtB, ABt, PtAP, RARt, ABC), ours in first\n"
                           "and second place, against the same products of AIJ copies: the first product, and again with MAT_REUSE_MATRIX\n"
                           "after new values in every operand (against a new product of AIJ copies made from scratch).\n";

/* Coverage (cases, -test_list): ab, ab_second, atb, abt, ptap, rart, abc: bs 3, 6 block rows a rank,
   AIJ operands of 5 entries a row with off-rank columns; relative Frobenius error 1e-12.
   Ranks: 1, 2, 3 (CMakeLists.txt). */

#include "testutils.h"

/* the scalar value at (i, j) of the operands' k-th version: reproducible on any number of ranks */
static PetscScalar Value(PetscInt i, PetscInt j, int k)
{
  unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(j * 40503u) ^ (unsigned)(k * 977u);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (PetscScalar)((double)(h % 2001u) / 1000.0 - 1.0);
}

/* an AIJ matrix of m x n local rows/columns (global columns N) with 5 entries a row at columns that
   depend on the global row only, values of version k */
static PetscErrorCode RandomAIJ(MPI_Comm comm, PetscInt m, PetscInt n, int k, Mat *B)
{
  PetscInt rstart, rend, N;

  PetscFunctionBegin;
  PetscCall(MatCreateAIJ(comm, m, n, PETSC_DETERMINE, PETSC_DETERMINE, 5, NULL, 5, NULL, B));
  PetscCall(MatGetOwnershipRange(*B, &rstart, &rend));
  PetscCall(MatGetSize(*B, NULL, &N));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    cols[5];
    PetscScalar v[5];
    for (int e = 0; e < 5; e++) {
      cols[e] = (i * 7 + e * (N / 5 + 1) + 3 * e * e) % N;
      v[e]    = Value(i, cols[e], k);
    }
    PetscCall(MatSetValues(*B, 1, &i, 5, cols, v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* new values in M's pattern (version k), the structure kept */
static PetscErrorCode NewValues(Mat M, int k)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(M, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt          *c;
    PetscScalar       *v;
    PetscCall(MatGetRow(M, i, &ncols, &cols, &vals));
    PetscCall(PetscMalloc2(ncols, &c, ncols, &v));
    for (PetscInt e = 0; e < ncols; e++) {
      c[e] = cols[e];
      v[e] = Value(i, cols[e], k);
    }
    PetscCall(MatRestoreRow(M, i, &ncols, &cols, &vals));
    PetscCall(MatSetValues(M, 1, &i, ncols, c, v, INSERT_VALUES));
    PetscCall(PetscFree2(c, v));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* the product of `type` of (X, Y[, Z]) made from scratch */
static PetscErrorCode Product(MatProductType type, Mat X, Mat Y, Mat Z, Mat *C)
{
  PetscFunctionBegin;
  PetscCall(MatProductCreate(X, Y, Z, C));
  PetscCall(MatProductSetType(*C, type));
  PetscCall(MatProductSetFromOptions(*C));
  PetscCall(MatProductSymbolic(*C));
  PetscCall(MatProductNumeric(*C));
  PetscFunctionReturn(0);
}

/* the case's param: the product type; ours_second: ours is the second operand (AB only) */
static PetscErrorCode Products(TestContext *ctx)
{
  const MatProductType type = (MatProductType)ctx->param;
  const PetscInt       bs = 3, nb = 6, n = bs * nb;
  Mat                  A, Aaij, B, C = NULL, Cours, Cref;
  PetscReal            rel;

  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATBSRCUSTOM, bs, nb, nb * ctx->size, 3, PETSC_FALSE, PETSC_TRUE, 5u, &A));
  /* the other operands' shapes: B n x 4 a rank for AB, AtB, PtAP, ABC's C; 4 x n for ABt, RARt; ABC's B n x n */
  if (type == MATPRODUCT_ABt || type == MATPRODUCT_RARt) PetscCall(RandomAIJ(ctx->comm, 4, n, 0, &B));
  else if (type == MATPRODUCT_ABC) PetscCall(RandomAIJ(ctx->comm, n, n, 0, &B));
  else PetscCall(RandomAIJ(ctx->comm, n, 4, 0, &B));
  if (type == MATPRODUCT_ABC) PetscCall(RandomAIJ(ctx->comm, n, 4, 1, &C));
  for (int round = 0; round < 2; round++) {
    if (round) {
      /* new values in every operand; the product made again on the same result */
      PetscCall(NewValues(A, 10));
      PetscCall(NewValues(B, 11));
      if (C) PetscCall(NewValues(C, 12));
      PetscCall(MatProductNumeric(Cours));
    } else PetscCall(Product(type, A, B, C, &Cours));
    PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Aaij));
    PetscCall(Product(type, Aaij, B, C, &Cref));
    PetscCall(TestMatrixRelDiff(Cours, Cref, &rel));
    TEST_CHECK(ctx->comm, rel < 1e-12, ctx->failures, "%s of ours with AIJ, %s product: relative error %g against AIJ copies", MatProductTypes[type], round ? "reused" : "first", (double)rel);
    PetscCall(MatDestroy(&Cref));
    PetscCall(MatDestroy(&Aaij));
  }
  PetscCall(MatDestroy(&Cours));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(0);
}

/* AIJ * ours, and ours * ours */
static PetscErrorCode OursSecond(TestContext *ctx)
{
  const PetscInt bs = 3, nb = 6, n = bs * nb;
  Mat            A, Aaij, B, Cours, Cref, AA, AAref;
  PetscReal      rel;

  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATBSRCUSTOM, bs, nb, nb * ctx->size, 3, PETSC_FALSE, PETSC_FALSE, 7u, &A));
  PetscCall(RandomAIJ(ctx->comm, 4, n, 0, &B));
  for (int round = 0; round < 2; round++) {
    if (round) {
      PetscCall(NewValues(A, 20));
      PetscCall(NewValues(B, 21));
      PetscCall(MatMatMult(B, A, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Cours));
      PetscCall(MatMatTransposeMult(A, A, MAT_REUSE_MATRIX, PETSC_DEFAULT, &AA));
    } else {
      PetscCall(MatMatMult(B, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cours));
      PetscCall(MatMatTransposeMult(A, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &AA));
    }
    PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Aaij));
    PetscCall(MatMatMult(B, Aaij, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cref));
    PetscCall(MatMatTransposeMult(Aaij, Aaij, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &AAref));
    PetscCall(TestMatrixRelDiff(Cours, Cref, &rel));
    TEST_CHECK(ctx->comm, rel < 1e-12, ctx->failures, "AIJ times ours (%s): relative error %g", round ? "reused" : "first", (double)rel);
    PetscCall(TestMatrixRelDiff(AA, AAref, &rel));
    TEST_CHECK(ctx->comm, rel < 1e-12, ctx->failures, "ours times ours transposed (%s): relative error %g", round ? "reused" : "first", (double)rel);
    PetscCall(MatDestroy(&Cref));
    PetscCall(MatDestroy(&AAref));
    PetscCall(MatDestroy(&Aaij));
  }
  PetscCall(MatDestroy(&Cours));
  PetscCall(MatDestroy(&AA));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"ab", Products, MATPRODUCT_AB}, {"atb", Products, MATPRODUCT_AtB}, {"abt", Products, MATPRODUCT_ABt}, {"ptap", Products, MATPRODUCT_PtAP}, {"rart", Products, MATPRODUCT_RARt}, {"abc", Products, MATPRODUCT_ABC}, {"ab_second", OursSecond, 0},
  };
  int status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(TestRunCases("aij products", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
