/*
   The block rows of a prolongator P that one rank's rows of A reach (its own and those of A's ghost
   block columns), with P's global columns: what GAMG's block products on several ranks multiply by
   (mpibsrcustomgalerkin.c). Without a MatCreateSubMatrices, which would build a whole matrix and its
   column maps. The rank's own rows are read from P's local and ghost parts where they are; only the
   rows of other ranks travel. A star forest over those rows tells each owner which of its rows are
   wanted elsewhere (their degree) and brings each wanted row's length and place in the owner's export
   list; a second one over the exported entries brings their global columns once and their values at
   every update. So the star forests are as large as the halo of P, not as P's rows here. An
   mpibsrcustom P's block rows arrive as they are (one bs x c unit an entry); an AIJ P's scalar rows
   (the bs rows of each wanted block row) arrive as scalars and are read into bs x c blocks
   (MatBSRCustomAIJBlockStructure_Private, as on one rank).

   An entry's source is the local part's entry s (s >= 0) or the ghost part's -1 - s; its destination
   is a scalar offset into the gathered values (an entry of ours at its block, an AIJ entry at its
   place in its bs x c block).
*/
#include "mpibsrcustomimpl.h"
#include "seqbsrcustomimpl.h"
#include <petscsf.h>

struct _MatMPIBSRCustomGatheredRows {
  PetscBool    p_ours;                   /* P mpibsrcustom (else AIJ) */
  PetscInt     bs, c, unit;              /* P's blocks are bs x c; the scalars of a stored entry (bs c, or 1) */
  PetscInt     nrows, nbcols;            /* the gathered block rows; P's global block columns */
  PetscInt     nown, *own_src, *own_dst; /* entries of this rank's own rows: source, destination */
  PetscInt     nexport, *export_src;     /* entries of this rank's rows that other ranks want, in the export list's order */
  PetscScalar *export_values;            /* their values, the entry star forest's roots */
  PetscInt     nrecv, *recv_dst;         /* entries of other ranks' rows, as they arrive */
  PetscScalar *received;
  PetscSF      entry_sf; /* export_values -> received */
  MPI_Datatype entry_type;
  PetscInt    *rowptr, *colidx, *offset; /* the gathered rows in bs x c blocks; an AIJ P's entry k -> values[offset[k]] */
  PetscScalar *values;
};

/* P's local rows in its stored units (block rows of ours, scalar rows of AIJ): the local and ghost
   parts' structures, the ghost columns' global indices and the first local column */
typedef struct {
  const PetscInt *di, *dj, *oi, *oj, *ghost;
  PetscInt        nloc, cstart;
} LocalRows;

static PetscErrorCode Parts(const MatMPIBSRCustomGatheredRows *G, Mat P, Mat *Pd, Mat *Po, const PetscInt **ghost_cols)
{
  PetscFunctionBegin;
  if (G->p_ours) PetscCall(MatMPIBSRCustomGetBlocks_Private(P, Pd, Po, ghost_cols));
  else PetscCall(MatMPIAIJGetSeqAIJ(P, Pd, Po, ghost_cols));
  PetscFunctionReturn(0);
}

static PetscErrorCode LocalRowsGet(const MatMPIBSRCustomGatheredRows *G, Mat P, LocalRows *L)
{
  Mat      Pd, Po;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(Parts(G, P, &Pd, &Po, &L->ghost));
  PetscCall(MatBSRCustomGetStructure_Private(Pd, G->p_ours, &L->nloc, &L->di, &L->dj));
  PetscCall(MatBSRCustomGetStructure_Private(Po, G->p_ours, &n, &L->oi, &L->oj));
  L->cstart = P->cmap->rstart / (G->p_ours ? G->c : 1);
  PetscFunctionReturn(0);
}

static inline PetscInt RowLength(const LocalRows *L, PetscInt i)
{
  return L->di[i + 1] - L->di[i] + L->oi[i + 1] - L->oi[i];
}

/* local row i's entries in global column order (ghost columns before the local ones, the local ones,
   the other ghosts: the ghost columns are sorted): their columns and sources, either may be NULL */
