/*
   Which way a sub-matrix of ours is made. BAIJ's MatCreateSubMatrix(ces) take whole blocks only: they
   compress the index sets to block indices and expand them again, so an index set that picks some
   rows of a block (PCFIELDSPLIT by components of a block, -pc_fieldsplit_block_size 3
   -pc_fieldsplit_0_fields 0,1) fails there, on the ranks whose sets do, inside a collective call.
   AIJ takes any set. So the sets are judged first, on every rank of the call's communicator and
   together: whole blocks (each block once, its rows in order) take BAIJ's path and give ours, as
   today; any other set, on any rank, sends the whole call to the AIJ copy (bsrcustomaijtwin.c), whose
   results are AIJ, as they are for a MATAIJ matrix. A reuse follows the type of the matrices reused.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

/* Whether the local indices of `is` are whole blocks of bs: each block's bs indices consecutive from
   a multiple of bs, no block twice */
static PetscErrorCode ISIsWholeBlocks(IS is, PetscInt bs, PetscBool *whole)
{
  PetscInt        n, isbs, nb, *starts = NULL;
  const PetscInt *idx;
  PetscBool       isblock, isstride, sorted = PETSC_TRUE;

  PetscFunctionBegin;
  *whole = PETSC_TRUE;
  PetscCall(ISGetLocalSize(is, &n));
  if (n % bs) {
    *whole = PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)is, ISSTRIDE, &isstride));
  if (isstride) {
    PetscInt first, step;
    PetscCall(ISStrideGetInfo(is, &first, &step));
    *whole = (PetscBool)(n == 0 || (step == 1 && first % bs == 0) || (bs == 1 && step != 0));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)is, ISBLOCK, &isblock));
  PetscCall(ISGetBlockSize(is, &isbs));
  nb = n / bs;
  PetscCall(PetscMalloc1(nb, &starts));
  if (isblock && isbs == bs) {
    PetscCall(ISBlockGetIndices(is, &idx));
    for (PetscInt k = 0; k < nb; k++) starts[k] = idx[k];
    PetscCall(ISBlockRestoreIndices(is, &idx));
  } else {
    PetscCall(ISGetIndices(is, &idx));
    for (PetscInt k = 0; k < nb && *whole; k++) {
      const PetscInt first = idx[k * bs];
      if (first < 0 || first % bs) *whole = PETSC_FALSE;
      for (PetscInt j = 1; j < bs && *whole; j++)
        if (idx[k * bs + j] != first + j) *whole = PETSC_FALSE;
      starts[k] = first / bs;
    }
    PetscCall(ISRestoreIndices(is, &idx));
  }
  if (*whole) { /* each block once (BAIJ's compression would merge repeated blocks) */
    for (PetscInt k = 1; k < nb && sorted; k++)
      if (starts[k] <= starts[k - 1]) sorted = PETSC_FALSE;
    if (!sorted) {
      PetscCall(PetscSortInt(nb, starts));
      for (PetscInt k = 1; k < nb && *whole; k++)
        if (starts[k] == starts[k - 1]) *whole = PETSC_FALSE;
    }
  }
  PetscCall(PetscFree(starts));
  PetscFunctionReturn(0);
}

static PetscErrorCode IsOurs(Mat M, PetscBool *ours)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)M, ours, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
  PetscFunctionReturn(0);
}

/*
   *blocks: BAIJ's path (whole blocks; a reuse of matrices of ours) or the AIJ copy's (anything else;
   a reuse of AIJ matrices), agreed on comm (the call's: A's communicator). reused: the n matrices to
   reuse (MAT_REUSE_MATRIX), else NULL. A reuse that mixes ours and others is an error on every rank.
*/
PETSC_INTERN PetscErrorCode MatBSRCustomSubMatrixOnBlocks_Private(Mat A, PetscInt n, const IS rows[], const IS cols[], MatReuse reuse, const Mat reused[], PetscBool *blocks)
{
  MPI_Comm    comm     = PetscObjectComm((PetscObject)A);
  PetscMPIInt kinds[2] = {0, 0}; /* [0]: some set or reused matrix asks for AIJ; [1]: some reused matrix is ours */

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    for (PetscInt i = 0; i < n; i++) {
      PetscBool ours;
      if (!reused[i]) continue;
      PetscCall(IsOurs(reused[i], &ours));
      kinds[ours ? 1 : 0] = 1;
    }
  } else {
    for (PetscInt i = 0; i < n && !kinds[0]; i++) {
      PetscBool whole;
      PetscCall(ISIsWholeBlocks(rows[i], A->rmap->bs, &whole));
      if (whole && cols && cols[i]) PetscCall(ISIsWholeBlocks(cols[i], A->cmap->bs, &whole));
      if (!whole) kinds[0] = 1;
    }
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, kinds, 2, MPI_INT, MPI_MAX, comm));
  PetscCheck(!(kinds[0] && kinds[1]), comm, PETSC_ERR_ARG_INCOMP, "MAT_REUSE_MATRIX of sub-matrices of a %s matrix: some are %s, made from whole blocks, others AIJ, made from its AIJ copy; reuse matrices from one call", ((PetscObject)A)->type_name,
             ((PetscObject)A)->type_name);
  *blocks = (PetscBool)!kinds[0];
  PetscFunctionReturn(0);
}

/* MatCreateSubMatrix of A's AIJ copy (the route for index sets that are not whole blocks) */
PETSC_INTERN PetscErrorCode MatBSRCustomSubMatrixOnAIJ_Private(Mat A, IS rows, IS cols, MatReuse reuse, Mat *B)
{
  Mat aij;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomAIJTwin_Private(A, &aij));
  PetscCall(MatCreateSubMatrix(aij, rows, cols, reuse, B));
  if (reuse == MAT_INITIAL_MATRIX)
    PetscCall(PetscInfo(A, "MatCreateSubMatrix of %s: index sets that are not whole %" PetscInt_FMT " x %" PetscInt_FMT " blocks on some rank; made from its AIJ copy, a %s\n", ((PetscObject)A)->type_name, A->rmap->bs, A->cmap->bs, ((PetscObject)*B)->type_name));
  PetscFunctionReturn(0);
}

/* MatCreateSubMatrices of A's AIJ copy */
PETSC_INTERN PetscErrorCode MatBSRCustomSubMatricesOnAIJ_Private(Mat A, PetscInt n, const IS rows[], const IS cols[], MatReuse reuse, Mat *B[])
{
  Mat aij;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomAIJTwin_Private(A, &aij));
  PetscCall(MatCreateSubMatrices(aij, n, rows, cols, reuse, B));
  if (reuse == MAT_INITIAL_MATRIX)
    PetscCall(PetscInfo(A, "MatCreateSubMatrices of %s: index sets that are not whole %" PetscInt_FMT " x %" PetscInt_FMT " blocks on some rank; %" PetscInt_FMT " made from its AIJ copy, AIJ\n", ((PetscObject)A)->type_name, A->rmap->bs, A->cmap->bs, n));
  PetscFunctionReturn(0);
}
