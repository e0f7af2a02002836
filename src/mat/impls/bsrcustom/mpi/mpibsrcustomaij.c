/*
   MATMPIBSRCUSTOM -> MATMPIAIJ (MatConvert, and the AIJ copy GAMG's requests go through), built from
   this rank's local and ghost blocks without touching A.

   MPIBAIJ's own converter in Debian's PETSc 3.18 takes A apart (its ghost block back to global
   columns), converts, and assembles A again: that replaces the ghost block and with it our halo, bumps
   the blocks' states (so every copy derived from A is made again), and fails where A carries
   MAT_NEW_NONZERO_LOCATIONS false, since A's own assembly then refuses its ghost entries.
*/
#include <../src/mat/impls/bsrcustom/mpi/mpibsrcustomimpl.h>

/* The block rows of one block: row pointers, block columns, values (column-major bs x bs blocks). */
typedef struct {
  Mat                M;
  PetscInt           nbrows;
  const PetscInt    *ia, *ja;
  const PetscScalar *aa;
} BlockRows;

static PetscErrorCode BlockRowsGet(Mat M, BlockRows *r)
{
  PetscBool done;

  PetscFunctionBegin;
  r->M = M;
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_TRUE, &r->nbrows, &r->ia, &r->ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A block of the matrix did not give its block structure");
  PetscCall(MatSeqBSRCustomGetArrayRead_Private(M, &r->aa));
  PetscFunctionReturn(0);
}

static PetscErrorCode BlockRowsRestore(BlockRows *r)
{
  PetscBool done;
  PetscInt  n;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(r->M, &r->aa));
  PetscCall(MatRestoreRowIJ(r->M, 0, PETSC_FALSE, PETSC_TRUE, &n, &r->ia, &r->ja, &done));
  PetscFunctionReturn(0);
}

/* B gets A's values: one MatSetValuesBlocked per block row and block (local, ghost): BAIJ's blocks of
   a block row, each column-major and side by side, are that row's bs x (n bs) values column-major */
static PetscErrorCode InsertBlockRows(Mat A, Mat B, BlockRows *loc, BlockRows *gh, const PetscInt ghost_cols[])
{
  PetscInt bs, rstart, cstart, maxn = 0, *cols;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  rstart = A->rmap->rstart / bs;
  cstart = A->cmap->rstart / bs;
  for (PetscInt i = 0; i < loc->nbrows; i++) {
    maxn = PetscMax(maxn, loc->ia[i + 1] - loc->ia[i]);
    if (gh) maxn = PetscMax(maxn, gh->ia[i + 1] - gh->ia[i]);
  }
  PetscCall(PetscMalloc1(maxn, &cols));
  PetscCall(MatSetOption(B, MAT_ROW_ORIENTED, PETSC_FALSE));
  for (PetscInt i = 0; i < loc->nbrows; i++) {
    const PetscInt row = rstart + i;
    PetscInt       n   = loc->ia[i + 1] - loc->ia[i];
    for (PetscInt k = 0; k < n; k++) cols[k] = cstart + loc->ja[loc->ia[i] + k];
    PetscCall(MatSetValuesBlocked(B, 1, &row, n, cols, loc->aa + (size_t)loc->ia[i] * bs * bs, INSERT_VALUES));
    if (!gh) continue;
    n = gh->ia[i + 1] - gh->ia[i];
    for (PetscInt k = 0; k < n; k++) cols[k] = ghost_cols[gh->ja[gh->ia[i] + k]];
    PetscCall(MatSetValuesBlocked(B, 1, &row, n, cols, gh->aa + (size_t)gh->ia[i] * bs * bs, INSERT_VALUES));
  }
  PetscCall(MatSetOption(B, MAT_ROW_ORIENTED, PETSC_TRUE)); /* B is ours: a new matrix, or one we made before */
  PetscCall(PetscFree(cols));
  PetscFunctionReturn(0);
}

/* A new MPIAIJ preallocated exactly for A's blocks */
static PetscErrorCode CreateAIJ(Mat A, BlockRows *loc, BlockRows *gh, Mat *B)
{
  PetscInt bs, *dnnz, *onnz;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(PetscMalloc2(A->rmap->n, &dnnz, A->rmap->n, &onnz));
  for (PetscInt i = 0; i < loc->nbrows; i++) {
    for (PetscInt r = 0; r < bs; r++) {
      dnnz[i * bs + r] = bs * (loc->ia[i + 1] - loc->ia[i]);
      onnz[i * bs + r] = gh ? bs * (gh->ia[i + 1] - gh->ia[i]) : 0;
    }
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), B));
  PetscCall(MatSetSizes(*B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetBlockSizes(*B, A->rmap->bs, A->cmap->bs));
  PetscCall(MatSetType(*B, MATMPIAIJ));
  PetscCall(MatMPIAIJSetPreallocation(*B, 0, dnnz, 0, onnz));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatConvert_MPIBSRCustom_MPIAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat             Ad, Ao, B;
  PetscInt        nghost;
  const PetscInt *ghost_cols;
  BlockRows       loc, gh;
  PetscBool       has_ghost;

  PetscFunctionBegin;
  (void)type;
  PetscCall(MatBSRCustomGetLocalAndGhost(A, &Ad, &Ao, &nghost, &ghost_cols, NULL, NULL));
  has_ghost = (PetscBool)(Ao && nghost > 0);
  PetscCall(BlockRowsGet(Ad, &loc));
  if (has_ghost) PetscCall(BlockRowsGet(Ao, &gh));
  if (reuse == MAT_REUSE_MATRIX) {
    B = *newmat;
    PetscCall(MatZeroEntries(B));
  } else PetscCall(CreateAIJ(A, &loc, has_ghost ? &gh : NULL, &B));
  PetscCall(InsertBlockRows(A, B, &loc, has_ghost ? &gh : NULL, ghost_cols));
  PetscCall(BlockRowsRestore(&loc));
  if (has_ghost) PetscCall(BlockRowsRestore(&gh));
  PetscCall(MatSetOption(B, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(B, MAT_NO_OFF_PROC_ENTRIES, PETSC_FALSE));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(0);
}
