/*
   The sparse products that smoothed-aggregation multigrid (PCGAMG) makes of a seqbsrcustom matrix A
   and its prolongator P, computed in blocks (issue 37): C = A P (the prolongator's smoothing) and the
   Galerkin product C = P^T A P (the next level's operator), on the PETSc-free kernels of
   kernels/bsrk_blockproducts.h.

   P is ours (square bs x bs blocks: GAMG's default near null space) or a MATSEQAIJ whose row block
   size is A's (bs x c blocks, c the number of near-null-space vectors: 3 x 6 for 3D elasticity; GAMG
   makes P with A's type, and ours turns a matrix with rectangular blocks into its backend's AIJ type,
   MATSEQAIJ or, on a GPU backend of a CUDA PETSc, MATSEQAIJCUSPARSE, since BAIJ holds square blocks
   only). An AIJ P is read into rectangular blocks: a block exists where any of its entries is stored,
   the others are zeros, so the products' values are AIJ's and only the stored zeros of C differ. A P
   is ours when c == bs and of P's AIJ type with block sizes (bs, c) otherwise;
   P^T A P is ours with c x c blocks and A's settings, so that the next level is ours as well.

   The symbolic phase (the kernel's plan, C's structure, the AIJ P's block structure) is kept in the
   product's data; a numeric phase with new values reads them again and recomputes only the values.
   Where a numeric phase finds that the structure of A, P or C changed since (compared with copies:
   PETSc 3.18 can add blocks to a BAIJ matrix without a new nonzerostate), it redoes the symbolic phase
   and C gets the new structure in place.

   Other products (AtB, RARt, ...), other operands, several ranks and algorithms chosen by name other
   than "default" or "bsrcustom" go to the products on AIJ copies (bsrcustomaijtwin.c); -info says which.
*/
#include "seqbsrcustomimpl.h"
#include "bsrk_blockproducts.h"
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h>

#define GALERKIN_ALGORITHM "bsrcustom"

/* a block (or scalar) CSR structure as it was when the product was planned */
typedef struct {
  PetscInt  n; /* rows */
  PetscInt *rowptr, *colidx;
} Pattern;

typedef struct {
  bsrk_block_product *plan;
  PetscInt            bs, c;    /* A's block size; P's blocks are bs x c */
  PetscBool           c_is_aij; /* C = A P with c != bs: an AIJ matrix (c_type, P's) filled from the block values */
  char                c_type[64];
  PetscScalar        *c_values; /* C's block values when C is a MATSEQAIJ */
  Pattern             a_pattern, p_pattern;
  /* P as a MATSEQAIJ, read into bs x c blocks */
  PetscBool    p_is_aij;
  PetscInt    *p_rowptr, *p_colidx; /* P's block structure */
  PetscInt    *p_offset;            /* P's stored entry k -> its place in p_values */
  PetscScalar *p_values;
} GalerkinProduct;

static PetscErrorCode PatternSave(Pattern *p, PetscInt n, const PetscInt *rowptr, const PetscInt *colidx)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(p->rowptr, p->colidx));
  p->n = n;
  PetscCall(PetscMalloc2(n + 1, &p->rowptr, rowptr[n], &p->colidx));
  PetscCall(PetscArraycpy(p->rowptr, rowptr, n + 1));
  PetscCall(PetscArraycpy(p->colidx, colidx, rowptr[n]));
  PetscFunctionReturn(0);
}

static PetscErrorCode PatternSame(const Pattern *p, PetscInt n, const PetscInt *rowptr, const PetscInt *colidx, PetscBool *same)
{
  PetscFunctionBegin;
  *same = (PetscBool)(p->n == n);
  if (*same) PetscCall(PetscArraycmp(p->rowptr, rowptr, n + 1, same));
  if (*same) PetscCall(PetscArraycmp(p->colidx, colidx, rowptr[n], same));
  PetscFunctionReturn(0);
}

