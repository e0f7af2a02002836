static const char help[] = "Every operation that makes a new matrix from a bsrcustom one, run on BAIJ and on bsrcustom: where BAIJ\n"
                           "gives (seq|mpi)baij ours must give (seq|mpi)bsrcustom, where BAIJ gives another type ours must give that\n"
                           "type, where BAIJ refuses ours may refuse too; the results' products must agree. Prints each operation\n"
                           "with the types both got.\n";

/* Coverage (cases, -test_list): bs 3, 8 block rows per rank, against MATBAIJ; type rule above,
   products to 1e-12:
     duplicate, convert_same, transpose, transpose_inplace, submatrix, submatrices, permute, redundant,
     concatenate_seq, diagonal_block, multiproc_block, axpy_new_pattern, matmatmult_dense,
     matmatmult_sparse, ptap, dmda_coarse
   Ranks: 1, 2, 3, 4 (CMakeLists.txt). */

#include "testutils.h"
#include <petscdmda.h>
#include <string.h>

typedef struct {
  Mat      baij, ours; /* the same matrix as MATBAIJ and as MATBSRCUSTOM */
  PetscInt bs;
} Pair;

/* What an operation made on BAIJ (index 0) and on ours (index 1); NULL where it refused. */
typedef PetscErrorCode (*Making)(const Pair *, PetscBool ours, Mat *made);

/* base type name of ours for a type BAIJ gave: seqbaij -> seqbsrcustom, mpibaij -> mpibsrcustom */
static const char *Ours(const char *baijtype)
{
  if (!strcmp(baijtype, MATSEQBAIJ)) return MATSEQBSRCUSTOM;
  if (!strcmp(baijtype, MATMPIBAIJ)) return MATMPIBSRCUSTOM;
  return baijtype;
}

