/*
   seqbsrcustom's transpose products and products with a dense matrix (issue 30).

   MatMultTranspose(Add) (and the Hermitian ones, the same for real scalars) on the cpu backend run the
   task kernel on a cached transposed copy: A^T's block structure with every block transposed, a plain
   bsrk_matrix with its own fixed-size tasks (kernels/bsrk_transpose.cpp). So y = A^T x reads its
   values in storage order and writes each y row once, at MatMult's speed, where BAIJ's own transpose
   product scatters into y serially. The copy is built at the first transpose product and again
   whenever the block structure changes (Mat_SeqBSRCustom::structure_generation); when only the values
   changed (A's object state) they are copied through the stored block permutation. It costs the
   matrix's memory again (plus an index per block); -mat_bsrcustom_transpose baij gives it back and
   runs BAIJ's code.

   On the GPU backends the same copy is uploaded as a second device matrix and the transpose product
   runs our kernels on it (auto: the copy's own choice), on host or CUDA vectors as MatMult does
   (backends/gpu/seqbsrcustomgpu.c): its structure is uploaded when the copy is (re)built, its values when they
   were refreshed. The refresh stays on the host (the permutation copy, then one upload of the values):
   the values come from the host matrix anyway (A's own device copy is uploaded from it too), so a
   device-side permutation would save only a host pass over memory, for a second code path to keep
   equal to this one. The host copy thus stays too (the matrix's memory again on the host and on the
   device).

   MatProduct AB with a seqdense B (MatMatMult, KSPMatSolve): the block SpMM of the kernel layer, one
   pass over the matrix for the k columns, on A's own tasks, honouring both leading dimensions; on
   the GPU backends the GPU's block SpMM (backends/gpu/seqbsrcustomgpu.c, cuda/bsrcuda_spmm.cu), on device arrays
   for a seqdensecuda B of a CUDA PETSc.
*/
#include "seqbsrcustomimpl.h"
#include "bsrk_products.h"
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h>

typedef struct {
  bsrk_transpose      T;
  PetscBool           built;
  PetscInt            structure_generation; /* A's, when T's structure was built */
  PetscObjectState    values_state;         /* A's object state when T's values were copied */
  PetscInt            builds, refreshes;
  MatSeqBSRCustomKept kept; /* T as the backends run it: its view, ids, and what each keeps for it */
  const char         *path; /* the path of the last transpose product (-info says when it changes) */
} SeqTransposeCopy;

static const char *const BAIJTransposePath = "BAIJ's serial transpose product";

/* frees the transposed copy; all: the context too */
static PetscErrorCode SeqTransposeCopyFree(Mat A, PetscBool all)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  SeqTransposeCopy *t = (SeqTransposeCopy *)b->transpose;

  PetscFunctionBegin;
  if (!t) PetscFunctionReturn(0);
  PetscCall((*MatBSRCustomBackendOf_Private(&b->set, PETSC_FALSE)->release)(A, &t->kept));
  PetscCall(MatSeqBSRCustomCPUKeptFree_Private(&t->kept));
  bsrk_transpose_free(&t->T);
  t->built = PETSC_FALSE;
  if (all) PetscCall(PetscFree(b->transpose));
  PetscFunctionReturn(0);
}

/* the context, made at its first use */
static PetscErrorCode SeqTransposeCopyContext(Mat A, SeqTransposeCopy **copy)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (!b->transpose) {
    SeqTransposeCopy *t;
    PetscCall(PetscNew(&t));
    bsrk_team_init(&t->kept.team);
    t->kept.tasks_wanted  = -1;
    t->kept.dev.structure = -1;
    t->kept.what          = "The transposed copy";
    b->transpose          = t;
  }
  *copy = (SeqTransposeCopy *)b->transpose;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomTransposeKept_Private(Mat A, MatSeqBSRCustomKept **k)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  *k = b->transpose ? &((SeqTransposeCopy *)b->transpose)->kept : NULL;
  PetscFunctionReturn(0);
}

