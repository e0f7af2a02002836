static const char help[] = "COO assembly (MatSetPreallocationCOO / MatSetValuesCOO) of bsrcustom against MATAIJ's with the same coordinates.\n";

/* Coverage (cases, -test_list), on 1-4 ranks. The coordinates are an element-by-element list of a
   structured hexahedral mesh (8 nodes an element, bs unknowns a node), each rank giving the elements
   e with e % size == rank, so that many coordinates lie in other ranks' rows; some coordinates are
   left out (blocks then hold values no coordinate gives), every 11th has a negative row or column
   (ignored), and the first tenth is given a second time (duplicates summed).
     values_bs<1,2,3,6>  INSERT_VALUES, ADD_VALUES, then repeated INSERT_VALUES with new values: after
                         each, the matrix entry by entry (MatConvert to AIJ, MatAXPY, norm) and
                         MatMult, MatMultAdd and MatMultTranspose (the transposed copy follows) against
                         MATAIJ's; NULL values (zeros) too
     ksp_pbjacobi        CG + PBJacobi on an SPD block matrix (bs 3) made by COO: iterations within 1 of
     ksp_gamg            MATAIJ's and the same solution; then new values (MatSetValuesCOO) and the same
                         KSP again: the PC follows (inverted blocks, GAMG's operators)
     repreallocate       a second MatSetPreallocationCOO with other coordinates on an assembled matrix
     blocked_bs<2,3>     MatBSRCustomSetPreallocationCOOBlocked / MatBSRCustomSetValuesCOOBlocked (blocks
                         with negative block indices, duplicates, in other ranks' rows) against MATAIJ's
                         COO with the scalar coordinates made here; INSERT, ADD; a block outside
     bad_outside         a coordinate outside the matrix (on rank 0 only): PETSC_ERR_ARG_OUTOFRANGE on
                         every rank, naming it
     bad_structure       MatSetValuesCOO after a new block was added: PETSC_ERR_ARG_WRONGSTATE
     bad_no_preallocation MatSetValuesCOO on a matrix preallocated otherwise: PETSC_ERR_ARG_WRONGSTATE
     duplicate           MatDuplicate's copies (with and without values) take MatSetValuesCOO; the original keeps its values
     ignore_off_proc     MAT_IGNORE_OFF_PROC_ENTRIES drops coordinates in other ranks' rows, as MATAIJ given them negative
     device_cuda         values in device memory (cudaMalloc, as a GPU code assembles them) on the cuda
                         backend: summed into the device copy, the host values a copy (MatConvert, MatAXPY
                         read them) and MatMult on the device copy with no upload after MatSetValuesCOO;
                         INSERT, ADD, repeated INSERT, against MATAIJ given the same values from the host;
                         then MatSetValues in own and other ranks' rows: the device copy follows
     device_cpu          the same on the cpu backend (the values copied to the host first)
                         (both GPU cases: skipped, visibly, without CUDA in this build or a visible GPU) */

#include "testutils.h"
#include <petscksp.h>
#if defined(BSRC_TEST_CUDA)
  #include <cuda_runtime_api.h>
#endif

typedef struct {
  PetscCount   n;
  PetscInt    *i, *j;
  PetscScalar *v;
} COOList;

static PetscErrorCode COOListFree(COOList *L)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(L->i, L->j, L->v));
  PetscFunctionReturn(0);
}

/* a value in [-1, 1] from the integers, the same on every rank */
static PetscScalar HashValue(PetscInt a, PetscInt b, PetscInt c, PetscInt d)
{
  unsigned long long h    = 1469598103934665603ULL;
  const PetscInt     k[4] = {a, b, c, d};
  for (int t = 0; t < 4; t++) {
    h ^= (unsigned long long)(k[t] + 7919);
    h *= 1099511628211ULL;
    h ^= h >> 29;
  }
  return (PetscScalar)((double)(h % 2001ULL) / 1000.0 - 1.0);
}

/* The element list of an nx^3-node mesh with bs unknowns a node, this rank's elements. spd: the element
   matrices (Laplacian of the element's nodes + 0.5 I) (x) (2 I + 0.3 (1 - I)), each SPD, and the whole
   list complete; else values from `seed`, with holes, negative indices and duplicates. */
