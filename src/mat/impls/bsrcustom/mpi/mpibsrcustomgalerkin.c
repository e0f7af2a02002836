/*
   GAMG's block products on several ranks (issue 37): C = A P and C = P^T A P of an mpibsrcustom A with
   P an mpibsrcustom (bs x bs blocks) or a MATMPIAIJ whose row block size is A's (bs x c blocks, read
   into rectangular blocks as seq/seqbsrcustomgalerkin.c does), on the same PETSc-free kernels, called
   through the local block's backend table.

   Each rank collects the rows of P its rows of A reach, its own and those of A's ghost block columns,
   with P's global columns (P_comb, mpibsrcustomgatheredrows.c: its own rows read in place, the others
   from their owners), the structure once and the values at every numeric phase. Over the sorted union
   of those block rows ("comb") the rank builds Â's structure: A's local rows with the local and ghost
   block columns renumbered into comb (for P^T A P, square over comb: the rows not owned are empty);
   Â's blocks are read where they are, in the local and ghost blocks (bsrk_block_source). Then this rank's rows of A P are Â P_comb, and its part of P^T A P is
   P_comb^T Â P_comb = P_loc^T (A P)_loc, whose rows are global coarse block rows, partly owned by
   other ranks. The symbolic phase inserts both into C with MatSetValuesBlocked, which makes C's
   structure the union of the ranks' parts. The numeric phase writes A P's rows (all this rank's own)
   straight into C's local and ghost blocks and adds P^T A P's rows it owns likewise; only the rows
   owned elsewhere go through PETSc's stash.

   C = A P is mpibsrcustom with A's settings when c == bs and a MATMPIAIJ with block sizes (bs, c)
   otherwise; P^T A P is mpibsrcustom with c x c blocks and A's settings. The symbolic phase (gathered
   rows, Â's structure, the plan, C's structure) is kept in the product's data; the numeric phase
   collects P's values again, computes with A's current blocks and writes C as above. Where the
   structure of A or P changed on any rank (compared with copies), the numeric phase plans again and C
   is made anew.
*/
#include "mpibsrcustomimpl.h"
#include "seqbsrcustomimpl.h"
#include "bsrk_blockproducts.h"
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h>

typedef struct {
  PetscInt                     bs, c;                          /* A's block size; P's blocks are bs x c */
  PetscBool                    p_ours, c_is_aij;               /* P mpibsrcustom; C = A P a MATMPIAIJ (c != bs) */
  bsrk_product_kind            kind;                           /* A P or P^T A P */
  bsrk_block_product          *plan;                           /* on Â and P_comb */
  PetscInt                     nlow, nlocal_cols;              /* comb: nlow ghost rows, then A's local block columns, then the other ghosts */
  PetscInt                     ahat_rows, ncomb;               /* Â: ahat_rows x ncomb blocks */
  PetscInt                    *ah_rowptr, *ah_colidx, *ah_src; /* Â's structure; its block k is Ad's block ah_src[k] (>= 0) or Ao's block -1 - ah_src[k] */
  PetscInt                    *comb;                           /* the global block rows of P this rank needs, increasing */
  MatMPIBSRCustomGatheredRows *prows;                          /* P_comb: P's block rows of comb, gathered from their owners (mpibsrcustomgatheredrows.c) */
  PetscInt                     row_offset;                     /* A P: the global block row of the local result's row 0 */
  PetscScalar                 *c_values;                       /* the local result's block values */
  PetscInt                    *fingerprint, nfingerprint;      /* A's and P's local structures at the plan */
  PetscObjectState             direct_state;                   /* A P: C's nonzero state when its rows were checked to hold the plan's blocks */
  PetscBool                    direct;                         /* ... and whether they do (WriteAPDirect) */
} MPIGalerkin;

