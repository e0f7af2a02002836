/*
   mpibsrcustom's transpose products and products with an MPIDENSE matrix (issue 30).

   MatMultTranspose: y = Ad^T x (+ in) plus, added into the owners' rows, Ao^T x (Ad the local block,
   Ao the ghost block): on our halo,
       ghost_x = Ao^T x -> begin reverse scatter ADD of ghost_x -> y = Ad^T x (+ in) -> end scatter
   so the ghost part moves while the local block's product runs. Both blocks are seqbsrcustom and run
   their own transpose products (seqbsrcustomtranspose.c): the cached transposed copy on the task
   kernel (cpu backend, or bound to the CPU), the same copy on the GPU (GPU backends; on CUDA vectors
   the ghost vector is a CUDA vector too and PetscSF moves device memory), or BAIJ's serial code
   (-mat_bsrcustom_transpose baij). The scatter cannot add into y itself while the local product
   writes y (PETSc 3.25 locks y between VecScatterBegin and VecScatterEnd, and PetscSF may add a rank's
   own part at the begin), so it adds into a receive vector of y's type that is zero outside the
   products: on the host only the entries it touches (the rows of block columns that other ranks'
   ghost blocks hold, found once per halo) are added into y and zeroed again; on the device a local
   scatter adds those entries into y and the receive vector is zeroed (one pass over a vector at the
   device's bandwidth). PetscSF logs the sums of the reverse scatter as flops (as in MPIBAIJ's
   MatMultTranspose), and on the device those of the local scatter too.

   MatProduct AB with MPIDENSE: the rows of B at this rank's ghost block columns are gathered for all
   k columns at once through an SF made from the halo's (each halo leaf becomes k leaves, one per
   column), while the local block's SpMM runs on B's local rows; then the ghost block's SpMM adds
   its part. The SF is kept with the product and rebuilt when the halo or k changes. On the GPU
   backends both SpMMs run on the GPU: B's local rows are copied up and the local SpMM queued before
   the gather ends, the ghost rows follow, the ghost SpMM adds into the same device C, and C comes
   back once (host arrays: an MPIDENSECUDA B of a CUDA PETSc is read through its host copy).
*/
#include "mpibsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/seq/seqbsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuimpl.h>
#include <petscsf.h>

/* our context, and whether our products with dense matrices can run: both blocks seqbsrcustom on the
   cpu kernel (else one MatMult per column) */
static PetscErrorCode MatMPIBSRCustomProductsContext(Mat A, Mat_MPIBSRCustom **c)
{
  PetscFunctionBegin;
  *c = (Mat_MPIBSRCustom *)A->spptr;
  PetscCheck(*c && (*c)->local && (*c)->ghost && (*c)->halo, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "The local/ghost split exists only once the matrix is assembled");
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomTransposeHaloFree_Private(Mat_MPIBSRCustom *c)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&c->transpose_recv));
  PetscCall(VecScatterDestroy(&c->transpose_fold));
  PetscCall(PetscFree(c->transpose_touched));
  c->transpose_ntouched    = 0;
  c->transpose_touched_set = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* The entries of this rank's part of y that the reverse halo scatter adds into, found once per halo
   by scattering ones. Collective. */
