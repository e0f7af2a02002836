/*
   COO assembly of an mpibsrcustom matrix (MatSetPreallocationCOO / MatSetValuesCOO), in blocks.

   Preallocation: a coordinate whose row another rank owns is sent to that owner once, through a
   PetscSF whose leaves are those coordinates (positions in the caller's arrays) and whose roots are
   what each owner receives. The owner's coordinates, its own and those received, then make one block
   map (bsrcustomcoo.c) over a compact column space: the local block's columns first, then the ghost
   block columns (those outside the rank's columns, ascending, as MPIBAIJ compresses them). MPIBAIJ is
   preallocated with exactly those blocks (zeros, assembled), and the map's two parts are the local
   and the ghost block's stored values.

   MatSetValuesCOO: the SF moves the off-rank values to their owners (a reduce with MPI_REPLACE, each
   root has one leaf) into host memory, then one parallel pass fills the local and ghost blocks' values
   (seq/seqbsrcustomcoo.c), the sources being the caller's values followed by the received ones; with
   values in device memory, on the device where the blocks are on a GPU backend (the received ones
   copied up). A's state and its blocks' increase.
*/
#include <petscsf.h>
#include "mpibsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/seq/seqbsrcustomimpl.h>

typedef struct {
  MatBSRCustomCOOScatter sc;    /* the coordinates' places in the local, then the ghost block's values; sources q < ncoo: v[q], else recv[q - ncoo] */
  PetscCount             ncoo;  /* coordinates given on this rank */
  PetscSF                sf;    /* leaves: this rank's coordinates in other ranks' rows; roots: those it receives */
  PetscInt               nrecv; /* roots of sf */
  PetscScalar           *recv;  /* their values at each MatSetValuesCOO (scratch, also for the copies sharing the map) */
} MatMPIBSRCustomCOO;

static PetscErrorCode MatMPIBSRCustomCOODestroy(void *arg)
{
  MatMPIBSRCustomCOO *coo = (MatMPIBSRCustomCOO *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(MatBSRCustomCOOScatterFree_Private(&coo->sc));
  PetscCall(PetscSFDestroy(&coo->sf));
  PetscCall(PetscFree(coo->recv));
  PetscCall(PetscFree(coo));
  PetscFunctionReturn(0);
}

/* The SF that sends this rank's coordinates of other ranks' rows to their owners: nleaves of them,
   leaf[l] the coordinate's position in the caller's arrays, owner[l] its row's owner (both sorted by
   owner here); *nrecv: what this rank receives. Each owner's roots are given out in blocks, one per
   sending rank, by a fetch-and-add on a counter of the owner's. */
static PetscErrorCode MatMPIBSRCustomCOOSendSF(Mat A, PetscInt nleaves, PetscInt leaf[], PetscMPIInt owner[], PetscSF *sf, PetscInt *nrecv)
{
  MPI_Comm     comm  = PetscObjectComm((PetscObject)A);
  PetscInt     nsend = 0, *count, *offset, total = 0;
  PetscSFNode *to, *iremote;
  PetscSF      counter;

  PetscFunctionBegin;
  PetscCall(PetscSortMPIIntWithIntArray(nleaves, owner, leaf));
  for (PetscInt l = 0; l < nleaves; l++) nsend += (l == 0 || owner[l] != owner[l - 1]);
  PetscCall(PetscMalloc3(nsend, &count, nsend, &offset, nsend, &to));
  nsend = 0;
  for (PetscInt l = 0; l < nleaves; l++) {
    if (l == 0 || owner[l] != owner[l - 1]) {
      to[nsend].rank  = owner[l];
      to[nsend].index = 0;
      count[nsend++]  = 0;
    }
    count[nsend - 1]++;
  }
  PetscCall(PetscSFCreate(comm, &counter));
  PetscCall(PetscSFSetGraph(counter, 1, nsend, NULL, PETSC_COPY_VALUES, to, PETSC_COPY_VALUES));
  PetscCall(PetscSFFetchAndOpBegin(counter, MPIU_INT, &total, count, offset, MPI_SUM));
  PetscCall(PetscSFFetchAndOpEnd(counter, MPIU_INT, &total, count, offset, MPI_SUM));
  PetscCall(PetscSFDestroy(&counter));

  PetscCall(PetscMalloc1(nleaves, &iremote));
  for (PetscInt l = 0, s = -1, q = 0; l < nleaves; l++, q++) {
    if (l == 0 || owner[l] != owner[l - 1]) {
      s++;
      q = 0;
    }
    iremote[l].rank  = owner[l];
    iremote[l].index = offset[s] + q;
  }
  PetscCall(PetscFree3(count, offset, to));
  PetscCall(PetscSFCreate(comm, sf));
  PetscCall(PetscSFSetFromOptions(*sf));
  PetscCall(PetscSFSetGraph(*sf, total, nleaves, leaf, PETSC_COPY_VALUES, iremote, PETSC_OWN_POINTER));
  *nrecv = total;
  PetscFunctionReturn(0);
}

/* The local block's and ghost block's structure are the map's parts, and the ghost block columns the
   map's: what the map's positions rely on */
static PetscErrorCode MatMPIBSRCustomCOOCheckBlocks(Mat A, const MatBSRCustomCOOPart *local, const MatBSRCustomCOOPart *ghost, PetscInt ng, const PetscInt ghosts[])
{
  Mat             blk[2];
  PetscInt        nghost, n;
  const PetscInt *gcols, *ia, *ja;
  PetscBool       same = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetLocalAndGhost(A, &blk[0], &blk[1], &nghost, &gcols, NULL, NULL));
  same = (PetscBool)(nghost == ng);
  if (same) PetscCall(PetscArraycmp(gcols, ghosts, ng, &same));
  for (int k = 0; k < 2 && same; k++) {
    const MatBSRCustomCOOPart *p  = k ? ghost : local;
    PetscInt                   mb = A->rmap->n / A->rmap->bs;
    PetscCall(MatBSRCustomGetStructure_Private(blk[k], PETSC_TRUE, &n, &ia, &ja));
    same = (PetscBool)(n == mb && ia[mb] == p->ia[mb]);
    if (same) PetscCall(PetscArraycmp(ia, p->ia, mb + 1, &same));
    if (same) PetscCall(PetscArraycmp(ja, p->ja, ia[mb], &same));
  }
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MPIBAIJ did not keep the blocks of the COO preallocation");
  PetscFunctionReturn(0);
}

