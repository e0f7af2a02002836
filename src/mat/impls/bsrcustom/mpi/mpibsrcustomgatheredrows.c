/*
   The block rows of a prolongator P that one rank's rows of A reach (its own and those of A's ghost
   block columns), gathered from their owners with P's global columns: what GAMG's block products on
   several ranks multiply by (mpibsrcustomgalerkin.c). Without a MatCreateSubMatrices, which would build
   a whole matrix and its column maps: a star forest over P's rows brings each wanted row's span in the
   owner's list of its local entries, then one over the entries brings their global columns here, once,
   and their values at every update. An mpibsrcustom P's block rows arrive as they are (one bs x c unit
   an entry); an AIJ P's scalar rows (the bs rows of each wanted block row) arrive as scalars and are
   read into bs x c blocks (MatBSRCustomAIJBlockStructure_Private, as on one rank).
*/
#include "mpibsrcustomimpl.h"
#include "seqbsrcustomimpl.h"
#include <petscsf.h>

struct _MatMPIBSRCustomGatheredRows {
  PetscBool    p_ours;                            /* P mpibsrcustom (else AIJ) */
  PetscInt     bs, c;                             /* P's blocks are bs x c */
  PetscInt     nrows, nbcols;                     /* the gathered block rows; P's global block columns */
  PetscSF      entry_sf;                          /* the wanted rows' entries, from their owners' loc arrays */
  MPI_Datatype entry_type;                        /* an entry: bs x c scalars (ours) or one */
  PetscInt    *loc_rowptr, *loc_colidx, *loc_src; /* P's local rows (block rows of ours, scalar rows of AIJ) with global columns in
                                                      those units; entry k is Pd's loc_src[k] (>= 0) or Po's -1 - loc_src[k] */
  PetscScalar *loc_values;
  PetscScalar *gathered;                 /* an AIJ P: the values of the wanted scalar rows as they arrive (nnz), read into values */
  PetscInt     nnz;                      /* stored entries of an AIJ P's gathered rows */
  PetscInt    *rowptr, *colidx, *offset; /* the gathered rows in bs x c blocks; an AIJ P's entry k -> values[offset[k]] */
  PetscScalar *values;
};

/* P's local and ghost parts and the global columns of the ghost's, in P's stored units */
static PetscErrorCode Parts(const MatMPIBSRCustomGatheredRows *G, Mat P, Mat *Pd, Mat *Po, const PetscInt **ghost_cols)
{
  PetscFunctionBegin;
  if (G->p_ours) PetscCall(MatMPIBSRCustomGetBlocks_Private(P, Pd, Po, ghost_cols));
  else PetscCall(MatMPIAIJGetSeqAIJ(P, Pd, Po, ghost_cols));
  PetscFunctionReturn(0);
}

/* P's local rows with global columns in P's stored units (block rows and block columns of an
   mpibsrcustom P, scalar rows and columns of an AIJ one), ghosts before the local columns, then after
   (the ghost columns are sorted) */
static PetscErrorCode LocalRows(MatMPIBSRCustomGatheredRows *G, Mat P)
{
  Mat             Pd, Po;
  const PetscInt *di, *dj, *oi, *oj, *pg;
  const PetscInt  unit = G->p_ours ? G->bs * G->c : 1, cstart = P->cmap->rstart / (G->p_ours ? G->c : 1);
  PetscInt        nrows, n, nz = 0;

  PetscFunctionBegin;
  PetscCall(Parts(G, P, &Pd, &Po, &pg));
  PetscCall(MatBSRCustomGetStructure_Private(Pd, G->p_ours, &nrows, &di, &dj));
  PetscCall(MatBSRCustomGetStructure_Private(Po, G->p_ours, &n, &oi, &oj));
  PetscCall(PetscMalloc3(nrows + 1, &G->loc_rowptr, di[nrows] + oi[nrows], &G->loc_colidx, di[nrows] + oi[nrows], &G->loc_src));
  PetscCall(PetscMalloc1((size_t)(di[nrows] + oi[nrows]) * unit + 1, &G->loc_values));
  G->loc_rowptr[0] = 0;
  for (PetscInt i = 0; i < nrows; i++) {
    PetscInt k = oi[i];
    for (; k < oi[i + 1] && pg[oj[k]] < cstart; k++, nz++) {
      G->loc_colidx[nz] = pg[oj[k]];
      G->loc_src[nz]    = -1 - k;
    }
    for (PetscInt l = di[i]; l < di[i + 1]; l++, nz++) {
      G->loc_colidx[nz] = cstart + dj[l];
      G->loc_src[nz]    = l;
    }
    for (; k < oi[i + 1]; k++, nz++) {
      G->loc_colidx[nz] = pg[oj[k]];
      G->loc_src[nz]    = -1 - k;
    }
    G->loc_rowptr[i + 1] = nz;
  }
  PetscFunctionReturn(0);
}

