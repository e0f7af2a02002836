/* Helpers shared by seqbsrcustom and mpibsrcustom (see bsrcustomimpl.h). */
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

/*
   Finite-difference coloring: PETSc's BAIJ path colors block columns, while a DMDA hands non-"baij"
   types a coloring of scalar columns. Such a coloring becomes a block coloring in which two block
   columns share a color when all their components do: valid whenever the scalar coloring is valid for
   the block pattern, and for a DMDA exactly the node coloring the DMDA gives BAIJ, so the Jacobian
   matches BAIJ's.
*/
PETSC_INTERN PetscErrorCode MatBSRCustomBlockColoring_Private(Mat A, ISColoring scalar, ISColoring *block)
{
  PetscInt               bs, n, ncolors, nb, nblock;
  const ISColoringValue *colors;
  ISColoringValue       *bcolors;
  ISColoringType         ctype;
  PetscInt              *perm, *next, *count;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(ISColoringGetColors(scalar, &n, &ncolors, &colors));
  PetscCall(ISColoringGetType(scalar, &ctype));
  /* a global scalar coloring has one entry per local column; ghosted (IS_COLORING_LOCAL) ones are passed on */
  if (bs == 1 || ctype != IS_COLORING_GLOBAL || n != A->cmap->n) {
    PetscCall(ISColoringReference(scalar));
    *block = scalar;
    PetscFunctionReturn(0);
  }
  nb = n / bs;
  /* LSD radix sort of the block columns by their tuple of component colors (each pass stable) */
  PetscCall(PetscMalloc3(nb, &perm, nb, &next, ncolors + 1, &count));
  for (PetscInt j = 0; j < nb; j++) perm[j] = j;
  for (PetscInt k = bs - 1; k >= 0; k--) {
    PetscCall(PetscArrayzero(count, ncolors + 1));
    for (PetscInt j = 0; j < nb; j++) count[colors[j * bs + k] + 1]++;
    for (PetscInt c = 0; c < ncolors; c++) count[c + 1] += count[c];
    for (PetscInt j = 0; j < nb; j++) next[count[colors[perm[j] * bs + k]]++] = perm[j];
    PetscCall(PetscArraycpy(perm, next, nb));
  }
  /* equal tuples are now adjacent: number them */
  PetscCall(PetscMalloc1(nb, &bcolors));
  nblock = 0;
  for (PetscInt j = 0; j < nb; j++) {
    PetscBool same = (PetscBool)(j > 0);
    if (same) PetscCall(PetscArraycmp(&colors[perm[j] * bs], &colors[perm[j - 1] * bs], bs, &same));
    if (!same) nblock++;
    bcolors[perm[j]] = (ISColoringValue)(nblock - 1);
  }
  PetscCall(PetscFree3(perm, next, count));
  PetscCall(ISColoringCreate(PetscObjectComm((PetscObject)A), nblock, nb, bcolors, PETSC_OWN_POINTER, block));
  PetscCall(ISColoringSetType(*block, ctype));
  PetscCall(PetscInfo(A, "Block coloring of %" PetscInt_FMT " colors from a scalar coloring of %" PetscInt_FMT " colors\n", nblock, ncolors));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomSetValuesAllowNull_Private(MatBSRCustomSetValuesFn base, Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode)
{
  PetscScalar *zeros;

  PetscFunctionBegin;
  if (v) {
    PetscCall((*base)(A, m, im, n, in, v, mode));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscCalloc1((size_t)PetscMax(m, 0) * PetscMax(n, 0) + 1, &zeros));
  PetscCall((*base)(A, m, im, n, in, zeros, mode));
  PetscCall(PetscFree(zeros));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomBlockCounts_Private(PetscInt mbs, PetscInt bs, const PetscInt nnz[], PetscInt cap, PetscInt **bnnz)
{
  PetscFunctionBegin;
  *bnnz = NULL;
  if (!nnz) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(mbs, bnnz));
  for (PetscInt i = 0; i < mbs; i++) {
    PetscInt m = 0;
    for (PetscInt r = 0; r < bs; r++) m = PetscMax(m, nnz[i * bs + r]);
    (*bnnz)[i] = PetscMin((m + bs - 1) / bs, cap);
  }
  PetscFunctionReturn(0);
}
