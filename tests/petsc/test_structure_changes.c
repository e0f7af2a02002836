static const char help[] = "Structure changes and AIJ-style preallocation of bsrcustom matrices against MATAIJ: blocks added to an\n"
                           "assembled matrix (blocked or scalar insertion, own and other ranks' rows) give a new nonzerostate on every rank,\n"
                           "and the AIJ copy, the products, GAMG and LU follow; AIJ-style counts keep MAT_NEW_NONZERO_ALLOCATION_ERR as AIJ\n"
                           "does; AIJ-style CSR preallocation gives AIJ's matrix.\n";

/* Coverage (cases, -test_list):
     new_blocks_blocked, new_blocks_scalar: a new block in a row of this rank's and one of the next rank's
       (off-rank column), then assembly: nonzerostate moved on every rank, MatMult and
       MatTransposeMatMult with an AIJ P equal MATAIJ's (1e-12)
     gamg_after_new_blocks, lu_after_new_blocks: KSP on ours and on MATAIJ, solved, blocks added,
       solved again: iterations (GAMG: within 1) and solutions (1e-8) agree
     aij_counts_exceeded: AIJ-style counts too small for the blocks inserted: PETSc's error
       PETSC_ERR_ARG_OUTOFRANGE on every rank, as MATAIJ gives one; with the option turned off, none
     aij_counts_scalar_pattern: a scalar pattern touching more blocks than its counts' block estimate,
       within the counts: assembles, equals MATAIJ
     aij_csr: Mat{Seq,MPI}AIJSetPreallocationCSR with values: MATAIJ's matrix; a new location is refused
   bs 3, 4 block rows a rank. Ranks: 1, 2, 3 (CMakeLists.txt). */

#include "testutils.h"
#include <petscksp.h>

/* ||A x - R x|| / ||R x|| for x = 1, 2, 3, ... */
static PetscErrorCode SameProduct(Mat A, Mat R, PetscReal *rel)
{
  Vec x, ya, yr;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(R, &x, &yr));
  PetscCall(VecDuplicate(yr, &ya));
  {
    PetscInt     lo, hi;
    PetscScalar *a;
    PetscCall(VecGetOwnershipRange(x, &lo, &hi));
    PetscCall(VecGetArray(x, &a));
    for (PetscInt i = lo; i < hi; i++) a[i - lo] = 1.0 + (PetscScalar)(i % 7);
    PetscCall(VecRestoreArray(x, &a));
  }
  PetscCall(MatMult(A, x, ya));
  PetscCall(MatMult(R, x, yr));
  PetscCall(TestRelDiff(ya, yr, rel));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yr));
  PetscFunctionReturn(0);
}

/* the SPD block diffusion operator on a grid of 4 x 4 x (4 ranks) nodes, as ours and as MATAIJ */
static PetscErrorCode Operators(TestContext *ctx, Mat *A, Mat *R)
{
  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(ctx->comm, MATBSRCUSTOM, 4 + 2 * (ctx->size - 1), 3, A));
  PetscCall(TestBlockDiffusionMatrix(ctx->comm, MATAIJ, 4 + 2 * (ctx->size - 1), 3, R));
  PetscFunctionReturn(0);
}

/* new blocks in both matrices, symmetric, keeping them SPD (a small coupling between far nodes):
   block rows (first, last) of this rank, and a block coupling this rank's first row with the next
   rank's first row (inserted by this rank into both rows: one of them another rank's) */
