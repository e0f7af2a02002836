/*
   MatCreateGraph of seqbsrcustom and mpibsrcustom (what PCGAMG coarsens), made from the blocks
   without an AIJ copy of the matrix, and equal to the graph MATAIJ makes for the same matrix with the
   same block size and arguments.

   AIJ's graph of a matrix in bs x bs blocks is, in every PETSc from 3.18 to the current main, a scalar
   matrix G with one row per block row and one entry per stored block: the sum of |Re a_ij| over the
   block's entries (over the (index[r], index[c]) entries where an index is given, 3.21 on, except on
   a rank of an MPIAIJ without off-rank columns), summed row by row; with bs = 1, a copy of the
   matrix. The symmetrization, the scaling by the diagonal and the filter then act on G alone, and
   they are what AIJ's MatCreateGraph does to a matrix of block size 1 carrying A's symmetry flags.
   So the costly step, the collapse of the blocks, is ours (OpenMP over block rows, the blocks read in
   place), and PETSc's own MatCreateGraph of G does the rest: the same code on the same G gives AIJ's
   graph in each PETSc version, bit for bit, however that version symmetrizes, scales or filters (at
   the price of one copy of G, which AIJ's MatCreateGraph makes of a matrix of block size 1).

   G is a MATSEQAIJ for seqbsrcustom and a MATMPIAIJ for mpibsrcustom (what AIJ's graph of our AIJ
   copy is); on one rank of a GPU backend the finished graph may move to the device (GraphWhereSquared).
   A matrix whose row and column layouts differ is no graph's adjacency, and AIJ's collapse
   numbers its columns by the row layout (so its graph is not the matrix's): it is refused.
*/
#include "seqbsrcustomimpl.h"

/* One SeqBAIJ piece of A (A itself, or the local or ghost block of an mpibsrcustom): its block rows */
typedef struct {
  Mat                M;
  PetscInt           nbrows;
  const PetscInt    *ia, *ja;
  const PetscScalar *aa; /* column-major bs x bs blocks */
} GraphBlocks;

static PetscErrorCode GraphBlocksGet(Mat M, GraphBlocks *b)
{
  PetscBool done;

  PetscFunctionBegin;
  b->M = M;
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_TRUE, &b->nbrows, &b->ia, &b->ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A block of the matrix did not give its block structure");
  PetscCall(MatSeqBSRCustomGetArrayRead_Private(M, &b->aa));
  PetscFunctionReturn(0);
}

static PetscErrorCode GraphBlocksRestore(GraphBlocks *b)
{
  PetscBool done;
  PetscInt  n;

  PetscFunctionBegin;
  if (!b->M) PetscFunctionReturn(0);
  PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(b->M, &b->aa));
  PetscCall(MatRestoreRowIJ(b->M, 0, PETSC_FALSE, PETSC_TRUE, &n, &b->ia, &b->ja, &done));
  b->M = NULL;
  PetscFunctionReturn(0);
}

/* What one block contributes to G. bs > 1: the sum of |Re v(r, c)|, rows outer and columns inner, in
   the order AIJ adds them (its rows are our blocks' rows), so that the sums agree to the last bit;
   over the index list where one is given. bs = 1: the entry itself, signed, as AIJ's copy keeps it. */
typedef struct {
  PetscInt        bs, nidx;
  const PetscInt *idx;
} BlockStrength;

static inline PetscScalar BlockStrengthOf(const BlockStrength *s, const PetscScalar *v)
{
  const PetscInt bs  = s->bs;
  PetscReal      sum = 0;

  if (bs == 1) return v[0];
  if (!s->nidx) {
    for (PetscInt r = 0; r < bs; r++)
      for (PetscInt c = 0; c < bs; c++) sum += PetscAbsReal(PetscRealPart(v[r + c * bs]));
  } else {
    for (PetscInt r = 0; r < s->nidx; r++)
      for (PetscInt c = 0; c < s->nidx; c++) sum += PetscAbsReal(PetscRealPart(v[s->idx[r] + s->idx[c] * bs]));
  }
  return (PetscScalar)sum;
}

