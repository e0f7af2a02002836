/*
   COO assembly of a seqbsrcustom matrix (MatSetPreallocationCOO / MatSetValuesCOO), in blocks:

   - the preallocation makes the blocks the coordinates touch (bsrcustomcoo.c's block map), preallocates
     SeqBAIJ with exactly those (zeros, assembled) and keeps, for every coordinate, the stored value it
     lands on, grouped by the OpenMP thread that owns that value (the matrix's threads at preallocation);
   - MatSetValuesCOO is then one parallel pass: each thread adds its coordinates' values into its own
     values in the order given (INSERT_VALUES: a value's first coordinate starts it from zero, and a
     value no coordinate gives becomes 0, as it is not in AIJ's pattern), reading the caller's array as
     a stream (an element list's values are scattered into few blocks at a time, which stay in cache;
     gathering each stored value's coordinates instead, as AIJ's COO does, jumps through the caller's
     array). No MatSetValues, no
     assembly of ours; the state increase after it moves every copy that follows the values
     (transposed, AIJ, device, inverted blocks).

   The values kernel is also the MPI type's, for its local and ghost blocks (mpi/mpibsrcustomcoo.c).
*/
#include "seqbsrcustomimpl.h"

/* what MatSetPreallocationCOO leaves on A for MatSetValuesCOO */
typedef struct {
  MatBSRCustomCOOScatter sc;   /* the coordinates' places in A's stored values, by thread */
  PetscCount             ncoo; /* coordinates given, the length of MatSetValuesCOO's array */
} MatSeqBSRCustomCOO;

static PetscErrorCode MatSeqBSRCustomCOODestroy(void *arg)
{
  MatSeqBSRCustomCOO *coo = (MatSeqBSRCustomCOO *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(MatBSRCustomCOOScatterFree_Private(&coo->sc));
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

/* Whether B (a block given to the values pass) takes values in device memory on its backend */
static PetscErrorCode MatSeqBSRCustomCOODeviceBlock(Mat B, PetscBool *device)
{
  PetscBool ours;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBSRCUSTOM, &ours));
  *device = (PetscBool)(ours && ((Mat_SeqBSRCustom *)B->spptr)->backend->coo_device_values);
  PetscFunctionReturn(0);
}

/* value d of the two parts' values one after the other: a0's below n0, a1's from n0 */
static inline PetscScalar *MatSeqBSRCustomCOOValue(PetscInt d, PetscInt n0, PetscScalar *a0, PetscScalar *a1)
{
  return d < n0 ? a0 + d : a1 + (d - n0);
}

/* One run of pairs: n destinations dst and their sources x (NULL: zeros). A value below n0 is a0's,
   the others a1's (a1 NULL: every value is a0's). INSERT_VALUES: a value's first pair (~d) starts it from 0, as MATAIJ's sum does. */
static inline void MatSeqBSRCustomCOORun(PetscInt n, const PetscInt dst[], const PetscScalar x[], PetscBool insert, PetscInt n0, PetscScalar *a0, PetscScalar *a1)
{
  if (!x) {
    for (PetscInt i = 0; i < n && insert; i++) {
      const PetscInt e = dst[i], d = MatBSRCustomCOODst(e);
      if (e < 0) *MatSeqBSRCustomCOOValue(d, n0, a0, a1) = 0.0;
    }
  } else if (insert && !a1) {
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt e = dst[i], d = MatBSRCustomCOODst(e);
      a0[d] = (e < 0 ? 0.0 : a0[d]) + x[i];
    }
  } else if (insert) {
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt e = dst[i], d = MatBSRCustomCOODst(e);
      PetscScalar   *p = MatSeqBSRCustomCOOValue(d, n0, a0, a1);
      *p               = (e < 0 ? 0.0 : *p) + x[i];
    }
  } else if (!a1) {
    for (PetscInt i = 0; i < n; i++) a0[MatBSRCustomCOODst(dst[i])] += x[i];
  } else {
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt d = MatBSRCustomCOODst(dst[i]);
      *MatSeqBSRCustomCOOValue(d, n0, a0, a1) += x[i];
    }
  }
}

/* The host pass of MatSeqBSRCustomCOOSetValues_Private (a[k]: block k's values, v or r may be NULL):
   thread t adds its pairs, run by run, into its own values, reading the caller's array as a stream.
   Part 0: the runs from v (and the values no coordinate gives); part 1: those from r, which come after
   them in each thread, so that r may arrive in between. */