/* the ghost block columns: the block columns outside this rank's of the coordinates given in its own
   rows (the caller's, and the nrecv received with columns j2), ascending */
static PetscErrorCode MatMPIBSRCustomCOOGhostColumns(Mat A, PetscCount n, const PetscInt coo_i[], const PetscInt coo_j[], PetscInt nrecv, const PetscInt j2[], PetscInt *ng, PetscInt **ghosts)
{
  const PetscInt bs = A->rmap->bs, rstart = A->rmap->rstart, rend = A->rmap->rend, cbstart = A->cmap->rstart / bs, cbend = A->cmap->rend / bs;
  PetscInt       noff = 0;

  PetscFunctionBegin;
#define BSRC_COO_GHOST(j)     ((j) / bs < cbstart || (j) / bs >= cbend)
#define BSRC_COO_OWN_GHOST(e) (coo_i[e] >= rstart && coo_i[e] < rend && coo_j[e] >= 0 && BSRC_COO_GHOST(coo_j[e]))
  for (PetscCount e = 0; e < n; e++) noff += BSRC_COO_OWN_GHOST(e);
  for (PetscInt q = 0; q < nrecv; q++) noff += BSRC_COO_GHOST(j2[q]);
  PetscCall(PetscMalloc1(noff, ghosts));
  *ng = 0;
  for (PetscCount e = 0; e < n; e++)
    if (BSRC_COO_OWN_GHOST(e)) (*ghosts)[(*ng)++] = coo_j[e] / bs;
  for (PetscInt q = 0; q < nrecv; q++)
    if (BSRC_COO_GHOST(j2[q])) (*ghosts)[(*ng)++] = j2[q] / bs;
#undef BSRC_COO_OWN_GHOST
#undef BSRC_COO_GHOST
  PetscCall(PetscSortRemoveDupsInt(ng, *ghosts));
  PetscFunctionReturn(0);
}

/* MPIBAIJ's block preallocation from the map's parts: global block columns, ascending in each row
   (the ghosts before this rank's columns, its own, the ghosts after); then the check that it kept them */