/* A's pieces: itself (seq), or its local and ghost blocks (mpi; gh->M NULL where there is no ghost) */
static PetscErrorCode GraphPiecesGet(Mat A, PetscBool mpi, GraphBlocks *loc, GraphBlocks *gh, const PetscInt **ghost_cols)
{
  Mat      Ad = A, Ao = NULL;
  PetscInt nghost = 0;

  PetscFunctionBegin;
  gh->M       = NULL;
  *ghost_cols = NULL;
  /* the MPI type's pieces through its published method (MatBSRCustomGetLocalAndGhost()'s dispatch) */
  if (mpi) PetscUseMethod(A, "MatBSRCustomGetLocalAndGhost_C", (Mat, Mat *, Mat *, PetscInt *, const PetscInt **, VecScatter *, Vec *), (A, &Ad, &Ao, &nghost, ghost_cols, NULL, NULL));
  PetscCall(GraphBlocksGet(Ad, loc));
  if (Ao && nghost > 0) {
    for (PetscInt k = 1; k < nghost; k++) PetscCheck((*ghost_cols)[k - 1] < (*ghost_cols)[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "The ghost block columns do not increase");
    PetscCall(GraphBlocksGet(Ao, gh));
  }
  PetscFunctionReturn(0);
}

/* The graph's arrays, handed to its matrix whole and freed with it: its rows (one rank), or its
   diagonal and off-diagonal parts (several: MatCreateMPIAIJWithSplitArrays). A CSR preallocation
   would insert them entry by entry with MatSetValues, which costs more than collapsing the blocks. */
typedef struct {
  PetscInt    *i[2], *j[2];
  PetscScalar *a[2];
} GraphArrays;

static PetscErrorCode GraphArraysDestroy(void *arg)
{
  GraphArrays *g = (GraphArrays *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  for (int p = 0; p < 2; p++) {
    PetscCall(PetscFree(g->i[p]));
    PetscCall(PetscFree2(g->j[p], g->a[p]));
  }
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

static PetscErrorCode GraphArraysAttach(Mat G, GraphArrays *arr)
{
  PetscContainer container;

  PetscFunctionBegin;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, arr));
  PetscCall(BSRCContainerSetDestroy(container, GraphArraysDestroy));
  PetscCall(PetscObjectCompose((PetscObject)G, "MatBSRCustomGraphArrays", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container)); /* G holds it */
  PetscFunctionReturn(0);
}

/* An MPI graph's diagonal part (local block columns) and off-diagonal part (global block columns of
   the ghosts), each row's entries in the blocks' order */
static PetscErrorCode SplitGraph(MPI_Comm comm, const GraphBlocks *loc, const GraphBlocks *gh, const PetscInt ghost_cols[], const BlockStrength *s, PetscInt nthreads, Mat *G)
{
  const PetscInt m = loc->nbrows, bs2 = s->bs * s->bs, nd = loc->ia[m], no = gh->M ? gh->ia[m] : 0;
  GraphArrays   *arr;

  PetscFunctionBegin;
  PetscCall(PetscNew(&arr));
  PetscCall(PetscMalloc1(m + 1, &arr->i[0]));
  PetscCall(PetscMalloc1(m + 1, &arr->i[1]));
  PetscCall(PetscMalloc2(PetscMax(nd, 1), &arr->j[0], PetscMax(nd, 1), &arr->a[0]));
  PetscCall(PetscMalloc2(PetscMax(no, 1), &arr->j[1], PetscMax(no, 1), &arr->a[1]));
  for (PetscInt i = 0; i <= m; i++) {
    arr->i[0][i] = loc->ia[i];
    arr->i[1][i] = gh->M ? gh->ia[i] : 0;
  }
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 512) if (nthreads > 1 && m > 4096)
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt k = loc->ia[i]; k < loc->ia[i + 1]; k++) {
      arr->j[0][k] = loc->ja[k];
      arr->a[0][k] = BlockStrengthOf(s, loc->aa + (size_t)k * bs2);
    }
    for (PetscInt g = arr->i[1][i]; g < arr->i[1][i + 1]; g++) {
      arr->j[1][g] = ghost_cols[gh->ja[g]];
      arr->a[1][g] = BlockStrengthOf(s, gh->aa + (size_t)g * bs2);
    }
  }
  PetscCall(MatCreateMPIAIJWithSplitArrays(comm, m, m, PETSC_DETERMINE, PETSC_DETERMINE, arr->i[0], arr->j[0], arr->a[0], arr->i[1], arr->j[1], arr->a[1], G));
  PetscCall(GraphArraysAttach(*G, arr));
  PetscFunctionReturn(0);
}