/* an mpibsrcustom's local block (the backend table the products run through) */
static PetscErrorCode LocalBlock(Mat A, Mat *Ad)
{
  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, Ad, NULL, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode GalerkinFree(MPIGalerkin *g)
{
  PetscFunctionBegin;
  bsrk_block_product_free(g->plan);
  g->plan = NULL;
  PetscCall(PetscFree3(g->ah_rowptr, g->ah_colidx, g->ah_src));
  PetscCall(PetscFree(g->comb));
  PetscCall(MatMPIBSRCustomGatheredRowsDestroy_Private(&g->prows));
  PetscCall(PetscFree(g->c_values));
  PetscCall(PetscFree(g->fingerprint));
  g->direct_state = 0; /* a C made anew is checked again */
  g->direct       = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode GalerkinDestroy(void *arg)
{
  MPIGalerkin *g = (MPIGalerkin *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(GalerkinFree(g));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

/* A structure list as the fingerprint keeps it, walked one piece after the other: written (to),
   compared with a kept one (against, its length nagainst; *same false at the first difference), or
   only counted (both NULL) */
typedef struct {
  PetscInt       *to;
  const PetscInt *against;
  PetscInt        nagainst, len;
  PetscBool       same;
} StructureWalk;

static PetscErrorCode WalkPiece(StructureWalk *w, const PetscInt piece[], PetscInt n)
{
  PetscFunctionBegin;
  if (w->to && n) PetscCall(PetscArraycpy(w->to + w->len, piece, n));
  if (w->against && w->same) {
    PetscBool same = (PetscBool)(w->len + n <= w->nagainst);
    if (same && n) PetscCall(PetscArraycmp(w->against + w->len, piece, n, &same));
    w->same = same;
  }
  w->len += n;
  PetscFunctionReturn(0);
}

/* this rank's structure of A and P, walked: for each of the diagonal and off-diagonal parts its row
   count, rowptr and colidx, then the parts' ghost columns */
static PetscErrorCode WalkFingerprint(MPIGalerkin *g, Mat A, Mat P, StructureWalk *w)
{
  Mat             part[4];
  const PetscInt *ghosts[2];

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &part[0], &part[1], &ghosts[0]));
  if (g->p_ours) PetscCall(MatMPIBSRCustomGetBlocks_Private(P, &part[2], &part[3], &ghosts[1]));
  else PetscCall(MatMPIAIJGetSeqAIJ(P, &part[2], &part[3], &ghosts[1]));
  for (int k = 0; k < 4; k++) {
    PetscInt        n;
    const PetscInt *rowptr, *colidx;

    PetscCall(MatBSRCustomGetStructure_Private(part[k], (PetscBool)(k < 2 || g->p_ours), &n, &rowptr, &colidx));
    PetscCall(WalkPiece(w, &n, 1));
    PetscCall(WalkPiece(w, rowptr, n + 1));
    PetscCall(WalkPiece(w, colidx, rowptr[n]));
  }
  PetscCall(WalkPiece(w, ghosts[0], part[1]->cmap->n / g->bs));
  PetscCall(WalkPiece(w, ghosts[1], part[3]->cmap->n / (g->p_ours ? g->bs : 1)));
  PetscFunctionReturn(0);
}

/* the fingerprint kept with the plan: this rank's structure of A and P as one list */
static PetscErrorCode Fingerprint(MPIGalerkin *g, Mat A, Mat P, PetscInt **list, PetscInt *len)
{
  StructureWalk w = {NULL, NULL, 0, 0, PETSC_TRUE};

  PetscFunctionBegin;
  PetscCall(WalkFingerprint(g, A, P, &w)); /* its length */
  PetscCall(PetscMalloc1(w.len + 1, list));
  w.to  = *list;
  w.len = 0;
  PetscCall(WalkFingerprint(g, A, P, &w));
  *len = w.len;
  PetscFunctionReturn(0);
}

/* comb, the block rows of P this rank needs */
static PetscErrorCode CombRows(MPIGalerkin *g, Mat A, Mat P)
{
  Mat             Ad, Ao;
  const PetscInt *garray;
  PetscInt        nghost, cstart = A->cmap->rstart / g->bs, *comb;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &Ad, &Ao, &garray));
  nghost         = Ao->cmap->n / g->bs;
  g->nlocal_cols = Ad->cmap->n / g->bs;
  g->ncomb       = g->nlocal_cols + nghost;
  for (g->nlow = 0; g->nlow < nghost && garray[g->nlow] < cstart; g->nlow++) { }
  PetscCall(PetscMalloc1(g->ncomb, &comb));
  for (PetscInt k = 0; k < g->nlow; k++) comb[k] = garray[k];
  for (PetscInt j = 0; j < g->nlocal_cols; j++) comb[g->nlow + j] = cstart + j;
  for (PetscInt k = g->nlow; k < nghost; k++) comb[g->nlocal_cols + k] = garray[k];
  for (PetscInt k = 1; k < g->ncomb; k++) PetscCheck(comb[k] > comb[k - 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "The ghost block columns of %s are not sorted", ((PetscObject)A)->type_name);
  g->comb = comb;
  PetscFunctionReturn(0);
}

/* Â's structure: A's local rows (row i at comb position nlow + i for P^T A P, at i for A P), the
   local block column j at nlow + j, ghost k at k (k < nlow) or nlocal_cols + k */
static PetscErrorCode BuildAhat(MPIGalerkin *g, Mat A)
{
  Mat             Ad, Ao;
  const PetscInt *di, *dj, *oi, *oj, *garray;
  PetscInt        nrows, n, first, nz = 0;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &Ad, &Ao, &garray));
  PetscCall(MatBSRCustomGetStructure_Private(Ad, PETSC_TRUE, &nrows, &di, &dj));
  PetscCall(MatBSRCustomGetStructure_Private(Ao, PETSC_TRUE, &n, &oi, &oj));
  first        = g->kind == BSRK_PRODUCT_PTAP ? g->nlow : 0;
  g->ahat_rows = g->kind == BSRK_PRODUCT_PTAP ? g->ncomb : nrows;
  PetscCall(PetscMalloc3(g->ahat_rows + 1, &g->ah_rowptr, di[nrows] + oi[nrows], &g->ah_colidx, di[nrows] + oi[nrows], &g->ah_src));
  for (PetscInt r = 0; r <= first; r++) g->ah_rowptr[r] = 0;
  for (PetscInt i = 0; i < nrows; i++) {
    PetscInt k = oi[i];
    for (; k < oi[i + 1] && oj[k] < g->nlow; k++, nz++) {
      g->ah_colidx[nz] = oj[k];
      g->ah_src[nz]    = -1 - k;
    }
    for (PetscInt l = di[i]; l < di[i + 1]; l++, nz++) {
      g->ah_colidx[nz] = g->nlow + dj[l];
      g->ah_src[nz]    = l;
    }
    for (; k < oi[i + 1]; k++, nz++) {
      g->ah_colidx[nz] = g->nlocal_cols + oj[k];
      g->ah_src[nz]    = -1 - k;
    }
    g->ah_rowptr[first + i + 1] = nz;
  }
  for (PetscInt r = first + nrows + 1; r <= g->ahat_rows; r++) g->ah_rowptr[r] = nz;
  PetscFunctionReturn(0);
}