static void MatSeqBSRCustomCOOHostPass(const MatBSRCustomCOOScatter *sc, PetscInt part, PetscInt nv, const PetscScalar v[], const PetscScalar r[], PetscBool insert, PetscScalar *a[2])
{
  const PetscInt *dst = sc->dst, *run = sc->run, *run_src = sc->run_src, *roff = sc->roff, n0 = sc->nvals[0];
  const PetscInt  nthreads = sc->nthreads;

  for (PetscInt k = 0; k < sc->nzero && insert && part == 0; k++) {
    const PetscInt d                            = sc->zero[k];
    *MatSeqBSRCustomCOOValue(d, n0, a[0], a[1]) = 0.0;
  }
#pragma omp parallel for num_threads((int)nthreads) schedule(static, 1)
  for (PetscInt t = 0; t < nthreads; t++) {
    PetscInt lo = roff[t], hi = roff[t + 1], mid;
    while (lo < hi) { /* the thread's first run from r */
      mid = lo + (hi - lo) / 2;
      if (run_src[mid] < nv) lo = mid + 1;
      else hi = mid;
    }
    for (PetscInt k = part ? lo : roff[t]; k < (part ? roff[t + 1] : lo); k++) {
      const PetscInt     s = run_src[k];
      const PetscScalar *x = s < nv ? (v ? v + s : NULL) : (r ? r + (s - nv) : NULL);
      MatSeqBSRCustomCOORun(run[k + 1] - run[k], dst + run[k], x, insert, n0, a[0], sc->vbound[t + 1] <= n0 ? NULL : a[1]);
    }
  }
}

static PetscErrorCode MatBSRCustomCOOReceiptEnd(const MatBSRCustomCOOReceipt *receipt)
{
  PetscFunctionBegin;
  if (receipt && receipt->end) PetscCall((*receipt->end)(receipt->ctx));
  PetscFunctionReturn(0);
}

