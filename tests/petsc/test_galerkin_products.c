static const char help[] = "The sparse products GAMG makes of a bsrcustom matrix (issue 37): A P and P^T A P against the same products\n"
                           "of MATAIJ matrices holding the same values, each case reported by name:\n"
                           "  products_bs<b>   bs b = 1-6: P ours (c = bs) or MATAIJ with block sizes (bs, c), c in {bs, 2 bs, 1, 6 for bs 3};\n"
                           "                   random block-sparse A and P with empty rows, one-block rows, a long row, an empty P\n"
                           "                   column, P blocks with unstored entries; A P and P^T A P, then MAT_REUSE_MATRIX with new\n"
                           "                   values (no symbolic phase again); C's type and block sizes; no AIJ copy of A made\n"
                           "                   (on several ranks too: mpibsrcustomgalerkin.c)\n"
                           "  empty_rank       the same with rank 0 owning no rows (several ranks)\n"
                           "  mpi_types        the same with mpibsrcustom A and MATMPIAIJ / mpibsrcustom P on any number of ranks, one included\n"
                           "  new_structure    a new block in P or A after the product: the reuse gives the new product\n"
                           "  other_products   AtB and a P whose row block size is not A's: still right (products on AIJ copies)\n"
                           "  reuse_other_blocks  a reuse with a P of other block sizes: planned again, right, C in the new blocks\n"
                           "  prolongator_vectors  a 3 x 6 prolongator made of ours multiplied with host vectors and its own\n"
                           "                   (MatMult, MatMultAdd and transposes), bound to the CPU and back, duplicated;\n"
                           "                   its MatAXPY with a subset pattern and an unknown one\n"
                           "  gamg_levels      PCGAMG with rigid-body modes (3 x 6 prolongators) and with the default near null space:\n"
                           "                   iterations and solution equal to MATAIJ's; every coarse level is (seq|mpi)bsrcustom\n"
                           "                   with the prolongator's column block size; a second setup with new values likewise\n"
                           "Options: -nbrows <n> block rows of A per rank.\n";

#include "testutils.h"
#include <petscksp.h>

static PetscReal tol = 1e-12;

typedef struct {
  PetscInt nbrows;
} Params;

static PetscScalar HashValue(PetscInt a, PetscInt b, unsigned salt)
{
  unsigned h = (unsigned)a * 2654435761u ^ ((unsigned)b + 0x9e3779b9u + (salt << 6) + (salt >> 2));
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return (PetscScalar)((double)(h % 20001u) / 10000.0 - 1.0);
}