static PetscErrorCode AddBlocks(TestContext *ctx, Mat A, Mat R, PetscBool blocked)
{
  const PetscInt bs = 3;
  PetscInt       rstart, rend, N, far;
  PetscScalar    v[9], d[9];
  Mat            M[2] = {A, R};

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetSize(A, &N, NULL));
  rstart /= bs;
  rend /= bs;
  N /= bs;
  far = (rstart + N / 2) % N; /* a block column whole grid layers away from block row rstart: no neighbour */
  for (int k = 0; k < 9; k++) {
    v[k] = (k % 4 == 0) ? -0.01 : 0.0;
    d[k] = (k % 4 == 0) ? 0.01 : 0.0;
  }
  for (int m = 0; m < 2; m++) {
    PetscInt pairs[2][2] = {{rstart, far}, {far, rstart}};
    PetscCall(MatSetOption(M[m], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    for (int p = 0; p < 2; p++) {
      PetscInt i = pairs[p][0], j = pairs[p][1];
      if (blocked) {
        PetscCall(MatSetValuesBlocked(M[m], 1, &i, 1, &j, v, ADD_VALUES));
        PetscCall(MatSetValuesBlocked(M[m], 1, &i, 1, &i, d, ADD_VALUES)); /* keeps the rows diagonally dominant */
      } else {
        PetscInt rows[3], cols[3], diag[3];
        for (int r = 0; r < 3; r++) {
          rows[r] = i * bs + r;
          cols[r] = j * bs + r;
          diag[r] = i * bs + r;
        }
        PetscCall(MatSetValues(M[m], 3, rows, 3, cols, v, ADD_VALUES));
        PetscCall(MatSetValues(M[m], 3, rows, 3, diag, d, ADD_VALUES));
      }
    }
    PetscCall(MatAssemblyBegin(M[m], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[m], MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* an AIJ prolongator-like P (n x n/3 a rank, 2 entries a row) */
static PetscErrorCode Prolongator(Mat A, Mat *P)
{
  PetscInt m, rstart, rend, Nc;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatCreateAIJ(PetscObjectComm((PetscObject)A), m, m / 3, PETSC_DETERMINE, PETSC_DETERMINE, 2, NULL, 2, NULL, P));
  PetscCall(MatGetOwnershipRange(*P, &rstart, &rend));
  PetscCall(MatGetSize(*P, NULL, &Nc));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    c[2] = {i / 3, (i / 3 + 1) % Nc};
    PetscScalar v[2] = {1.0, 0.5};
    PetscCall(MatSetValues(*P, 1, &i, 2, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode NewBlocks(TestContext *ctx)
{
  Mat              A, R, P, C, Cref;
  PetscObjectState before, after;
  PetscReal        rel;
  PetscInt         moved;

  PetscFunctionBegin;
  PetscCall(Operators(ctx, &A, &R));
  PetscCall(Prolongator(A, &P));
  /* a product through the AIJ copy first, so that the copy exists when the structure changes */
  PetscCall(MatTransposeMatMult(P, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(MatDestroy(&C));
  PetscCall(MatGetNonzeroState(A, &before));
  PetscCall(AddBlocks(ctx, A, R, (PetscBool)(ctx->param == 0)));
  PetscCall(MatGetNonzeroState(A, &after));
  moved = after != before;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &moved, 1, MPIU_INT, MPI_MIN, ctx->comm));
  TEST_CHECK(ctx->comm, moved, ctx->failures, "blocks added by %s insertion: the nonzerostate stayed on some rank", ctx->param == 0 ? "blocked" : "scalar");
  PetscCall(SameProduct(A, R, &rel));
  TEST_CHECK(ctx->comm, rel < 1e-12, ctx->failures, "MatMult after the new blocks: relative difference %g from MATAIJ", (double)rel);
  PetscCall(MatTransposeMatMult(P, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(MatTransposeMatMult(P, R, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cref));
  PetscCall(TestMatrixRelDiff(C, Cref, &rel));
  TEST_CHECK(ctx->comm, rel < 1e-12, ctx->failures, "P^T A after the new blocks: relative difference %g from MATAIJ", (double)rel);
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(MatPtAP(R, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cref));
  PetscCall(TestMatrixRelDiff(C, Cref, &rel));
  TEST_CHECK(ctx->comm, rel < 1e-12, ctx->failures, "P^T A P after the new blocks: relative difference %g from MATAIJ", (double)rel);
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(0);
}

/* KSP CG with pc (gamg or lu) on M, b = M 1: iterations and solution */
static PetscErrorCode Solve(KSP ksp, Mat M, PetscInt *its, Vec *x)
{
  Vec b, one;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(M, &one, &b));
  PetscCall(VecSet(one, 1.0));
  PetscCall(MatMult(M, one, b));
  PetscCall(VecDuplicate(b, x));
  PetscCall(KSPSetOperators(ksp, M, M));
  PetscCall(KSPSolve(ksp, b, *x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&one));
  PetscFunctionReturn(0);
}

static PetscErrorCode SolversFollow(TestContext *ctx)
{
  const char *pc = ctx->param == 0 ? PCGAMG : PCLU;
  Mat         A, R;
  KSP         ksp[2];

  PetscFunctionBegin;
  if (ctx->param == 1 && ctx->size > 1) {
    PetscCall(TestSkip(ctx, "PETSc's own LU is sequential"));
    PetscFunctionReturn(0);
  }
  PetscCall(Operators(ctx, &A, &R));
  for (int k = 0; k < 2; k++) {
    PC p;
    PetscCall(KSPCreate(ctx->comm, &ksp[k]));
    PetscCall(KSPSetType(ksp[k], ctx->param == 0 ? KSPCG : KSPPREONLY));
    PetscCall(KSPGetPC(ksp[k], &p));
    PetscCall(PCSetType(p, pc));
    PetscCall(KSPSetTolerances(ksp[k], 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  }
  for (int round = 0; round < 2; round++) {
    PetscInt  its[2];
    Vec       x[2];
    PetscReal rel;
    if (round) PetscCall(AddBlocks(ctx, A, R, PETSC_TRUE));
    PetscCall(Solve(ksp[0], A, &its[0], &x[0]));
    PetscCall(Solve(ksp[1], R, &its[1], &x[1]));
    PetscCall(TestRelDiff(x[0], x[1], &rel));
    TEST_CHECK(ctx->comm, rel < 1e-8, ctx->failures, "%s, %s: solution %g from MATAIJ's", pc, round ? "after new blocks" : "first solve", (double)rel);
    TEST_CHECK(ctx->comm, PetscAbsInt(its[0] - its[1]) <= (ctx->param == 0 ? 1 : 0), ctx->failures, "%s, %s: %" PetscInt_FMT " iterations, MATAIJ %" PetscInt_FMT, pc, round ? "after new blocks" : "first solve", its[0], its[1]);
    PetscCall(VecDestroy(&x[0]));
    PetscCall(VecDestroy(&x[1]));
  }
  PetscCall(KSPDestroy(&ksp[0]));
  PetscCall(KSPDestroy(&ksp[1]));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(0);
}

/* an n-row matrix of `type` (bs 3, 4 block rows a rank) preallocated AIJ-style with nnz per row
   (diagonal part; off-diagonal 0) */
static PetscErrorCode AIJStyle(TestContext *ctx, MatType type, PetscInt nnz, Mat *M)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(ctx->comm, M));
  PetscCall(MatSetSizes(*M, 12, 12, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*M, 3));
  PetscCall(MatSetType(*M, type));
  PetscCall(MatSeqAIJSetPreallocation(*M, nnz, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*M, nnz, NULL, 0, NULL));
  PetscFunctionReturn(0);
}

/* each local row r gets `per_row` entries in as many blocks of this rank's columns: columns r,
   r + 4, r + 8, ... (mod 12, local) */
static PetscErrorCode InsertBlocks(Mat M, PetscInt per_row, PetscErrorCode *err)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(M, &rstart, &rend));
  *err = 0;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (PetscInt i = rstart; i < rend && !*err; i++) {
    PetscInt    c[4];
    PetscScalar v[4] = {4.0, -1.0, -0.5, -0.25};
    for (PetscInt e = 0; e < per_row; e++) c[e] = rstart + ((i - rstart) + 4 * e) % 12;
    *err = MatSetValues(M, 1, &i, per_row, c, v, INSERT_VALUES);
  }
  if (!*err) *err = MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY);
  if (!*err) *err = MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY);
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(0);
}

static PetscErrorCode CountsExceeded(TestContext *ctx)
{
  Mat            A, R;
  PetscErrorCode ea, er;

  PetscFunctionBegin;
  /* one entry a row counted, three inserted, each in a block of its own: a block row of 3 rows so
     counted holds at most 3 blocks, and has 4 (a count exceeded within the blocks a row has is not
     seen: BAIJ's blocks are dense) */
  PetscCall(AIJStyle(ctx, MATBSRCUSTOM, 1, &A));
  PetscCall(AIJStyle(ctx, MATAIJ, 1, &R));
  PetscCall(InsertBlocks(A, 3, &ea));
  PetscCall(InsertBlocks(R, 3, &er));
  TEST_CHECK(PETSC_COMM_SELF, er == PETSC_ERR_ARG_OUTOFRANGE, ctx->failures, "MATAIJ's own refusal: error %d", (int)er);
  TEST_CHECK(PETSC_COMM_SELF, ea == PETSC_ERR_ARG_OUTOFRANGE, ctx->failures, "counts exceeded: error %d, not PETSC_ERR_ARG_OUTOFRANGE", (int)ea);
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  /* allowed once the option is off, as on AIJ */
  PetscCall(AIJStyle(ctx, MATBSRCUSTOM, 1, &A));
  PetscCall(AIJStyle(ctx, MATAIJ, 1, &R));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(R, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(InsertBlocks(A, 3, &ea));
  PetscCall(InsertBlocks(R, 3, &er));
  TEST_CHECK(PETSC_COMM_SELF, ea == 0 && er == 0, ctx->failures, "MAT_NEW_NONZERO_ALLOCATION_ERR off: errors %d (ours), %d (MATAIJ)", (int)ea, (int)er);
  if (!ea && !er) {
    PetscReal rel;
    PetscCall(SameProduct(A, R, &rel));
    TEST_CHECK(ctx->comm, rel < 1e-14, ctx->failures, "MatMult: %g from MATAIJ", (double)rel);
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(0);
}

static PetscErrorCode CountsScalarPattern(TestContext *ctx)
{
  Mat            A, R;
  PetscErrorCode ea, er;

  PetscFunctionBegin;
  /* two entries a row counted and inserted, in two blocks: the block estimate ceil(2/3) = 1 is short,
     the counts are not */
  PetscCall(AIJStyle(ctx, MATBSRCUSTOM, 2, &A));
  PetscCall(AIJStyle(ctx, MATAIJ, 2, &R));
  PetscCall(InsertBlocks(A, 2, &ea));
  PetscCall(InsertBlocks(R, 2, &er));
  TEST_CHECK(PETSC_COMM_SELF, ea == 0 && er == 0, ctx->failures, "within the counts: errors %d (ours), %d (MATAIJ)", (int)ea, (int)er);
  if (!ea && !er) {
    PetscReal rel;
    PetscCall(SameProduct(A, R, &rel));
    TEST_CHECK(ctx->comm, rel < 1e-14, ctx->failures, "MatMult: %g from MATAIJ", (double)rel);
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(0);
}

static PetscErrorCode CSR(TestContext *ctx)
{
  const PetscInt m = 12, bs = 3;
  Mat            M[2];
  const MatType  types[2] = {MATBSRCUSTOM, MATAIJ};
  PetscInt       rstart, N, *ii, *jj, newcol;
  PetscScalar   *vv;
  PetscReal      rel;
  PetscErrorCode err[2];

  PetscFunctionBegin;
  N      = m * ctx->size;
  rstart = m * ctx->rank;
  /* rows of 3 entries: the diagonal, the next rank's row (off-rank on several ranks) and one column of
     the next block (not block-structured) */
  PetscCall(PetscMalloc3(m + 1, &ii, 3 * m, &jj, 3 * m, &vv));
  ii[0] = 0;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt g    = rstart + r;
    jj[3 * r]     = g;
    jj[3 * r + 1] = (g + m) % N == g ? (g + 1) % N : (g + m) % N;
    jj[3 * r + 2] = ((g / bs + 1) * bs + g % 2) % N;
    if (jj[3 * r + 2] == jj[3 * r] || jj[3 * r + 2] == jj[3 * r + 1]) jj[3 * r + 2] = (jj[3 * r + 2] + 2 * bs) % N;
    for (int e = 0; e < 3; e++) vv[3 * r + e] = e ? -1.0 / (1 + e + r) : 5.0 + r;
    PetscCall(PetscSortIntWithScalarArray(3, jj + 3 * r, vv + 3 * r));
    ii[r + 1] = 3 * (r + 1);
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(MatCreate(ctx->comm, &M[k]));
    PetscCall(MatSetSizes(M[k], m, m, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetBlockSize(M[k], bs));
    PetscCall(MatSetType(M[k], types[k]));
    PetscCall(MatSeqAIJSetPreallocationCSR(M[k], ii, jj, vv));
    PetscCall(MatMPIAIJSetPreallocationCSR(M[k], ii, jj, vv));
  }
  PetscCall(TestMatrixRelDiff(M[0], M[1], &rel));
  TEST_CHECK(ctx->comm, rel < 1e-15, ctx->failures, "CSR preallocation with values: %g from MATAIJ's matrix", (double)rel);
  PetscCall(SameProduct(M[0], M[1], &rel));
  TEST_CHECK(ctx->comm, rel < 1e-14, ctx->failures, "CSR preallocation: MatMult %g from MATAIJ's", (double)rel);
  /* a new location after it, in a block this block row does not have: refused by both
     (MAT_NEW_NONZERO_LOCATION_ERR; an entry inside a block ours holds is no new location to BAIJ) */
  {
    PetscBool has[64] = {PETSC_FALSE};
    PetscCheck(N / bs <= 64, PETSC_COMM_SELF, PETSC_ERR_PLIB, "test sizes");
    for (PetscInt k = ii[0]; k < ii[bs]; k++) has[jj[k] / bs] = PETSC_TRUE;
    for (newcol = 0; has[newcol / bs]; newcol += bs) { }
  }
  for (int k = 0; k < 2; k++) {
    PetscInt    i = rstart, j = newcol;
    PetscScalar v = 1.0;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    err[k] = MatSetValues(M[k], 1, &i, 1, &j, &v, INSERT_VALUES);
    PetscCall(PetscPopErrorHandler());
  }
  TEST_CHECK(PETSC_COMM_SELF, err[1] != 0, ctx->failures, "MATAIJ accepted a new location after its CSR preallocation");
  TEST_CHECK(PETSC_COMM_SELF, err[0] == err[1], ctx->failures, "a new location after the CSR preallocation: error %d, MATAIJ's %d", (int)err[0], (int)err[1]);
  PetscCall(MatDestroy(&M[0]));
  PetscCall(MatDestroy(&M[1]));
  PetscCall(PetscFree3(ii, jj, vv));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"new_blocks_blocked", NewBlocks, 0},
    {"new_blocks_scalar", NewBlocks, 1},
    {"gamg_after_new_blocks", SolversFollow, 0},
    {"lu_after_new_blocks", SolversFollow, 1},
    {"aij_counts_exceeded", CountsExceeded, 0},
    {"aij_counts_scalar_pattern", CountsScalarPattern, 0},
    {"aij_csr", CSR, 0},
  };
  int status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(TestRunCases("structure changes", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
