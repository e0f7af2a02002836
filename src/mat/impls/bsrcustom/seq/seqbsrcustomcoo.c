/*
   COO assembly of a seqbsrcustom matrix (MatSetPreallocationCOO / MatSetValuesCOO), in blocks:

   - the preallocation makes the blocks the coordinates touch (bsrcustomcoo.c's block map), preallocates
     SeqBAIJ with exactly those (zeros, assembled) and keeps, for every stored value, the coordinates
     that land there;
   - MatSetValuesCOO is then one pass over the stored values, in parallel (OpenMP), each value the sum
     of its coordinates' (INSERT_VALUES: a value no coordinate gives becomes 0, as it is not in AIJ's
     pattern), with no MatSetValues and no assembly of ours; the state increase after it moves every
     copy that follows the values (transposed, AIJ, device, inverted blocks).

   The values kernel is also the MPI type's, for its local and ghost blocks (mpi/mpibsrcustomcoo.c).
*/
#include "seqbsrcustomimpl.h"

/* what MatSetPreallocationCOO leaves on A for MatSetValuesCOO */
typedef struct {
  MatBSRCustomCOOPart map;          /* jmap and perm over A's stored values (its CSR is SeqBAIJ's) */
  PetscCount          ncoo;         /* coordinates given, the length of MatSetValuesCOO's array */
  PetscObjectState    nonzerostate; /* A's nonzero structure the map is for */
} MatSeqBSRCustomCOO;

static PetscErrorCode MatSeqBSRCustomCOODestroy(void *arg)
{
  MatSeqBSRCustomCOO *coo = (MatSeqBSRCustomCOO *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(MatBSRCustomCOOPartFree_Private(&coo->map));
  PetscCall(PetscFree(coo));
  PetscFunctionReturn(0);
}

/* B's values, SeqBAIJ's array, through SeqBAIJ's own methods where B is ours (our restore would count
   the access as a change before the values are in) */
static PetscErrorCode MatSeqBSRCustomCOOArray(Mat B, PetscBool get, PetscScalar **a)
{
  PetscBool ours;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBSRCUSTOM, &ours));
  if (ours && get) PetscCall((*((Mat_SeqBSRCustom *)B->spptr)->baij_getarray)(B, a));
  else if (ours) PetscCall((*((Mat_SeqBSRCustom *)B->spptr)->baij_restorearray)(B, a));
  else if (get) PetscCall(MatSeqBAIJGetArray(B, a));
  else PetscCall(MatSeqBAIJRestoreArray(B, a));
  PetscFunctionReturn(0);
}