static PetscErrorCode GalerkinProductDestroy(void *arg)
{
  GalerkinProduct *g = (GalerkinProduct *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  bsrk_block_product_free(g->plan);
  PetscCall(PetscFree(g->c_values));
  PetscCall(PetscFree2(g->a_pattern.rowptr, g->a_pattern.colidx));
  PetscCall(PetscFree2(g->p_pattern.rowptr, g->p_pattern.colidx));
  PetscCall(PetscFree3(g->p_rowptr, g->p_colidx, g->p_offset));
  PetscCall(PetscFree(g->p_values));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

/* nblocks blocks of rbs x cbs values, counted in PetscInt (PETSc's AIJ and BAIJ index their values so):
   a product past 2^31 values on a 32-bit-index PETSc is refused, naming what overflows */
static PetscErrorCode ValuesCount(PetscInt64 nblocks, PetscInt rbs, PetscInt cbs, const char *what, PetscInt *count)
{
  const PetscInt64 n = nblocks * rbs * cbs;

  PetscFunctionBegin;
  PetscCheck(n <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_INT_OVERFLOW, "%s: %" PetscInt64_FMT " values (%" PetscInt64_FMT " blocks of %" PetscInt_FMT " x %" PetscInt_FMT ") are more than this PETSc's PetscInt counts; a PETSc configured --with-64-bit-indices holds them", what, n, nblocks, rbs, cbs);
  if (count) *count = (PetscInt)n;
  PetscFunctionReturn(0);
}

/*
   The block structure of an AIJ matrix in bs x c blocks (m rows, CSR ai/aj, nbcols block columns): block
   row br holds the block columns that any of its bs rows touches, sorted; offset[k] is stored entry k's
   place among the blocks' values (column-major blocks). rowptr, colidx and offset are allocated here
   (PetscMalloc3, ai[m] long for colidx and offset); *nblocks receives their count. Both types'
   Galerkin products read an AIJ P so (the MPI one on the rows of P it gathered).
*/
PETSC_INTERN PetscErrorCode MatBSRCustomAIJBlockStructure_Private(PetscInt m, const PetscInt ai[], const PetscInt aj[], PetscInt bs, PetscInt c, PetscInt nbcols, PetscInt **rowptr, PetscInt **colidx, PetscInt **offset, PetscInt *nblocks)
{
  PetscInt *last, *slot, *rp, *ci, *off, nb = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(m / bs + 1, &rp, ai[m], &ci, ai[m], &off));
  /* last[bc]: the block row that last touched block column bc; slot[bc]: its block's index there */
  PetscCall(PetscMalloc2(nbcols, &last, nbcols, &slot));
  for (PetscInt bc = 0; bc < nbcols; bc++) last[bc] = -1;
  rp[0] = 0;
  for (PetscInt br = 0; br < m / bs; br++) {
    for (PetscInt k = ai[br * bs]; k < ai[(br + 1) * bs]; k++) {
      const PetscInt bc = aj[k] / c;
      if (last[bc] != br) {
        last[bc] = br;
        ci[nb++] = bc;
      }
    }
    rp[br + 1] = nb;
    PetscCall(PetscSortInt(nb - rp[br], ci + rp[br]));
    for (PetscInt k = rp[br]; k < nb; k++) slot[ci[k]] = k;
    for (PetscInt r = 0; r < bs; r++)
      for (PetscInt k = ai[br * bs + r]; k < ai[br * bs + r + 1]; k++) off[k] = slot[aj[k] / c] * bs * c + (aj[k] % c) * bs + r;
  }
  PetscCall(PetscFree2(last, slot));
  PetscCall(ValuesCount(nb, bs, c, "P read in blocks", NULL));
  *rowptr  = rp;
  *colidx  = ci;
  *offset  = off;
  *nblocks = nb;
  PetscFunctionReturn(0);
}

/* an AIJ P's block structure, and its values' room, zeroed once: the entries P does not store stay zero,
   since every read writes the same places (the pattern kept to see a later change) */
static PetscErrorCode ReadAIJStructure(GalerkinProduct *g, Mat P)
{
  const PetscInt *ai, *aj;
  PetscInt        m, nblocks;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetStructure_Private(P, PETSC_FALSE, &m, &ai, &aj));
  PetscCall(PetscFree3(g->p_rowptr, g->p_colidx, g->p_offset));
  PetscCall(MatBSRCustomAIJBlockStructure_Private(m, ai, aj, g->bs, g->c, P->cmap->n / g->c, &g->p_rowptr, &g->p_colidx, &g->p_offset, &nblocks));
  PetscCall(PetscFree(g->p_values));
  PetscCall(PetscCalloc1((size_t)nblocks * g->bs * g->c, &g->p_values));
  PetscCall(PatternSave(&g->p_pattern, m, ai, aj));
  PetscFunctionReturn(0);
}