static PetscErrorCode MakeList(TestContext *ctx, PetscInt nx, PetscInt bs, PetscBool spd, PetscInt seed, COOList *L)
{
  const PetscInt ne = nx - 1, nen = 8 * bs;
  PetscCount     cap = 0, n = 0;

  PetscFunctionBegin;
  for (PetscInt e = ctx->rank; e < ne * ne * ne; e += ctx->size) cap += (PetscCount)nen * nen;
  cap += cap / 10;
  PetscCall(PetscMalloc3(cap, &L->i, cap, &L->j, cap, &L->v));
  for (PetscInt e = ctx->rank; e < ne * ne * ne; e += ctx->size) {
    PetscInt ex = e % ne, ey = (e / ne) % ne, ez = e / (ne * ne), node[8];
    for (PetscInt a = 0; a < 8; a++) node[a] = (ex + (a & 1)) + nx * ((ey + ((a >> 1) & 1)) + nx * (ez + ((a >> 2) & 1)));
    for (PetscInt a = 0; a < nen; a++) {
      for (PetscInt b = 0; b < nen; b++) {
        const PetscInt na = a / bs, ca = a % bs, nb = b / bs, cb = b % bs;
        PetscInt       row = node[na] * bs + ca, col = node[nb] * bs + cb;
        PetscScalar    val;
        if (spd) {
          const PetscReal lap = na == nb ? 7.5 : -1.0, blk = ca == cb ? 2.0 : 0.3;
          val = lap * blk;
        } else {
          if ((a * 7 + b * 3 + e) % 13 == 0) continue; /* a hole: blocks with values no coordinate gives */
          val = HashValue(seed, e, a, b);
          if (n % 11 == 5) row = -1;
          else if (n % 11 == 8) col = -1;
        }
        L->i[n]   = row;
        L->j[n]   = col;
        L->v[n++] = val;
      }
    }
  }
  if (!spd) {
    const PetscCount first = n / 10;
    for (PetscCount k = 0; k < first; k++) {
      L->i[n]   = L->i[k];
      L->j[n]   = L->j[k];
      L->v[n++] = HashValue(seed + 1, (PetscInt)k, 3, 5);
    }
  }
  L->n = n;
  PetscFunctionReturn(0);
}

static PetscErrorCode NewValues(const COOList *L, PetscInt seed, PetscScalar *v)
{
  PetscFunctionBegin;
  for (PetscCount k = 0; k < L->n; k++) v[k] = HashValue(seed, (PetscInt)k, 11, 17);
  PetscFunctionReturn(0);
}

/* A matrix of `type` for the nx^3-node mesh, block size bs, rows by nodes */
static PetscErrorCode MakeMatrix(TestContext *ctx, MatType type, PetscInt nx, PetscInt bs, Mat *A)
{
  PetscInt nodes = PETSC_DECIDE, N = nx * nx * nx;

  PetscFunctionBegin;
  PetscCall(PetscSplitOwnership(ctx->comm, &nodes, &N));
  PetscCall(MatCreate(ctx->comm, A));
  PetscCall(MatSetSizes(*A, nodes * bs, nodes * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscFunctionReturn(0);
}

/* MatSetPreallocationCOO on a copy of L's indices (PETSc may change them) */
static PetscErrorCode PreallocateCOO(Mat A, const COOList *L)
{
  PetscInt *i, *j;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(L->n, &i, L->n, &j));
  PetscCall(PetscArraycpy(i, L->i, L->n));
  PetscCall(PetscArraycpy(j, L->j, L->n));
  PetscCall(MatSetPreallocationCOO(A, L->n, i, j));
  PetscCall(PetscFree2(i, j));
  PetscFunctionReturn(0);
}

/* A against R: type kept, entries (AIJ copy minus R), products, transpose product */
static PetscErrorCode CompareWithAIJ(TestContext *ctx, Mat A, Mat R, const char *what)
{
  Mat       C;
  Vec       x, y, z;
  PetscReal d, r, rel;
  PetscBool ours, assembled;
  MatType   type;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &ours, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
  PetscCall(MatGetType(A, &type));
  TEST_CHECK(ctx->comm, ours, ctx->failures, "%s: the matrix is %s, not ours", what, type);
  PetscCall(MatAssembled(A, &assembled));
  TEST_CHECK(ctx->comm, assembled, ctx->failures, "%s: not assembled", what);
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, R, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &d));
  PetscCall(MatNorm(R, NORM_FROBENIUS, &r));
  PetscCall(MatDestroy(&C));
  TEST_CHECK(ctx->comm, d <= 1e-13 * PetscMax(r, 1e-300) || (r == 0 && d == 0), ctx->failures, "%s: ||A - R||_F = %g, ||R||_F = %g", what, (double)d, (double)r);
  PetscCall(TestCompareProducts(A, R, 1e-12, &ctx->failures, what));
  PetscCall(MatCreateVecs(R, &x, &y));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecSetRandom(y, NULL));
  PetscCall(MatMultTranspose(A, y, x));
  PetscCall(MatMultTranspose(R, y, z));
  PetscCall(TestRelDiff(x, z, &rel));
  TEST_CHECK(ctx->comm, rel <= 1e-12, ctx->failures, "%s: MatMultTranspose differs from MATAIJ's by %g", what, (double)rel);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(0);
}