/* The stored values of B (a seqbsrcustom, or the SeqBAIJ block of an MPI matrix) from the coordinates'
   values: value p = (ADD_VALUES: its value +) the sum of src[perm[k]], jmap[p] <= k < jmap[p + 1], where
   src[q] is v[q] for q < nv and r[q - nv] after (the entries an MPI rank received); v NULL: zeros. Then
   B's object state increases. */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCOOSetValues_Private(Mat B, const MatBSRCustomCOOPart *map, PetscCount nv, const PetscScalar v[], const PetscScalar r[], InsertMode mode)
{
  const PetscInt  *jmap = map->jmap, *perm = map->perm;
  const PetscCount nvals  = map->nvals;
  const PetscBool  insert = (PetscBool)(mode == INSERT_VALUES);
  PetscScalar     *a;
  PetscInt         n, bs, bs2, nthreads;
  const PetscInt  *ia, *ja;
  PetscBool        ours;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(B, &bs));
  bs2 = bs * bs;
  PetscCall(MatBSRCustomGetStructure_Private(B, PETSC_TRUE, &n, &ia, &ja));
  PetscCheck((PetscCount)ia[n] * bs * bs == nvals, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The COO map holds %" PetscCount_FMT " values, the matrix %" PetscCount_FMT, nvals, (PetscCount)ia[n] * bs * bs);
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBSRCUSTOM, &ours));
  nthreads = ours ? ((Mat_SeqBSRCustom *)B->spptr)->set.nthreads : MatBSRCustomDefaultThreads();
  if (nvals < 16384) nthreads = 1; /* a team costs more than the pass */
  PetscCall(MatSeqBSRCustomCOOArray(B, PETSC_TRUE, &a));
  if (!v && !r) {
    if (insert) PetscCall(PetscArrayzero(a, nvals));
  } else {
    /* block row by block row, and in one the values of its scalar rows in turn, as a scalar row's
       values lie in the caller's array (an element matrix's row is contiguous there): the gathers of
       v then walk few cache lines at a time, which the blocks' column-major order would not */
#define BSRC_COO_SUM(SOURCE) \
  do { \
    _Pragma("omp parallel for num_threads((int)nthreads) schedule(static)") \
    for (PetscInt br = 0; br < n; br++) { \
      for (PetscInt i = 0; i < bs; i++) { \
        for (PetscInt blk = ia[br]; blk < ia[br + 1]; blk++) { \
          for (PetscInt c = 0; c < bs; c++) { \
            const PetscCount p   = (PetscCount)blk * bs2 + c * bs + i; \
            PetscScalar      sum = 0.0; \
            for (PetscInt k = jmap[p]; k < jmap[p + 1]; k++) sum += SOURCE(perm[k]); \
            a[p] = insert ? sum : a[p] + sum; \
          } \
        } \
      } \
    } \
  } while (0)
#define BSRC_COO_OWN(q)   v[q]
#define BSRC_COO_MIXED(q) ((q) < nv ? (v ? v[q] : 0.0) : r[(q)-nv])
    if (!r) BSRC_COO_SUM(BSRC_COO_OWN); /* one rank: every coordinate is in v */
    else BSRC_COO_SUM(BSRC_COO_MIXED);
#undef BSRC_COO_OWN
#undef BSRC_COO_MIXED
#undef BSRC_COO_SUM
  }
  PetscCall(MatSeqBSRCustomCOOArray(B, PETSC_FALSE, &a));
  PetscCall(PetscObjectStateIncrease((PetscObject)B));
  PetscCall(PetscLogFlops((PetscLogDouble)(jmap[nvals])));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetPreallocationCOO_SeqBSRCustom(Mat A, PetscCount n, PetscInt coo_i[], PetscInt coo_j[])
{
  PetscInt            bs, mb, nb, nrows;
  const PetscInt     *ia, *ja;
  MatBSRCustomCOOPart part[2];
  MatSeqBSRCustomCOO *coo;
  PetscContainer      container;
  PetscBool           same;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  mb = A->rmap->n / bs;
  nb = A->cmap->n / bs;
  PetscCall(MatBSRCustomCOOCheckRange_Private(A, n, coo_i, coo_j));
  PetscCall(MatBSRCustomCOOBuild_Private(n, coo_i, coo_j, bs, mb, nb, nb, part));
  PetscCall(MatBSRCustomCOOPartFree_Private(&part[1])); /* empty: every column is local */
  PetscCall(MatSeqBAIJSetPreallocationCSR(A, bs, part[0].ia, part[0].ja, NULL));
  /* the map holds only where SeqBAIJ keeps exactly these blocks, in this order */
  PetscCall(MatBSRCustomGetStructure_Private(A, PETSC_TRUE, &nrows, &ia, &ja));
  same = (PetscBool)(nrows == mb && ia[mb] == part[0].ia[mb]);
  if (same) PetscCall(PetscArraycmp(ia, part[0].ia, mb + 1, &same));
  if (same) PetscCall(PetscArraycmp(ja, part[0].ja, ia[mb], &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SeqBAIJ did not keep the blocks of the COO preallocation");
  PetscCall(MatBSRCustomCOOPartFreeStructure_Private(&part[0]));

  PetscCall(PetscNew(&coo));
  coo->map  = part[0];
  coo->ncoo = n;
  /* MatSetPreallocationCOO() counts a new nonzero structure once this returns (PETSc 3.18 to 3.25) */
  coo->nonzerostate = A->nonzerostate + 1;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, coo));
  PetscCall(BSRCContainerSetDestroy(container, MatSeqBSRCustomCOODestroy));
  PetscCall(PetscObjectCompose((PetscObject)A, "MatSeqBSRCustomCOO", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscCall(PetscInfo(A, "COO preallocation: %" PetscCount_FMT " coordinates, %" PetscInt_FMT " blocks of %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " coordinates kept\n", n, ia[mb], bs, bs, coo->map.jmap[coo->map.nvals]));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetValuesCOO_SeqBSRCustom(Mat A, const PetscScalar v[], InsertMode mode)
{
  PetscContainer      container;
  MatSeqBSRCustomCOO *coo;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, "MatSeqBSRCustomCOO", (PetscObject *)&container));
  PetscCheck(container, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO() needs MatSetPreallocationCOO() on this matrix first");
  PetscCall(PetscContainerGetPointer(container, (void **)&coo));
  PetscCheck(A->nonzerostate == coo->nonzerostate, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The nonzero structure changed since MatSetPreallocationCOO(): call it again before MatSetValuesCOO()");
  PetscCheck(mode == INSERT_VALUES || mode == ADD_VALUES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatSetValuesCOO() takes INSERT_VALUES or ADD_VALUES, not InsertMode %d", (int)mode);
  PetscCall(MatSeqBSRCustomCOOSetValues_Private(A, &coo->map, coo->ncoo, v, NULL, mode));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomComposeCOO_Private(Mat A, PetscBool install)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetPreallocationCOO_C", install ? MatSetPreallocationCOO_SeqBSRCustom : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetValuesCOO_C", install ? MatSetValuesCOO_SeqBSRCustom : NULL));
  PetscFunctionReturn(0);
}