/* the AIJ P's current values in its blocks (the others zero since ReadAIJStructure) */
static PetscErrorCode ReadAIJValues(GalerkinProduct *g, Mat P)
{
  const PetscScalar *pa;
  const PetscInt     nnz = g->p_pattern.rowptr[g->p_pattern.n];

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArrayRead(P, &pa));
  for (PetscInt k = 0; k < nnz; k++) g->p_values[g->p_offset[k]] = pa[k];
  PetscCall(MatSeqAIJRestoreArrayRead(P, &pa));
  PetscFunctionReturn(0);
}

/* A (ours) as the kernel takes it; *values from MatSeqBSRCustomGetArrayRead_Private (NULL: structure only) */
static PetscErrorCode ViewOurs(Mat A, const PetscScalar **values, bsrk_rect_matrix *R)
{
  PetscInt        n;
  const PetscInt *rowptr, *colidx;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetStructure_Private(A, PETSC_TRUE, &n, &rowptr, &colidx));
  R->nbrows = n;
  R->rbs = R->cbs = A->rmap->bs;
  R->nbcols       = A->cmap->n / A->rmap->bs;
  R->rowptr       = rowptr;
  R->colidx       = colidx;
  R->values       = NULL;
  if (values) {
    PetscCall(MatSeqBSRCustomGetArrayRead_Private(A, values));
    R->values = *values;
  }
  PetscFunctionReturn(0);
}

/* P as the kernel takes it: ours in place (*values to give back), an AIJ P through its blocks (values:
   read again into them, *values NULL) */
static PetscErrorCode ViewP(GalerkinProduct *g, Mat P, const PetscScalar **values, bsrk_rect_matrix *R)
{
  PetscFunctionBegin;
  if (!g->p_is_aij) {
    PetscCall(ViewOurs(P, values, R));
    PetscFunctionReturn(0);
  }
  if (values) {
    PetscCall(ReadAIJValues(g, P));
    *values = NULL; /* nothing of P's to give back */
  }
  R->nbrows = P->rmap->n / g->bs;
  R->nbcols = P->cmap->n / g->c;
  R->rbs    = g->bs;
  R->cbs    = g->c;
  R->rowptr = g->p_rowptr;
  R->colidx = g->p_colidx;
  R->values = values ? g->p_values : NULL;
  PetscFunctionReturn(0);
}

/* an AIJ result's CSR arrays: MatCreateSeqAIJWithArrays neither copies nor frees them, so a container
   composed on the result holds them as long as its data lives (MatHeaderReplace moves it along) */
typedef struct {
  PetscInt    *i, *j;
  PetscScalar *a;
} ResultArrays;