/*
   P (rows: nbrows_local * bs per rank, columns: nbcols blocks of c) of `type`, with block sizes (bs, c):
   block row i empty when i % 5 == 0, one block when i % 5 == 1, else two or three; block column
   nbcols - 1 never used. Entry (r, s) of a block is stored unless (r + s + i) % 4 == 3 and not whole
   (ours stores whole blocks). Block sizes (bs, c) where blocked, else (1, 1). Same arguments -> same values for any type.
*/
static PetscErrorCode MakeP(MPI_Comm comm, MatType type, PetscBool whole, PetscBool blocked, PetscInt bs, PetscInt c, PetscInt nbrows_local, PetscInt nbcols, unsigned salt, Mat *P)
{
  PetscInt  rstart, rend;
  PetscBool ours;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(type, MATBSRCUSTOM, &ours));
  if (!ours) PetscCall(PetscStrcmp(type, MATMPIBSRCUSTOM, &ours));
  PetscCall(MatCreate(comm, P));
  PetscCall(MatSetSizes(*P, nbrows_local * bs, PETSC_DECIDE, PETSC_DETERMINE, nbcols * c));
  if (blocked) PetscCall(MatSetBlockSizes(*P, bs, c));
  PetscCall(MatSetType(*P, type));
  if (ours && c == bs) {
    PetscCall(MatSeqBAIJSetPreallocation(*P, bs, 3, NULL));
    PetscCall(MatMPIBAIJSetPreallocation(*P, bs, 3, NULL, 3, NULL));
  } else { /* ours with c != bs: as GAMG makes its prolongators, ours then becomes its backend's AIJ type */
    PetscCall(MatSeqAIJSetPreallocation(*P, 3 * c, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*P, 3 * c, NULL, 3 * c, NULL));
  }
  PetscCall(MatGetOwnershipRange(*P, &rstart, &rend));
  for (PetscInt i = rstart / bs; i < rend / bs; i++) {
    PetscInt nblk = i % 5 == 0 ? 0 : i % 5 == 1 ? 1 : 2 + i % 2;
    for (PetscInt q = 0; q < nblk; q++) {
      PetscInt J = (i * 7 + q * (nbcols / 3 + 1)) % (nbcols - 1);
      for (PetscInt r = 0; r < bs; r++)
        for (PetscInt s = 0; s < c; s++) {
          PetscInt    row = i * bs + r, col = J * c + s;
          PetscScalar v = HashValue(row, col, salt);
          if (!whole && (r + s + i) % 4 == 3) continue;
          PetscCall(MatSetValues(*P, 1, &row, 1, &col, &v, INSERT_VALUES));
        }
    }
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
   A (square, nbrows_local block rows and columns per rank, any count, 0 included) of `type` with block
   size bs: block row i holds block columns i, (5 i + 3) mod N and (11 i + 1) mod N (N block rows in
   all), except every 7th row, empty; the values depend on the entry only.
*/
static PetscErrorCode MakeA(MPI_Comm comm, MatType type, PetscInt bs, PetscInt nbrows_local, unsigned salt, Mat *A)
{
  PetscInt    rstart, rend, N;
  PetscScalar v[3 * 6 * 6];

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, nbrows_local * bs, nbrows_local * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatXAIJSetPreallocation(*A, bs, NULL, NULL, NULL, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(MatGetSize(*A, &N, NULL));
  N /= bs;
  for (PetscInt i = rstart / bs; i < rend / bs; i++) {
    PetscInt cols[3] = {i, (5 * i + 3) % N, (11 * i + 1) % N}, n = 3;
    if (i % 7 == 6) continue;
    PetscCall(PetscSortRemoveDupsInt(&n, cols));
    for (PetscInt k = 0; k < n * bs * bs; k++) v[k] = HashValue(i, k, salt); /* the same array for either type */
    PetscCall(MatSetValuesBlocked(*A, 1, &i, n, cols, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* new values at the entries Ref stores, in M and Ref alike (same pattern) */
static PetscErrorCode NewValues(Mat M, Mat Ref, unsigned salt)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(Ref, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt        ncols;
    const PetscInt *cols;
    PetscScalar     v[512];
    PetscInt        cpy[512];
    PetscCall(MatGetRow(Ref, row, &ncols, &cols, NULL));
    PetscCheck(ncols <= 512, PETSC_COMM_SELF, PETSC_ERR_SUP, "test row too long");
    for (PetscInt k = 0; k < ncols; k++) {
      cpy[k] = cols[k];
      v[k]   = HashValue(row, cols[k], salt);
    }
    PetscCall(MatRestoreRow(Ref, row, &ncols, &cols, NULL));
    PetscCall(MatSetValues(M, 1, &row, ncols, cpy, v, INSERT_VALUES));
    PetscCall(MatSetValues(Ref, 1, &row, ncols, cpy, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(Ref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Ref, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* ||C - Ref||_F / ||Ref||_F through dense copies */
static PetscErrorCode CompareMatrices(Mat C, Mat Ref, PetscInt *failures, const char *what)
{
  Mat       D, Dref;
  PetscReal nd, nref;

  PetscFunctionBegin;
  PetscCall(MatConvert(C, MATDENSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatConvert(Ref, MATDENSE, MAT_INITIAL_MATRIX, &Dref));
  PetscCall(MatAXPY(D, -1.0, Dref, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(Dref, NORM_FROBENIUS, &nref));
  TEST_CHECK(PETSC_COMM_WORLD, nref > 0 && nd <= tol * nref, *failures, "%s: relative difference %g (reference norm %g)", what, (double)(nd / PetscMax(nref, PETSC_SMALL)), (double)nref);
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&Dref));
  PetscFunctionReturn(0);
}

/* C's type (the seq type, or its MPI type where mpi: several ranks, or MPI operands on one) and block sizes */
static PetscErrorCode CheckResult(TestContext *ctx, Mat C, PetscBool mpi, MatType seqtype, PetscInt rbs, PetscInt cbs, const char *what)
{
  PetscBool same, aij;
  PetscInt  r, c;
  MatType   got, type = seqtype;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(seqtype, MATSEQAIJ, &aij));
  if (mpi) type = aij ? MATMPIAIJ : MATMPIBSRCUSTOM;
  PetscCall(MatGetType(C, &got));
  PetscCall(PetscObjectTypeCompare((PetscObject)C, type, &same));
  PetscCall(MatGetBlockSizes(C, &r, &c));
  TEST_CHECK(ctx->comm, same, ctx->failures, "%s: the result is %s, not %s", what, got, type);
  TEST_CHECK(ctx->comm, r == rbs && c == cbs, ctx->failures, "%s: block sizes %" PetscInt_FMT " x %" PetscInt_FMT ", not %" PetscInt_FMT " x %" PetscInt_FMT, what, r, c, rbs, cbs);
  PetscFunctionReturn(0);
}

/* the products ran in blocks: none made the AIJ copy of an operand of ours (bsrcustomaijtwin.c) */
static PetscErrorCode CheckNoAIJCopy(TestContext *ctx, Mat M, const char *what)
{
  PetscObject twin;
  MatType     type;

  PetscFunctionBegin;
  PetscCall(MatGetType(M, &type));
  PetscCall(PetscObjectQuery((PetscObject)M, "BSRCustom_AIJTwin", &twin));
  TEST_CHECK(ctx->comm, !twin, ctx->failures, "%s: an AIJ copy of the %s operand was made (the products did not run in blocks)", what, type);
  PetscFunctionReturn(0);
}

/* the bytes the block products' event (BSRCustomBlkProd) brought back from a GPU so far, largest over
   the ranks: a GPU backend computes the numeric phase there; 0 where PETSc keeps no GPU log */
static PetscErrorCode BlockProductGpuToCpu(MPI_Comm comm, PetscLogDouble *bytes)
{
  PetscLogDouble mine = 0;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_DEVICE)
  {
    PetscLogEvent      ev;
    PetscEventPerfInfo info;

    PetscCall(PetscLogEventGetId("BSRCustomBlkProd", &ev));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
    mine = info.GpuToCpuSize;
  }
#endif
  PetscCallMPI(MPI_Allreduce(&mine, bytes, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(0);
}

/* A P and P^T A P of ours against AIJ's, initial then with new values (MAT_REUSE_MATRIX) */
typedef enum {
  LAYOUT_EVEN,       /* prm->nbrows block rows on every rank */
  LAYOUT_EMPTY_RANK, /* none on rank 0 */
  LAYOUT_MPI_TYPES   /* mpibsrcustom A (and P's MPI type) even on one rank */
} Layout;

static PetscErrorCode CompareProducts(TestContext *ctx, PetscInt bs, PetscInt c, MatType ptype, unsigned seed, Layout layout)
{
  Params         *prm         = (Params *)ctx->data;
  const PetscBool empty_rank0 = (PetscBool)(layout == LAYOUT_EMPTY_RANK), mpi = (PetscBool)(ctx->size > 1 || layout == LAYOUT_MPI_TYPES);
  MatType         atype = layout == LAYOUT_MPI_TYPES ? MATMPIBSRCUSTOM : MATBSRCUSTOM;
  const PetscInt  nloc = empty_rank0 && ctx->rank == 0 ? 0 : prm->nbrows, nglob = prm->nbrows * (empty_rank0 ? ctx->size - 1 : ctx->size);
  Mat             A, Aref, P, Pref, AP, APref, PtAP, PtAPref;
  char            what[128];
  PetscBool       native_ap = (PetscBool)(c == bs), p_ours;
  PetscLogDouble  sym0, sym1, ptsym0, ptsym1, down0, down1;
  PetscBool       gpu_log     = PETSC_FALSE;
  char            backend[32] = "cpu";

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_bsrcustom_backend", backend, sizeof(backend), NULL));
#if defined(PETSC_HAVE_DEVICE)
  PetscCall(PetscStrcmp(backend, "cpu", &gpu_log));
  gpu_log = (PetscBool)!gpu_log; /* a GPU backend, and PETSc logs what moves from the GPU */
#endif
  PetscCall(BlockProductGpuToCpu(ctx->comm, &down0));
  PetscCall(PetscStrcmp(ptype, MATBSRCUSTOM, &p_ours));
  if (!p_ours) PetscCall(PetscStrcmp(ptype, MATMPIBSRCUSTOM, &p_ours));
  if (empty_rank0) {
    PetscCall(MakeA(ctx->comm, atype, bs, nloc, seed, &A));
    PetscCall(MakeA(ctx->comm, MATAIJ, bs, nloc, seed, &Aref));
  } else {
    PetscCall(TestRandomBlockMatrix(ctx->comm, atype, bs, nloc, nglob, 3, PETSC_TRUE, PETSC_TRUE, seed, &A));
    PetscCall(TestRandomBlockMatrix(ctx->comm, MATAIJ, bs, nloc, nglob, 3, PETSC_TRUE, PETSC_TRUE, seed, &Aref));
  }
  PetscCall(MakeP(ctx->comm, ptype, p_ours, PETSC_TRUE, bs, c, nloc, nglob / 2 + 2, seed, &P));
  PetscCall(MakeP(ctx->comm, MATAIJ, p_ours, PETSC_TRUE, bs, c, nloc, nglob / 2 + 2, seed, &Pref));

  PetscCall(MatMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &AP));
  PetscCall(MatMatMult(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &APref));
  PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &PtAP));
  PetscCall(MatPtAP(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &PtAPref));
  PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT ", P %s with %" PetscInt_FMT " x %" PetscInt_FMT " blocks: A P", bs, ptype, bs, c));
  PetscCall(CompareMatrices(AP, APref, &ctx->failures, what));
  PetscCall(CheckResult(ctx, AP, mpi, native_ap ? MATSEQBSRCUSTOM : MATSEQAIJ, bs, c, what));
  PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT ", P %s with %" PetscInt_FMT " x %" PetscInt_FMT " blocks: P^T A P", bs, ptype, bs, c));
  PetscCall(CompareMatrices(PtAP, PtAPref, &ctx->failures, what));
  PetscCall(CheckResult(ctx, PtAP, mpi, MATSEQBSRCUSTOM, c, c, what));

  /* new values, same patterns: the numeric phase only */
  PetscCall(TestEventCount("MatMatMultSym", &sym0));
  PetscCall(TestEventCount("MatPtAPSymbolic", &ptsym0));
  PetscCall(NewValues(A, Aref, seed + 2));
  PetscCall(NewValues(P, Pref, seed + 3));
  PetscCall(MatMatMult(A, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &AP));
  PetscCall(MatPtAP(A, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &PtAP));
  PetscCall(TestEventCount("MatMatMultSym", &sym1));
  PetscCall(TestEventCount("MatPtAPSymbolic", &ptsym1));
  PetscCall(MatDestroy(&APref));
  PetscCall(MatDestroy(&PtAPref));
  PetscCall(MatMatMult(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &APref));
  PetscCall(MatPtAP(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &PtAPref));
  PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT ", P %s with %" PetscInt_FMT " x %" PetscInt_FMT " blocks, new values: A P", bs, ptype, bs, c));
  PetscCall(CompareMatrices(AP, APref, &ctx->failures, what));
  PetscCall(CheckResult(ctx, AP, mpi, native_ap ? MATSEQBSRCUSTOM : MATSEQAIJ, bs, c, what));
  PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT ", P %s with %" PetscInt_FMT " x %" PetscInt_FMT " blocks, new values: P^T A P", bs, ptype, bs, c));
  PetscCall(CompareMatrices(PtAP, PtAPref, &ctx->failures, what));
  PetscCall(CheckResult(ctx, PtAP, mpi, MATSEQBSRCUSTOM, c, c, what));
  PetscCall(CheckNoAIJCopy(ctx, A, what));
  if (p_ours) PetscCall(CheckNoAIJCopy(ctx, P, what));
  TEST_CHECK(ctx->comm, sym1 == sym0 && ptsym1 == ptsym0, ctx->failures, "%s: the reuse ran a symbolic phase again (%g and %g more)", what, sym1 - sym0, ptsym1 - ptsym0);
  PetscCall(BlockProductGpuToCpu(ctx->comm, &down1));
  if (gpu_log) TEST_CHECK(ctx->comm, down1 > down0, ctx->failures, "%s: backend %s, but no block product brought values back from the GPU", what, backend);

  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&Pref));
  PetscCall(MatDestroy(&AP));
  PetscCall(MatDestroy(&APref));
  PetscCall(MatDestroy(&PtAP));
  PetscCall(MatDestroy(&PtAPref));
  PetscFunctionReturn(0);
}