/* Â with A's current values where they are: its blocks read from the local and ghost blocks' arrays
   (ah_src), not copied into an array of Â's own; restored by AhatBlocksRestore after the product */
static PetscErrorCode AhatBlocksGet(MPIGalerkin *g, Mat A, bsrk_rect_matrix *R, bsrk_block_source *src)
{
  Mat             Ad, Ao;
  const PetscInt *garray, *di, *dj, *oi, *oj;
  PetscInt        nd, no;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &Ad, &Ao, &garray));
  PetscCall(MatBSRCustomGetStructure_Private(Ad, PETSC_TRUE, &nd, &di, &dj));
  PetscCall(MatBSRCustomGetStructure_Private(Ao, PETSC_TRUE, &no, &oi, &oj));
  PetscCall(MatSeqBSRCustomGetArrayRead_Private(Ad, &src->first));
  PetscCall(MatSeqBSRCustomGetArrayRead_Private(Ao, &src->second));
  src->nfirst  = di[nd];
  src->nsecond = oi[no];
  src->from    = g->ah_src;
  R->nbrows    = g->ahat_rows;
  R->nbcols    = g->ncomb;
  R->rbs = R->cbs = g->bs;
  R->rowptr       = g->ah_rowptr;
  R->colidx       = g->ah_colidx;
  R->values       = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode AhatBlocksRestore(Mat A, bsrk_block_source *src)
{
  Mat             Ad, Ao;
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &Ad, &Ao, &garray));
  PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(Ad, &src->first));
  PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(Ao, &src->second));
  PetscFunctionReturn(0);
}

/* the local result's blocks added (inserted) into C with their global block indices; the rows of other
   ranks go through PETSc's stash. Each block row is one column-oriented call: our blocks are column-major. */
static PetscErrorCode AddResult(MPIGalerkin *g, Mat A, Mat C, InsertMode mode)
{
  bsrk_rect_matrix R;
  const PetscInt   offset = g->kind == BSRK_PRODUCT_AP ? g->row_offset : 0;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_block_product_result(g->plan, &R), "the block product's result"));
  PetscCall(MatSetOption(C, MAT_ROW_ORIENTED, PETSC_FALSE));
  for (PetscInt br = 0; br < R.nbrows; br++) {
    const PetscInt row = br + offset;
    if (R.rowptr[br + 1] == R.rowptr[br]) continue;
    PetscCall(MatSetValuesBlocked(C, 1, &row, R.rowptr[br + 1] - R.rowptr[br], R.colidx + R.rowptr[br], g->c_values + (size_t)R.rowptr[br] * R.rbs * R.cbs, mode));
  }
  PetscCall(MatSetOption(C, MAT_ROW_ORIENTED, PETSC_TRUE));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
   A P's rows are this rank's own, so its values go straight into C's local and ghost blocks instead of
   through MatSetValues and an assembly: C was made from the plan, so each row of C holds the row's
   blocks, those of the local block columns in the local block and the others, in the same order, in
   the ghost block (MPIAIJ's and MPIBAIJ's compressed ghost columns keep the global order). That is
   checked whenever C's nonzero state moves; where it does not hold, *done is false and the caller adds
   through MatSetValues. An AIJ C (bs x c blocks) is walked scalar row by scalar row.