/* A one-rank graph: the blocks' structure, one entry a block */
static PetscErrorCode RowsGraph(MPI_Comm comm, const GraphBlocks *loc, const BlockStrength *s, PetscInt nthreads, Mat *G)
{
  const PetscInt m = loc->nbrows, bs2 = s->bs * s->bs, nnz = loc->ia[m];
  GraphArrays   *arr;

  PetscFunctionBegin;
  PetscCall(PetscNew(&arr));
  PetscCall(PetscMalloc1(m + 1, &arr->i[0]));
  PetscCall(PetscMalloc2(PetscMax(nnz, 1), &arr->j[0], PetscMax(nnz, 1), &arr->a[0]));
  PetscCall(PetscArraycpy(arr->i[0], loc->ia, m + 1));
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1 && nnz > 65536)
  for (PetscInt k = 0; k < nnz; k++) {
    arr->j[0][k] = loc->ja[k];
    arr->a[0][k] = BlockStrengthOf(s, loc->aa + (size_t)k * bs2);
  }
  PetscCall(MatCreateSeqAIJWithArrays(comm, m, m, arr->i[0], arr->j[0], arr->a[0], G));
  PetscCall(GraphArraysAttach(*G, arr));
  PetscFunctionReturn(0);
}

/* G: A's blocks collapsed, one entry per stored block (zero blocks included, as AIJ keeps them) */
static PetscErrorCode CollapsedGraph(Mat A, PetscBool mpi, const BlockStrength *s, Mat *G)
{
  GraphBlocks          loc, gh;
  const PetscInt      *ghost_cols;
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscUseMethod(A, "MatBSRCustomGetSettings_C", (Mat, MatBSRCustomSettings *), (A, &set));
  PetscCall(GraphPiecesGet(A, mpi, &loc, &gh, &ghost_cols));
  PetscCheck(loc.nbrows * s->bs == A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The blocks hold %" PetscInt_FMT " block rows for %" PetscInt_FMT " rows", loc.nbrows, A->rmap->n);
  if (mpi) PetscCall(SplitGraph(PetscObjectComm((PetscObject)A), &loc, &gh, ghost_cols, s, set.nthreads, G));
  else PetscCall(RowsGraph(PetscObjectComm((PetscObject)A), &loc, s, set.nthreads, G));
  PetscCall(GraphBlocksRestore(&loc));
  PetscCall(GraphBlocksRestore(&gh));
  PetscFunctionReturn(0);
}

/*
   On one rank of a GPU backend the finished graph takes the backend's AIJ type (seqaijcusparse), so
   that GAMG's square of it (A^T A, aggressive coarsening) runs on the device like MATAIJCUSPARSE's,
   unless cuSPARSE could not compute it: its SpGEMM counts the intermediate products, here the sum of
   the squared row lengths, in 32 bits, and past that fails (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES;
   for the 27-point stencil's graph, from about 2.9M nodes). On several ranks the graph stays MPIAIJ:
   mpiaijcusparse's square was the slower one there (docs/design.md).
*/
static PetscErrorCode GraphWhereSquared(Mat A, PetscBool mpi, Mat *graph)
{
  const MatBSRCustomBackendOps *backend;
  MatBSRCustomSettings          set;
  PetscBool                     host, bound, done;
  PetscInt                      n;
  const PetscInt               *ia, *ja;
  PetscInt64                    products = 0;

  PetscFunctionBegin;
  PetscUseMethod(A, "MatBSRCustomGetSettings_C", (Mat, MatBSRCustomSettings *), (A, &set));
  PetscCall(MatBoundToCPU(A, &bound));
  backend = MatBSRCustomBackendOf_Private(&set, bound);
  PetscCall(PetscStrcmp(backend->aij_seq_type, MATSEQAIJ, &host));
  if (mpi || host) PetscFunctionReturn(0);
  PetscCall(MatGetRowIJ(*graph, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The graph did not give its structure");
  for (PetscInt i = 0; i < n; i++) products += (PetscInt64)(ia[i + 1] - ia[i]) * (ia[i + 1] - ia[i]);
  PetscCall(MatRestoreRowIJ(*graph, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  if (products > PETSC_MPI_INT_MAX) {
    PetscCall(PetscInfo(A, "MatCreateGraph: the graph stays %s: its square has %" PetscInt64_FMT " intermediate products, past the 32-bit count of cuSPARSE's SpGEMM\n", ((PetscObject)*graph)->type_name, products));
    PetscFunctionReturn(0);
  }
  PetscCall(MatConvert(*graph, backend->aij_seq_type, MAT_INPLACE_MATRIX, graph));
  PetscCall(PetscInfo(A, "MatCreateGraph: the graph made %s, for its square on the device (%" PetscInt64_FMT " intermediate products)\n", backend->aij_seq_type, products));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckStrengthIndex(Mat A, PetscInt bs, PetscInt nidx, const PetscInt idx[])
{
  PetscFunctionBegin;
  PetscCheck(nidx >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "MatCreateGraph: the index list has a negative length %" PetscInt_FMT, nidx);
  PetscCheck(!nidx || idx, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_NULL, "MatCreateGraph: an index list of length %" PetscInt_FMT " is NULL", nidx);
  for (PetscInt k = 0; k < nidx; k++) PetscCheck(idx[k] >= 0 && idx[k] < bs, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatCreateGraph: index[%" PetscInt_FMT "] = %" PetscInt_FMT " is not a row of a block of size %" PetscInt_FMT, k, idx[k], bs);
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatCreateGraph_BSRCustom(BSRC_CREATEGRAPH_PARAMS)
{
  PetscBool     mpi, same;
  BlockStrength s;
  Mat           G;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "MatCreateGraph needs an assembled matrix");
  PetscCall(PetscLayoutCompare(A->rmap, A->cmap, &same));
  PetscCheck(same, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_SIZ, "MatCreateGraph needs a matrix whose rows and columns are laid out alike, not %" PetscInt_FMT " x %" PetscInt_FMT " (this rank: %" PetscInt_FMT " rows, %" PetscInt_FMT " columns)",
             A->rmap->N, A->cmap->N, A->rmap->n, A->cmap->n);
  PetscCall(MatGetBlockSize(A, &s.bs));
  s.nidx = BSRC_CREATEGRAPH_NUM_IDX;
  s.idx  = BSRC_CREATEGRAPH_INDEX;
  PetscCall(CheckStrengthIndex(A, s.bs, s.nidx, s.idx));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBSRCUSTOM, &mpi));
  if (mpi && s.nidx) {
    PetscInt nghost;

    /* MPIAIJ collapses the rows of a rank with no off-rank columns (no ghost map) entry by entry, and
       that route sums whole blocks, index list or not: on such a rank, so do we */
    PetscUseMethod(A, "MatBSRCustomGetLocalAndGhost_C", (Mat, Mat *, Mat *, PetscInt *, const PetscInt **, VecScatter *, Vec *), (A, NULL, NULL, &nghost, NULL, NULL, NULL));
    if (!nghost) {
      s.nidx = 0;
      PetscCall(PetscInfo(A, "MatCreateGraph: no ghost columns on this rank, whole blocks summed (as MPIAIJ does)\n"));
    }
  }
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Graph, A, 0, 0, 0));
  PetscCall(CollapsedGraph(A, mpi, &s, &G));
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Graph, A, 0, 0, 0));
  /* AIJ asks A whether it is known symmetric (then it does not symmetrize) and gives the graph A's flags */
  PetscCall(MatPropagateSymmetryOptions(A, G));
  PetscCall(BSRCMatCreateGraph(G, sym, scale, filter, 0, NULL, graph));
  PetscCall(MatDestroy(&G));
  PetscCall(GraphWhereSquared(A, mpi, graph));
  PetscCall(PetscInfo(A, "MatCreateGraph from the %" PetscInt_FMT "x%" PetscInt_FMT " blocks (no AIJ copy), %s\n", s.bs, s.bs, s.nidx ? "over the index list" : "over whole blocks"));
  PetscFunctionReturn(0);
}