static PetscErrorCode Products(TestContext *ctx)
{
  const PetscInt bs    = ctx->param;
  PetscInt       cs[4] = {bs, 2 * bs, 1, 6}, nc = bs == 3 ? 4 : 3;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < nc; k++) {
    if (k == 2 && bs == 1) continue; /* c = 1 = bs: done */
    PetscCall(CompareProducts(ctx, bs, cs[k], MATAIJ, 11u * (unsigned)bs + (unsigned)k, LAYOUT_EVEN));
    if (cs[k] == bs) PetscCall(CompareProducts(ctx, bs, cs[k], MATBSRCUSTOM, 13u * (unsigned)bs + (unsigned)k, LAYOUT_EVEN));
  }
  PetscFunctionReturn(0);
}

/* rank 0 owns no rows of A or P (several ranks): 3 x 6 blocks (AIJ P) and 2 x 2 (ours) */
static PetscErrorCode EmptyRank(TestContext *ctx)
{
  PetscFunctionBegin;
  if (ctx->size == 1) {
    PetscCall(TestSkip(ctx, "several ranks only"));
    PetscFunctionReturn(0);
  }
  PetscCall(CompareProducts(ctx, 3, 6, MATAIJ, 21u, LAYOUT_EMPTY_RANK));
  PetscCall(CompareProducts(ctx, 2, 2, MATBSRCUSTOM, 22u, LAYOUT_EMPTY_RANK));
  PetscFunctionReturn(0);
}