static PetscErrorCode Values(TestContext *ctx)
{
  const PetscInt bs = ctx->param, nx = 5;
  COOList        L;
  Mat            A, R;
  PetscScalar   *v;
  char           what[64];

  PetscFunctionBegin;
  PetscCall(MakeList(ctx, nx, bs, PETSC_FALSE, 1, &L));
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
  PetscCall(MakeMatrix(ctx, MATAIJ, nx, bs, &R));
  PetscCall(PreallocateCOO(A, &L));
  PetscCall(PreallocateCOO(R, &L));
  PetscCall(MatSetValuesCOO(A, L.v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, L.v, INSERT_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "insert"));
  PetscCall(PetscMalloc1(L.n, &v));
  PetscCall(NewValues(&L, 2, v));
  PetscCall(MatSetValuesCOO(A, v, ADD_VALUES));
  PetscCall(MatSetValuesCOO(R, v, ADD_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "add"));
  for (PetscInt rep = 0; rep < 3; rep++) {
    PetscCall(NewValues(&L, 10 + rep, v));
    PetscCall(MatSetValuesCOO(A, v, INSERT_VALUES));
    PetscCall(MatSetValuesCOO(R, v, INSERT_VALUES));
    PetscCall(PetscSNPrintf(what, sizeof(what), "insert again (%" PetscInt_FMT ")", rep));
    PetscCall(CompareWithAIJ(ctx, A, R, what));
  }
  /* NULL values are zeros (PETSc 3.18's MATAIJ takes no NULL: zeros given to it) */
  PetscCall(PetscArrayzero(v, L.n));
  PetscCall(MatSetValuesCOO(A, NULL, ADD_VALUES));
  PetscCall(MatSetValuesCOO(R, v, ADD_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "add NULL"));
  PetscCall(MatSetValuesCOO(A, NULL, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, v, INSERT_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "insert NULL"));
  PetscCall(PetscFree(v));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(COOListFree(&L));
  PetscFunctionReturn(0);
}

/* The solves' MATAIJ reference: R's entries, assembled by MatSetValues. PETSc 3.18's MATMPIAIJ made
   by COO leaves its local block at block size 1, which its PBJacobi then misreads (PC failure). */