static PetscErrorCode ResultArraysDestroy(void *arg)
{
  ResultArrays *r = (ResultArrays *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(PetscFree3(r->i, r->j, r->a));
  PetscCall(PetscFree(r));
  PetscFunctionReturn(0);
}

/* A P with c != bs: an AIJ matrix of P's AIJ type, block sizes (bs, c), whose rows of a block row share
   the block row's pattern, zero values. Its arrays are filled here and handed over whole: inserting
   them entry by entry (a CSR preallocation runs MatSetValues row by row) costs more than the product. */
static PetscErrorCode BuildAIJResult(GalerkinProduct *g, Mat A, const bsrk_rect_matrix *R, PetscInt m, PetscInt n, Mat *E)
{
  PetscInt         nnz;
  const int        nthreads = (int)((Mat_SeqBSRCustom *)A->spptr)->set.nthreads;
  bsrk_rect_matrix Z        = *R;
  PetscBool        plain;
  ResultArrays    *arr;
  PetscContainer   container;

  PetscFunctionBegin;
  PetscCall(ValuesCount(R->rowptr[R->nbrows], R->rbs, R->cbs, "The block product A P (an AIJ matrix)", &nnz));
  PetscCheck(m == R->nbrows * R->rbs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The block product's result has %" PetscInt_FMT " rows, not %" PetscInt_FMT, (PetscInt)(R->nbrows * R->rbs), m);
  PetscCall(PetscNew(&arr));
  PetscCall(PetscMalloc3(m + 1, &arr->i, PetscMax(nnz, 1), &arr->j, PetscMax(nnz, 1), &arr->a));
  Z.values = NULL; /* zeros */
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_rect_csr_structure(R, nthreads, arr->i, arr->j), "the block product's scalar structure"));
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_rect_csr_values(&Z, nthreads, arr->a), "the block product's scalar values"));
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, n, arr->i, arr->j, arr->a, E));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, arr));
  PetscCall(BSRCContainerSetDestroy(container, ResultArraysDestroy));
  PetscCall(PetscObjectCompose((PetscObject)*E, "MatBSRCustomProductArrays", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container)); /* E holds it */
  PetscCall(MatSetBlockSizes(*E, R->rbs, R->cbs));
  PetscCall(PetscStrcmp(g->c_type, MATSEQAIJ, &plain));
  if (!plain) PetscCall(MatConvert(*E, g->c_type, MAT_INPLACE_MATRIX, E)); /* P's AIJ type: GAMG combines A P with P0 */
  PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->backend->aij_made)(*E));
  PetscCall(MatBSRCustomAIJSubsetAXPY_Private(*E));
  PetscCall(PetscFree(g->c_values));
  PetscCall(PetscMalloc1(PetscMax(nnz, 1), &g->c_values));
  PetscFunctionReturn(0);
}

/* X (blank, or a product's C with its product data) becomes the product's result with the plan's
   structure and zero values: ours with A's settings, or (A P with c != bs) AIJ (BuildAIJResult) */
static PetscErrorCode BuildResult(GalerkinProduct *g, Mat A, Mat X, PetscInt m, PetscInt n)
{
  bsrk_rect_matrix R;
  Mat              E;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_block_product_result(g->plan, &R), "the block product's result"));
  if (!g->c_is_aij) {
    MatBSRCustomSettings set;

    PetscCall(ValuesCount(R.rowptr[R.nbrows], R.rbs, R.cbs, "The block product's result", NULL));
    PetscCall(MatCreate(PETSC_COMM_SELF, &E));
    PetscCall(MatSetSizes(E, m, n, m, n));
    PetscCall(MatSetBlockSizes(E, R.rbs, R.cbs));
    PetscCall(MatSetType(E, MATSEQBSRCUSTOM));
    PetscCall(MatBSRCustomGetSettings_Private(A, &set));
    PetscCall(MatBSRCustomSetSettings_Private(E, &set, "a sparse product of a seqbsrcustom matrix"));
    PetscCall(MatSeqBAIJSetPreallocationCSR(E, R.rbs, R.rowptr, R.colidx, NULL));
  } else PetscCall(BuildAIJResult(g, A, &R, m, n, &E));
  PetscCall(MatBSRCustomHeaderReplaceKeepProduct_Private(X, &E));
  PetscFunctionReturn(0);
}

/* the plan of C's product from A's and P's current structures (kept, to see a later change) */
static PetscErrorCode Plan(GalerkinProduct *g, Mat_Product *product)
{
  Mat              A = product->A, P = product->B;
  bsrk_rect_matrix RA, RP;

  PetscFunctionBegin;
  bsrk_block_product_free(g->plan);
  g->plan = NULL;
  if (g->p_is_aij) PetscCall(ReadAIJStructure(g, P));
  PetscCall(ViewOurs(A, NULL, &RA));
  PetscCall(ViewP(g, P, NULL, &RP));
  PetscCall(PatternSave(&g->a_pattern, RA.nbrows, RA.rowptr, RA.colidx));
  if (!g->p_is_aij) PetscCall(PatternSave(&g->p_pattern, RP.nbrows, RP.rowptr, RP.colidx));
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_BlockProduct, A, P, 0, 0));
  PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->backend->block_product_plan)(A, product->type == MATPRODUCT_PtAP ? BSRK_PRODUCT_PTAP : BSRK_PRODUCT_AP, &RA, &RP, &g->plan));
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_BlockProduct, A, P, 0, 0));
  PetscFunctionReturn(0);
}