*/
static PetscErrorCode WriteAPDirect(MPIGalerkin *g, Mat Ad, Mat C, PetscBool *done)
{
  bsrk_rect_matrix R;
  Mat              Cd, Co;
  const PetscInt  *ghost, *drow, *dcol, *orow, *ocol;
  PetscInt         nd, no, cstart, cend, rows;
  PetscScalar     *vd = NULL, *vo = NULL;
  const PetscInt   w = g->c_is_aij ? 1 : g->bs; /* C's rows and columns a stored unit: scalars, or blocks */

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(Ad, bsrk_block_product_result(g->plan, &R), "the block product's result"));
  if (g->c_is_aij) PetscCall(MatMPIAIJGetSeqAIJ(C, &Cd, &Co, &ghost));
  else PetscCall(MatMPIBSRCustomGetBlocks_Private(C, &Cd, &Co, &ghost));
  cstart = C->cmap->rstart / w;
  cend   = C->cmap->rend / w;
  rows   = g->c_is_aij ? R.rbs : 1; /* of C a block row of the result spans */
  PetscCall(MatBSRCustomGetStructure_Private(Cd, (PetscBool)!g->c_is_aij, &nd, &drow, &dcol));
  PetscCall(MatBSRCustomGetStructure_Private(Co, (PetscBool)!g->c_is_aij, &no, &orow, &ocol));
  if (C->nonzerostate != g->direct_state || !g->direct_state) {
    PetscBool ok = (PetscBool)(nd == R.nbrows * rows && no == nd);
    for (PetscInt br = 0; ok && br < R.nbrows; br++)
      for (PetscInt r = 0; ok && r < rows; r++) {
        const PetscInt row = br * rows + r, units = g->c_is_aij ? R.cbs : 1;
        PetscInt       pd = drow[row], po = orow[row];

        for (PetscInt k = R.rowptr[br]; ok && k < R.rowptr[br + 1]; k++)
          for (PetscInt s = 0; ok && s < units; s++) {
            const PetscInt col = R.colidx[k] * units + s; /* global, in C's stored units */
            if (col >= cstart && col < cend) ok = (PetscBool)(pd < drow[row + 1] && dcol[pd++] == col - cstart);
            else ok = (PetscBool)(po < orow[row + 1] && ghost[ocol[po++]] == col);
          }
        ok = (PetscBool)(ok && pd == drow[row + 1] && po == orow[row + 1]);
      }
    g->direct       = ok;
    g->direct_state = C->nonzerostate;
    if (!ok) PetscCall(PetscInfo(C, "A P: C's rows do not hold the plan's blocks as made; its values are added through MatSetValues\n"));
  }
  if (!g->direct) PetscFunctionReturn(0);
  if (g->c_is_aij) {
    PetscCall(MatSeqAIJGetArrayWrite(Cd, &vd));
    PetscCall(MatSeqAIJGetArrayWrite(Co, &vo));
    for (PetscInt br = 0; br < R.nbrows; br++)
      for (PetscInt r = 0; r < R.rbs; r++) {
        const PetscInt row = br * R.rbs + r;
        PetscInt       pd = drow[row], po = orow[row];

        for (PetscInt k = R.rowptr[br]; k < R.rowptr[br + 1]; k++) {
          const PetscScalar *blk   = g->c_values + (size_t)k * R.rbs * R.cbs + r; /* entry (r, s) at s * rbs */
          const PetscBool    local = (PetscBool)(R.colidx[k] * R.cbs >= cstart && R.colidx[k] * R.cbs < cend);

          for (PetscInt s = 0; s < R.cbs; s++) {
            if (local) vd[pd++] = blk[s * R.rbs];
            else vo[po++] = blk[s * R.rbs];
          }
        }
      }
    PetscCall(MatSeqAIJRestoreArrayWrite(Cd, &vd));
    PetscCall(MatSeqAIJRestoreArrayWrite(Co, &vo));
  } else {
    const size_t bsize = (size_t)R.rbs * R.cbs;

    PetscCall(MatSeqBAIJGetArray(Cd, &vd));
    PetscCall(MatSeqBAIJGetArray(Co, &vo));
    for (PetscInt br = 0; br < R.nbrows; br++) {
      PetscInt pd = drow[br], po = orow[br];

      for (PetscInt k = R.rowptr[br]; k < R.rowptr[br + 1]; k++) {
        const PetscBool local = (PetscBool)(R.colidx[k] >= cstart && R.colidx[k] < cend);

        PetscCall(PetscArraycpy(local ? vd + (size_t)pd++ * bsize : vo + (size_t)po++ * bsize, g->c_values + (size_t)k * bsize, bsize));
      }
    }
    PetscCall(MatSeqBAIJRestoreArray(Cd, &vd));
    PetscCall(MatSeqBAIJRestoreArray(Co, &vo));
  }
  PetscCall(PetscObjectStateIncrease((PetscObject)C));
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
   P^T A P: C zeroed, then this rank's part added, the rows it owns straight into C's local and ghost
   blocks (a row of C holds every rank's blocks of that row, ours among them; both sorted, so one walk
   finds them), the others through MatSetValuesBlocked and PETSc's stash, then the assembly that brings
   the other ranks' parts. *done is false (C zeroed again, nothing added) where a block of ours is
   missing from C's row: the caller then adds everything through MatSetValues.