static PetscErrorCode CopyByRows(Mat R, Mat *S)
{
  PetscInt rstart, rend, cstart, cend, m, bs, *dnz, *onz;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(R, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(R, &cstart, &cend));
  PetscCall(MatGetBlockSize(R, &bs));
  m = rend - rstart;
  PetscCall(PetscCalloc2(m, &dnz, m, &onz));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt        nc;
    const PetscInt *cols;
    PetscCall(MatGetRow(R, r, &nc, &cols, NULL));
    for (PetscInt k = 0; k < nc; k++) {
      if (cols[k] >= cstart && cols[k] < cend) dnz[r - rstart]++;
      else onz[r - rstart]++;
    }
    PetscCall(MatRestoreRow(R, r, &nc, &cols, NULL));
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)R), S));
  PetscCall(MatSetSizes(*S, m, cend - cstart, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*S, bs));
  PetscCall(MatSetType(*S, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*S, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(*S, 0, dnz, 0, onz));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(R, r, &nc, &cols, &vals));
    PetscCall(MatSetValues(*S, 1, &r, nc, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(R, r, &nc, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(*S, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*S, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(dnz, onz));
  PetscFunctionReturn(0);
}

/* CG with `pc` on A and on R, same right-hand side: iterations and solutions */
static PetscErrorCode SolveBoth(TestContext *ctx, KSP ka, KSP kr, Vec b, const char *what)
{
  Vec                xa, xr;
  PetscInt           ia, ir;
  PetscReal          rel;
  KSPConvergedReason ra, rr;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &xa));
  PetscCall(VecDuplicate(b, &xr));
  PetscCall(KSPSolve(ka, b, xa));
  PetscCall(KSPSolve(kr, b, xr));
  PetscCall(KSPGetIterationNumber(ka, &ia));
  PetscCall(KSPGetIterationNumber(kr, &ir));
  PetscCall(KSPGetConvergedReason(ka, &ra));
  PetscCall(KSPGetConvergedReason(kr, &rr));
  PetscCall(TestRelDiff(xa, xr, &rel));
  TEST_CHECK(ctx->comm, ra > 0 && rr > 0, ctx->failures, "%s: not converged (ours %d, AIJ %d)", what, (int)ra, (int)rr);
  TEST_CHECK(ctx->comm, PetscAbs(ia - ir) <= 1, ctx->failures, "%s: %" PetscInt_FMT " iterations, MATAIJ %" PetscInt_FMT, what, ia, ir);
  TEST_CHECK(ctx->comm, rel <= 1e-6, ctx->failures, "%s: solutions differ by %g", what, (double)rel);
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&xr));
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(TestContext *ctx)
{
  const PetscInt bs = 3, nx = 8;
  const char    *pcs[] = {PCPBJACOBI, PCGAMG};
  COOList        L;
  Mat            A, R, S;
  KSP            ka, kr;
  Vec            b;

  PetscFunctionBegin;
  PetscCall(MakeList(ctx, nx, bs, PETSC_TRUE, 0, &L));
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
  PetscCall(MakeMatrix(ctx, MATAIJ, nx, bs, &R));
  PetscCall(PreallocateCOO(A, &L));
  PetscCall(PreallocateCOO(R, &L));
  PetscCall(MatSetValuesCOO(A, L.v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, L.v, INSERT_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "spd"));
  PetscCall(CopyByRows(R, &S));
  PetscCall(MatCreateVecs(R, NULL, &b));
  PetscCall(VecSetRandom(b, NULL));
  for (int k = 0; k < 2; k++) {
    KSP *ksp[2] = {&ka, &kr};
    Mat  M[2]   = {A, S};
    PC   pc;
    PetscCall(KSPCreate(ctx->comm, ksp[k]));
    PetscCall(KSPSetOperators(*ksp[k], M[k], M[k]));
    PetscCall(KSPSetType(*ksp[k], KSPCG));
    PetscCall(KSPSetTolerances(*ksp[k], 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 500));
    PetscCall(KSPGetPC(*ksp[k], &pc));
    PetscCall(PCSetType(pc, pcs[ctx->param]));
  }
  PetscCall(SolveBoth(ctx, ka, kr, b, pcs[ctx->param]));
  /* new values: twice the matrix, through INSERT_VALUES then ADD_VALUES */
  PetscCall(MatSetValuesCOO(A, L.v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(A, L.v, ADD_VALUES)); /* twice the matrix */
  PetscCall(MatSetValuesCOO(R, L.v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, L.v, ADD_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "spd doubled"));
  PetscCall(MatScale(S, 2.0));
  PetscCall(SolveBoth(ctx, ka, kr, b, "after new values"));
  PetscCall(KSPDestroy(&ka));
  PetscCall(KSPDestroy(&kr));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&S));
  PetscCall(COOListFree(&L));
  PetscFunctionReturn(0);
}

