static const char help[] = "Every operation that makes a new matrix from a bsrcustom one, run on BAIJ and on bsrcustom: where BAIJ\n"
                           "gives (seq|mpi)baij ours must give (seq|mpi)bsrcustom, where BAIJ gives another type ours must give that\n"
                           "type, where BAIJ refuses ours may refuse too; the results' products must agree. Prints each operation\n"
                           "with the types both got. The BAIJ and AIJ matrices made from ours must run the MatMult kernels PETSc\n"
                           "gives one it made itself.\n";

/* Coverage (cases, -test_list): bs 3, 8 block rows per rank, against MATBAIJ; type rule above,
   products to 1e-12:
     duplicate, convert_same, transpose, transpose_inplace, submatrix, submatrices, permute, redundant,
     concatenate_seq, diagonal_block, multiproc_block, axpy_new_pattern, matmatmult_dense,
     matmatmult_sparse, ptap, dmda_coarse
   baij_kernels_bs1..7: the BAIJ and AIJ matrices MatConvert makes from ours and from a MatDuplicate
     of ours run the MatMult/MatMultAdd (their blocks' too) that PETSc gives one it made itself
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

/* The operations a product runs: A's MatMult and MatMultAdd and, on several ranks, its local and ghost
   blocks' (MatMPIBAIJGetSeqBAIJ, MatMPIAIJGetSeqAIJ) */
static PetscErrorCode ProductOps(Mat A, void (*ops[6])(void))
{
  Mat       blk[2] = {NULL, NULL};
  PetscBool mpibaij, mpiaij;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(ops, 6));
  PetscCall(MatGetOperation(A, MATOP_MULT, &ops[0]));
  PetscCall(MatGetOperation(A, MATOP_MULT_ADD, &ops[1]));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJ, &mpibaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij));
  if (mpibaij) PetscCall(MatMPIBAIJGetSeqBAIJ(A, &blk[0], &blk[1], NULL));
  if (mpiaij) PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], NULL));
  for (int k = 0; k < 2; k++) {
    if (!blk[k]) continue;
    PetscCall(MatGetOperation(blk[k], MATOP_MULT, &ops[2 + 2 * k]));
    PetscCall(MatGetOperation(blk[k], MATOP_MULT_ADD, &ops[3 + 2 * k]));
  }
  PetscFunctionReturn(0);
}

/* made: what we handed back; ref: what PETSc made itself, of the same type. Both must run the same
   kernels (BAIJ picks its MatMult by block size, and a copy must not be left with the generic one)
   and compute the same product. */
static PetscErrorCode CheckSameKernels(TestContext *ctx, Mat made, Mat ref, const char *what)
{
  static const char *names[6] = {"MatMult", "MatMultAdd", "the local block's MatMult", "the local block's MatMultAdd", "the ghost block's MatMult", "the ghost block's MatMultAdd"};
  void (*ops[2][6])(void);
  MatType   type[2];
  PetscBool same;
  PetscReal rel;

  PetscFunctionBegin;
  PetscCall(MatGetType(made, &type[0]));
  PetscCall(MatGetType(ref, &type[1]));
  PetscCall(PetscStrcmp(type[0], type[1], &same));
  TEST_CHECK(ctx->comm, same, ctx->failures, "bs %" PetscInt_FMT ", %s: type %s, expected %s", ctx->param, what, type[0], type[1]);
  PetscCall(ProductOps(made, ops[0]));
  PetscCall(ProductOps(ref, ops[1]));
  for (int k = 0; k < 6; k++) TEST_CHECK(PETSC_COMM_SELF, ops[0][k] == ops[1][k], ctx->failures, "[%d] bs %" PetscInt_FMT ", %s: %s is not the one PETSc gives a %s it made itself", (int)ctx->rank, ctx->param, what, names[k], type[1]);
  PetscCall(TestSameOperator(made, ref, &rel));
  TEST_CHECK(ctx->comm, rel <= 1e-12, ctx->failures, "bs %" PetscInt_FMT ", %s: the products differ by %g", ctx->param, what, (double)rel);
  PetscFunctionReturn(0);
}

