/*
   How entries and preallocation reach a MATMPIBSRCUSTOM matrix: MPIBAIJ's insertion, with the blocked
   insertion that may bring a new ghost column sent through the scalar path (PETSc 3.18's blocked path
   misplaces it), and MPIBAIJ's block preallocation, which makes the matrix again when AIJ-style
   preallocation fixed block size 1 first.
*/
#include "mpibsrcustomimpl.h"

/*
   PETSc 3.18's MatSetValuesBlocked_MPIBAIJ, once assembled, maps a block column it has no ghost for to
   (0 - 1) / bs, which is 0 for bs > 1: the block lands in ghost column 0 (wrong values, or a crash when
   there are no ghosts) instead of triggering the disassembly that adds the ghost. Its scalar
   MatSetValues tests the sign before dividing and is right. So after the first assembly, a blocked
   insertion that may bring a new ghost (into another rank's rows, whose ghosts we cannot see, or into
   ours with an off-rank column we have no ghost for) goes through the scalar path: the same values, as
   the blocked layout of v is the scalar layout of the expanded indices (for either orientation).
*/
static PetscBool MatMPIBSRCustomMayAddGhost(Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[])
{
  Mat_MPIBSRCustom *c  = (Mat_MPIBSRCustom *)A->spptr;
  const PetscInt    bs = A->rmap->bs, rs = A->rmap->rstart / bs, re = A->rmap->rend / bs;
  const PetscInt    cs = A->cmap->rstart / bs, ce = A->cmap->rend / bs;

  for (PetscInt i = 0; i < m; i++) {
    if (im[i] < 0) continue;
    if (im[i] < rs || im[i] >= re) return PETSC_TRUE;
    for (PetscInt j = 0; j < n; j++) {
      PetscInt loc;
      if (in[j] < 0 || (in[j] >= cs && in[j] < ce)) continue;
      if (PetscFindInt(in[j], c->nghost, c->ghost_cols, &loc) || loc < 0) return PETSC_TRUE;
    }
  }
  return PETSC_FALSE;
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomSetValuesBlocked_Private(Mat A, Mat_MPIBSRCustom *c, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode)
{
  const PetscInt bs = A->rmap->bs;
  PetscInt      *rows, *cols;

  PetscFunctionBegin;
  if (!A->was_assembled || bs == 1 || !MatMPIBSRCustomMayAddGhost(A, m, im, n, in)) {
    PetscCall((*c->baij_setvaluesblocked)(A, m, im, n, in, v, mode));
    PetscFunctionReturn(0);
  }
  /* out-of-range block indices get MatSetValuesBlocked_MPIBAIJ's errors, which name the block index,
     not the scalar path's (for another rank's row MPIBAIJ would raise it on the owner at assembly) */
  for (PetscInt i = 0; i < m; i++) PetscCheck(im[i] < A->rmap->N / bs, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Block indexed row too large %" PetscInt_FMT " max %" PetscInt_FMT, im[i], A->rmap->N / bs - 1);
  for (PetscInt j = 0; j < n; j++) PetscCheck(in[j] < A->cmap->N / bs, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Block indexed column too large %" PetscInt_FMT " max %" PetscInt_FMT, in[j], A->cmap->N / bs - 1);
  PetscCall(PetscMalloc2(m * bs, &rows, n * bs, &cols));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt r = 0; r < bs; r++) rows[i * bs + r] = im[i] < 0 ? -1 : im[i] * bs + r;
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt r = 0; r < bs; r++) cols[j * bs + r] = in[j] < 0 ? -1 : in[j] * bs + r;
  PetscCall(MatBSRCustomSetValuesAllowNull_Private(c->baij_setvalues, A, m * bs, rows, n * bs, cols, v, mode));
  PetscCall(PetscFree2(rows, cols));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBAIJSetPreallocation_MPIBSRCustom(Mat A, PetscInt bs, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (c->aij_bs1 && PetscAbs(bs) > 1 && !A->assembled && !A->was_assembled) {
    MatBSRCustomSettings set = c->set;
    /* as for seqbsrcustom: AIJ-style preallocation fixed block size 1; start again from a fresh matrix */
    PetscCall(PetscInfo(A, "Block size %" PetscInt_FMT " asked for after AIJ-style preallocation fixed 1: the matrix is made again\n", PetscAbs(bs)));
    PetscCall(MatSetType(A, MATMPIBAIJ));
    PetscCall(MatSetType(A, MATMPIBSRCUSTOM));
    ((Mat_MPIBSRCustom *)A->spptr)->set = set;
    PetscCall(MatMPIBAIJSetPreallocation(A, bs, d_nz, d_nnz, o_nz, o_nnz));
    PetscFunctionReturn(0);
  }
  PetscCall((*c->baij_mpibaijsetpreallocation)(A, bs, d_nz, d_nnz, o_nz, o_nnz));
  c->aij_bs1 = PETSC_FALSE;
  if (d_nnz || o_nnz || (d_nz != PETSC_DEFAULT && d_nz != PETSC_DECIDE)) c->block_preallocated = PETSC_TRUE;
  PetscFunctionReturn(0);
}