/* The copy in step with A: structure rebuilt after a structure change, values after a value change. */
static PetscErrorCode SeqTransposeCopyUpdate(Mat A, SeqTransposeCopy **copy)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  SeqTransposeCopy *t = NULL;
  bsrk_matrix       M;
  PetscObjectState  state;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomPrepare_Private(A, &M)); /* A's tasks and structure generation first */
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  PetscCall(SeqTransposeCopyContext(A, &t));
  if (!t->built || t->structure_generation != b->structure_generation || t->T.nblocks != M.rowptr[M.nbrows] || t->T.M.nbcols != M.nbrows || t->T.M.nbrows != M.nbcols) {
    PetscCall(PetscLogEventBegin(MATBSRCUSTOM_PartitionBuild, A, 0, 0, 0));
    t->built = PETSC_FALSE;
    PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_transpose_build(&M, &t->T), "the transposed copy"));
    t->kept.M                  = t->T.M;
    t->kept.nonzero_block_rows = 0;
    for (PetscInt i = 0; i < t->T.M.nbrows; i++) t->kept.nonzero_block_rows += (t->T.rowptr[i + 1] > t->T.rowptr[i]);
    t->built                = PETSC_TRUE;
    t->structure_generation = b->structure_generation;
    t->values_state         = state;
    t->builds++;
    t->kept.structure = t->builds;
    t->kept.values++;
    PetscCall(PetscLogEventEnd(MATBSRCUSTOM_PartitionBuild, A, 0, 0, 0));
    PetscCall(PetscInfo(A, "Built the transposed copy for MatMultTranspose: %" PetscInt_FMT " blocks in %" PetscInt_FMT " block rows (bs %" PetscInt_FMT "), %.3g MiB\n", (PetscInt)t->T.nblocks, (PetscInt)t->T.M.nbrows, (PetscInt)M.bs, (double)t->T.nblocks * (double)(M.bs * M.bs * sizeof(PetscScalar) + 2 * sizeof(bsrk_idx)) / 1048576.0));
  } else if (t->values_state != state) {
    PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_transpose_values(&M, &t->T, (int)b->set.nthreads), "the transposed copy's values"));
    t->values_state = state;
    t->refreshes++;
    t->kept.values++;
  }
  *copy = t;
  PetscFunctionReturn(0);
}