static void RowEntries(const LocalRows *L, PetscInt i, PetscInt cols[], PetscInt src[])
{
  PetscInt k = L->oi[i], nz = 0;

  for (; k < L->oi[i + 1] && L->ghost[L->oj[k]] < L->cstart; k++, nz++) {
    if (cols) cols[nz] = L->ghost[L->oj[k]];
    if (src) src[nz] = -1 - k;
  }
  for (PetscInt l = L->di[i]; l < L->di[i + 1]; l++, nz++) {
    if (cols) cols[nz] = L->cstart + L->dj[l];
    if (src) src[nz] = l;
  }
  for (; k < L->oi[i + 1]; k++, nz++) {
    if (cols) cols[nz] = L->ghost[L->oj[k]];
    if (src) src[nz] = -1 - k;
  }
}

/* The export list (the entries of this rank's rows that other ranks want, with their columns) and,
   for the nremote wanted rows of other ranks (global stored rows remote_rows[]), where each one's
   entries sit in its owner's list: leaf_span[2 j] its first entry there, leaf_span[2 j + 1] its length;
   owner[j] its rank */
static PetscErrorCode ExportList(MatMPIBSRCustomGatheredRows *G, Mat P, const LocalRows *L, PetscInt nremote, const PetscInt remote_rows[], PetscInt **export_cols, PetscInt **leaf_span, PetscMPIInt **owner)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)P);
  PetscSF            row_sf;
  PetscLayout        layout;
  const PetscInt    *degree;
  const PetscSFNode *remote;
  PetscInt          *root_span;

  PetscFunctionBegin;
  PetscCall(PetscLayoutCreate(comm, &layout));
  PetscCall(PetscLayoutSetLocalSize(layout, L->nloc));
  PetscCall(PetscLayoutSetUp(layout));
  PetscCall(PetscSFCreate(comm, &row_sf));
  PetscCall(PetscSFSetGraphLayout(row_sf, layout, nremote, NULL, PETSC_COPY_VALUES, remote_rows));
  PetscCall(PetscLayoutDestroy(&layout));
  PetscCall(PetscSFComputeDegreeBegin(row_sf, &degree));
  PetscCall(PetscSFComputeDegreeEnd(row_sf, &degree));
  PetscCall(PetscMalloc1(2 * L->nloc + 1, &root_span));
  G->nexport = 0;
  for (PetscInt i = 0; i < L->nloc; i++) {
    root_span[2 * i]     = G->nexport;
    root_span[2 * i + 1] = RowLength(L, i);
    if (degree[i]) G->nexport += root_span[2 * i + 1];
  }
  PetscCall(PetscMalloc1(G->nexport + 1, &G->export_src));
  PetscCall(PetscMalloc1(G->nexport + 1, export_cols));
  for (PetscInt i = 0; i < L->nloc; i++)
    if (degree[i]) RowEntries(L, i, *export_cols + root_span[2 * i], G->export_src + root_span[2 * i]);
  PetscCall(PetscMalloc2(2 * nremote + 1, leaf_span, nremote + 1, owner));
  PetscCall(PetscSFBcastBegin(row_sf, MPIU_2INT, root_span, *leaf_span, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(row_sf, MPIU_2INT, root_span, *leaf_span, MPI_REPLACE));
  PetscCall(PetscSFGetGraph(row_sf, NULL, NULL, NULL, &remote));
  for (PetscInt j = 0; j < nremote; j++) (*owner)[j] = (PetscMPIInt)remote[j].rank;
  PetscCall(PetscSFDestroy(&row_sf));
  PetscCall(PetscFree(root_span));
  PetscFunctionReturn(0);
}

/* The wanted stored rows' structure in P's stored units (ai, aj: global columns) and where each entry
   comes from: own rows from P's parts (own_src, own_pos: its place in aj), the others through the
   entry star forest (recv_pos) */