*/
static PetscErrorCode AddPtAPDirect(MPIGalerkin *g, Mat Ad, Mat C, PetscBool *done)
{
  bsrk_rect_matrix R;
  Mat              Cd, Co;
  const PetscInt  *ghost, *drow, *dcol, *orow, *ocol;
  PetscInt         nd, no, rstart, rend, cstart;
  PetscScalar     *vd, *vo;
  PetscBool        found = PETSC_TRUE;
  size_t           bsize;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(Ad, bsrk_block_product_result(g->plan, &R), "the block product's result"));
  PetscCall(MatMPIBSRCustomGetBlocks_Private(C, &Cd, &Co, &ghost));
  bsize  = (size_t)R.rbs * R.cbs;
  rstart = C->rmap->rstart / R.rbs;
  rend   = C->rmap->rend / R.rbs;
  cstart = C->cmap->rstart / R.cbs;
  PetscCall(MatBSRCustomGetStructure_Private(Cd, PETSC_TRUE, &nd, &drow, &dcol));
  PetscCall(MatBSRCustomGetStructure_Private(Co, PETSC_TRUE, &no, &orow, &ocol));
  PetscCall(MatZeroEntries(C));
  PetscCall(MatSeqBAIJGetArray(Cd, &vd));
  PetscCall(MatSeqBAIJGetArray(Co, &vo));
  for (PetscInt br = PetscMax(rstart, 0); found && br < PetscMin(rend, R.nbrows); br++) {
    const PetscInt lr = br - rstart;
    PetscInt       pd = drow[lr], po = orow[lr];

    for (PetscInt k = R.rowptr[br]; found && k < R.rowptr[br + 1]; k++) {
      const PetscInt     J   = R.colidx[k];
      const PetscScalar *add = g->c_values + (size_t)k * bsize;
      PetscScalar       *to;

      if (J >= cstart && J - cstart < Cd->cmap->n / R.cbs) {
        while (pd < drow[lr + 1] && dcol[pd] < J - cstart) pd++;
        found = (PetscBool)(pd < drow[lr + 1] && dcol[pd] == J - cstart);
        to    = vd + (size_t)pd * bsize;
      } else {
        while (po < orow[lr + 1] && ghost[ocol[po]] < J) po++;
        found = (PetscBool)(po < orow[lr + 1] && ghost[ocol[po]] == J);
        to    = vo + (size_t)po * bsize;
      }
      if (found)
        for (size_t i = 0; i < bsize; i++) to[i] += add[i];
    }
  }
  PetscCall(MatSeqBAIJRestoreArray(Cd, &vd));
  PetscCall(MatSeqBAIJRestoreArray(Co, &vo));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &found, 1, BSRC_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)C)));
  *done = found;
  if (!found) {
    PetscCall(PetscInfo(C, "P^T A P: a block of this rank's part is missing from C's rows; its values are added through MatSetValues\n"));
    PetscCall(MatZeroEntries(C));
    PetscFunctionReturn(0);
  }
  PetscCall(MatSetOption(C, MAT_ROW_ORIENTED, PETSC_FALSE));
  for (PetscInt br = 0; br < R.nbrows; br++) {
    if (R.rowptr[br + 1] == R.rowptr[br] || (br >= rstart && br < rend)) continue;
    PetscCall(MatSetValuesBlocked(C, 1, &br, R.rowptr[br + 1] - R.rowptr[br], R.colidx + R.rowptr[br], g->c_values + (size_t)R.rowptr[br] * bsize, ADD_VALUES));
  }
  PetscCall(MatSetOption(C, MAT_ROW_ORIENTED, PETSC_TRUE));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscObjectStateIncrease((PetscObject)C));
  PetscFunctionReturn(0);
}

/* A P: this rank's rows are its own, so the counts are exact (blocks, or scalars of an AIJ C) */
static PetscErrorCode PreallocateAP(MPIGalerkin *g, Mat P, Mat X, const bsrk_rect_matrix *R)
{
  const PetscInt cstart = P->cmap->rstart / R->cbs, cend = P->cmap->rend / R->cbs, scale = g->c_is_aij ? R->rbs : 1;
  PetscInt      *d, *o;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(R->nbrows * scale, &d, R->nbrows * scale, &o));
  for (PetscInt br = 0; br < R->nbrows; br++) {
    PetscInt nd = 0;
    for (PetscInt k = R->rowptr[br]; k < R->rowptr[br + 1]; k++) nd += R->colidx[k] >= cstart && R->colidx[k] < cend;
    for (PetscInt r = 0; r < scale; r++) {
      d[br * scale + r] = nd * (g->c_is_aij ? R->cbs : 1);
      o[br * scale + r] = (R->rowptr[br + 1] - R->rowptr[br] - nd) * (g->c_is_aij ? R->cbs : 1);
    }
  }
  if (g->c_is_aij) PetscCall(MatMPIAIJSetPreallocation(X, 0, d, 0, o));
  else PetscCall(MatMPIBAIJSetPreallocation(X, R->rbs, 0, d, 0, o));
  PetscCall(PetscFree2(d, o));
  PetscFunctionReturn(0);
}