/* whether A's, P's and C's structures are still those of the plan */
static PetscErrorCode StructuresUnchanged(GalerkinProduct *g, Mat C, PetscBool *same)
{
  Mat              A = C->product->A, P = C->product->B;
  PetscInt         n;
  const PetscInt  *rowptr, *colidx;
  bsrk_rect_matrix R;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetStructure_Private(A, PETSC_TRUE, &n, &rowptr, &colidx));
  PetscCall(PatternSame(&g->a_pattern, n, rowptr, colidx, same));
  if (!*same) PetscFunctionReturn(0);
  PetscCall(MatBSRCustomGetStructure_Private(P, (PetscBool)!g->p_is_aij, &n, &rowptr, &colidx));
  PetscCall(PatternSame(&g->p_pattern, n, rowptr, colidx, same));
  if (!*same) PetscFunctionReturn(0);
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_block_product_result(g->plan, &R), "the block product's result"));
  PetscCall(MatBSRCustomGetStructure_Private(C, (PetscBool)!g->c_is_aij, &n, &rowptr, &colidx));
  if (!g->c_is_aij) {
    Pattern planned = {R.nbrows, (PetscInt *)R.rowptr, (PetscInt *)R.colidx};
    PetscCall(PatternSame(&planned, n, rowptr, colidx, same));
  } else {
    /* scalar row br*rbs + r holds the block columns of block row br, each expanded to its cbs columns */
    *same = (PetscBool)(n == R.nbrows * R.rbs);
    for (PetscInt br = 0; *same && br < R.nbrows; br++)
      for (PetscInt r = 0; *same && r < R.rbs; r++) {
        const PetscInt  row = br * R.rbs + r, len = (R.rowptr[br + 1] - R.rowptr[br]) * R.cbs;
        const PetscInt *col = colidx + rowptr[row];

        *same = (PetscBool)(rowptr[row + 1] - rowptr[row] == len);
        for (PetscInt k = R.rowptr[br]; *same && k < R.rowptr[br + 1]; k++)
          for (PetscInt s = 0; s < R.cbs; s++) *same = (PetscBool)(*same && *col++ == R.colidx[k] * R.cbs + s);
      }
  }
  PetscFunctionReturn(0);
}

/* C's AIJ values from the block values (C's structure checked by StructuresUnchanged) */
static PetscErrorCode ScatterToAIJ(GalerkinProduct *g, Mat C)
{
  Mat              A = C->product->A;
  bsrk_rect_matrix R;
  PetscScalar     *ca;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_block_product_result(g->plan, &R), "the block product's result"));
  R.values = g->c_values;
  PetscCall(MatSeqAIJGetArrayWrite(C, &ca));
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_rect_csr_values(&R, (int)((Mat_SeqBSRCustom *)A->spptr)->set.nthreads, ca), "the block product's scalar values"));
  PetscCall(MatSeqAIJRestoreArrayWrite(C, &ca));
  PetscFunctionReturn(0);
}

/* the block sizes of the operands as they are now (a reuse may bring a P of other block sizes); *changed:
   they, or C's sizes, differ from the plan's */