/* y = op(P) x for the four products of P (mult, multadd, and their transposes) against Pref's, x and y
   from `vecs` (host vectors where it is Pref; where it is P, those P makes); label names them */
static PetscErrorCode CompareTransfers(TestContext *ctx, Mat P, Mat Pref, Mat vecs, const char *label)
{
  const char *names[4] = {"MatMult", "MatMultAdd", "MatMultTranspose", "MatMultTransposeAdd"};

  PetscFunctionBegin;
  for (int op = 0; op < 4; op++) {
    const PetscBool transpose = (PetscBool)(op >= 2), add = (PetscBool)(op % 2);
    Vec             x, y, z, yref, xref, zref;
    PetscReal       rel;
    MatType         type;

    if (transpose) PetscCall(MatCreateVecs(vecs, &y, &x)); /* x: a row vector, y: a column vector */
    else PetscCall(MatCreateVecs(vecs, &x, &y));
    PetscCall(VecDuplicate(y, &z));
    if (transpose) PetscCall(MatCreateVecs(Pref, &yref, &xref));
    else PetscCall(MatCreateVecs(Pref, &xref, &yref));
    PetscCall(VecDuplicate(yref, &zref));
    PetscCall(VecSetRandom(xref, NULL));
    PetscCall(VecSetRandom(zref, NULL));
    PetscCall(VecCopy(xref, x));
    PetscCall(VecCopy(zref, z));
    if (!transpose && !add) {
      PetscCall(MatMult(P, x, y));
      PetscCall(MatMult(Pref, xref, yref));
    } else if (!transpose) {
      PetscCall(MatMultAdd(P, x, z, y));
      PetscCall(MatMultAdd(Pref, xref, zref, yref));
    } else if (!add) {
      PetscCall(MatMultTranspose(P, x, y));
      PetscCall(MatMultTranspose(Pref, xref, yref));
    } else {
      PetscCall(MatMultTransposeAdd(P, x, z, y));
      PetscCall(MatMultTransposeAdd(Pref, xref, zref, yref));
    }
    PetscCall(TestRelDiff(y, yref, &rel));
    PetscCall(MatGetType(P, &type));
    TEST_CHECK(ctx->comm, rel <= tol, ctx->failures, "%s of the %s prolongator on %s: relative difference %g from MATAIJ's", names[op], type, label, (double)rel);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&xref));
    PetscCall(VecDestroy(&yref));
    PetscCall(VecDestroy(&zref));
  }
  PetscFunctionReturn(0);
}