static PetscErrorCode Repreallocate(TestContext *ctx)
{
  const PetscInt bs = 2, nx = 4;
  COOList        L1, L2;
  Mat            A, R;

  PetscFunctionBegin;
  PetscCall(MakeList(ctx, nx, bs, PETSC_FALSE, 3, &L1));
  PetscCall(MakeList(ctx, nx, bs, PETSC_TRUE, 0, &L2));
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
  PetscCall(MakeMatrix(ctx, MATAIJ, nx, bs, &R));
  PetscCall(PreallocateCOO(A, &L1));
  PetscCall(MatSetValuesCOO(A, L1.v, INSERT_VALUES));
  PetscCall(PreallocateCOO(A, &L2));
  PetscCall(PreallocateCOO(R, &L2));
  PetscCall(MatSetValuesCOO(A, L2.v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, L2.v, INSERT_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "second preallocation"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(COOListFree(&L1));
  PetscCall(COOListFree(&L2));
  PetscFunctionReturn(0);
}

#define EXPECT_ERROR(call, code, needle) TEST_EXPECT_ERROR(ctx, PETSC_COMM_SELF, call, code, needle)

/* The element list in blocks: one block a node pair of an element, bs x bs values row by row; every
   7th block with a negative block row or column, the first tenth again (duplicates) */
static PetscErrorCode MakeBlockList(TestContext *ctx, PetscInt nx, PetscInt bs, COOList *L)
{
  const PetscInt ne = nx - 1, bs2 = bs * bs;
  PetscCount     cap = 0, n = 0;

  PetscFunctionBegin;
  for (PetscInt e = ctx->rank; e < ne * ne * ne; e += ctx->size) cap += 64;
  cap += cap / 10;
  PetscCall(PetscMalloc3(cap, &L->i, cap, &L->j, cap * bs2, &L->v));
  for (PetscInt e = ctx->rank; e < ne * ne * ne; e += ctx->size) {
    PetscInt ex = e % ne, ey = (e / ne) % ne, ez = e / (ne * ne), node[8];
    for (PetscInt a = 0; a < 8; a++) node[a] = (ex + (a & 1)) + nx * ((ey + ((a >> 1) & 1)) + nx * (ez + ((a >> 2) & 1)));
    for (PetscInt a = 0; a < 8; a++) {
      for (PetscInt b = 0; b < 8; b++) {
        L->i[n] = n % 7 == 3 ? -1 : node[a];
        L->j[n] = n % 7 == 5 ? -2 : node[b];
        for (PetscInt q = 0; q < bs2; q++) L->v[n * bs2 + q] = HashValue(e, a, b, q);
        n++;
      }
    }
  }
  for (PetscCount k = 0, first = n / 10; k < first; k++) {
    L->i[n] = L->i[k];
    L->j[n] = L->j[k];
    for (PetscInt q = 0; q < bs2; q++) L->v[n * bs2 + q] = HashValue(-1, (PetscInt)k, 7, q);
    n++;
  }
  L->n = n;
  PetscFunctionReturn(0);
}

/* The scalar list of a block list, made here: value (r, c) of block k is coordinate k*bs*bs + r*bs + c */
static PetscErrorCode ScalarListOf(const COOList *B, PetscInt bs, COOList *L)
{
  const PetscInt bs2 = bs * bs;

  PetscFunctionBegin;
  L->n = B->n * bs2;
  PetscCall(PetscMalloc3(L->n, &L->i, L->n, &L->j, L->n, &L->v));
  for (PetscCount k = 0; k < B->n; k++) {
    for (PetscInt r = 0; r < bs; r++) {
      for (PetscInt c = 0; c < bs; c++) {
        const PetscCount q = k * bs2 + r * bs + c;
        L->i[q]            = B->i[k] < 0 || B->j[k] < 0 ? -1 : B->i[k] * bs + r;
        L->j[q]            = B->i[k] < 0 || B->j[k] < 0 ? -1 : B->j[k] * bs + c;
        L->v[q]            = B->v[q];
      }
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Blocked(TestContext *ctx)
{
  const PetscInt bs = ctx->param, nx = 5;
  COOList        B, L;
  Mat            A, R;
  PetscScalar   *v;

  PetscFunctionBegin;
  PetscCall(MakeBlockList(ctx, nx, bs, &B));
  PetscCall(ScalarListOf(&B, bs, &L));
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
  PetscCall(MakeMatrix(ctx, MATAIJ, nx, bs, &R));
  PetscCall(MatBSRCustomSetPreallocationCOOBlocked(A, B.n, B.i, B.j));
  PetscCall(PreallocateCOO(R, &L));
  PetscCall(MatBSRCustomSetValuesCOOBlocked(A, B.v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, L.v, INSERT_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "blocked insert"));
  PetscCall(PetscMalloc1(L.n, &v));
  PetscCall(NewValues(&L, 5, v));
  PetscCall(MatBSRCustomSetValuesCOOBlocked(A, v, ADD_VALUES));
  PetscCall(MatSetValuesCOO(R, v, ADD_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "blocked add"));
  PetscCall(NewValues(&L, 6, v));
  PetscCall(MatBSRCustomSetValuesCOOBlocked(A, v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, v, INSERT_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "blocked insert again"));
  PetscCall(PetscFree(v));
  PetscCall(MatDestroy(&A));
  /* a block outside: every rank stops, rank 0 naming it */
  if (ctx->rank == 0 && B.n > 2) B.j[2] = nx * nx * nx;
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
  EXPECT_ERROR(MatBSRCustomSetPreallocationCOOBlocked(A, B.n, B.i, B.j), PETSC_ERR_ARG_OUTOFRANGE, ctx->rank == 0 ? "COO block 2 (block row" : "another rank");
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(COOListFree(&B));
  PetscCall(COOListFree(&L));
  PetscFunctionReturn(0);
}

static PetscErrorCode BadOutside(TestContext *ctx)
{
  const PetscInt bs = 2, nx = 3;
  COOList        L;
  Mat            A;

  PetscFunctionBegin;
  PetscCall(MakeList(ctx, nx, bs, PETSC_TRUE, 0, &L));
  if (ctx->rank == 0 && L.n > 3) L.j[3] = nx * nx * nx * bs; /* one past the last column */
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
  EXPECT_ERROR(MatSetPreallocationCOO(A, L.n, L.i, L.j), PETSC_ERR_ARG_OUTOFRANGE, ctx->rank == 0 ? "COO coordinate 3 (row" : "another rank");
  PetscCall(MatDestroy(&A));
  if (ctx->rank == 0 && L.n > 3) {
    L.j[3] = 0;
    L.i[3] = -nx; /* negative: ignored */
    L.i[4] = nx * nx * nx * bs + 5;
  }
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
  EXPECT_ERROR(MatSetPreallocationCOO(A, L.n, L.i, L.j), PETSC_ERR_ARG_OUTOFRANGE, ctx->rank == 0 ? "COO coordinate 4 (row" : "another rank");
  PetscCall(MatDestroy(&A));
  PetscCall(COOListFree(&L));
  PetscFunctionReturn(0);
}

static PetscErrorCode BadStructure(TestContext *ctx)
{
  const PetscInt bs = 2, nx = 4, N = nx * nx * nx * bs;
  COOList        L;
  Mat            A;

  PetscFunctionBegin;
  PetscCall(MakeList(ctx, nx, bs, PETSC_TRUE, 0, &L));
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
  PetscCall(PreallocateCOO(A, &L));
  PetscCall(MatSetValuesCOO(A, L.v, INSERT_VALUES));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  if (ctx->rank == 0) PetscCall(MatSetValue(A, 0, N - 1, 1.0, INSERT_VALUES)); /* node 0 and the last node share no element */
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  EXPECT_ERROR(MatSetValuesCOO(A, L.v, INSERT_VALUES), PETSC_ERR_ARG_WRONGSTATE, "nonzero structure changed");
  PetscCall(MatDestroy(&A));
  PetscCall(COOListFree(&L));
  PetscFunctionReturn(0);
}

static PetscErrorCode BadNoPreallocation(TestContext *ctx)
{
  Mat         A;
  PetscScalar v[1] = {1.0};

  PetscFunctionBegin;
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, 3, 2, &A));
  PetscCall(MatSetUp(A));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  EXPECT_ERROR(MatSetValuesCOO(A, v, INSERT_VALUES), PETSC_ERR_ARG_WRONGSTATE, "needs MatSetPreallocationCOO()");
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* MatDuplicate carries the COO map, as PETSc's own MatDuplicate does MATAIJ's: copies made with and
   without values take MatSetValuesCOO, and the original keeps its values */
static PetscErrorCode Duplicate(TestContext *ctx)
{
  const PetscInt bs = 3, nx = 4;
  COOList        L;
  Mat            A, C[2], R, R2;
  PetscScalar   *v;

  PetscFunctionBegin;
  PetscCall(MakeList(ctx, nx, bs, PETSC_FALSE, 3, &L));
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
  PetscCall(MakeMatrix(ctx, MATAIJ, nx, bs, &R));
  PetscCall(MakeMatrix(ctx, MATAIJ, nx, bs, &R2));
  PetscCall(PreallocateCOO(A, &L));
  PetscCall(PreallocateCOO(R, &L));
  PetscCall(PreallocateCOO(R2, &L));
  PetscCall(MatSetValuesCOO(A, L.v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, L.v, INSERT_VALUES));
  PetscCall(PetscMalloc1(L.n, &v));
  PetscCall(NewValues(&L, 4, v));
  PetscCall(MatSetValuesCOO(R2, v, INSERT_VALUES));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C[0]));
  PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, &C[1]));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatSetValuesCOO(C[k], v, INSERT_VALUES));
    PetscCall(CompareWithAIJ(ctx, C[k], R2, k ? "copy without values" : "copy with values"));
  }
  PetscCall(CompareWithAIJ(ctx, A, R, "the original after its copies' MatSetValuesCOO"));
  PetscCall(MatSetValuesCOO(A, v, INSERT_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R2, "the original, new values"));
  for (int k = 0; k < 2; k++) PetscCall(MatDestroy(&C[k]));
  PetscCall(PetscFree(v));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&R2));
  PetscCall(COOListFree(&L));
  PetscFunctionReturn(0);
}