static PetscErrorCode SetShape(GalerkinProduct *g, Mat_Product *product, Mat C, PetscBool *changed)
{
  Mat            A = product->A, P = product->B;
  const PetscInt bs = A->rmap->bs, c = g->p_is_aij ? P->cmap->bs : P->rmap->bs;

  PetscFunctionBegin;
  PetscCheck(P->rmap->bs == bs, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MatProduct %s in blocks: P's row block size %" PetscInt_FMT " is not A's block size %" PetscInt_FMT, MatProductTypes[product->type], P->rmap->bs, bs);
  PetscCheck(P->rmap->n % bs == 0 && P->cmap->n % c == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "MatProduct %s: P's sizes %" PetscInt_FMT " x %" PetscInt_FMT " are not multiples of its block sizes %" PetscInt_FMT " x %" PetscInt_FMT,
             MatProductTypes[product->type], P->rmap->n, P->cmap->n, bs, c);
  *changed    = (PetscBool)(bs != g->bs || c != g->c || C->rmap->n != (product->type == MATPRODUCT_PtAP ? P->cmap->n : A->rmap->n) || C->cmap->n != P->cmap->n);
  g->bs       = bs;
  g->c        = c;
  g->c_is_aij = (PetscBool)(product->type == MATPRODUCT_AB && c != bs);
  PetscFunctionReturn(0);
}

/*
   GAMG marks each prolongator MAT_FORM_EXPLICIT_TRANSPOSE, restricts with MatMultTranspose and
   interpolates with MatMultAdd, on the vectors MatCreateVecs(P) gives. What P keeps for those products
   (an aijcusparse P: its device copy and its explicit transpose; ours: its device copy and the
   transposed copy, on a GPU backend) would otherwise be made by the first V-cycle, inside KSPSolve. It
   is made here instead, in the setup, by one product each way on such vectors, where the Galerkin
   product has just read P.
*/
PETSC_INTERN PetscErrorCode MatBSRCustomPrepareTransfers_Private(Mat P)
{
  Vec x, y;

  PetscFunctionBegin;
  if (!P->form_explicit_transpose) PetscFunctionReturn(0);
  PetscCall(MatCreateVecs(P, &x, &y));
  PetscCall(VecZeroEntries(x));
  PetscCall(MatMult(P, x, y));
  PetscCall(MatMultTranspose(P, y, x));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(PetscInfo(P, "MatMult and MatMultTranspose of the %s prolongator run once at its Galerkin product (MAT_FORM_EXPLICIT_TRANSPOSE): what they keep for the V-cycle is made in the setup\n", ((PetscObject)P)->type_name));
  PetscFunctionReturn(0);
}

static PetscErrorCode GalerkinSymbolic(Mat C);

/* C's values from A's and P's current ones; where a structure changed, the symbolic phase first */
static PetscErrorCode GalerkinNumeric(Mat C)
{
  Mat_Product         *product = C->product;
  GalerkinProduct     *g       = (GalerkinProduct *)product->data;
  Mat                  A = product->A, P = product->B;
  const PetscScalar   *av, *pv           = NULL;
  PetscScalar         *cv;
  bsrk_rect_matrix     RA, RP;
  bsrk_matrix          M;
  PetscBool            same, changed;
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscCheck(g, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The block product's data is missing");
  PetscCall(SetShape(g, product, C, &changed));
  if (changed) same = PETSC_FALSE;
  else PetscCall(StructuresUnchanged(g, C, &same));
  if (!same) {
    PetscCall(PetscInfo(C, "The structure, sizes or block sizes of A, P or C changed since the symbolic phase: planned again, C made anew in place\n"));
    PetscCall(Plan(g, product));
    PetscCall(BuildResult(g, A, C, product->type == MATPRODUCT_PtAP ? P->cmap->n : A->rmap->n, P->cmap->n));
    C->ops->productsymbolic = GalerkinSymbolic;
    C->ops->productnumeric  = GalerkinNumeric;
  }
  PetscCall(MatBSRCustomGetSettings_Private(A, &set));
  PetscCall(MatSeqBSRCustomPrepare_Private(A, &M)); /* A's BSR view, the same arrays as RA: the backend may use what A keeps */
  PetscCall(ViewOurs(A, &av, &RA));
  PetscCall(ViewP(g, P, &pv, &RP));
  if (g->c_is_aij) cv = g->c_values;
  else PetscCall(MatSeqBAIJGetArray(C, &cv));
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_BlockProduct, A, P, 0, 0));
  PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->backend->block_product_numeric)(A, &M, g->plan, &RA, NULL, &RP, cv));
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_BlockProduct, A, P, 0, 0));
  if (g->c_is_aij) PetscCall(ScatterToAIJ(g, C));
  else PetscCall(MatSeqBAIJRestoreArray(C, &cv));
  PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(A, &av));
  if (pv) PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(P, &pv));
  if (product->type == MATPRODUCT_PtAP) PetscCall(MatBSRCustomPrepareTransfers_Private(P));
  PetscFunctionReturn(0);
}