static PetscErrorCode GatherStructure(MatMPIBSRCustomGatheredRows *G, Mat P, const PetscInt rows[], PetscInt **ai_out, PetscInt **aj_out, PetscInt **own_pos, PetscInt **recv_pos)
{
  const PetscInt per = G->p_ours ? 1 : G->bs, nwant = G->nrows * per, first = P->rmap->rstart / (G->p_ours ? G->bs : 1);
  LocalRows      L;
  PetscInt      *remote_rows, *remote_at, nremote = 0, *export_cols, *leaf_span, *ai, *aj, *recv_cols;
  PetscMPIInt   *owner;
  PetscSFNode   *remote;

  PetscFunctionBegin;
  PetscCall(LocalRowsGet(G, P, &L));
  PetscCall(PetscMalloc2(nwant + 1, &remote_rows, nwant + 1, &remote_at));
  for (PetscInt w = 0; w < nwant; w++) {
    const PetscInt s = rows[w / per] * per + w % per;
    if (s < first || s >= first + L.nloc) {
      remote_rows[nremote] = s;
      remote_at[w]         = nremote++;
    } else remote_at[w] = -1;
  }
  PetscCall(ExportList(G, P, &L, nremote, remote_rows, &export_cols, &leaf_span, &owner));
  PetscCall(PetscMalloc1(nwant + 1, &ai));
  ai[0] = 0;
  for (PetscInt w = 0; w < nwant; w++) ai[w + 1] = ai[w] + (remote_at[w] < 0 ? RowLength(&L, rows[w / per] * per + w % per - first) : leaf_span[2 * remote_at[w] + 1]);
  G->nown = G->nrecv = 0;
  for (PetscInt w = 0; w < nwant; w++) *(remote_at[w] < 0 ? &G->nown : &G->nrecv) += ai[w + 1] - ai[w];
  PetscCall(PetscMalloc1(ai[nwant] + 1, &aj));
  PetscCall(PetscMalloc1(G->nown + 1, &G->own_src));
  PetscCall(PetscMalloc2(G->nown + 1, own_pos, G->nrecv + 1, recv_pos));
  PetscCall(PetscMalloc1(G->nrecv + 1, &remote));
  G->nown = G->nrecv = 0;
  for (PetscInt w = 0; w < nwant; w++) {
    const PetscInt j = remote_at[w], len = ai[w + 1] - ai[w];
    if (j < 0) {
      RowEntries(&L, rows[w / per] * per + w % per - first, aj + ai[w], G->own_src + G->nown);
      for (PetscInt t = 0; t < len; t++) (*own_pos)[G->nown++] = ai[w] + t;
    } else
      for (PetscInt t = 0; t < len; t++, G->nrecv++) {
        (*recv_pos)[G->nrecv]  = ai[w] + t;
        remote[G->nrecv].rank  = owner[j];
        remote[G->nrecv].index = leaf_span[2 * j] + t;
      }
  }
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)P), &G->entry_sf));
  PetscCall(PetscSFSetGraph(G->entry_sf, G->nexport, G->nrecv, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscMalloc1(G->nrecv + 1, &recv_cols));
  PetscCall(PetscSFBcastBegin(G->entry_sf, MPIU_INT, export_cols, recv_cols, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(G->entry_sf, MPIU_INT, export_cols, recv_cols, MPI_REPLACE));
  for (PetscInt j = 0; j < G->nrecv; j++) aj[(*recv_pos)[j]] = recv_cols[j];
  PetscCall(PetscFree(recv_cols));
  PetscCall(PetscFree(export_cols));
  PetscCall(PetscFree2(leaf_span, owner));
  PetscCall(PetscFree2(remote_rows, remote_at));
  *ai_out = ai;
  *aj_out = aj;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomGatheredRowsCreate_Private(Mat P, PetscBool p_ours, PetscInt bs, PetscInt c, PetscInt nrows, const PetscInt rows[], MatMPIBSRCustomGatheredRows **out)
{
  MatMPIBSRCustomGatheredRows *G;
  PetscInt                    *ai = NULL, *aj = NULL, *own_pos = NULL, *recv_pos = NULL, nblocks;

  PetscFunctionBegin;
  PetscCall(PetscNew(&G));
  G->p_ours     = p_ours;
  G->bs         = bs;
  G->c          = c;
  G->unit       = p_ours ? bs * c : 1;
  G->nrows      = nrows;
  G->nbcols     = P->cmap->N / c;
  G->entry_type = MPI_DATATYPE_NULL;
  PetscCall(GatherStructure(G, P, rows, &ai, &aj, &own_pos, &recv_pos));
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)G->unit, MPIU_SCALAR, &G->entry_type));
  PetscCallMPI(MPI_Type_commit(&G->entry_type));
  if (p_ours) { /* the block structure as it arrived */
    PetscCall(PetscMalloc3(nrows + 1, &G->rowptr, ai[nrows] + 1, &G->colidx, 1, &G->offset));
    PetscCall(PetscArraycpy(G->rowptr, ai, nrows + 1));
    PetscCall(PetscArraycpy(G->colidx, aj, ai[nrows]));
    nblocks = ai[nrows];
  } else PetscCall(MatBSRCustomAIJBlockStructure_Private(nrows * bs, ai, aj, bs, c, G->nbcols, &G->rowptr, &G->colidx, &G->offset, &nblocks));
  /* the entries' destinations among the values: a block of ours at its place, an AIJ scalar in its block */
  PetscCall(PetscMalloc1(G->nown + 1, &G->own_dst));
  PetscCall(PetscMalloc1(G->nrecv + 1, &G->recv_dst));
  for (PetscInt k = 0; k < G->nown; k++) G->own_dst[k] = p_ours ? own_pos[k] * G->unit : G->offset[own_pos[k]];
  for (PetscInt k = 0; k < G->nrecv; k++) G->recv_dst[k] = p_ours ? recv_pos[k] * G->unit : G->offset[recv_pos[k]];
  PetscCall(PetscFree2(own_pos, recv_pos));
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree(aj));
  PetscCall(PetscMalloc1((size_t)G->nexport * G->unit + 1, &G->export_values));
  PetscCall(PetscMalloc1((size_t)G->nrecv * G->unit + 1, &G->received));
  PetscCall(PetscCalloc1((size_t)nblocks * bs * c + 1, &G->values)); /* an AIJ P's unstored entries stay zero: every update writes the same places */
  *out = G;
  PetscFunctionReturn(0);
}