/* A prolongator made as GAMG makes one from ours (3 x 6 blocks: ours becomes its backend's AIJ type,
   on a GPU backend a device one) takes host vectors (a program's own, a KSP's work vectors) as well as
   its own, also after MatBindToCPU on and off and in a MatDuplicate: against MATAIJ's products */
static PetscErrorCode ProlongatorVectors(TestContext *ctx)
{
  Params *prm = (Params *)ctx->data;
  Mat     P, Pref, D;

  PetscFunctionBegin;
  PetscCall(MakeP(ctx->comm, MATBSRCUSTOM, PETSC_TRUE, PETSC_TRUE, 3, 6, prm->nbrows, prm->nbrows / 2 + 2, 41u, &P));
  PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_TRUE, PETSC_TRUE, 3, 6, prm->nbrows, prm->nbrows / 2 + 2, 41u, &Pref));
  PetscCall(CompareTransfers(ctx, P, Pref, Pref, "host vectors"));
  PetscCall(CompareTransfers(ctx, P, Pref, P, "its own vectors"));
  PetscCall(MatBindToCPU(P, PETSC_TRUE));
  PetscCall(CompareTransfers(ctx, P, Pref, Pref, "host vectors, bound to the CPU"));
  PetscCall(MatBindToCPU(P, PETSC_FALSE));
  PetscCall(CompareTransfers(ctx, P, Pref, Pref, "host vectors, bound and unbound"));
  PetscCall(CompareTransfers(ctx, P, Pref, P, "its own vectors, bound and unbound"));
  PetscCall(MatDuplicate(P, MAT_COPY_VALUES, &D));
  PetscCall(CompareTransfers(ctx, D, Pref, Pref, "host vectors, a duplicate"));
  PetscCall(MatDestroy(&D));
  /* P += a X with X's pattern a subset of P's (as GAMG smooths its prolongator; ours merges rows on
     several ranks) and with an unknown pattern, against MATAIJ's */
  {
    Mat X;

    PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_FALSE, PETSC_TRUE, 3, 6, prm->nbrows, prm->nbrows / 2 + 2, 43u, &X));
    PetscCall(MatAXPY(P, -0.75, X, SUBSET_NONZERO_PATTERN));
    PetscCall(MatAXPY(Pref, -0.75, X, SUBSET_NONZERO_PATTERN));
    PetscCall(CompareMatrices(P, Pref, &ctx->failures, "MatAXPY of a prolongator made of ours, SUBSET_NONZERO_PATTERN"));
    PetscCall(MatAXPY(P, 2.0, X, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(Pref, 2.0, X, DIFFERENT_NONZERO_PATTERN));
    PetscCall(CompareMatrices(P, Pref, &ctx->failures, "MatAXPY of a prolongator made of ours, DIFFERENT_NONZERO_PATTERN"));
    PetscCall(MatDestroy(&X));
  }
  /* the same for a prolongator of ours (2 x 2 blocks) with one of ours of its pattern */
  {
    Mat Q, Qref, X, Xref;

    PetscCall(MakeP(ctx->comm, MATBSRCUSTOM, PETSC_TRUE, PETSC_TRUE, 2, 2, prm->nbrows, prm->nbrows / 2 + 2, 44u, &Q));
    PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_TRUE, PETSC_TRUE, 2, 2, prm->nbrows, prm->nbrows / 2 + 2, 44u, &Qref));
    PetscCall(MakeP(ctx->comm, MATBSRCUSTOM, PETSC_TRUE, PETSC_TRUE, 2, 2, prm->nbrows, prm->nbrows / 2 + 2, 45u, &X));
    PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_TRUE, PETSC_TRUE, 2, 2, prm->nbrows, prm->nbrows / 2 + 2, 45u, &Xref));
    PetscCall(MatAXPY(Q, -0.75, X, SUBSET_NONZERO_PATTERN));
    PetscCall(MatAXPY(Qref, -0.75, Xref, SUBSET_NONZERO_PATTERN));
    PetscCall(CompareMatrices(Q, Qref, &ctx->failures, "MatAXPY of a prolongator of ours, SUBSET_NONZERO_PATTERN"));
    PetscCall(MatDestroy(&Q));
    PetscCall(MatDestroy(&Qref));
    PetscCall(MatDestroy(&X));
    PetscCall(MatDestroy(&Xref));
  }
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&Pref));
  PetscFunctionReturn(0);
}