static PetscErrorCode GalerkinSymbolic(Mat C)
{
  Mat_Product     *product = C->product;
  Mat              A = product->A, P = product->B;
  GalerkinProduct *g;
  PetscBool        p_ours, changed;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQBSRCUSTOM, &p_ours));
  PetscCall(PetscNew(&g));
  product->data    = g;
  product->destroy = GalerkinProductDestroy;
  g->p_is_aij      = (PetscBool)!p_ours;
  PetscCall(PetscStrncpy(g->c_type, p_ours ? MATSEQAIJ : ((PetscObject)P)->type_name, sizeof(g->c_type)));
  g->bs = g->c = -1; /* no plan yet */
  PetscCall(SetShape(g, product, C, &changed));
  PetscCall(Plan(g, product));
  PetscCall(BuildResult(g, A, C, product->type == MATPRODUCT_PtAP ? P->cmap->n : A->rmap->n, P->cmap->n));
  C->ops->productsymbolic = GalerkinSymbolic;
  C->ops->productnumeric  = GalerkinNumeric;
  PetscCall(PetscInfo(C, "MatProduct %s of %s (%" PetscInt_FMT " x %" PetscInt_FMT " blocks) with %s (%" PetscInt_FMT " x %" PetscInt_FMT " blocks) computed natively in blocks, on %" PetscInt_FMT " threads; the result is %s (%.3g MiB kept for the numeric phase)\n",
                      MatProductTypes[product->type], ((PetscObject)A)->type_name, g->bs, g->bs, ((PetscObject)P)->type_name, g->bs, g->c, ((Mat_SeqBSRCustom *)A->spptr)->set.nthreads, ((PetscObject)C)->type_name, (double)bsrk_block_product_bytes(g->plan) / 1048576.0));
  PetscFunctionReturn(0);
}

/*
   The choice both types' MatProductSetFromOptions make: AB and PtAP in blocks (`symbolic`) unless the
   type's own reason `why` (NULL: none) or another algorithm asked for (-mat_product_algorithm,
   -matmatmult_via, -matptap_via) says otherwise; then on AIJ copies, as -info says.
*/
PETSC_INTERN PetscErrorCode MatBSRCustomGalerkinChoose_Private(Mat C, const char *why, PetscErrorCode (*symbolic)(Mat))
{
  Mat_Product *product = C->product;
  char         alg[64];
  const char  *option;
  PetscBool    flg, dflt, named;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(alg, product->alg ? product->alg : "default", sizeof(alg)));
  if (product->type == MATPRODUCT_AB) option = product->api_user ? "-matmatmult_via" : "-mat_product_algorithm";
  else option = product->api_user ? "-matptap_via" : "-mat_product_algorithm";
  PetscCall(PetscOptionsGetString(((PetscObject)C)->options, ((PetscObject)C)->prefix, option, alg, sizeof(alg), &flg));
  PetscCall(PetscStrcmp(alg, "default", &dflt));
  PetscCall(PetscStrcmp(alg, GALERKIN_ALGORITHM, &named));
  if (product->type != MATPRODUCT_AB && product->type != MATPRODUCT_PtAP) why = "only AB and PtAP are computed in blocks";
  else if (!why && !dflt && !named) why = "another algorithm was asked for";
  if (why) {
    PetscCall(PetscInfo(C, "MatProduct %s of %s with %s (algorithm %s) not in blocks: %s; on AIJ copies\n", MatProductTypes[product->type], ((PetscObject)product->A)->type_name, ((PetscObject)product->B)->type_name, alg, why));
    PetscCall(MatProductSetFromOptions_BSRCustom_AIJ(C));
  } else {
    PetscCall(MatProductSetAlgorithm(C, GALERKIN_ALGORITHM));
    C->ops->productsymbolic = symbolic;
  }
  PetscFunctionReturn(0);
}