static PetscErrorCode MatMPIBSRCustomCOOPreallocate(Mat A, PetscInt bs, const MatBSRCustomCOOPart part[2], PetscInt ng, const PetscInt ghosts[])
{
  const PetscInt mbl = A->rmap->n / bs, cbstart = A->cmap->rstart / bs;
  PetscInt      *ii, *jj;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(mbl + 1, &ii, part[0].ia[mbl] + part[1].ia[mbl], &jj));
  ii[0] = 0;
  for (PetscInt r = 0; r < mbl; r++) {
    PetscInt k = ii[r], g = part[1].ia[r];
    for (; g < part[1].ia[r + 1] && ghosts[part[1].ja[g]] < cbstart; g++) jj[k++] = ghosts[part[1].ja[g]];
    for (PetscInt d = part[0].ia[r]; d < part[0].ia[r + 1]; d++) jj[k++] = part[0].ja[d] + cbstart;
    for (; g < part[1].ia[r + 1]; g++) jj[k++] = ghosts[part[1].ja[g]];
    ii[r + 1] = k;
  }
  PetscCall(MatMPIBAIJSetPreallocationCSR(A, bs, ii, jj, NULL));
  PetscCall(PetscFree2(ii, jj));
  PetscCall(MatMPIBSRCustomCOOCheckBlocks(A, &part[0], &part[1], ng, ghosts));
  PetscFunctionReturn(0);
}

/* the map (the parts' scatter, the star forest of the off-rank coordinates, their receive buffer)
   composed on A; the parts given back */