/* mpibsrcustom A with MATMPIAIJ and mpibsrcustom P, also on a communicator of one rank */
static PetscErrorCode MPITypes(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(CompareProducts(ctx, 3, 6, MATMPIAIJ, 31u, LAYOUT_MPI_TYPES));
  PetscCall(CompareProducts(ctx, 2, 2, MATMPIAIJ, 32u, LAYOUT_MPI_TYPES));
  PetscCall(CompareProducts(ctx, 2, 2, MATMPIBSRCUSTOM, 33u, LAYOUT_MPI_TYPES));
  PetscFunctionReturn(0);
}

/* a block (row, col) of values in M and Ref, which may be new to both */
static PetscErrorCode AddBlock(Mat M, Mat Ref, PetscInt row, PetscInt col, PetscInt rbs, PetscInt cbs)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatSetOption(M, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(Ref, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(M, &rstart, &rend));
  if (row * rbs >= rstart && row * rbs < rend) {
    for (PetscInt r = 0; r < rbs; r++)
      for (PetscInt s = 0; s < cbs; s++) {
        PetscInt    i = row * rbs + r, j = col * cbs + s;
        PetscScalar v = HashValue(i, j, 99u);
        PetscCall(MatSetValues(M, 1, &i, 1, &j, &v, INSERT_VALUES));
        PetscCall(MatSetValues(Ref, 1, &i, 1, &j, &v, INSERT_VALUES));
      }
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(Ref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Ref, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* a new block in P (its empty last column, an empty row) and then in A: the reused products follow */
static PetscErrorCode NewStructure(TestContext *ctx)
{
  Params        *prm          = (Params *)ctx->data;
  const PetscInt shapes[2][2] = {{3, 6}, {2, 2}};

  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    const PetscInt bs = shapes[t][0], c = shapes[t][1], nbc = prm->nbrows * ctx->size / 2 + 2;
    MatType        ptype = c == bs ? MATBSRCUSTOM : MATAIJ;
    Mat            A, Aref, P, Pref, AP, APref, PtAP, PtAPref;
    char           what[128];

    PetscCall(TestRandomBlockMatrix(ctx->comm, MATBSRCUSTOM, bs, prm->nbrows, prm->nbrows * ctx->size, 3, PETSC_TRUE, PETSC_FALSE, 5u, &A));
    PetscCall(TestRandomBlockMatrix(ctx->comm, MATAIJ, bs, prm->nbrows, prm->nbrows * ctx->size, 3, PETSC_TRUE, PETSC_FALSE, 5u, &Aref));
    PetscCall(MakeP(ctx->comm, ptype, PETSC_TRUE, PETSC_TRUE, bs, c, prm->nbrows, nbc, 7u, &P));
    PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_TRUE, PETSC_TRUE, bs, c, prm->nbrows, nbc, 7u, &Pref));
    PetscCall(MatMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &AP));
    PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &PtAP));
    for (int step = 0; step < 2; step++) {
      if (step == 0) PetscCall(AddBlock(P, Pref, 0, nbc - 1, bs, c)); /* block row 0 was empty, column nbc - 1 too */
      else PetscCall(AddBlock(A, Aref, 0, prm->nbrows * ctx->size - 1, bs, bs));
      PetscCall(MatMatMult(A, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &AP));
      PetscCall(MatPtAP(A, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &PtAP));
      PetscCall(MatMatMult(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &APref));
      PetscCall(MatPtAP(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &PtAPref));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT " x %" PetscInt_FMT " blocks, a new block in %s: A P", bs, c, step ? "A" : "P"));
      PetscCall(CompareMatrices(AP, APref, &ctx->failures, what));
      PetscCall(CheckResult(ctx, AP, (PetscBool)(ctx->size > 1), c == bs ? MATSEQBSRCUSTOM : MATSEQAIJ, bs, c, what));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT " x %" PetscInt_FMT " blocks, a new block in %s: P^T A P", bs, c, step ? "A" : "P"));
      PetscCall(CompareMatrices(PtAP, PtAPref, &ctx->failures, what));
      PetscCall(CheckResult(ctx, PtAP, (PetscBool)(ctx->size > 1), MATSEQBSRCUSTOM, c, c, what));
      PetscCall(MatDestroy(&APref));
      PetscCall(MatDestroy(&PtAPref));
    }
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Aref));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&Pref));
    PetscCall(MatDestroy(&AP));
    PetscCall(MatDestroy(&PtAP));
  }
  PetscFunctionReturn(0);
}