/* composed as MatProductSetFromOptions_seqbsrcustom_<seqbsrcustom|seqaij|seqaijcusparse>_C: AB and PtAP in
   blocks where A is ours and P ours or AIJ with A's row block size, the rest on AIJ copies */
static PetscErrorCode MatProductSetFromOptions_SeqBSRCustom_Galerkin(Mat C)
{
  Mat_Product *product = C->product;
  Mat          A = product->A, B = product->B;
  PetscBool    a_ours, b_ours, b_aij;
  const char  *why = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBSRCUSTOM, &a_ours));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBSRCUSTOM, &b_ours));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATSEQAIJ, &b_aij)); /* seqaij, or seqaijcusparse on a GPU backend */
  if (!a_ours) why = "A is not seqbsrcustom";
  else if (!b_ours && !b_aij) why = "the second operand is neither seqbsrcustom nor seqaij";
  else if (B->rmap->bs != A->rmap->bs) why = "the second operand's row block size is not A's block size";
  else if (product->type == MATPRODUCT_PtAP && A->rmap->n != A->cmap->n) why = "A is not square";
  PetscCall(MatBSRCustomGalerkinChoose_Private(C, why, GalerkinSymbolic));
  PetscFunctionReturn(0);
}

/*
   GAMG gives its prolongators (ours now, where the products above make them) MAT_FORM_EXPLICIT_TRANSPOSE,
   a hint to keep an explicit transpose for MatMultTranspose. PETSc 3.18's SeqBAIJ refuses options it
   does not know; ours records the hint (its MatMultTranspose runs on a cached transposed copy,
   -mat_bsrcustom_transpose, which the Galerkin product then makes at once) and passes every other
   option to SeqBAIJ.
*/
static PetscErrorCode (*seqbaij_setoption)(Mat, MatOption, PetscBool);

static PetscErrorCode MatSetOption_SeqBSRCustom(Mat A, MatOption op, PetscBool flg)
{
  PetscFunctionBegin;
  if (op == MAT_FORM_EXPLICIT_TRANSPOSE) {
    A->form_explicit_transpose = flg; /* read by the Galerkin product (MatBSRCustomPrepareTransfers_Private) */
    PetscFunctionReturn(0);
  }
  PetscCall((*seqbaij_setoption)(A, op, flg));
  PetscFunctionReturn(0);
}

/* GAMG smooths its prolongators with MatAYPX(A P, -w, P0, SUBSET_NONZERO_PATTERN): that pattern is
   merged row by row (seq/seqbsrcustomsubsetaxpy.c), where SeqBAIJ sets the entries one by one; any other
   goes to SeqBAIJ's */
static PetscErrorCode (*seqbaij_axpy)(Mat, PetscScalar, Mat, MatStructure);

static PetscErrorCode MatAXPY_SeqBSRCustom(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomSubsetAXPY_Private(Y, a, X, str, &done));
  if (!done) PetscCall((*seqbaij_axpy)(Y, a, X, str));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomComposeGalerkinProducts_Private(Mat A, PetscBool install)
{
  PetscFunctionBegin;
  if (install && A->ops->setoption != MatSetOption_SeqBSRCustom) {
    seqbaij_setoption = A->ops->setoption; /* SeqBAIJ's, the same for every matrix */
    A->ops->setoption = MatSetOption_SeqBSRCustom;
  } else if (!install && A->ops->setoption == MatSetOption_SeqBSRCustom) A->ops->setoption = seqbaij_setoption;
  if (install && A->ops->axpy != MatAXPY_SeqBSRCustom) {
    seqbaij_axpy = A->ops->axpy; /* SeqBAIJ's */
    A->ops->axpy = MatAXPY_SeqBSRCustom;
  } else if (!install && A->ops->axpy == MatAXPY_SeqBSRCustom) A->ops->axpy = seqbaij_axpy;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqbsrcustom_C", install ? MatProductSetFromOptions_SeqBSRCustom_Galerkin : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqaij_C", install ? MatProductSetFromOptions_SeqBSRCustom_Galerkin : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqaijcusparse_C", install ? MatProductSetFromOptions_SeqBSRCustom_Galerkin : NULL));
  PetscFunctionReturn(0);
}