/* The stored values of B[0] and B[1] (a seqbsrcustom, or the SeqBAIJ blocks of an MPI matrix; B[1]
   NULL on one rank) from the coordinates' values: each value (ADD_VALUES: its value +) the sum of
   the values of the coordinates that land there, src[q] being v[q] for q < nv and r[q - nv] after
   (the nr values an MPI rank received, host memory, complete once receipt's end has run: the host pass
   adds v's first; receipt NULL: r is complete); v NULL: zeros. Each thread of sc writes its own values
   only. v in device memory: summed on the device where every block with values is on a GPU backend
   (its host values a copy), else copied to the host first. Then the blocks' object states increase. */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCOOSetValues_Private(Mat B[2], const MatBSRCustomCOOScatter *sc, PetscInt nv, const PetscScalar v[], PetscInt nr, const PetscScalar r[], const MatBSRCustomCOOReceipt *receipt, InsertMode mode)
{
  const PetscBool insert = (PetscBool)(mode == INSERT_VALUES);
  PetscScalar    *a[2]   = {NULL, NULL};
  PetscBool       on_device;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomCOOValuesOnDevice_Private(v, &on_device));
  if (on_device) {
    PetscBool device_pass = PETSC_TRUE;
    for (int k = 0; k < 2; k++) {
      PetscBool here = PETSC_TRUE;
      if (B[k] && sc->nvals[k] > 0) PetscCall(MatSeqBSRCustomCOODeviceBlock(B[k], &here));
      device_pass = (PetscBool)(device_pass && here);
    }
    if (!device_pass) { /* a block whose values live on the host only: the host pass on a host copy */
      PetscScalar *h;
      PetscCall(PetscInfo(B[0], "MatSetValuesCOO(): values in device memory, the matrix's on the host (the cpu backend or bound to the CPU): copied to the host first\n"));
      PetscCall(MatBSRCustomCOOHostCopy_Private(v, nv, &h));
      PetscCall(MatSeqBSRCustomCOOSetValues_Private(B, sc, nv, h, nr, r, receipt, mode));
      PetscCall(PetscFree(h));
      PetscFunctionReturn(0);
    }
  }
  for (int k = 0; k < 2; k++) {
    PetscInt        n, bs;
    const PetscInt *ia, *ja;
    if (!B[k]) continue;
    PetscCall(MatGetBlockSize(B[k], &bs));
    PetscCall(MatBSRCustomGetStructure_Private(B[k], PETSC_TRUE, &n, &ia, &ja));
    PetscCheck((PetscCount)ia[n] * bs * bs == sc->nvals[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "The COO map holds %" PetscInt_FMT " values, the matrix %" PetscCount_FMT, sc->nvals[k], (PetscCount)ia[n] * bs * bs);
    PetscCall(MatSeqBSRCustomCOOArray(B[k], PETSC_TRUE, &a[k]));
  }
  if (on_device || (!v && !r)) PetscCall(MatBSRCustomCOOReceiptEnd(receipt));
  if (on_device) {
    for (int k = 0; k < 2; k++)
      if (a[k] && sc->nvals[k] > 0) {
        bsrk_matrix M;
        PetscCall(MatSeqBSRCustomPrepare_Private(B[k], &M));
        PetscCall((*((Mat_SeqBSRCustom *)B[k]->spptr)->backend->coo_device_values)(B[k], &M, sc, k, nv, v, nr, r, mode, a[k]));
      }
  } else if (!v && !r) {
    for (int k = 0; k < 2; k++)
      if (insert && a[k]) PetscCall(PetscArrayzero(a[k], sc->nvals[k]));
  } else {
    MatSeqBSRCustomCOOHostPass(sc, 0, nv, v, r, insert, a);
    PetscCall(MatBSRCustomCOOReceiptEnd(receipt));
    MatSeqBSRCustomCOOHostPass(sc, 1, nv, v, r, insert, a);
  }
  for (int k = 0; k < 2; k++) {
    if (!B[k]) continue;
    PetscCall(MatSeqBSRCustomCOOArray(B[k], PETSC_FALSE, &a[k]));
    PetscCall(PetscObjectStateIncrease((PetscObject)B[k]));
    if (on_device && sc->nvals[k] > 0) PetscCall((*((Mat_SeqBSRCustom *)B[k]->spptr)->backend->coo_device_follow)(B[k]));
  }
  if (!on_device) PetscCall(PetscLogFlops((PetscLogDouble)sc->off[sc->nthreads]));
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
  PetscCall(MatSeqBAIJSetPreallocationCSR(A, bs, part[0].ia, part[0].ja, NULL));
  /* the map holds only where SeqBAIJ keeps exactly these blocks, in this order */
  PetscCall(MatBSRCustomGetStructure_Private(A, PETSC_TRUE, &nrows, &ia, &ja));
  same = (PetscBool)(nrows == mb && ia[mb] == part[0].ia[mb]);
  if (same) PetscCall(PetscArraycmp(ia, part[0].ia, mb + 1, &same));
  if (same) PetscCall(PetscArraycmp(ja, part[0].ja, ia[mb], &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SeqBAIJ did not keep the blocks of the COO preallocation");
  PetscCall(PetscNew(&coo));
  PetscCall(MatBSRCustomCOOScatterBuild_Private(part, (PetscInt)n, (PetscInt)n, ((Mat_SeqBSRCustom *)A->spptr)->set.nthreads, &coo->sc));
  PetscCall(MatBSRCustomCOOPartFree_Private(&part[0]));
  PetscCall(MatBSRCustomCOOPartFree_Private(&part[1])); /* empty: every column is local */
  coo->ncoo = n;
  /* MatSetPreallocationCOO() counts a new nonzero structure once this returns (PETSc 3.18 to 3.25) */
  ((Mat_SeqBSRCustom *)A->spptr)->coo_nonzerostate = A->nonzerostate + 1;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, coo));
  PetscCall(BSRCContainerSetDestroy(container, MatSeqBSRCustomCOODestroy));
  PetscCall(PetscObjectCompose((PetscObject)A, "MatSeqBSRCustomCOO", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscCall(PetscInfo(A, "COO preallocation: %" PetscCount_FMT " coordinates, %" PetscInt_FMT " blocks of %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " coordinates kept, %" PetscInt_FMT " threads, %" PetscInt_FMT " runs of sources\n", n, ia[mb], bs, bs,
                      coo->sc.off[coo->sc.nthreads], coo->sc.nthreads, coo->sc.roff[coo->sc.nthreads]));
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
  PetscCheck(A->nonzerostate == ((Mat_SeqBSRCustom *)A->spptr)->coo_nonzerostate, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The nonzero structure changed since MatSetPreallocationCOO(): call it again before MatSetValuesCOO()");
  PetscCheck(mode == INSERT_VALUES || mode == ADD_VALUES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatSetValuesCOO() takes INSERT_VALUES or ADD_VALUES, not InsertMode %d", (int)mode);
  {
    Mat B[2] = {A, NULL};
    PetscCall(MatSeqBSRCustomCOOSetValues_Private(B, &coo->sc, (PetscInt)coo->ncoo, v, 0, NULL, NULL, mode));
  }
  PetscFunctionReturn(0);
}

/* MatDuplicate: M shares A's map (bsrcustomcoo.c) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomDuplicateCOO_Private(Mat A, Mat M)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomCOODuplicate_Private(A, M, "MatSeqBSRCustomCOO", ((Mat_SeqBSRCustom *)A->spptr)->coo_nonzerostate, &((Mat_SeqBSRCustom *)M->spptr)->coo_nonzerostate));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomComposeCOO_Private(Mat A, PetscBool install)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetPreallocationCOO_C", install ? MatSetPreallocationCOO_SeqBSRCustom : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetValuesCOO_C", install ? MatSetValuesCOO_SeqBSRCustom : NULL));
  PetscFunctionReturn(0);
}