/* P^T A P: rows of other ranks too, counted by a MATPREALLOCATOR */
static PetscErrorCode PreallocatePtAP(Mat X, const bsrk_rect_matrix *R)
{
  Mat          pre;
  PetscScalar *zeros;
  PetscInt     longest = 0;

  PetscFunctionBegin;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)X), &pre));
  PetscCall(MatSetType(pre, MATPREALLOCATOR));
  PetscCall(MatSetSizes(pre, X->rmap->n, X->cmap->n, X->rmap->N, X->cmap->N));
  PetscCall(MatSetBlockSizes(pre, R->rbs, R->cbs));
  PetscCall(MatSetUp(pre));
  for (PetscInt br = 0; br < R->nbrows; br++) longest = PetscMax(longest, R->rowptr[br + 1] - R->rowptr[br]);
  PetscCall(PetscCalloc1((size_t)longest * R->rbs * R->cbs + 1, &zeros));
  for (PetscInt br = 0; br < R->nbrows; br++)
    if (R->rowptr[br + 1] > R->rowptr[br]) PetscCall(MatSetValuesBlocked(pre, 1, &br, R->rowptr[br + 1] - R->rowptr[br], R->colidx + R->rowptr[br], zeros, INSERT_VALUES));
  PetscCall(PetscFree(zeros));
  PetscCall(MatAssemblyBegin(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatPreallocatorPreallocate(pre, PETSC_FALSE, X));
  PetscCall(MatDestroy(&pre));
  PetscFunctionReturn(0);
}

/* X (blank) becomes the product's result: its type, layout and structure (the ranks' blocks, zeros) */
static PetscErrorCode BuildResult(MPIGalerkin *g, Mat A, Mat P, Mat X)
{
  bsrk_rect_matrix R;
  const PetscBool  ap = (PetscBool)(g->kind == BSRK_PRODUCT_AP);
  Mat              Ad;

  PetscFunctionBegin;
  PetscCall(LocalBlock(A, &Ad));
  PetscCall(MatSeqBSRCustomKernelCheck_Private(Ad, bsrk_block_product_result(g->plan, &R), "the block product's result"));
  PetscCall(MatSetSizes(X, ap ? A->rmap->n : P->cmap->n, P->cmap->n, ap ? A->rmap->N : P->cmap->N, P->cmap->N));
  PetscCall(MatSetBlockSizes(X, R.rbs, R.cbs));
  if (g->c_is_aij) PetscCall(MatSetType(X, ((PetscObject)P)->type_name)); /* P's AIJ type: GAMG combines A P with P0 */
  else {
    MatBSRCustomSettings set;

    PetscCall(MatSetType(X, MATMPIBSRCUSTOM));
    PetscCall(MatBSRCustomGetSettings_Private(A, &set));
    PetscCall(MatBSRCustomSetSettings_Private(X, &set, "a sparse product of an mpibsrcustom matrix"));
  }
  if (ap) PetscCall(PreallocateAP(g, P, X, &R));
  else PetscCall(PreallocatePtAP(X, &R));
  PetscCall(PetscCalloc1((size_t)R.rowptr[R.nbrows] * R.rbs * R.cbs + 1, &g->c_values));
  PetscCall(AddResult(g, Ad, X, INSERT_VALUES));
  if (g->c_is_aij) {
    PetscCall((*((Mat_MPIBSRCustom *)A->spptr)->backend->aij_made)(X));
    PetscCall(MatBSRCustomAIJSubsetAXPY_Private(X));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GalerkinSymbolic(Mat C);
static PetscErrorCode GalerkinNumeric(Mat C);

/* everything the numeric phase reads, from A's and P's current structures; X (blank) becomes C */
static PetscErrorCode Setup(MPIGalerkin *g, Mat_Product *product, Mat X)
{
  Mat              A = product->A, P = product->B, Ad;
  bsrk_rect_matrix RA, RP;

  PetscFunctionBegin;
  PetscCall(GalerkinFree(g));
  PetscCall(LocalBlock(A, &Ad));
  PetscCall(CombRows(g, A, P));
  PetscCall(MatMPIBSRCustomGatheredRowsCreate_Private(P, g->p_ours, g->bs, g->c, g->ncomb, g->comb, &g->prows));
  PetscCall(BuildAhat(g, A));
  RA.nbrows = g->ahat_rows;
  RA.nbcols = g->ncomb;
  RA.rbs = RA.cbs = g->bs;
  RA.rowptr       = g->ah_rowptr;
  RA.colidx       = g->ah_colidx;
  RA.values       = NULL;
  MatMPIBSRCustomGatheredRowsView_Private(g->prows, PETSC_FALSE, &RP);
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_BlockProduct, Ad, 0, 0, 0));
  PetscCall((*((Mat_SeqBSRCustom *)Ad->spptr)->backend->block_product_plan)(Ad, g->kind, &RA, &RP, &g->plan));
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_BlockProduct, Ad, 0, 0, 0));
  PetscCall(Fingerprint(g, A, P, &g->fingerprint, &g->nfingerprint));
  g->row_offset = A->rmap->rstart / g->bs;
  PetscCall(BuildResult(g, A, P, X));
  PetscFunctionReturn(0);
}