/* the star forest of the wanted rows' entries (*remote, nentries) and their row pointers ai (in P's
   stored rows), from one over the rows that brings each row's span in its owner's loc arrays */
static PetscErrorCode EntryGraph(MatMPIBSRCustomGatheredRows *G, Mat P, const PetscInt rows[], PetscInt **ai_out, PetscSFNode **remote_out)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)P);
  const PetscInt     per  = G->p_ours ? 1 : G->bs; /* P's stored rows a wanted block row */
  const PetscInt     nloc = P->rmap->n / (G->p_ours ? G->bs : 1), nleaf = G->nrows * per;
  PetscSF            row_sf;
  PetscLayout        layout;
  const PetscSFNode *owners;
  PetscSFNode       *remote;
  PetscInt          *want, *root_span, *leaf_span, *ai;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nleaf + 1, &want));
  for (PetscInt k = 0; k < G->nrows; k++)
    for (PetscInt r = 0; r < per; r++) want[k * per + r] = rows[k] * per + r;
  PetscCall(PetscLayoutCreate(comm, &layout));
  PetscCall(PetscLayoutSetLocalSize(layout, nloc));
  PetscCall(PetscLayoutSetUp(layout));
  PetscCall(PetscSFCreate(comm, &row_sf));
  PetscCall(PetscSFSetGraphLayout(row_sf, layout, nleaf, NULL, PETSC_COPY_VALUES, want));
  PetscCall(PetscLayoutDestroy(&layout));
  PetscCall(PetscFree(want));
  PetscCall(PetscMalloc2(2 * nloc + 1, &root_span, 2 * nleaf + 1, &leaf_span));
  for (PetscInt i = 0; i < nloc; i++) {
    root_span[2 * i]     = G->loc_rowptr[i];
    root_span[2 * i + 1] = G->loc_rowptr[i + 1] - G->loc_rowptr[i];
  }
  PetscCall(PetscSFBcastBegin(row_sf, MPIU_2INT, root_span, leaf_span, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(row_sf, MPIU_2INT, root_span, leaf_span, MPI_REPLACE));
  PetscCall(PetscSFGetGraph(row_sf, NULL, NULL, NULL, &owners));
  PetscCall(PetscMalloc1(nleaf + 1, &ai));
  ai[0] = 0;
  for (PetscInt i = 0; i < nleaf; i++) ai[i + 1] = ai[i] + leaf_span[2 * i + 1];
  PetscCall(PetscMalloc1(ai[nleaf] + 1, &remote));
  for (PetscInt i = 0; i < nleaf; i++)
    for (PetscInt j = 0; j < leaf_span[2 * i + 1]; j++) {
      remote[ai[i] + j].rank  = owners[i].rank;
      remote[ai[i] + j].index = leaf_span[2 * i] + j;
    }
  PetscCall(PetscSFDestroy(&row_sf));
  PetscCall(PetscFree2(root_span, leaf_span));
  *ai_out     = ai;
  *remote_out = remote;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomGatheredRowsCreate_Private(Mat P, PetscBool p_ours, PetscInt bs, PetscInt c, PetscInt nrows, const PetscInt rows[], MatMPIBSRCustomGatheredRows **out)
{
  MatMPIBSRCustomGatheredRows *G;
  PetscSFNode                 *remote = NULL;
  PetscInt                    *ai     = NULL, *aj, nentries, nblocks;
  const PetscInt               per    = p_ours ? 1 : bs;
  const PetscInt               nloc   = P->rmap->n / (p_ours ? bs : 1);

  PetscFunctionBegin;
  PetscCall(PetscNew(&G));
  G->p_ours     = p_ours;
  G->bs         = bs;
  G->c          = c;
  G->nrows      = nrows;
  G->nbcols     = P->cmap->N / c;
  G->entry_type = MPI_DATATYPE_NULL;
  PetscCall(LocalRows(G, P));
  PetscCall(EntryGraph(G, P, rows, &ai, &remote));
  nentries = ai[nrows * per];
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)P), &G->entry_sf));
  PetscCall(PetscSFSetGraph(G->entry_sf, G->loc_rowptr[nloc], nentries, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscMalloc1(nentries + 1, &aj));
  PetscCall(PetscSFBcastBegin(G->entry_sf, MPIU_INT, G->loc_colidx, aj, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(G->entry_sf, MPIU_INT, G->loc_colidx, aj, MPI_REPLACE));
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)(p_ours ? bs * c : 1), MPIU_SCALAR, &G->entry_type));
  PetscCallMPI(MPI_Type_commit(&G->entry_type));
  if (p_ours) { /* the block structure as it arrived */
    PetscCall(PetscMalloc3(nrows + 1, &G->rowptr, nentries + 1, &G->colidx, 1, &G->offset));
    PetscCall(PetscArraycpy(G->rowptr, ai, nrows + 1));
    PetscCall(PetscArraycpy(G->colidx, aj, nentries));
    nblocks = nentries;
  } else {
    PetscCall(MatBSRCustomAIJBlockStructure_Private(nrows * per, ai, aj, bs, c, G->nbcols, &G->rowptr, &G->colidx, &G->offset, &nblocks));
    PetscCall(PetscMalloc1(nentries + 1, &G->gathered));
    G->nnz = nentries;
  }
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree(aj));
  PetscCall(PetscMalloc1((size_t)nblocks * bs * c + 1, &G->values));
  *out = G;
  PetscFunctionReturn(0);
}