/* products left to the AIJ copies stay right: A^T P, and a P whose row block size is 1 for A's 3 */
static PetscErrorCode OtherProducts(TestContext *ctx)
{
  Params *prm = (Params *)ctx->data;
  Mat     A, Aref, P, Pref, C, Cref;

  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATBSRCUSTOM, 3, prm->nbrows, prm->nbrows * ctx->size, 3, PETSC_TRUE, PETSC_TRUE, 3u, &A));
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATAIJ, 3, prm->nbrows, prm->nbrows * ctx->size, 3, PETSC_TRUE, PETSC_TRUE, 3u, &Aref));
  PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_FALSE, PETSC_TRUE, 3, 6, prm->nbrows, prm->nbrows * ctx->size / 2 + 2, 4u, &P));
  PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_FALSE, PETSC_TRUE, 3, 6, prm->nbrows, prm->nbrows * ctx->size / 2 + 2, 4u, &Pref));
  PetscCall(MatTransposeMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(MatTransposeMatMult(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cref));
  PetscCall(CompareMatrices(C, Cref, &ctx->failures, "A^T P"));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&Pref));
  PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_FALSE, PETSC_FALSE, 3, 6, prm->nbrows, prm->nbrows * ctx->size / 2 + 2, 4u, &P)); /* block sizes 1: not read in blocks */
  PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_FALSE, PETSC_FALSE, 3, 6, prm->nbrows, prm->nbrows * ctx->size / 2 + 2, 4u, &Pref));
  PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(MatPtAP(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cref));
  PetscCall(CompareMatrices(C, Cref, &ctx->failures, "P^T A P, P's row block size 1"));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&Pref));
  PetscFunctionReturn(0);
}

/* a reuse with a P of other block sizes (same sizes): the product is planned again for them */
static PetscErrorCode ReuseOtherBlocks(TestContext *ctx)
{
  Params        *prm = (Params *)ctx->data;
  const PetscInt nbc = prm->nbrows * ctx->size / 2 + 2;
  Mat            A, Aref, P, P2, P2ref, C, Cref;

  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATBSRCUSTOM, 3, prm->nbrows, prm->nbrows * ctx->size, 3, PETSC_TRUE, PETSC_FALSE, 8u, &A));
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATAIJ, 3, prm->nbrows, prm->nbrows * ctx->size, 3, PETSC_TRUE, PETSC_FALSE, 8u, &Aref));
  PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_TRUE, PETSC_TRUE, 3, 6, prm->nbrows, nbc, 9u, &P));
  PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_FALSE, PETSC_TRUE, 3, 3, prm->nbrows, 2 * nbc, 9u, &P2));
  PetscCall(MakeP(ctx->comm, MATAIJ, PETSC_FALSE, PETSC_TRUE, 3, 3, prm->nbrows, 2 * nbc, 9u, &P2ref));
  PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(MatPtAP(A, P2, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(MatPtAP(Aref, P2ref, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cref));
  PetscCall(CompareMatrices(C, Cref, &ctx->failures, "P^T A P reused with 3 x 3 blocks for 3 x 6"));
  PetscCall(CheckResult(ctx, C, (PetscBool)(ctx->size > 1), MATSEQBSRCUSTOM, 3, 3, "P^T A P reused with 3 x 3 blocks for 3 x 6"));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&P2));
  PetscCall(MatDestroy(&P2ref));
  PetscFunctionReturn(0);
}

/* the block diffusion operator on an n^3 grid (bs 3) of `type`, with the rigid-body modes of the
   grid's nodes as its near null space where rigid */
static PetscErrorCode GAMGOperator(MPI_Comm comm, MatType type, PetscInt n, PetscBool rigid, Mat *A)
{
  Vec          coords;
  PetscInt     rs, re;
  PetscScalar *x;
  MatNullSpace nsp;

  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(comm, type, n, 3, A));
  if (!rigid) PetscFunctionReturn(0);
  PetscCall(MatCreateVecs(*A, NULL, &coords));
  PetscCall(VecSetBlockSize(coords, 3));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  PetscCall(VecGetArray(coords, &x));
  for (PetscInt gi = rs / 3; gi < re / 3; gi++) {
    x[3 * (gi - rs / 3) + 0] = (PetscScalar)(gi % n);
    x[3 * (gi - rs / 3) + 1] = (PetscScalar)((gi / n) % n);
    x[3 * (gi - rs / 3) + 2] = (PetscScalar)(gi / (n * n));
  }
  PetscCall(VecRestoreArray(coords, &x));
  PetscCall(MatNullSpaceCreateRigidBody(coords, &nsp));
  PetscCall(MatSetNearNullSpace(*A, nsp));
  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(VecDestroy(&coords));
  PetscFunctionReturn(0);
}