/* Every BAIJ or AIJ matrix we hand back runs the kernels PETSc picks for one it assembles itself, for
   the block size ctx->param: MatConvert of ours to BAIJ, of a MatDuplicate of ours (made anew or in
   place), to AIJ (against PETSc's own MatConvert of its BAIJ), on one rank or several (the blocks). */
static PetscErrorCode BAIJKernels(TestContext *ctx)
{
  const PetscInt bs = ctx->param;
  Mat            baij, ours, dup, made, aij;

  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATBAIJ, bs, 6, 6 * ctx->size, 3, PETSC_FALSE, PETSC_FALSE, 7u, &baij));
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATBSRCUSTOM, bs, 6, 6 * ctx->size, 3, PETSC_FALSE, PETSC_FALSE, 7u, &ours));

  PetscCall(MatConvert(ours, MATBAIJ, MAT_INITIAL_MATRIX, &made));
  PetscCall(CheckSameKernels(ctx, made, baij, "MatConvert(ours, MATBAIJ)"));
  PetscCall(MatDestroy(&made));

  PetscCall(MatDuplicate(ours, MAT_COPY_VALUES, &dup));
  PetscCall(MatConvert(dup, MATBAIJ, MAT_INITIAL_MATRIX, &made));
  PetscCall(CheckSameKernels(ctx, made, baij, "MatConvert(MatDuplicate(ours), MATBAIJ)"));
  PetscCall(MatDestroy(&made));
  PetscCall(MatConvert(dup, MATBAIJ, MAT_INPLACE_MATRIX, &dup));
  PetscCall(CheckSameKernels(ctx, dup, baij, "MatConvert(MatDuplicate(ours), MATBAIJ, in place)"));
  PetscCall(MatDestroy(&dup));

  PetscCall(MatConvert(baij, MATAIJ, MAT_INITIAL_MATRIX, &aij));
  PetscCall(MatConvert(ours, MATAIJ, MAT_INITIAL_MATRIX, &made));
  PetscCall(CheckSameKernels(ctx, made, aij, "MatConvert(ours, MATAIJ)"));
  PetscCall(MatDestroy(&made));
  PetscCall(MatDestroy(&aij));

  PetscCall(MatDestroy(&ours));
  PetscCall(MatDestroy(&baij));
  PetscFunctionReturn(0);
}

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
    PetscCall(TestSameOperator(made[1], made[0], &rel));
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
    {"duplicate", Derived, 0},
    {"convert_same", Derived, 1},
    {"transpose", Derived, 2},
    {"transpose_inplace", Derived, 3},
    {"submatrix", Derived, 4},
    {"submatrices", Derived, 5},
    {"permute", Derived, 6},
    {"redundant", Derived, 7},
    {"concatenate_seq", Derived, 8},
    {"diagonal_block", Derived, 9},
    {"multiproc_block", Derived, 10},
    {"axpy_new_pattern", Derived, 11},
    {"matmatmult_dense", Derived, 12},
    {"matmatmult_sparse", Derived, 13},
    {"ptap", Derived, 14},
    {"dmda_coarse", Derived, 15},
    {"baij_kernels_bs1", BAIJKernels, 1},
    {"baij_kernels_bs2", BAIJKernels, 2},
    {"baij_kernels_bs3", BAIJKernels, 3},
    {"baij_kernels_bs4", BAIJKernels, 4},
    {"baij_kernels_bs5", BAIJKernels, 5},
    {"baij_kernels_bs6", BAIJKernels, 6},
    {"baij_kernels_bs7", BAIJKernels, 7},
  };
  Pair        p;
  PetscMPIInt size;
  int         status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(PETSC_STATIC_ARRAY_LENGTH(cases) == PETSC_STATIC_ARRAY_LENGTH(makings) + 7, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "a case for every making, and the block sizes of baij_kernels");
  p.bs = 3;
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, p.bs, 8, 8 * size, 3, PETSC_FALSE, PETSC_FALSE, 11u, &p.baij));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, p.bs, 8, 8 * size, 3, PETSC_FALSE, PETSC_FALSE, 11u, &p.ours));
  PetscCall(TestRunCases("derived types", PETSC_STATIC_ARRAY_LENGTH(cases), cases, &p, &status));
  PetscCall(MatDestroy(&p.baij));
  PetscCall(MatDestroy(&p.ours));
  PetscCall(PetscFinalize());
  return status;
}
