/*
   AIJ-style preallocation of an mpibsrcustom matrix (programs written for MPIAIJ, DMDA's AIJ path,
   petsc4py), as seqbsrcustom's (seq/seqbsrcustomaijstyle.c): counts and CSR per scalar row, the
   diagonal and off-diagonal parts each checked against what their counts allow at the first final
   assembly, collectively, so that every rank stops with the same error.
*/
#include "mpibsrcustomimpl.h"

PETSC_INTERN PetscErrorCode MatMPIAIJSetPreallocation_MPIBSRCustom(Mat A, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  Mat_MPIBSRCustom         *c = (Mat_MPIBSRCustom *)A->spptr;
  MatBSRCustomAIJAllowance *w = &c->aij_allowance;
  PetscInt                  bs, mbs, dcap, ocap, *dbnnz, *obnnz, bd_nz = d_nz, bo_nz = o_nz;

  PetscFunctionBegin;
  if (c->block_preallocated) PetscFunctionReturn(0);
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  if (A->rmap->bs != A->cmap->bs) {                                   /* rectangular blocks (GAMG's prolongators): BAIJ holds square ones only */
    const char                   *aij     = c->backend->aij_mpi_type; /* on the device where the products are */
    const MatBSRCustomBackendOps *backend = c->backend;               /* c goes with the type */

    PetscCall(PetscInfo(A, "Row block size %" PetscInt_FMT " and column block size %" PetscInt_FMT ": made a %s, which holds any blocks\n", A->rmap->bs, A->cmap->bs, aij));
    PetscCall(MatSetType(A, aij));
    PetscCall(MatMPIAIJSetPreallocation(A, d_nz, d_nnz, o_nz, o_nnz));
    PetscCall((*backend->aij_made)(A));
    PetscCall(MatBSRCustomAIJSubsetAXPY_Private(A));
    PetscFunctionReturn(0);
  }
  PetscCall(MatGetBlockSize(A, &bs));
  mbs  = A->rmap->n / bs;
  dcap = A->cmap->n / bs;
  ocap = (A->cmap->N - A->cmap->n) / bs;
  for (PetscInt i = 0; d_nnz && i < A->rmap->n; i++) PetscCheck(d_nnz[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "d_nnz cannot be less than 0: local row %" PetscInt_FMT " value %" PetscInt_FMT, i, d_nnz[i]);
  for (PetscInt i = 0; o_nnz && i < A->rmap->n; i++) PetscCheck(o_nnz[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "o_nnz cannot be less than 0: local row %" PetscInt_FMT " value %" PetscInt_FMT, i, o_nnz[i]);
  PetscCall(MatBSRCustomBlockCounts_Private(mbs, bs, d_nnz, dcap, &dbnnz));
  PetscCall(MatBSRCustomBlockCounts_Private(mbs, bs, o_nnz, ocap, &obnnz));
  if (d_nz != PETSC_DEFAULT && d_nz != PETSC_DECIDE) bd_nz = PetscMin((d_nz + bs - 1) / bs, dcap);
  if (o_nz != PETSC_DEFAULT && o_nz != PETSC_DECIDE) bo_nz = PetscMin((o_nz + bs - 1) / bs, ocap);
  PetscCall(MatBSRCustomAIJAllowanceReset_Private(w));
  PetscCall((*c->baij_mpibaijsetpreallocation)(A, bs, bd_nz, dbnnz, bo_nz, obnnz));
  PetscCall(PetscFree(dbnnz));
  PetscCall(PetscFree(obnnz));
  c->aij_bs1 = (PetscBool)(bs == 1);
  if (bs > 1) {
    /* MPIBAIJ's own check would refuse a malloc its block counts did not foresee: ours stands in for
       it until the first assembly */
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatBSRCustomAIJAllowanceSet_Private(mbs, bs, d_nz, d_nnz, dcap, &w->allowed, &w->allowed_all));
    PetscCall(MatBSRCustomAIJAllowanceSet_Private(mbs, bs, o_nz, o_nnz, ocap, &w->allowed_o, &w->allowed_all_o));
    w->pending = PETSC_TRUE;
    w->error   = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* MAT_NEW_NONZERO_ALLOCATION_ERR while the allowance stands: the caller's wish is kept for the check
   (*taken), MPIBAIJ's own stays off */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomAIJAllowanceSetOption_Private(Mat A, MatOption op, PetscBool flg, PetscBool *taken)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;

  PetscFunctionBegin;
  *taken = (PetscBool)(op == MAT_NEW_NONZERO_ALLOCATION_ERR && c && c->aij_allowance.pending);
  if (*taken) c->aij_allowance.error = flg;
  PetscFunctionReturn(0);
}

/* the first local block row of M (a block of A) over its allowance, as a global block row (-1: none) */
static PetscErrorCode FirstExcess(Mat A, Mat M, const PetscInt allowed[], PetscInt allowed_all, PetscInt *row, PetscInt *have, PetscInt *most)
{
  PetscInt        n, r;
  const PetscInt *ia, *ja;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetStructure_Private(M, PETSC_TRUE, &n, &ia, &ja));
  r = MatBSRCustomAIJAllowanceFirstExcess_Private(n, ia, allowed, allowed_all);
  if (r >= 0 && (*row < 0 || A->rmap->rstart / A->rmap->bs + r < *row)) {
    *row  = A->rmap->rstart / A->rmap->bs + r;
    *have = ia[r + 1] - ia[r];
    *most = allowed ? allowed[r] : allowed_all;
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomAIJAllowanceCheck_Private(Mat A, Mat Ad, Mat Ao)
{
  Mat_MPIBSRCustom         *c = (Mat_MPIBSRCustom *)A->spptr;
  MatBSRCustomAIJAllowance *w = &c->aij_allowance;
  MPI_Comm                  comm;
  PetscInt                  bs, row = -1, first, info[2] = {0, 0}; /* info: blocks held, allowed */
  PetscMPIInt               owner = 0, size;
  PetscBool                 error = w->error;

  PetscFunctionBegin;
  if (!w->pending) PetscFunctionReturn(0);
  PetscCall(PetscObjectGetComm((PetscObject)A, &comm));
  PetscCall(MatGetBlockSize(A, &bs));
  if (error) {
    PetscCall(FirstExcess(A, Ad, w->allowed, w->allowed_all, &row, &info[0], &info[1]));
    PetscCall(FirstExcess(A, Ao, w->allowed_o, w->allowed_all_o, &row, &info[0], &info[1]));
  }
  first = row < 0 ? PETSC_MAX_INT : row;
  /* collective: every rank knows (the first) excess, so that every rank stops */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &first, 1, MPIU_INT, MPI_MIN, comm));
  if (first != PETSC_MAX_INT) {
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCall(PetscLayoutFindOwner(A->rmap, first * bs, &owner));
    PetscCallMPI(MPI_Bcast(info, 2, MPIU_INT, owner, comm));
  }
  PetscCall(MatBSRCustomAIJAllowanceReset_Private(w));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, error));
  PetscCheck(first == PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "New nonzeros beyond the preallocation: rows %" PetscInt_FMT "-%" PetscInt_FMT " (block row %" PetscInt_FMT ", on rank %d) hold %" PetscInt_FMT " blocks of %" PetscInt_FMT "x%" PetscInt_FMT " in their %s part, more than the %" PetscInt_FMT " nonzeros their AIJ-style counts allow; correct the counts, or MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE) to allow it", first * bs, first * bs + bs - 1, first, owner, info[0], bs, bs, "diagonal or off-diagonal", info[1]);
  PetscFunctionReturn(0);
}