/* the operands' block sizes now; *changed: they, P's kind or C's sizes differ from the plan's */
static PetscErrorCode SetShape(MPIGalerkin *g, Mat_Product *product, Mat C, PetscBool *changed)
{
  Mat       A = product->A, P = product->B;
  PetscBool p_ours;
  PetscInt  bs = A->rmap->bs, c;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATMPIBSRCUSTOM, &p_ours));
  c = p_ours ? P->rmap->bs : P->cmap->bs;
  PetscCheck(P->rmap->bs == bs, PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_INCOMP, "MatProduct %s in blocks: P's row block size %" PetscInt_FMT " is not A's block size %" PetscInt_FMT, MatProductTypes[product->type], P->rmap->bs, bs);
  PetscCheck(P->rmap->n % bs == 0 && P->cmap->n % c == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "MatProduct %s: P's local sizes %" PetscInt_FMT " x %" PetscInt_FMT " are not multiples of its block sizes %" PetscInt_FMT " x %" PetscInt_FMT,
             MatProductTypes[product->type], P->rmap->n, P->cmap->n, bs, c);
  *changed    = (PetscBool)(bs != g->bs || c != g->c || p_ours != g->p_ours || C->rmap->N != (product->type == MATPRODUCT_PtAP ? P->cmap->N : A->rmap->N) || C->cmap->N != P->cmap->N);
  g->bs       = bs;
  g->c        = c;
  g->p_ours   = p_ours;
  g->kind     = product->type == MATPRODUCT_PtAP ? BSRK_PRODUCT_PTAP : BSRK_PRODUCT_AP;
  g->c_is_aij = (PetscBool)(product->type == MATPRODUCT_AB && c != bs);
  PetscFunctionReturn(0);
}

/* whether any rank's A or P has another structure than at the plan (or the shapes changed) */
static PetscErrorCode AnyChange(MPIGalerkin *g, Mat_Product *product, Mat C, PetscBool *changed)
{
  PetscFunctionBegin;
  PetscCall(SetShape(g, product, C, changed));
  if (!*changed && g->plan) { /* compared in place with the kept list, nothing copied */
    StructureWalk w = {NULL, g->fingerprint, g->nfingerprint, 0, PETSC_TRUE};

    PetscCall(WalkFingerprint(g, product->A, product->B, &w));
    *changed = (PetscBool)(!w.same || w.len != g->nfingerprint);
  } else *changed = PETSC_TRUE;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, changed, 1, BSRC_MPI_BOOL, MPI_LOR, PetscObjectComm((PetscObject)C)));
  PetscFunctionReturn(0);
}

/* C's values from A's and P's current ones; where a structure changed, the symbolic phase first */
static PetscErrorCode GalerkinNumeric(Mat C)
{
  Mat_Product      *product = C->product;
  MPIGalerkin      *g       = (MPIGalerkin *)product->data;
  Mat               A = product->A, P = product->B, Ad;
  bsrk_rect_matrix  RA, RP;
  bsrk_block_source src;
  PetscBool         changed, direct = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(g, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The block product's data is missing");
  PetscCall(AnyChange(g, product, C, &changed));
  if (changed) {
    Mat E;

    PetscCall(PetscInfo(C, "The structure, sizes or block sizes of A or P changed since the symbolic phase: planned again, C made anew in place\n"));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)C), &E));
    PetscCall(Setup(g, product, E));
    PetscCall(MatBSRCustomHeaderReplaceKeepProduct_Private(C, &E));
    C->ops->productsymbolic = GalerkinSymbolic;
    C->ops->productnumeric  = GalerkinNumeric;
  }
  PetscCall(LocalBlock(A, &Ad));
  PetscCall(MatMPIBSRCustomGatheredRowsUpdateValues_Private(g->prows, P));
  MatMPIBSRCustomGatheredRowsView_Private(g->prows, PETSC_TRUE, &RP);
  PetscCall(AhatBlocksGet(g, A, &RA, &src));
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_BlockProduct, Ad, 0, 0, 0));
  PetscCall((*((Mat_SeqBSRCustom *)Ad->spptr)->backend->block_product_numeric)(Ad, NULL, g->plan, &RA, &src, &RP, g->c_values));
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_BlockProduct, Ad, 0, 0, 0));
  PetscCall(AhatBlocksRestore(A, &src));
  if (g->kind == BSRK_PRODUCT_AP) PetscCall(WriteAPDirect(g, Ad, C, &direct));
  else PetscCall(AddPtAPDirect(g, Ad, C, &direct));
  if (!direct) {
    PetscCall(MatZeroEntries(C));
    PetscCall(AddResult(g, Ad, C, ADD_VALUES));
  }
  if (product->type == MATPRODUCT_PtAP) PetscCall(MatBSRCustomPrepareTransfers_Private(P));
  PetscFunctionReturn(0);
}

static PetscErrorCode GalerkinSymbolic(Mat C)
{
  Mat_Product *product = C->product;
  Mat          A = product->A, P = product->B;
  MPIGalerkin *g;
  PetscBool    changed;
  PetscMPIInt  size;

  PetscFunctionBegin;
  PetscCall(PetscNew(&g));
  product->data    = g;
  product->destroy = GalerkinDestroy;
  g->bs = g->c = -1;
  PetscCall(SetShape(g, product, C, &changed));
  PetscCall(Setup(g, product, C));
  C->ops->productsymbolic = GalerkinSymbolic;
  C->ops->productnumeric  = GalerkinNumeric;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)C), &size));
  PetscCall(PetscInfo(C, "MatProduct %s of %s (%" PetscInt_FMT " x %" PetscInt_FMT " blocks) with %s (%" PetscInt_FMT " x %" PetscInt_FMT " blocks) computed natively in blocks on %d ranks, P's rows gathered (%" PetscInt_FMT " block rows here); the result is %s (%.3g MiB kept here for the numeric phase)\n",
                      MatProductTypes[product->type], ((PetscObject)A)->type_name, g->bs, g->bs, ((PetscObject)P)->type_name, g->bs, g->c, size, g->ncomb, ((PetscObject)C)->type_name, (double)bsrk_block_product_bytes(g->plan) / 1048576.0));
  PetscFunctionReturn(0);
}