static PetscErrorCode MatMPIBSRCustomCOOAttach(Mat A, MatBSRCustomCOOPart part[2], PetscCount n, PetscInt nrecv, PetscSF sf)
{
  MatMPIBSRCustomCOO *coo;
  PetscContainer      container;
  Mat                 Ad;
  PetscBool           ours;
  PetscInt            nthreads;

  PetscFunctionBegin;
  PetscCall(PetscNew(&coo));
  PetscCall(MatBSRCustomGetLocalAndGhost(A, &Ad, NULL, NULL, NULL, NULL, NULL));
  PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQBSRCUSTOM, &ours));
  /* the threads of the local block's products (the matrix's -mat_bsrcustom_threads) */
  if (ours) nthreads = ((Mat_SeqBSRCustom *)Ad->spptr)->set.nthreads;
  else PetscCall(MatBSRCustomDefaultThreads_Private(&nthreads, NULL, 0));
  PetscCall(MatBSRCustomCOOScatterBuild_Private(part, (PetscInt)(n + nrecv), (PetscInt)n, nthreads, &coo->sc));
  PetscCall(MatBSRCustomCOOPartFree_Private(&part[0]));
  PetscCall(MatBSRCustomCOOPartFree_Private(&part[1]));
  coo->ncoo  = n;
  coo->sf    = sf;
  coo->nrecv = nrecv;
  PetscCall(PetscMalloc1(nrecv, &coo->recv));
  /* MatSetPreallocationCOO() counts a new nonzero structure once this returns (PETSc 3.18 to 3.25) */
  ((Mat_MPIBSRCustom *)A->spptr)->coo_nonzerostate = A->nonzerostate + 1;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, coo));
  PetscCall(BSRCContainerSetDestroy(container, MatMPIBSRCustomCOODestroy));
  PetscCall(PetscObjectCompose((PetscObject)A, "MatMPIBSRCustomCOO", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetPreallocationCOO_MPIBSRCustom(Mat A, PetscCount n, PetscInt coo_i[], PetscInt coo_j[])
{
  MPI_Comm            comm = PetscObjectComm((PetscObject)A);
  PetscInt            bs, rstart, rend, cbstart, cbend, mbl, nbl, nleaves = 0, nrecv = 0, ng, *leaf, *i2, *j2, *rows, *cols, *ghosts;
  PetscMPIInt        *owner;
  PetscBool           refused, ignore;
  MatBSRCustomCOOPart part[2];
  PetscSF             sf;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(PetscLayoutGetRange(A->rmap, &rstart, &rend));
  cbstart = A->cmap->rstart / bs;
  cbend   = A->cmap->rend / bs;
  mbl     = A->rmap->n / bs;
  nbl     = cbend - cbstart;
  PetscCall(MatBSRCustomCOOCheckRange_Private(A, n, coo_i, coo_j));
  PetscCall(PetscIntCast(n, &nleaves)); /* the SF's leaves are positions in the caller's arrays */
  nleaves = 0;
  /* MAT_IGNORE_OFF_PROC_ENTRIES: coordinates in other ranks' rows are ignored, as MATAIJ's COO does */
  ignore = (PetscBool)(A->spptr && ((Mat_MPIBSRCustom *)A->spptr)->ignore_off_proc);
#define BSRC_COO_OWNED(r) ((r) >= rstart && (r) < rend)
#define BSRC_COO_GIVEN(e) (coo_i[e] >= 0 && coo_j[e] >= 0)
#define BSRC_COO_VALID(e) (BSRC_COO_GIVEN(e) && (!ignore || BSRC_COO_OWNED(coo_i[e])))
  for (PetscCount e = 0; e < n; e++) nleaves += (BSRC_COO_GIVEN(e) && !BSRC_COO_OWNED(coo_i[e]));
  refused = (PetscBool)(A->nooffprocentries && nleaves > 0); /* refused even where they would be ignored, as MATAIJ does */
  if (ignore) nleaves = 0;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &refused, 1, BSRC_MPI_BOOL, MPI_LOR, comm));
  PetscCheck(!refused, comm, PETSC_ERR_USER_INPUT, "MAT_NO_OFF_PROC_ENTRIES is set, but COO coordinates lie in other ranks' rows");

  /* off-rank coordinates, sent once to their owners */
  PetscCall(PetscMalloc2(nleaves, &leaf, nleaves, &owner));
  nleaves = 0;
  for (PetscCount e = 0; e < n; e++) {
    if (!BSRC_COO_VALID(e) || BSRC_COO_OWNED(coo_i[e])) continue;
    PetscCall(PetscLayoutFindOwner(A->rmap, coo_i[e], &owner[nleaves]));
    leaf[nleaves++] = (PetscInt)e;
  }
  PetscCall(MatMPIBSRCustomCOOSendSF(A, nleaves, leaf, owner, &sf, &nrecv));
  PetscCall(PetscFree2(leaf, owner));
  PetscCall(PetscMalloc2(nrecv, &i2, nrecv, &j2));
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, coo_i, i2, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, coo_i, i2, MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, coo_j, j2, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, coo_j, j2, MPI_REPLACE));
  PetscCall(MatMPIBSRCustomCOOGhostColumns(A, n, coo_i, coo_j, nrecv, j2, &ng, &ghosts));

  /* the owned coordinates in local rows and compact columns: own ones at their positions, received ones after */
  PetscCall(PetscMalloc2(n + nrecv, &rows, n + nrecv, &cols));
  for (PetscCount e = 0; e < n + nrecv; e++) {
    const PetscBool mine = (PetscBool)(e < n);
    const PetscInt  i = mine ? coo_i[e] : i2[e - n], j = mine ? coo_j[e] : j2[e - n], bc = j / bs;
    PetscInt        key;

    if ((mine && !BSRC_COO_VALID(e)) || !BSRC_COO_OWNED(i)) {
      rows[e] = cols[e] = -1;
      continue;
    }
    if (bc >= cbstart && bc < cbend) key = bc - cbstart;
    else {
      PetscCall(PetscFindInt(bc, ng, ghosts, &key));
      key += nbl;
    }
    rows[e] = i - rstart;
    cols[e] = key * bs + j % bs;
  }
#undef BSRC_COO_VALID
#undef BSRC_COO_GIVEN
#undef BSRC_COO_OWNED
  PetscCall(PetscFree2(i2, j2));
  PetscCall(MatBSRCustomCOOBuild_Private(n + nrecv, rows, cols, bs, mbl, nbl + ng, nbl, part));
  PetscCall(PetscFree2(rows, cols));

  PetscCall(MatMPIBSRCustomCOOPreallocate(A, bs, part, ng, ghosts));
  PetscCall(PetscFree(ghosts));
  PetscCall(MatMPIBSRCustomCOOAttach(A, part, n, nrecv, sf));
  PetscCall(PetscInfo(A, "COO preallocation: %" PetscCount_FMT " coordinates, %" PetscInt_FMT " sent to other ranks, %" PetscInt_FMT " received; %" PetscInt_FMT " ghost block columns\n", n, nleaves, nrecv, ng));
  PetscFunctionReturn(0);
}

/* the coordinates' values sent to their owners, in flight while a rank adds its own */
typedef struct {
  PetscSF            sf;
  const PetscScalar *sent;
  PetscScalar       *recv;
} MatMPIBSRCustomCOOInFlight;

