/*
   COO assembly with coordinates of whole blocks: block rows and block columns, bs x bs values each.
   The caller's index arrays are bs^2 times shorter than the scalar COO's; the blocks are given to
   MatSetPreallocationCOO() as their scalar coordinates (in the order of the block's values, row by
   row), so that MatSetValuesCOO() takes the blocks' values as they are and the type's own COO
   assembly (ours: in blocks) does the rest.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

/*@C
   MatBSRCustomSetPreallocationCOOBlocked - Preallocates a matrix from coordinates of whole blocks, for
   MatBSRCustomSetValuesCOOBlocked() (the block form of MatSetPreallocationCOO())

   Collective

   Input Parameters:
+  A - the matrix (MATBSRCUSTOM, or any type with a block size; its sizes and block size set)
.  nblocks - the number of blocks given on this rank
.  bi - their block rows (global block indices: scalar rows bi[k]*bs .. bi[k]*bs + bs - 1)
-  bj - their block columns

   Notes:
   As in MatSetPreallocationCOO(): a block may be given several times (its values are then summed), a
   block with a negative block row or column is ignored (with its values), and a block in another
   rank's rows is sent to that rank. A block outside the matrix is an error on every rank. The arrays
   are not changed and may be freed after the call. The matrix keeps one entry per scalar coordinate
   (as after MatSetPreallocationCOO() with the blocks' bs^2 coordinates each); only the caller's
   arrays are smaller.

   Level: intermediate

.seealso: `MatBSRCustomSetValuesCOOBlocked()`, `MatSetPreallocationCOO()`, `MatSetValuesCOO()`, `MATBSRCUSTOM`
@*/
PetscErrorCode MatBSRCustomSetPreallocationCOOBlocked(Mat A, PetscCount nblocks, const PetscInt bi[], const PetscInt bj[])
{
  MPI_Comm    comm;
  PetscInt    bs, mb, nb, *ci, *cj;
  PetscCount  bad = -1, n;
  PetscBool   any;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  if (nblocks) PetscAssertPointer(bi, 3);
  if (nblocks) PetscAssertPointer(bj, 4);
  comm = PetscObjectComm((PetscObject)A);
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  PetscCall(MatGetBlockSize(A, &bs));
  mb = A->rmap->N / bs;
  nb = A->cmap->N / bs;
  for (PetscCount k = 0; k < nblocks && bad < 0; k++)
    if (bi[k] >= 0 && bj[k] >= 0 && (bi[k] >= mb || bj[k] >= nb)) bad = k;
  any = (PetscBool)(bad >= 0);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &any, 1, BSRC_MPI_BOOL, MPI_LOR, comm));
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO block %" PetscCount_FMT " (block row %" PetscInt_FMT ", block column %" PetscInt_FMT ") is outside the %" PetscInt_FMT " x %" PetscInt_FMT " blocks of the matrix", bad, bi[bad], bj[bad], mb, nb);
  PetscCheck(!any, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A COO block given on another rank is outside the %" PetscInt_FMT " x %" PetscInt_FMT " blocks of the matrix", mb, nb);
  n = nblocks * bs * bs;
  PetscCall(PetscMalloc2(n, &ci, n, &cj));
  for (PetscCount k = 0; k < nblocks; k++) {
    const PetscBool skip = (PetscBool)(bi[k] < 0 || bj[k] < 0);
    for (PetscInt r = 0; r < bs; r++) {
      for (PetscInt c = 0; c < bs; c++) { /* value (r, c) of block k is v[k*bs*bs + r*bs + c] */
        ci[(k * bs + r) * bs + c] = skip ? -1 : bi[k] * bs + r;
        cj[(k * bs + r) * bs + c] = skip ? -1 : bj[k] * bs + c;
      }
    }
  }
  PetscCall(MatSetPreallocationCOO(A, n, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(0);
}

/*@C
   MatBSRCustomSetValuesCOOBlocked - Sets the values of a matrix preallocated with
   MatBSRCustomSetPreallocationCOOBlocked() (the block form of MatSetValuesCOO())

   Collective

   Input Parameters:
+  A - the matrix
.  v - bs x bs values for each block given to MatBSRCustomSetPreallocationCOOBlocked(), in that order,
       each block row by row (value (r, c) of block k at v[k*bs*bs + r*bs + c]); NULL: zeros (MATBSRCUSTOM)
-  mode - INSERT_VALUES or ADD_VALUES

   Notes:
   As MatSetValuesCOO(): the values of a block given several times are summed first; INSERT_VALUES
   replaces the matrix's values (a value of a block that no coordinate gives becomes 0), ADD_VALUES adds
   to them. No assembly is needed after it.

   Level: intermediate

.seealso: `MatBSRCustomSetPreallocationCOOBlocked()`, `MatSetValuesCOO()`, `MATBSRCUSTOM`
@*/
PetscErrorCode MatBSRCustomSetValuesCOOBlocked(Mat A, const PetscScalar v[], InsertMode mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatSetValuesCOO(A, v, mode));
  PetscFunctionReturn(0);
}