/* P's local entries copied to loc_values and brought from their owners; an AIJ P's scalars then read
   into their blocks (zeros where nothing is stored) */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGatheredRowsUpdateValues_Private(MatMPIBSRCustomGatheredRows *G, Mat P)
{
  Mat                Pd, Po;
  const PetscScalar *dv, *ov;
  const PetscInt     unit = G->p_ours ? G->bs * G->c : 1, nloc = P->rmap->n / (G->p_ours ? G->bs : 1);

  PetscFunctionBegin;
  PetscCall(Parts(G, P, &Pd, &Po, NULL));
  if (G->p_ours) {
    PetscCall(MatSeqBSRCustomGetArrayRead_Private(Pd, &dv));
    PetscCall(MatSeqBSRCustomGetArrayRead_Private(Po, &ov));
  } else {
    PetscCall(MatSeqAIJGetArrayRead(Pd, &dv));
    PetscCall(MatSeqAIJGetArrayRead(Po, &ov));
  }
  for (PetscInt k = 0; k < G->loc_rowptr[nloc]; k++) {
    const PetscScalar *from = G->loc_src[k] >= 0 ? dv + (size_t)G->loc_src[k] * unit : ov + (size_t)(-1 - G->loc_src[k]) * unit;
    PetscCall(PetscArraycpy(G->loc_values + (size_t)k * unit, from, unit));
  }
  if (G->p_ours) {
    PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(Pd, &dv));
    PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(Po, &ov));
  } else {
    PetscCall(MatSeqAIJRestoreArrayRead(Pd, &dv));
    PetscCall(MatSeqAIJRestoreArrayRead(Po, &ov));
  }
  PetscCall(PetscSFBcastBegin(G->entry_sf, G->entry_type, G->loc_values, G->p_ours ? G->values : G->gathered, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(G->entry_sf, G->entry_type, G->loc_values, G->p_ours ? G->values : G->gathered, MPI_REPLACE));
  if (!G->p_ours) {
    PetscCall(PetscArrayzero(G->values, (size_t)G->rowptr[G->nrows] * G->bs * G->c));
    for (PetscInt k = 0; k < G->nnz; k++) G->values[G->offset[k]] = G->gathered[k];
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN void MatMPIBSRCustomGatheredRowsView_Private(const MatMPIBSRCustomGatheredRows *G, PetscBool with_values, bsrk_rect_matrix *R)
{
  R->nbrows = G->nrows;
  R->nbcols = G->nbcols;
  R->rbs    = G->bs;
  R->cbs    = G->c;
  R->rowptr = G->rowptr;
  R->colidx = G->colidx;
  R->values = with_values ? G->values : NULL;
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomGatheredRowsDestroy_Private(MatMPIBSRCustomGatheredRows **G)
{
  MatMPIBSRCustomGatheredRows *g = *G;

  PetscFunctionBegin;
  if (!g) PetscFunctionReturn(0);
  PetscCall(PetscSFDestroy(&g->entry_sf));
  if (g->entry_type != MPI_DATATYPE_NULL) PetscCallMPI(MPI_Type_free(&g->entry_type));
  PetscCall(PetscFree3(g->loc_rowptr, g->loc_colidx, g->loc_src));
  PetscCall(PetscFree(g->loc_values));
  PetscCall(PetscFree(g->gathered));
  PetscCall(PetscFree3(g->rowptr, g->colidx, g->offset));
  PetscCall(PetscFree(g->values));
  PetscCall(PetscFree(*G));
  PetscFunctionReturn(0);
}