static PetscErrorCode MatMPIBSRCustomTransposeTouched(Mat A, Mat_MPIBSRCustom *c)
{
  Vec                ones, sum;
  const PetscScalar *a;
  PetscInt           n;

  PetscFunctionBegin;
  if (c->transpose_touched_set) PetscFunctionReturn(0);
  PetscCall(VecDuplicate(c->ghost_x, &ones));
  PetscCall(VecSet(ones, 1.0));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)A), &sum));
  PetscCall(VecSetSizes(sum, A->cmap->n, A->cmap->N));
  PetscCall(VecSetBlockSize(sum, A->cmap->bs));
  PetscCall(VecSetType(sum, VECSTANDARD));
  PetscCall(VecZeroEntries(sum));
  /* INSERT: any leaf marks its root (PetscSF would log an ADD's sums as flops of the product) */
  PetscCall(VecScatterBegin(c->halo, ones, sum, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(c->halo, ones, sum, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecGetLocalSize(sum, &n));
  PetscCall(VecGetArrayRead(sum, &a));
  c->transpose_ntouched = 0;
  for (PetscInt i = 0; i < n; i++) c->transpose_ntouched += (a[i] != (PetscScalar)0.0);
  PetscCall(PetscMalloc1(c->transpose_ntouched, &c->transpose_touched));
  c->transpose_ntouched = 0;
  for (PetscInt i = 0; i < n; i++)
    if (a[i] != (PetscScalar)0.0) c->transpose_touched[c->transpose_ntouched++] = i;
  PetscCall(VecRestoreArrayRead(sum, &a));
  PetscCall(VecDestroy(&sum));
  PetscCall(VecDestroy(&ones));
  c->transpose_touched_set = PETSC_TRUE;
  PetscCall(PetscInfo(A, "MatMultTranspose: the ghost blocks of other ranks add into %" PetscInt_FMT " of this rank's %" PetscInt_FMT " entries\n", c->transpose_ntouched, n));
  PetscFunctionReturn(0);
}

/* out = A^T x (+ in when in is given) */
static PetscErrorCode MatMPIBSRCustomTransposeApply(Mat A, Vec x, Vec in, Vec out)
{
  Mat_MPIBSRCustom      *c       = (Mat_MPIBSRCustom *)A->spptr;
  PetscBool              ours[2] = {PETSC_FALSE, PETSC_FALSE}, recv_on_device = PETSC_FALSE;
  Vec                    ghost, recv;
  const char            *path;
  MatBSRCustomMPIProduct p;

  PetscFunctionBegin;
  PetscCheck(c && c->local && c->ghost && c->halo, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "The local/ghost split exists only once the matrix is assembled");
  PetscCall(PetscObjectTypeCompare((PetscObject)c->local, MATSEQBSRCUSTOM, &ours[0]));
  PetscCall(PetscObjectTypeCompare((PetscObject)c->ghost, MATSEQBSRCUSTOM, &ours[1]));
  if (!ours[0] || !ours[1]) { /* MPIBAIJ's */
    if (in) PetscCall((*c->baij_transpose_ops.multtransposeadd)(A, x, in, out));
    else PetscCall((*c->baij_transpose_ops.multtranspose)(A, x, out));
    path = "MPIBAIJ's (blocks that are not " MATSEQBSRCUSTOM ")";
  } else {
    PetscCall(MatMPIBSRCustomBlocksFollowState_Private(A, c->local, c->ghost));
    PetscCall(MatMPIBSRCustomProductInit_Private(A, x, in ? 1.0 : 0.0, in, out, &p));
    PetscCall((*c->backend->mpi_place)(&p)); /* where the vectors live, the ghost vector, the work between the local product's tasks */
    ghost = p.ghost;
    PetscCall(MatMPIBSRCustomTransposeTouched(A, c));
    if (c->transpose_recv) { /* of y's type: a new one where y's differs */
      PetscBool same;
      PetscCall(PetscObjectTypeCompare((PetscObject)c->transpose_recv, ((PetscObject)out)->type_name, &same));
      if (!same) PetscCall(VecDestroy(&c->transpose_recv));
    }
    if (!c->transpose_recv) {
      PetscCall(VecDuplicate(out, &c->transpose_recv));
      PetscCall(VecZeroEntries(c->transpose_recv));
    }
    recv = c->transpose_recv;
    PetscCall(MatBSRCustomVecOnDevice_Private(recv, &recv_on_device));
    /* the seq blocks' products read and write the local parts of the MPI vectors, as in MatMult */
    if (c->ghost->cmap->n > 0) PetscCall(MatSeqBSRCustomTransposeApply_Private(c->ghost, 1.0, x, 0.0, NULL, ghost, NULL));
    PetscCall(VecScatterBegin(c->halo, ghost, recv, ADD_VALUES, SCATTER_REVERSE));
    /* the reverse exchange moves meanwhile */
    if (in) PetscCall(MatSeqBSRCustomTransposeApply_Private(c->local, 1.0, x, 1.0, in, out, p.between));
    else PetscCall(MatSeqBSRCustomTransposeApply_Private(c->local, 1.0, x, 0.0, NULL, out, p.between));
    PetscCall(VecScatterEnd(c->halo, ghost, recv, ADD_VALUES, SCATTER_REVERSE));
    if (recv_on_device) { /* on the device: a local scatter ADD of the touched entries (PetscSF logs these adds), then a zero pass */
      if (!c->transpose_fold) {
        IS  is;
        Vec v;
        PetscCall(VecCreateSeq(PETSC_COMM_SELF, A->cmap->n, &v));
        PetscCall(ISCreateGeneral(PETSC_COMM_SELF, c->transpose_ntouched, c->transpose_touched, PETSC_USE_POINTER, &is));
        PetscCall(VecScatterCreate(v, is, v, is, &c->transpose_fold));
        PetscCall(ISDestroy(&is));
        PetscCall(VecDestroy(&v));
      }
      PetscCall(VecScatterBegin(c->transpose_fold, recv, out, ADD_VALUES, SCATTER_FORWARD));
      PetscCall(VecScatterEnd(c->transpose_fold, recv, out, ADD_VALUES, SCATTER_FORWARD));
      PetscCall(VecZeroEntries(recv));
    } else if (c->transpose_ntouched > 0) {
      PetscScalar *o, *r;
      PetscCall(VecGetArray(out, &o));
      PetscCall(VecGetArray(recv, &r));
      for (PetscInt k = 0; k < c->transpose_ntouched; k++) {
        const PetscInt i = c->transpose_touched[k];
        o[i] += r[i];
        r[i] = 0.0;
      }
      PetscCall(VecRestoreArray(recv, &r));
      PetscCall(VecRestoreArray(out, &o));
    }
    path = c->backend->mpi_transpose_path(p.on_device, (PetscBool)(((Mat_SeqBSRCustom *)c->local->spptr)->set.transpose == MAT_BSRCUSTOM_TRANSPOSE_BAIJ));
  }
  if (path != c->transpose_path) {
    c->transpose_path = path;
    PetscCall(PetscInfo(A, "MatMultTranspose path: %s\n", path));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultTranspose_MPIBSRCustom(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomTransposeApply(A, x, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultTransposeAdd_MPIBSRCustom(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomTransposeApply(A, x, y, z));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomTransposeView_Private(Mat A, PetscViewer viewer)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: %s (-mat_bsrcustom_transpose %s); last: %s; MatMatMult with a dense matrix: %s\n",
                                   c->set.transpose == MAT_BSRCUSTOM_TRANSPOSE_BAIJ ? MatBSRCustomBackendCPU.mpi_transpose_text : c->backend->mpi_transpose_text, MatBSRCustomTransposeModes[c->set.transpose], c->transpose_path ? c->transpose_path : "none yet",
                                   c->backend->mpi_spmm_text));
  PetscFunctionReturn(0);
}

/* the product's own: an SF that moves B's ghost rows for all k columns, and its buffers */
typedef struct {
  PetscSF       sf;
  PetscInt      k, m, nghost_rows; /* columns, B's local rows, ghost rows (nghost * bs) */
  PetscObjectId halo_id;           /* the halo the SF was made from */
  PetscScalar  *ghost;             /* nghost_rows x k, leading dimension nghost_rows */
  PetscScalar  *root;              /* B's local rows, contiguous, when B's leading dimension is larger */
} MPIDenseProduct;

static PetscErrorCode MPIDenseProductDestroy(void *arg)
{
  MPIDenseProduct *p = (MPIDenseProduct *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&p->sf));
  PetscCall(PetscFree(p->ghost));
  PetscCall(PetscFree(p->root));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(0);
}

/* The halo's SF (roots: x's local entries; leaves: the ghost vector), each edge made k, one per column:
   root j*m_r + i on rank r (B's local rows contiguous per column, m_r rows there), leaf j*ng + l. */
static PetscErrorCode MPIDenseProductSetUp(Mat A, Mat_MPIBSRCustom *c, MPIDenseProduct *p, PetscInt k, PetscInt m)
{
  PetscInt           nroots, nleaves, u, ng, bs = A->rmap->bs;
  const PetscInt    *ilocal;
  const PetscSFNode *iremote;
  PetscInt          *il;
  PetscSFNode       *ir;
  const PetscInt    *range;

  PetscFunctionBegin;
  if (p->sf && p->k == k && p->m == m && p->halo_id == ((PetscObject)c->halo)->id) PetscFunctionReturn(0);
  PetscCall(PetscSFDestroy(&p->sf));
  PetscCall(PetscFree(p->ghost));
  PetscCall(PetscFree(p->root));
  PetscCall(PetscSFGetGraph(c->halo, &nroots, &nleaves, &ilocal, &iremote));
  ng = c->nghost * bs;
  /* the halo's unit: a scalar, or (block index sets) a block of bs scalars */
  u = nroots > 0 ? m / nroots : (nleaves > 0 ? ng / nleaves : 1);
  if (u < 1) u = 1;
  PetscCheck(nroots * u == m && nleaves * u == ng, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unexpected halo: %" PetscInt_FMT " roots and %" PetscInt_FMT " leaves for %" PetscInt_FMT " local columns and %" PetscInt_FMT " ghost entries", nroots, nleaves, m, ng);
  PetscCall(PetscLayoutGetRanges(A->cmap, &range));
  PetscCall(PetscMalloc1(ng * k, &il));
  PetscCall(PetscMalloc1(ng * k, &ir));
  for (PetscInt j = 0; j < k; j++)
    for (PetscInt l = 0; l < nleaves; l++)
      for (PetscInt s = 0; s < u; s++) {
        const PetscInt e = (j * nleaves + l) * u + s, r = iremote[l].rank;
        il[e]       = j * ng + (ilocal ? ilocal[l] : l) * u + s;
        ir[e].rank  = r;
        ir[e].index = j * (range[r + 1] - range[r]) + iremote[l].index * u + s;
      }
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &p->sf));
  PetscCall(PetscSFSetGraph(p->sf, m * k, ng * k, il, PETSC_OWN_POINTER, ir, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(p->sf));
  PetscCall(PetscMalloc1(PetscMax(ng * k, 1), &p->ghost));
  p->k           = k;
  p->m           = m;
  p->nghost_rows = ng;
  p->halo_id     = ((PetscObject)c->halo)->id;
  PetscCall(PetscInfo(A, "MatMatMult with MPIDENSE: an SF for the %" PetscInt_FMT " ghost rows of %" PetscInt_FMT " columns\n", ng, k));
  PetscFunctionReturn(0);
}

/* C = A B on A's backend: the local block's SpMM begun while one SF moves B's ghost rows for all
   columns, the ghost block's after */
static PetscErrorCode MatProductNumeric_MPIBSRCustom_MPIDense(Mat C)
{
  Mat                A = C->product->A, B = C->product->B;
  MPIDenseProduct   *p = (MPIDenseProduct *)C->product->data;
  Mat_MPIBSRCustom  *c;
  PetscBool          ours[2] = {PETSC_FALSE, PETSC_FALSE};
  const PetscScalar *x, *root;
  PetscScalar       *y;
  PetscInt           ldx, ldy, k, m;
  bsrk_matrix        M, G;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomProductsContext(A, &c));
  PetscCall(PetscObjectTypeCompare((PetscObject)c->local, MATSEQBSRCUSTOM, &ours[0]));
  PetscCall(PetscObjectTypeCompare((PetscObject)c->ghost, MATSEQBSRCUSTOM, &ours[1]));
  if (!ours[0] || !ours[1]) {
    PetscCall(PetscInfo(A, "MatProduct AB with %s: one MatMult per column (blocks that are not %s)\n", ((PetscObject)B)->type_name, MATSEQBSRCUSTOM));
    PetscCall(MatBSRCustomProductByColumns_Private(A, B, C));
  } else {
    PetscCall(MatMPIBSRCustomBlocksFollowState_Private(A, c->local, c->ghost));
    PetscCall(MatSeqBSRCustomPrepare_Private(c->local, &M));
    PetscCall(MatSeqBSRCustomPrepare_Private(c->ghost, &G));
    PetscCall(MatGetSize(B, NULL, &k));
    m = B->rmap->n;
    PetscCall(MPIDenseProductSetUp(A, c, p, k, m));
    PetscCall(MatDenseGetLDA(B, &ldx));
    PetscCall(MatDenseGetLDA(C, &ldy));
    PetscCall(MatDenseGetArrayRead(B, &x));
    root = x;
    if (ldx != m && k > 1) { /* the SF's roots are the columns back to back */
      if (!p->root) PetscCall(PetscMalloc1(m * k, &p->root));
      for (PetscInt j = 0; j < k; j++) PetscCall(PetscArraycpy(p->root + j * m, x + j * ldx, m));
      root = p->root;
    }
    PetscCall(PetscSFBcastBegin(p->sf, MPIU_SCALAR, root, p->ghost, MPI_REPLACE));
    PetscCall(MatDenseGetArrayWrite(C, &y));
    PetscCall((*c->backend->spmm_split_begin)(c->local, &M, c->ghost, &G, k, x, ldx, y, ldy));
    PetscCall(PetscSFBcastEnd(p->sf, MPIU_SCALAR, root, p->ghost, MPI_REPLACE));
    PetscCall((*c->backend->spmm_split_end)(c->local, &M, c->ghost, &G, k, p->ghost, PetscMax(p->nghost_rows, 1), y, ldy));
    PetscCall(MatDenseRestoreArrayWrite(C, &y));
    PetscCall(MatDenseRestoreArrayRead(B, &x));
  }
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductSymbolic_MPIBSRCustom_MPIDense(Mat C)
{
  Mat              A = C->product->A, B = C->product->B;
  PetscBool        isdense;
  MPIDenseProduct *p;

  PetscFunctionBegin;
  PetscCheck(A->cmap->n == B->rmap->n && A->cmap->rstart == B->rmap->rstart, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "B's rows on this rank (%" PetscInt_FMT " from %" PetscInt_FMT ") are not A's columns (%" PetscInt_FMT " from %" PetscInt_FMT ")",
             B->rmap->n, B->rmap->rstart, A->cmap->n, A->cmap->rstart);
  PetscCall(MatSetSizes(C, A->rmap->n, B->cmap->n, A->rmap->N, B->cmap->N));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)C, &isdense, MATSEQDENSE, MATMPIDENSE, ""));
  if (!isdense) PetscCall(MatSetType(C, ((PetscObject)B)->type_name));
  PetscCall(MatSetUp(C));
  PetscCall(PetscNew(&p));
  C->product->data        = p;
  C->product->destroy     = MPIDenseProductDestroy;
  C->ops->productsymbolic = MatProductSymbolic_MPIBSRCustom_MPIDense;
  C->ops->productnumeric  = MatProductNumeric_MPIBSRCustom_MPIDense;
  PetscCall(
    PetscInfo(C, "MatProduct AB of %s with %s (%" PetscInt_FMT " columns): %s; ghost rows of B gathered by one SF for all columns\n", ((PetscObject)A)->type_name, ((PetscObject)B)->type_name, B->cmap->N, ((Mat_MPIBSRCustom *)A->spptr)->backend->mpi_spmm_text));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductSetFromOptions_MPIBSRCustom_MPIDense(Mat C)
{
  PetscFunctionBegin;
  if (C->product->type == MATPRODUCT_AB) C->ops->productsymbolic = MatProductSymbolic_MPIBSRCustom_MPIDense;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomProductsInstall_Private(Mat A, PetscBool install)
{
  Mat_MPIBSRCustom         *c   = (Mat_MPIBSRCustom *)A->spptr;
  MatBSRCustomTransposeOps *ops = &c->baij_transpose_ops;

  PetscFunctionBegin;
  if (install) {
    if (A->ops->multtranspose != MatMultTranspose_MPIBSRCustom) ops->multtranspose = A->ops->multtranspose;
    if (A->ops->multtransposeadd != MatMultTransposeAdd_MPIBSRCustom) ops->multtransposeadd = A->ops->multtransposeadd;
    if (A->ops->multhermitiantranspose != MatMultTranspose_MPIBSRCustom) ops->multhermitiantranspose = A->ops->multhermitiantranspose;
    if (A->ops->multhermitiantransposeadd != MatMultTransposeAdd_MPIBSRCustom) ops->multhermitiantransposeadd = A->ops->multhermitiantransposeadd;
    A->ops->multtranspose    = MatMultTranspose_MPIBSRCustom;
    A->ops->multtransposeadd = MatMultTransposeAdd_MPIBSRCustom;
#if !defined(PETSC_USE_COMPLEX)
    A->ops->multhermitiantranspose    = MatMultTranspose_MPIBSRCustom;
    A->ops->multhermitiantransposeadd = MatMultTransposeAdd_MPIBSRCustom;
#endif
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_mpibsrcustom_mpidense_C", MatProductSetFromOptions_MPIBSRCustom_MPIDense));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_mpibsrcustom_mpidensecuda_C", MatProductSetFromOptions_MPIBSRCustom_MPIDense));
  } else {
    if (A->ops->multtranspose == MatMultTranspose_MPIBSRCustom) A->ops->multtranspose = ops->multtranspose;
    if (A->ops->multtransposeadd == MatMultTransposeAdd_MPIBSRCustom) A->ops->multtransposeadd = ops->multtransposeadd;
    if (A->ops->multhermitiantranspose == MatMultTranspose_MPIBSRCustom) A->ops->multhermitiantranspose = ops->multhermitiantranspose;
    if (A->ops->multhermitiantransposeadd == MatMultTransposeAdd_MPIBSRCustom) A->ops->multhermitiantransposeadd = ops->multhermitiantransposeadd;
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_mpibsrcustom_mpidense_C", NULL));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_mpibsrcustom_mpidensecuda_C", NULL));
  }
  PetscFunctionReturn(0);
}