/* composed as MatProductSetFromOptions_mpibsrcustom_<mpibsrcustom|mpiaij|mpiaijcusparse>_C: AB and PtAP
   in blocks where A is ours, P ours or AIJ with A's row block size and the layouts fit, the rest on AIJ
   copies; the same answer on every rank */
static PetscErrorCode MatProductSetFromOptions_MPIBSRCustom_Galerkin(Mat C)
{
  Mat_Product *product = C->product;
  Mat          A = product->A, B = product->B;
  PetscBool    a_ours, b_ours, b_aij, local_ours = PETSC_FALSE, layouts;
  const char  *why = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBSRCUSTOM, &a_ours));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIBSRCUSTOM, &b_ours));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATMPIAIJ, &b_aij)); /* mpiaij, or mpiaijcusparse on a GPU backend */
  if (a_ours) {
    Mat Ad;
    PetscCall(LocalBlock(A, &Ad));
    PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQBSRCUSTOM, &local_ours));
  }
  /* A's columns are laid out as P's rows (and, for P^T A P, as A's rows) on this rank */
  layouts = (PetscBool)(A->cmap->rstart == B->rmap->rstart && A->cmap->n == B->rmap->n && (product->type != MATPRODUCT_PtAP || (A->rmap->rstart == A->cmap->rstart && A->rmap->n == A->cmap->n)));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &layouts, 1, BSRC_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (!a_ours) why = "A is not mpibsrcustom";
  else if (!local_ours) why = "A's local block is not seqbsrcustom";
  else if (!b_ours && !b_aij) why = "the second operand is neither mpibsrcustom nor mpiaij";
  else if (B->rmap->bs != A->rmap->bs) why = "the second operand's row block size is not A's block size";
  else if (product->type == MATPRODUCT_PtAP && A->rmap->N != A->cmap->N) why = "A is not square";
  else if (!layouts) why = "A's column layout is not P's row layout (or, for P^T A P, A's row layout) on every rank";
  PetscCall(MatBSRCustomGalerkinChoose_Private(C, why, GalerkinSymbolic));
  PetscFunctionReturn(0);
}

/*
   GAMG gives its prolongators (mpibsrcustom now where the coarse operators are, see above)
   MAT_FORM_EXPLICIT_TRANSPOSE, a hint to keep an explicit transpose for MatMultTranspose, and its
   coarse operators MAT_SPD. PETSc 3.18's MPIBAIJ refuses options it does not know. Ours records the
   transpose hint (its local and ghost blocks keep transposed copies for MatMultTranspose, which the
   Galerkin product then makes at once), and MAT_SPD / MAT_SPD_ETERNAL as MatSetOption() has recorded
   them on the matrix, which is all they mean to BAIJ; every other option goes on to MPIBAIJ.
*/
static PetscErrorCode (*mpibaij_setoption)(Mat, MatOption, PetscBool);

static PetscErrorCode MatSetOption_MPIBSRCustom(Mat A, MatOption op, PetscBool flg)
{
  PetscFunctionBegin;
  if (op == MAT_FORM_EXPLICIT_TRANSPOSE) A->form_explicit_transpose = flg;                                  /* read by the Galerkin product */
  if (op == MAT_IGNORE_OFF_PROC_ENTRIES && A->spptr) ((Mat_MPIBSRCustom *)A->spptr)->ignore_off_proc = flg; /* read by COO assembly */
  if (op == MAT_FORM_EXPLICIT_TRANSPOSE || op == MAT_SPD || op == MAT_SPD_ETERNAL) PetscFunctionReturn(0);
  PetscCall((*mpibaij_setoption)(A, op, flg));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomComposeGalerkinProducts_Private(Mat A, PetscBool install)
{
  PetscFunctionBegin;
  if (install && A->ops->setoption != MatSetOption_MPIBSRCustom) {
    mpibaij_setoption = A->ops->setoption; /* MPIBAIJ's, the same for every matrix */
    A->ops->setoption = MatSetOption_MPIBSRCustom;
  } else if (!install && A->ops->setoption == MatSetOption_MPIBSRCustom) A->ops->setoption = mpibaij_setoption;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_mpibsrcustom_mpibsrcustom_C", install ? MatProductSetFromOptions_MPIBSRCustom_Galerkin : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_mpibsrcustom_mpiaij_C", install ? MatProductSetFromOptions_MPIBSRCustom_Galerkin : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_mpibsrcustom_mpiaijcusparse_C", install ? MatProductSetFromOptions_MPIBSRCustom_Galerkin : NULL));
  PetscFunctionReturn(0);
}