/* MAT_IGNORE_OFF_PROC_ENTRIES: coordinates in other ranks' rows are dropped, as MATAIJ's COO drops
   them; the reference is MATAIJ given the list with those coordinates made negative */
static PetscErrorCode IgnoreOffProc(TestContext *ctx)
{
  const PetscInt bs = 2, nx = 5;
  COOList        L, F;
  Mat            A, R;
  PetscInt       rstart, rend;
  PetscCount     dropped = 0;
  PetscLayout    rmap;

  PetscFunctionBegin;
  PetscCall(MakeList(ctx, nx, bs, PETSC_FALSE, 5, &L));
  PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
  PetscCall(MakeMatrix(ctx, MATAIJ, nx, bs, &R));
  PetscCall(MatSetOption(A, MAT_IGNORE_OFF_PROC_ENTRIES, PETSC_TRUE));
  PetscCall(MatGetLayouts(A, &rmap, NULL));
  PetscCall(PetscLayoutSetUp(rmap));
  PetscCall(PetscLayoutGetRange(rmap, &rstart, &rend));
  F.n = L.n;
  PetscCall(PetscMalloc3(F.n, &F.i, F.n, &F.j, F.n, &F.v));
  for (PetscCount k = 0; k < L.n; k++) {
    const PetscBool off = (PetscBool)(L.i[k] < rstart || L.i[k] >= rend);
    F.i[k]              = off ? -1 : L.i[k];
    F.j[k]              = L.j[k];
    F.v[k]              = L.v[k];
    dropped += off;
  }
  if (ctx->size > 1) TEST_CHECK(PETSC_COMM_SELF, dropped > 0, ctx->failures, "rank %d: the list has no coordinates in other ranks' rows to drop", ctx->rank);
  PetscCall(PreallocateCOO(A, &L));
  PetscCall(PreallocateCOO(R, &F));
  PetscCall(MatSetValuesCOO(A, L.v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, F.v, INSERT_VALUES));
  PetscCall(CompareWithAIJ(ctx, A, R, "off-rank coordinates ignored"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(COOListFree(&F));
  PetscCall(COOListFree(&L));
  PetscFunctionReturn(0);
}

#if defined(BSRC_TEST_CUDA)
/* n values of v copied into device memory (cudaMalloc), and that memory given back */
static PetscErrorCode DeviceCopy(const PetscScalar *v, PetscCount n, PetscScalar **d)
{
  PetscFunctionBegin;
  *d = NULL;
  PetscCheck(cudaMalloc((void **)d, (size_t)PetscMax(n, 1) * sizeof(PetscScalar)) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_MEM, "cudaMalloc of the test's values failed");
  PetscCheck(cudaMemcpy(*d, v, (size_t)n * sizeof(PetscScalar), cudaMemcpyHostToDevice) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaMemcpy of the test's values failed");
  PetscFunctionReturn(0);
}

static PetscErrorCode DeviceFree(PetscScalar **d)
{
  PetscFunctionBegin;
  PetscCheck(cudaFree(*d) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaFree of the test's values failed");
  *d = NULL;
  PetscFunctionReturn(0);
}

/* A's MatSetValuesCOO from device memory and R's from the host, the same values; then A against R and,
   on the cuda backend, a MatMult that uploads nothing (the device copy holds the values already) */
static PetscErrorCode DeviceStep(TestContext *ctx, Mat A, Mat R, const COOList *L, const PetscScalar *v, InsertMode mode, const char *what)
{
  PetscScalar   *d;
  PetscLogDouble up0, up1;
  Vec            x, y;

  PetscFunctionBegin;
  PetscCall(DeviceCopy(v, L->n, &d));
  PetscCall(MatSetValuesCOO(A, d, mode));
  PetscCall(MatSetValuesCOO(R, v, mode));
  PetscCall(DeviceFree(&d)); /* A must not keep it */
  if (ctx->param == 0) {
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecSet(x, 1.0));
    PetscCall(TestEventCount("BSRCustomUpload", &up0));
    PetscCall(MatMult(A, x, y));
    PetscCall(TestEventCount("BSRCustomUpload", &up1));
    TEST_CHECK(ctx->comm, up1 == up0, ctx->failures, "%s: MatMult uploaded the matrix again (%g uploads) after MatSetValuesCOO filled its device copy", what, (double)(up1 - up0));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(CompareWithAIJ(ctx, A, R, what));
  PetscFunctionReturn(0);
}
#endif

/* MatSetValuesCOO with values in device memory: param 0 on the cuda backend, 1 on the cpu backend */
static PetscErrorCode DeviceValues(TestContext *ctx)
{
  PetscBool skip;

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
#if defined(BSRC_TEST_CUDA)
  {
    const PetscInt bs = 3, nx = 5;
    COOList        L;
    Mat            A, R;
    PetscScalar   *v;
    char           what[64];

    PetscCall(MakeList(ctx, nx, bs, PETSC_FALSE, 3, &L));
    PetscCall(MakeMatrix(ctx, MATBSRCUSTOM, nx, bs, &A));
    PetscCall(MatBSRCustomSetBackend(A, ctx->param == 0 ? MAT_BSRCUSTOM_BACKEND_CUDA : MAT_BSRCUSTOM_BACKEND_CPU));
    PetscCall(MakeMatrix(ctx, MATAIJ, nx, bs, &R));
    PetscCall(PreallocateCOO(A, &L));
    PetscCall(PreallocateCOO(R, &L));
    PetscCall(DeviceStep(ctx, A, R, &L, L.v, INSERT_VALUES, "device insert"));
    PetscCall(PetscMalloc1(L.n, &v));
    PetscCall(NewValues(&L, 4, v));
    PetscCall(DeviceStep(ctx, A, R, &L, v, ADD_VALUES, "device add"));
    for (PetscInt rep = 0; rep < 2; rep++) {
      PetscCall(NewValues(&L, 20 + rep, v));
      PetscCall(PetscSNPrintf(what, sizeof(what), "device insert again (%" PetscInt_FMT ")", rep));
      PetscCall(DeviceStep(ctx, A, R, &L, v, INSERT_VALUES, what));
    }
    /* then MatSetValues, in this rank's rows and the next rank's (MPIBAIJ writes those into the
       blocks' arrays at assembly, unseen by them): the device copy must follow */
    {
      PetscInt    rstart, rend, N, row[2];
      PetscScalar one = 1.0;
      PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
      PetscCall(MatGetSize(A, &N, NULL));
      row[0] = rstart;
      row[1] = rend % N;
      for (int k = 0; k < 2; k++) {
        const PetscInt col = row[k] + 1; /* the node's own block: in the pattern */
        PetscCall(MatSetValues(A, 1, &row[k], 1, &col, &one, ADD_VALUES));
        PetscCall(MatSetValues(R, 1, &row[k], 1, &col, &one, ADD_VALUES));
      }
      PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyBegin(R, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(R, MAT_FINAL_ASSEMBLY));
      PetscCall(CompareWithAIJ(ctx, A, R, "MatSetValues after device values"));
    }
    PetscCall(PetscFree(v));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&R));
    PetscCall(COOListFree(&L));
  }
#else
  PetscCall(TestSkip(ctx, "this build has no CUDA"));
#endif
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"values_bs1", Values, 1},           {"values_bs2", Values, 2},
    {"values_bs3", Values, 3},           {"values_bs6", Values, 6},
    {"ksp_pbjacobi", Solve, 0},          {"ksp_gamg", Solve, 1},
    {"repreallocate", Repreallocate, 0}, {"blocked_bs2", Blocked, 2},
    {"blocked_bs3", Blocked, 3},         {"bad_outside", BadOutside, 0},
    {"bad_structure", BadStructure, 0},  {"bad_no_preallocation", BadNoPreallocation, 0},
    {"duplicate", Duplicate, 0},         {"ignore_off_proc", IgnoreOffProc, 0},
    {"device_cuda", DeviceValues, 0},    {"device_cpu", DeviceValues, 1},
  };
  int status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(PetscLogDefaultBegin()); /* the device cases count uploads */
  PetscCall(TestRunCases("coo", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