static inline void CopyEntry(PetscScalar *to, const PetscScalar *dv, const PetscScalar *ov, PetscInt src, PetscInt unit)
{
  const PetscScalar *from = src >= 0 ? dv + (size_t)src * unit : ov + (size_t)(-1 - src) * unit;

  for (PetscInt t = 0; t < unit; t++) to[t] = from[t];
}

/* The exported entries sent, this rank's own rows copied into place while they travel, the received
   ones put in place (an AIJ P's blocks hold zeros where nothing is stored, since their creation) */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGatheredRowsUpdateValues_Private(MatMPIBSRCustomGatheredRows *G, Mat P)
{
  Mat                Pd, Po;
  const PetscScalar *dv, *ov;
  const PetscInt     unit = G->unit;

  PetscFunctionBegin;
  PetscCall(Parts(G, P, &Pd, &Po, NULL));
  if (G->p_ours) {
    PetscCall(MatSeqBSRCustomGetArrayRead_Private(Pd, &dv));
    PetscCall(MatSeqBSRCustomGetArrayRead_Private(Po, &ov));
  } else {
    PetscCall(MatSeqAIJGetArrayRead(Pd, &dv));
    PetscCall(MatSeqAIJGetArrayRead(Po, &ov));
  }
  for (PetscInt k = 0; k < G->nexport; k++) CopyEntry(G->export_values + (size_t)k * unit, dv, ov, G->export_src[k], unit);
  PetscCall(PetscSFBcastBegin(G->entry_sf, G->entry_type, G->export_values, G->received, MPI_REPLACE));
  for (PetscInt k = 0; k < G->nown; k++) CopyEntry(G->values + G->own_dst[k], dv, ov, G->own_src[k], unit);
  PetscCall(PetscSFBcastEnd(G->entry_sf, G->entry_type, G->export_values, G->received, MPI_REPLACE));
  for (PetscInt k = 0; k < G->nrecv; k++)
    for (PetscInt t = 0; t < unit; t++) G->values[G->recv_dst[k] + t] = G->received[(size_t)k * unit + t];
  if (G->p_ours) {
    PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(Pd, &dv));
    PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(Po, &ov));
  } else {
    PetscCall(MatSeqAIJRestoreArrayRead(Pd, &dv));
    PetscCall(MatSeqAIJRestoreArrayRead(Po, &ov));
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
  PetscCall(PetscFree(g->own_src));
  PetscCall(PetscFree(g->own_dst));
  PetscCall(PetscFree(g->export_src));
  PetscCall(PetscFree(g->export_values));
  PetscCall(PetscFree(g->recv_dst));
  PetscCall(PetscFree(g->received));
  PetscCall(PetscFree3(g->rowptr, g->colidx, g->offset));
  PetscCall(PetscFree(g->values));
  PetscCall(PetscFree(*G));
  PetscFunctionReturn(0);
}