/* AIJ's CSR preallocation for the local scalar rows (global columns; v NULL for zeros): exact block
   counts for both parts, the values inserted, the matrix assembled, and no new nonzero locations from
   then on, as on MPIAIJ */
PETSC_INTERN PetscErrorCode MatMPIAIJSetPreallocationCSR_MPIBSRCustom(Mat A, const PetscInt i[], const PetscInt j[], const PetscScalar v[])
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  PetscInt          bs, *dnnz, *onnz;

  PetscFunctionBegin;
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  if (A->rmap->bs != A->cmap->bs) { /* rectangular blocks: an AIJ matrix, as for the counts */
    const char                   *aij     = c->backend->aij_mpi_type;
    const MatBSRCustomBackendOps *backend = c->backend;

    PetscCall(MatSetType(A, aij));
    PetscCall(MatMPIAIJSetPreallocationCSR(A, i, j, v));
    PetscCall((*backend->aij_made)(A));
    PetscCall(MatBSRCustomAIJSubsetAXPY_Private(A));
    PetscFunctionReturn(0);
  }
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatBSRCustomCSRBlockCounts_Private(A->rmap->n, bs, i, j, A->cmap->N, A->cmap->rstart / bs, A->cmap->rend / bs, &dnnz, &onnz));
  PetscCall(MatBSRCustomAIJAllowanceReset_Private(&c->aij_allowance));
  PetscCall((*c->baij_mpibaijsetpreallocation)(A, bs, 0, dnnz, 0, onnz));
  PetscCall(PetscFree(dnnz));
  PetscCall(PetscFree(onnz));
  c->block_preallocated = PETSC_TRUE; /* exact: a later AIJ-style count changes nothing */
  c->aij_bs1            = PETSC_FALSE;
  for (PetscInt r = 0; r < A->rmap->n; r++) {
    PetscInt row = A->rmap->rstart + r;
    PetscCall(MatSetValues(A, 1, &row, i[r + 1] - i[r], j + i[r], v ? v + i[r] : NULL, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}