/* -info: which path the transpose products take, said when it changes */
static PetscErrorCode SeqTransposeSayPath(Mat A, const char *path)
{
  SeqTransposeCopy *t = NULL;

  PetscFunctionBegin;
  PetscCall(SeqTransposeCopyContext(A, &t));
  if (t->path != path) {
    t->path = path;
    PetscCall(PetscInfo(A, "MatMultTranspose runs %s\n", path));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomTransposeApply_Private(Mat A, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  SeqTransposeCopy *t = NULL;

  PetscFunctionBegin;
  if (b->set.transpose == MAT_BSRCUSTOM_TRANSPOSE_BAIJ) { /* BAIJ's, on host arrays (it logs its flops) */
    MatBSRCustomTransposeOps *ops = &b->baij_transpose_ops;
    PetscCheck(alpha == (PetscScalar)1.0 && (beta == (PetscScalar)0.0 || beta == (PetscScalar)1.0), PETSC_COMM_SELF, PETSC_ERR_SUP, "BAIJ's transpose products take alpha 1 and beta 0 or 1");
    if (b->transpose && ((SeqTransposeCopy *)b->transpose)->built) {
      PetscCall(PetscInfo(A, "Freed the transposed copy: MatMultTranspose runs %s (-mat_bsrcustom_transpose baij)\n", BAIJTransposePath));
      PetscCall(SeqTransposeCopyFree(A, PETSC_FALSE));
    }
    PetscCall(SeqTransposeSayPath(A, BAIJTransposePath));
    if (beta == (PetscScalar)0.0) PetscCall((*ops->multtranspose)(A, x, out));
    else PetscCall((*ops->multtransposeadd)(A, x, in, out));
    PetscFunctionReturn(0);
  }
  PetscCall(SeqTransposeSayPath(A, b->backend->transpose_path));
  PetscCall(SeqTransposeCopyUpdate(A, &t));
  PetscCall((*b->backend->kept_apply)(A, &t->kept, alpha, x, beta, in, out, between));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultTranspose_SeqBSRCustom(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomTransposeApply_Private(A, 1.0, x, 0.0, NULL, y, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultTransposeAdd_SeqBSRCustom(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomTransposeApply_Private(A, 1.0, x, 1.0, y, z, NULL));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomTransposeView_Private(Mat A, PetscViewer viewer)
{
  Mat_SeqBSRCustom *b     = (Mat_SeqBSRCustom *)A->spptr;
  SeqTransposeCopy *t     = (SeqTransposeCopy *)b->transpose;
  const PetscBool   built = (PetscBool)(t && t->built);

  PetscFunctionBegin;
  PetscCall((*b->backend->transpose_view)(A, built ? &t->kept : NULL, (PetscBool)(b->set.transpose == MAT_BSRCUSTOM_TRANSPOSE_BAIJ), built ? t->builds : 0, built ? t->refreshes : 0, viewer));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomProductByColumns_Private(Mat A, Mat B, Mat C)
{
  PetscInt N;

  PetscFunctionBegin;
  PetscCall(MatGetSize(B, NULL, &N));
  for (PetscInt j = 0; j < N; j++) {
    Vec x, y;
    PetscCall(MatDenseGetColumnVecRead(B, j, &x));
    PetscCall(MatDenseGetColumnVecWrite(C, j, &y));
    PetscCall(MatMult(A, x, y));
    PetscCall(MatDenseRestoreColumnVecRead(B, j, &x));
    PetscCall(MatDenseRestoreColumnVecWrite(C, j, &y));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductNumeric_SeqBSRCustom_SeqDense(Mat C)
{
  Mat         A = C->product->A, B = C->product->B;
  bsrk_matrix M;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomPrepare_Private(A, &M));
  PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->backend->spmm)(A, &M, B, C));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductSymbolic_SeqBSRCustom_SeqDense(Mat C)
{
  Mat       A = C->product->A, B = C->product->B;
  PetscBool isdense;

  PetscFunctionBegin;
  PetscCheck(A->cmap->n == B->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "A has %" PetscInt_FMT " columns, B %" PetscInt_FMT " rows", A->cmap->n, B->rmap->n);
  PetscCall(MatSetSizes(C, A->rmap->n, B->cmap->n, A->rmap->N, B->cmap->N));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)C, &isdense, MATSEQDENSE, MATMPIDENSE, ""));
  if (!isdense) PetscCall(MatSetType(C, ((PetscObject)B)->type_name));
  PetscCall(MatSetUp(C));
  C->ops->productsymbolic = MatProductSymbolic_SeqBSRCustom_SeqDense;
  C->ops->productnumeric  = MatProductNumeric_SeqBSRCustom_SeqDense;
  PetscCall(PetscInfo(C, "MatProduct AB of %s with %s (%" PetscInt_FMT " columns): block SpMM on the %s backend, one pass over the matrix for all columns\n", ((PetscObject)A)->type_name, ((PetscObject)B)->type_name, B->cmap->N,
                      ((Mat_SeqBSRCustom *)A->spptr)->backend->name));
  PetscFunctionReturn(0);
}

/* composed as MatProductSetFromOptions_seqbsrcustom_seqdense_C (and _seqdensecuda_C: a CUDA PETSc's
   dense matrices, whose device arrays the GPU backends use): AB is ours, the other types PETSc's
   fallbacks (AtB runs MatMultTranspose per column, which is ours) */
static PetscErrorCode MatProductSetFromOptions_SeqBSRCustom_SeqDense(Mat C)
{
  PetscFunctionBegin;
  if (C->product->type == MATPRODUCT_AB) C->ops->productsymbolic = MatProductSymbolic_SeqBSRCustom_SeqDense;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomProductsInstall_Private(Mat A, PetscBool install)
{
  Mat_SeqBSRCustom         *b   = (Mat_SeqBSRCustom *)A->spptr;
  MatBSRCustomTransposeOps *ops = &b->baij_transpose_ops;

  PetscFunctionBegin;
  if (install) {
    /* what BAIJ installed (again, after a preallocation): kept for the baij mode and the GPU backends */
    if (A->ops->multtranspose != MatMultTranspose_SeqBSRCustom) ops->multtranspose = A->ops->multtranspose;
    if (A->ops->multtransposeadd != MatMultTransposeAdd_SeqBSRCustom) ops->multtransposeadd = A->ops->multtransposeadd;
    if (A->ops->multhermitiantranspose != MatMultTranspose_SeqBSRCustom) ops->multhermitiantranspose = A->ops->multhermitiantranspose;
    if (A->ops->multhermitiantransposeadd != MatMultTransposeAdd_SeqBSRCustom) ops->multhermitiantransposeadd = A->ops->multhermitiantransposeadd;
    A->ops->multtranspose    = MatMultTranspose_SeqBSRCustom;
    A->ops->multtransposeadd = MatMultTransposeAdd_SeqBSRCustom;
#if !defined(PETSC_USE_COMPLEX)
    A->ops->multhermitiantranspose    = MatMultTranspose_SeqBSRCustom; /* real scalars: the same product */
    A->ops->multhermitiantransposeadd = MatMultTransposeAdd_SeqBSRCustom;
#endif
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqdense_C", MatProductSetFromOptions_SeqBSRCustom_SeqDense));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqdensecuda_C", MatProductSetFromOptions_SeqBSRCustom_SeqDense));
  } else {
    if (A->ops->multtranspose == MatMultTranspose_SeqBSRCustom) A->ops->multtranspose = ops->multtranspose;
    if (A->ops->multtransposeadd == MatMultTransposeAdd_SeqBSRCustom) A->ops->multtransposeadd = ops->multtransposeadd;
    if (A->ops->multhermitiantranspose == MatMultTranspose_SeqBSRCustom) A->ops->multhermitiantranspose = ops->multhermitiantranspose;
    if (A->ops->multhermitiantransposeadd == MatMultTransposeAdd_SeqBSRCustom) A->ops->multhermitiantransposeadd = ops->multhermitiantransposeadd;
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqdense_C", NULL));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqdensecuda_C", NULL));
    PetscCall(SeqTransposeCopyFree(A, PETSC_TRUE));
  }
  PetscFunctionReturn(0);
}