/* ||A x - B x|| / ||B x|| for a random x, A and B with the same layouts */
static PetscErrorCode SameOperator(Mat A, Mat B, PetscReal *rel)
{
  Vec         x, ya, yb;
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)A), &rnd));
  PetscCall(MatCreateVecs(B, &x, &yb));
  PetscCall(VecDuplicate(yb, &ya));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(A, x, ya));
  PetscCall(MatMult(B, x, yb));
  PetscCall(TestRelDiff(ya, yb, rel));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yb));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeDuplicate(const Pair *p, PetscBool ours, Mat *M)
{
  PetscFunctionBegin;
  PetscCall(MatDuplicate(ours ? p->ours : p->baij, MAT_COPY_VALUES, M));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeConvertSame(const Pair *p, PetscBool ours, Mat *M)
{
  PetscFunctionBegin;
  PetscCall(MatConvert(ours ? p->ours : p->baij, MATSAME, MAT_INITIAL_MATRIX, M));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeTranspose(const Pair *p, PetscBool ours, Mat *M)
{
  PetscFunctionBegin;
  PetscCall(MatTranspose(ours ? p->ours : p->baij, MAT_INITIAL_MATRIX, M));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeTransposeInPlace(const Pair *p, PetscBool ours, Mat *M)
{
  PetscFunctionBegin;
  PetscCall(MatDuplicate(ours ? p->ours : p->baij, MAT_COPY_VALUES, M));
  PetscCall(MatTranspose(*M, MAT_INPLACE_MATRIX, M));
  PetscFunctionReturn(0);
}

/* this rank's last half of its rows and all columns (3.18's MPIBAIJ refuses column subsets) */
static PetscErrorCode MakeSubMatrix(const Pair *p, PetscBool ours, Mat *M)
{
  Mat      A = ours ? p->ours : p->baij;
  IS       rows, cols;
  PetscInt rs, re, cs, ce, nloc;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(MatGetOwnershipRangeColumn(A, &cs, &ce));
  nloc = ((re - rs) / p->bs / 2) * p->bs;
  PetscCall(ISCreateStride(PetscObjectComm((PetscObject)A), nloc, re - nloc, 1, &rows));
  PetscCall(ISCreateStride(PetscObjectComm((PetscObject)A), ce - cs, cs, 1, &cols));
  PetscCall(ISSetBlockSize(rows, p->bs));
  PetscCall(ISSetBlockSize(cols, p->bs));
  PetscCall(MatCreateSubMatrix(A, rows, cols, MAT_INITIAL_MATRIX, M));
  PetscCall(ISDestroy(&rows));
  PetscCall(ISDestroy(&cols));
  PetscFunctionReturn(0);
}

/* a square sequential piece around this rank's rows, as ASM takes it */
static PetscErrorCode MakeSubMatrices(const Pair *p, PetscBool ours, Mat *M)
{
  Mat      A = ours ? p->ours : p->baij, *sub;
  IS       is;
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, re - rs, rs, 1, &is));
  PetscCall(ISSetBlockSize(is, p->bs));
  PetscCall(MatCreateSubMatrices(A, 1, &is, &is, MAT_INITIAL_MATRIX, &sub));
  *M = sub[0];
  PetscCall(PetscObjectReference((PetscObject)*M));
  PetscCall(MatDestroySubMatrices(1, &sub));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakePermute(const Pair *p, PetscBool ours, Mat *M)
{
  Mat      A = ours ? p->ours : p->baij;
  IS       perm;
  PetscInt rs, re, *idx;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(PetscMalloc1(re - rs, &idx));
  /* the blocks of this rank in reverse order, each block kept whole */
  for (PetscInt b = 0; b < (re - rs) / p->bs; b++)
    for (PetscInt k = 0; k < p->bs; k++) idx[b * p->bs + k] = re - (b + 1) * p->bs + k;
  PetscCall(ISCreateGeneral(PetscObjectComm((PetscObject)A), re - rs, idx, PETSC_OWN_POINTER, &perm));
  PetscCall(ISSetPermutation(perm));
  PetscCall(MatPermute(A, perm, perm, M));
  PetscCall(ISDestroy(&perm));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeRedundant(const Pair *p, PetscBool ours, Mat *M)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatCreateRedundantMatrix(ours ? p->ours : p->baij, size > 1 ? 2 : 1, MPI_COMM_NULL, MAT_INITIAL_MATRIX, M));
  PetscFunctionReturn(0);
}

/* this rank's diagonal block (sequential) concatenated again over all ranks */
static PetscErrorCode MakeConcatenated(const Pair *p, PetscBool ours, Mat *M)
{
  Mat       A = ours ? p->ours : p->baij, D;
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &mpi, MATMPIBAIJ, MATMPIBSRCUSTOM, ""));
  if (mpi) PetscCall(MatGetDiagonalBlock(A, &D));
  else D = A;
  PetscCall(MatCreateMPIMatConcatenateSeqMat(PETSC_COMM_WORLD, D, PETSC_DECIDE, MAT_INITIAL_MATRIX, M));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeDiagonalBlock(const Pair *p, PetscBool ours, Mat *M)
{
  PetscFunctionBegin;
  PetscCall(MatGetDiagonalBlock(ours ? p->ours : p->baij, M));
  PetscCall(PetscObjectReference((PetscObject)*M));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeMultiProcBlock(const Pair *p, PetscBool ours, Mat *M)
{
  PetscFunctionBegin;
  PetscCall(MatGetMultiProcBlock(ours ? p->ours : p->baij, PETSC_COMM_WORLD, MAT_INITIAL_MATRIX, M));
  PetscFunctionReturn(0);
}

/* MatAXPY with a new pattern: the matrix must still be of its type, whole (its own methods) */
static PetscErrorCode MakeAXPYNewPattern(const Pair *p, PetscBool ours, Mat *M)
{
  Mat T;

  PetscFunctionBegin;
  PetscCall(MatTranspose(ours ? p->ours : p->baij, MAT_INITIAL_MATRIX, M));
  PetscCall(MatDuplicate(ours ? p->ours : p->baij, MAT_COPY_VALUES, &T));
  PetscCall(MatAXPY(*M, 1.0, T, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatDestroy(&T));
  if (ours) {
    PetscInt n;
    PetscCall(MatBSRCustomGetNumThreads(*M, &n)); /* fails where our methods were lost */
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeDenseProduct(const Pair *p, PetscBool ours, Mat *M)
{
  Mat      A = ours ? p->ours : p->baij, D;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, NULL, &n));
  PetscCall(MatCreateDense(PetscObjectComm((PetscObject)A), n, PETSC_DECIDE, PETSC_DETERMINE, 3, NULL, &D));
  for (PetscInt j = 0; j < 3; j++) {
    PetscInt rs, re;
    PetscCall(MatGetOwnershipRange(D, &rs, &re));
    for (PetscInt i = rs; i < re; i++) PetscCall(MatSetValue(D, i, j, (PetscScalar)(1 + (i * 7 + j * 3) % 5), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatMatMult(A, D, MAT_INITIAL_MATRIX, PETSC_DEFAULT, M));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeSparseProduct(const Pair *p, PetscBool ours, Mat *M)
{
  Mat A = ours ? p->ours : p->baij;

  PetscFunctionBegin;
  PetscCall(MatMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, M));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakePtAP(const Pair *p, PetscBool ours, Mat *M)
{
  Mat A = ours ? p->ours : p->baij, P;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &P));
  PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, M));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(0);
}

/* the matrix of a DMDA's coarser grid, as geometric multigrid makes it (-dm_mat_type) */
static PetscErrorCode MakeDMDACoarse(const Pair *p, PetscBool ours, Mat *M)
{
  DM da, coarse;

  PetscFunctionBegin;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, 9, 9, PETSC_DECIDE, PETSC_DECIDE, p->bs, 1, NULL, NULL, &da));
  PetscCall(DMSetMatType(da, ours ? MATBSRCUSTOM : MATBAIJ));
  PetscCall(DMSetUp(da));
  PetscCall(DMCoarsen(da, PETSC_COMM_WORLD, &coarse));
  PetscCall(DMCreateMatrix(coarse, M));
  PetscCall(MatShift(*M, 1.0));
  PetscCall(DMDestroy(&coarse));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* What each case makes, by name (ctx->param indexes it) */