/* every level's operator below the finest is ours (seq or MPI) with c x c blocks */
static PetscErrorCode CheckLevels(TestContext *ctx, KSP ksp, PetscInt c, const char *what)
{
  PC       pc;
  PetscInt nlevels;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCMGGetLevels(pc, &nlevels));
  TEST_CHECK(ctx->comm, nlevels >= 3, ctx->failures, "%s: %" PetscInt_FMT " levels, 3 or more expected", what, nlevels);
  for (PetscInt l = 0; l < nlevels - 1; l++) {
    KSP       smoother;
    Mat       Al;
    PetscBool ours;
    PetscInt  rbs, cbs;
    MatType   got;

    PetscCall(PCMGGetSmoother(pc, l, &smoother));
    PetscCall(KSPGetOperators(smoother, &Al, NULL));
    PetscCall(MatGetType(Al, &got));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)Al, &ours, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
    PetscCall(MatGetBlockSizes(Al, &rbs, &cbs));
    TEST_CHECK(ctx->comm, ours && rbs == c && cbs == c, ctx->failures, "%s: level %" PetscInt_FMT " is %s with %" PetscInt_FMT " x %" PetscInt_FMT " blocks, not bsrcustom with %" PetscInt_FMT " x %" PetscInt_FMT, what, l, got, rbs, cbs, c, c);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeGAMG(MPI_Comm comm, Mat A, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(comm, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, "gl_"));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(PCGAMGSetReuseInterpolation(pc, PETSC_TRUE));
  PetscCall(PCGAMGSetCoarseEqLim(pc, 20));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(0);
}

/* GAMG on ours against GAMG on AIJ: iterations, solution; a second setup after new values */
static PetscErrorCode GAMGLevels(TestContext *ctx)
{
  PetscFunctionBegin;
  for (int rigid = 1; rigid >= 0; rigid--) {
    Mat       A, Aref;
    KSP       ksp, kspref;
    Vec       b, x, xref;
    PetscInt  its, itsref;
    PetscReal rel;
    char      what[128];

    PetscCall(GAMGOperator(ctx->comm, MATBSRCUSTOM, 8, (PetscBool)rigid, &A));
    PetscCall(GAMGOperator(ctx->comm, MATAIJ, 8, (PetscBool)rigid, &Aref));
    PetscCall(MatCreateVecs(Aref, &x, &b));
    PetscCall(VecDuplicate(x, &xref));
    PetscCall(VecSetRandom(b, NULL));
    PetscCall(MakeGAMG(ctx->comm, A, &ksp));
    PetscCall(MakeGAMG(ctx->comm, Aref, &kspref));
    for (int setup = 0; setup < 2; setup++) {
      if (setup) { /* new values, same pattern: GAMG keeps its prolongators and redoes the Galerkin products */
        PetscCall(MatShift(A, 0.5));
        PetscCall(MatShift(Aref, 0.5));
        PetscCall(KSPSetOperators(ksp, A, A));
        PetscCall(KSPSetOperators(kspref, Aref, Aref));
      }
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(KSPSolve(kspref, b, xref));
      PetscCall(KSPGetIterationNumber(ksp, &its));
      PetscCall(KSPGetIterationNumber(kspref, &itsref));
      PetscCall(TestRelDiff(x, xref, &rel));
      PetscCall(PetscSNPrintf(what, sizeof(what), "GAMG, %s near null space, setup %d", rigid ? "rigid-body" : "default", setup + 1));
      TEST_CHECK(ctx->comm, its == itsref, ctx->failures, "%s: %" PetscInt_FMT " iterations, MATAIJ %" PetscInt_FMT, what, its, itsref);
      TEST_CHECK(ctx->comm, rel <= 1e-6, ctx->failures, "%s: solution differs from MATAIJ's by %g", what, (double)rel);
      PetscCall(CheckLevels(ctx, ksp, rigid ? 6 : 3, what));
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(KSPDestroy(&kspref));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&xref));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Aref));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"products_bs1", Products, 1},
    {"products_bs2", Products, 2},
    {"products_bs3", Products, 3},
    {"products_bs4", Products, 4},
    {"products_bs5", Products, 5},
    {"products_bs6", Products, 6},
    {"empty_rank", EmptyRank, 0},
    {"mpi_types", MPITypes, 0},
    {"new_structure", NewStructure, 0},
    {"other_products", OtherProducts, 0},
    {"reuse_other_blocks", ReuseOtherBlocks, 0},
    {"gamg_levels", GAMGLevels, 0},
    {"prolongator_vectors", ProlongatorVectors, 0},
  };
  Params prm = {13};
  int    status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nbrows", &prm.nbrows, NULL));
  PetscCall(TestRunCases("galerkin products", PETSC_STATIC_ARRAY_LENGTH(cases), cases, &prm, &status));
  PetscCall(PetscFinalize());
  return status;
}