static PetscErrorCode MatMPIBSRCustomCOOReceiveEnd(void *ctx)
{
  MatMPIBSRCustomCOOInFlight *f = (MatMPIBSRCustomCOOInFlight *)ctx;

  PetscFunctionBegin;
  PetscCall(PetscSFReduceEnd(f->sf, MPIU_SCALAR, f->sent, f->recv, MPI_REPLACE));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetValuesCOO_MPIBSRCustom(Mat A, const PetscScalar v[], InsertMode mode)
{
  MPI_Comm            comm = PetscObjectComm((PetscObject)A);
  PetscContainer      container;
  MatMPIBSRCustomCOO *coo = NULL;
  PetscBool           wrong;
  PetscScalar        *zeros = NULL, *host;
  const PetscScalar  *sent;
  PetscBool           on_device;
  Mat                 Ad, Ao;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, "MatMPIBSRCustomCOO", (PetscObject *)&container));
  if (container) PetscCall(PetscContainerGetPointer(container, (void **)&coo));
  wrong = (PetscBool)!coo;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &wrong, 1, BSRC_MPI_BOOL, MPI_LOR, comm));
  PetscCheck(!wrong, comm, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO() needs MatSetPreallocationCOO() on this matrix first");
  wrong = (PetscBool)(!A->spptr || A->nonzerostate != ((Mat_MPIBSRCustom *)A->spptr)->coo_nonzerostate);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &wrong, 1, BSRC_MPI_BOOL, MPI_LOR, comm));
  PetscCheck(!wrong, comm, PETSC_ERR_ARG_WRONGSTATE, "The nonzero structure changed since MatSetPreallocationCOO(): call it again before MatSetValuesCOO()");
  PetscCheck(mode == INSERT_VALUES || mode == ADD_VALUES, comm, PETSC_ERR_ARG_OUTOFRANGE, "MatSetValuesCOO() takes INSERT_VALUES or ADD_VALUES, not InsertMode %d", (int)mode);
  if (!v) { /* no values: zeros, sent as any others */
    PetscCall(PetscCalloc1(coo->ncoo, &zeros));
    v = zeros;
  }
  PetscCall(MatBSRCustomCOOValuesOnDevice_Private(v, &on_device));
  PetscCall(MatBSRCustomCOOValuesForSF_Private(v, on_device, coo->ncoo, &sent, &host));
  PetscCall(PetscSFReduceBegin(coo->sf, MPIU_SCALAR, sent, coo->recv, MPI_REPLACE));
  PetscCall(MatBSRCustomGetLocalAndGhost(A, &Ad, &Ao, NULL, NULL, NULL, NULL));
  /* A's copies follow its state; the blocks are told first, so that the states their device copies
     keep (device values) are those after the values pass */
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscCall(MatMPIBSRCustomBlocksFollowState_Private(A, Ad, Ao));
  { /* the rank's own values are added while the others' arrive */
    Mat                        B[2]    = {Ad, Ao};
    MatMPIBSRCustomCOOInFlight flight  = {coo->sf, sent, coo->recv};
    MatBSRCustomCOOReceipt     receipt = {MatMPIBSRCustomCOOReceiveEnd, &flight};
    PetscCall(MatSeqBSRCustomCOOSetValues_Private(B, &coo->sc, (PetscInt)coo->ncoo, v, coo->nrecv, coo->nrecv ? coo->recv : NULL, &receipt, mode));
  }
  ((Mat_MPIBSRCustom *)A->spptr)->coo_device_fresh = on_device;
  PetscCall(PetscFree(host));
  PetscCall(PetscFree(zeros));
  PetscFunctionReturn(0);
}

/* MatDuplicate: M, with A's blocks and ghost columns, shares A's map (bsrcustomcoo.c) */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomDuplicateCOO_Private(Mat A, Mat M)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomCOODuplicate_Private(A, M, "MatMPIBSRCustomCOO", ((Mat_MPIBSRCustom *)A->spptr)->coo_nonzerostate, &((Mat_MPIBSRCustom *)M->spptr)->coo_nonzerostate));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomComposeCOO_Private(Mat A, PetscBool install)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetPreallocationCOO_C", install ? MatSetPreallocationCOO_MPIBSRCustom : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetValuesCOO_C", install ? MatSetValuesCOO_MPIBSRCustom : NULL));
  PetscFunctionReturn(0);
}