static const struct {
  const char *what;
  Making      make;
} makings[] = {
  {"MatDuplicate", MakeDuplicate},
  {"MatConvert(MATSAME)", MakeConvertSame},
  {"MatTranspose", MakeTranspose},
  {"MatTranspose(in place)", MakeTransposeInPlace},
  {"MatCreateSubMatrix", MakeSubMatrix},
  {"MatCreateSubMatrices", MakeSubMatrices},
  {"MatPermute", MakePermute},
  {"MatCreateRedundantMatrix", MakeRedundant},
  {"MatCreateMPIMatConcatenateSeqMat", MakeConcatenated},
  {"MatGetDiagonalBlock", MakeDiagonalBlock},
  {"MatGetMultiProcBlock", MakeMultiProcBlock},
  {"MatAXPY(DIFFERENT_NONZERO_PATTERN)", MakeAXPYNewPattern},
  {"MatMatMult(with MATDENSE)", MakeDenseProduct},
  {"MatMatMult(A, A)", MakeSparseProduct},
  {"MatPtAP(A, P as AIJ)", MakePtAP},
  {"DMCreateMatrix of a coarsened DMDA", MakeDMDACoarse},
};

/* makings[ctx->param] on BAIJ and on ours (the Pair in ctx->data): where BAIJ gave (seq|mpi)baij ours
   must give (seq|mpi)bsrcustom, where BAIJ gave another type ours must give that type, where BAIJ
   refused ours may refuse too; the products must agree. */
static PetscErrorCode Derived(TestContext *ctx)
{
  const Pair    *p       = (const Pair *)ctx->data;
  const PetscInt i       = ctx->param;
  Mat            made[2] = {NULL, NULL};
  PetscErrorCode err[2];
  const char    *type[2] = {"refused", "refused"};
  PetscBool      ok;
  char           why[256] = "";

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    err[k] = makings[i].make(p, (PetscBool)k, &made[k]);
    PetscCall(PetscPopErrorHandler());
    if (err[k]) PetscCall(MatDestroy(&made[k]));
    else PetscCall(MatGetType(made[k], &type[k]));
  }
  if (err[0]) ok = PETSC_TRUE; /* BAIJ refuses it: ours may refuse too, or do better */
  else if (err[1]) {
    ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(why, sizeof(why), "bsrcustom refused (error %d) what BAIJ did", (int)err[1]));
  } else {
    ok = (PetscBool)!strcmp(type[1], Ours(type[0]));
    if (!ok) PetscCall(PetscSNPrintf(why, sizeof(why), "expected %s", Ours(type[0])));
  }
  if (ok && !err[0] && !err[1]) {
    PetscReal rel;
    PetscCall(SameOperator(made[1], made[0], &rel));
    ok = (PetscBool)(rel <= 1e-12);
    if (!ok) PetscCall(PetscSNPrintf(why, sizeof(why), "the products differ by %g", (double)rel));
  }
  /* a sequential result lives on each rank: the types printed are rank 0's */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-38s baij -> %-14s bsrcustom -> %-14s\n", makings[i].what, type[0], type[1]));
  TEST_CHECK(PETSC_COMM_SELF, ok, ctx->failures, "[%d] %s: %s", (int)ctx->rank, makings[i].what, why);
  for (int k = 0; k < 2; k++) PetscCall(MatDestroy(&made[k]));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"duplicate", Derived, 0},         {"convert_same", Derived, 1},       {"transpose", Derived, 2},       {"transpose_inplace", Derived, 3}, {"submatrix", Derived, 4},        {"submatrices", Derived, 5},
    {"permute", Derived, 6},           {"redundant", Derived, 7},          {"concatenate_seq", Derived, 8}, {"diagonal_block", Derived, 9},    {"multiproc_block", Derived, 10}, {"axpy_new_pattern", Derived, 11},
    {"matmatmult_dense", Derived, 12}, {"matmatmult_sparse", Derived, 13}, {"ptap", Derived, 14},           {"dmda_coarse", Derived, 15},
  };
  Pair        p;
  PetscMPIInt size;
  int         status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(PETSC_STATIC_ARRAY_LENGTH(cases) == PETSC_STATIC_ARRAY_LENGTH(makings), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "a case for every making");
  p.bs = 3;
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, p.bs, 8, 8 * size, 3, PETSC_FALSE, PETSC_FALSE, 11u, &p.baij));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, p.bs, 8, 8 * size, 3, PETSC_FALSE, PETSC_FALSE, 11u, &p.ours));
  PetscCall(TestRunCases("derived types", PETSC_STATIC_ARRAY_LENGTH(cases), cases, &p, &status));
  PetscCall(MatDestroy(&p.baij));
  PetscCall(MatDestroy(&p.ours));
  PetscCall(PetscFinalize());
  return status;
}
