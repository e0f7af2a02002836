/*
   The GPU backends of MATSEQBSRCUSTOM (cuda: our kernels; cusparse: the baseline), over the
   PETSc-free CUDA layer (cuda/bsrcuda.h): the entries of their tables (bsrcustomgpu.c) for a seq
   matrix, and the halves of an MPI matrix's products that run on its blocks' device copies. The device copy follows the host matrix lazily:
   the structure is uploaded when the block structure changed since the last upload, the values when
   the matrix's object state changed (MatSetValues + assembly, MatScale, MatCopy, ...), never on a
   MatMult of an unchanged matrix.

   Vectors: with host vectors (Debian's PETSc has no other kind) x is staged to the device and y back
   through pinned buffers on the matrix's stream, or, once a large vector's array is page-locked (on
   its second use, bsrcustomvecpin.c), moved by DMA straight from/to that array; where PETSc hands
   out device arrays (VecGet...AndMemType on CUDA vectors) they are used directly, with no copies.

   Which GPU (bsrcustomcudabind.c) and the page-locking of host vectors (bsrcustomvecpin.c) are the
   package's, shared with MATMPIBSRCUSTOM. A build without CUDA keeps these entry points; they report
   that the GPU backends are missing.
*/
#include "seqbsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuseq.h>

#if defined(BSRCUSTOM_HAVE_CUDA)
  #include "bsrcuda.h"

/* Flops of a GPU product, counted once: as GPU flops (PETSc adds them to the total too), or, where
   this PETSc keeps no GPU log (Debian's 3.18 has no PETSc device, and there PetscLogGpuFlops counts
   nothing), as plain flops, so that -log_view shows them on either */
PETSC_INTERN PetscErrorCode MatBSRCustomLogDeviceFlops_Private(PetscLogDouble flops)
{
  PetscFunctionBegin;
  #if defined(PETSC_HAVE_DEVICE)
  PetscCall(PetscLogGpuFlops(flops));
  #else
  PetscCall(PetscLogFlops(flops));
  #endif
  PetscFunctionReturn(0);
}

/* CUDA layer status (a bsrc_cuda_status) -> PETSc error, with the layer's message msg (CUDA / cuSPARSE
   text included) */
PETSC_INTERN PetscErrorCode MatBSRCustomCUDAStatusCheck_Private(int status, const char *msg, const char *what)
{
  const bsrc_cuda_status st = (bsrc_cuda_status)status;

  PetscFunctionBegin;
  if (!msg) msg = "";
  switch (st) {
  case BSRC_CUDA_OK:
    break;
  case BSRC_CUDA_ERR_MEM:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "%s: out of GPU (or pinned host) memory: %s", what, msg);
  case BSRC_CUDA_ERR_NODEVICE:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "%s: no usable CUDA device: %s", what, msg);
  case BSRC_CUDA_ERR_ARG:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %s", what, msg);
  case BSRC_CUDA_ERR_CUSPARSE:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_GPU, "%s: cuSPARSE: %s", what, msg);
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_GPU, "%s: CUDA: %s", what, msg);
  }
  PetscFunctionReturn(0);
}

/* the same for a call on the device matrix g (NULL: none) */
static PetscErrorCode BSRCudaCheckOn(const void *g, bsrc_cuda_status st, const char *what)
{
  const char *msg = bsrc_cuda_last_error((const bsrc_cuda_matrix *)g);

  PetscFunctionBegin;
  if (!msg) msg = bsrc_cuda_last_error(NULL);
  PetscCall(MatBSRCustomCUDAStatusCheck_Private(st, msg, what));
  PetscFunctionReturn(0);
}

/* the same for a call on A's own device matrix */
static PetscErrorCode BSRCudaCheck(Mat A, bsrc_cuda_status st, const char *what)
{
  PetscFunctionBegin;
  PetscCall(BSRCudaCheckOn(((Mat_SeqBSRCustom *)A->spptr)->held->gpu.matrix, st, what));
  PetscFunctionReturn(0);
}

/* how each product works, as MatView says it, indexed by bsrc_cuda_kernel */
  #define BSRC_KERNEL_WHAT(id, name, what) what,
static const char *const BSRCKernelLayouts[BSRC_CUDA_KERNEL_COUNT] = {"chosen per matrix", BSRC_CUDA_OWN_KERNELS(BSRC_KERNEL_WHAT) BSRC_CUDA_CUSPARSE_KERNELS(BSRC_KERNEL_WHAT)};
  #undef BSRC_KERNEL_WHAT

static bsrc_cuda_kernel MatSeqBSRCustomCUDAKernelChoice(const MatBSRCustomSettings *set)
{
  if (set->backend == MAT_BSRCUSTOM_BACKEND_CUSPARSE) return set->cusparse_alg == MAT_BSRCUSTOM_CUSPARSE_SPMV ? BSRC_CUDA_KERNEL_CUSPARSE_SPMV_BSR : BSRC_CUDA_KERNEL_CUSPARSE_BSRMV;
  /* both enums follow bsrcuda_kernel_list.h (checked in options/bsrcustomsettings.c) */
  return (bsrc_cuda_kernel)set->cuda_kernel;
}

/*
   A device matrix of A's (its own copy, or the transposed copy of seqbsrcustomtranspose.c) brought up
   to date with the host matrix M: made on the device the settings name (again after a change of
   device), M's structure uploaded when `structure` differs from *uploaded (the one it holds), the values
   then and whenever values_changed. what names the matrix in messages.
*/
static PetscErrorCode MatSeqBSRCustomCUDASync(Mat A, const bsrk_matrix *M, void **gpu, PetscInt *gpu_device, PetscInt structure, PetscInt *uploaded, PetscBool values_changed, const char *what)
{
  Mat_SeqBSRCustom *b      = (Mat_SeqBSRCustom *)A->spptr;
  PetscBool         values = values_changed;
  PetscInt          device;
  char              how[128];

  PetscFunctionBegin;
  PetscCall(MatBSRCustomCUDAAvailable_Private(A, "bsrcustom GPU backend"));
  PetscCall(MatBSRCustomCUDADevice_Private(b->set.cuda_device, &device, how, sizeof(how)));
  if (*gpu && *gpu_device != device) { /* MatBSRCustomSetCUDADevice() moved it */
    bsrc_cuda_destroy((bsrc_cuda_matrix *)*gpu);
    *gpu = NULL;
  }
  if (!*gpu) {
    bsrc_cuda_matrix *g = NULL;
    PetscCall(BSRCudaCheckOn(NULL, bsrc_cuda_create((int)device, &g), "creating the device matrix"));
    *gpu        = g;
    *gpu_device = device;
    *uploaded   = -1;
    PetscCall(PetscInfo(A, "%s on CUDA device %" PetscInt_FMT " (%s)\n", what, device, how));
  }
  if (*uploaded != structure) {
    PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Upload, A, 0, 0, 0));
    PetscCall(PetscLogEventBegin(MATBSRCUSTOM_UploadStructure, A, 0, 0, 0));
    PetscCall(BSRCudaCheckOn(*gpu, bsrc_cuda_set_structure((bsrc_cuda_matrix *)*gpu, M->nbrows, M->nbcols, M->bs, M->rowptr, M->colidx), "uploading the block structure"));
    PetscCall(PetscLogCpuToGpu((M->nbrows + 1.0 + M->rowptr[M->nbrows]) * sizeof(bsrk_idx)));
    PetscCall(PetscLogEventEnd(MATBSRCUSTOM_UploadStructure, A, 0, 0, 0));
    PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Upload, A, 0, 0, 0));
    *uploaded = structure;
    values    = PETSC_TRUE;
    {
      bsrc_cuda_kernel k = bsrc_cuda_auto_kernel((bsrc_cuda_matrix *)*gpu);
      PetscCall(PetscInfo(A, "%s: uploaded %" PetscInt_FMT " blocks (bs %" PetscInt_FMT "); auto chooses the %s kernel\n", what, (PetscInt)M->rowptr[M->nbrows], (PetscInt)M->bs, bsrc_cuda_kernel_names[k]));
    }
  }
  if (values) {
    PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Upload, A, 0, 0, 0));
    PetscCall(BSRCudaCheckOn(*gpu, bsrc_cuda_set_values((bsrc_cuda_matrix *)*gpu, M->values), "uploading the values"));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)M->rowptr[M->nbrows] * M->bs * M->bs * sizeof(double)));
    PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Upload, A, 0, 0, 0));
  }
  PetscFunctionReturn(0);
}

/* A's own device copy, brought up to date with the host matrix M. */
static PetscErrorCode MatSeqBSRCustomCUDAUpdate(Mat A, const bsrk_matrix *M)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  PetscObjectState  state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  PetscCall(MatSeqBSRCustomCUDASync(A, M, &b->held->gpu.matrix, &b->held->gpu.device, b->structure_generation, &b->held->gpu.structure, (PetscBool)(state != b->held->gpu.values_state), "The device matrix"));
  b->held->gpu.values_state = state;
  b->held->gpu.coo_fresh    = PETSC_FALSE; /* seqbsrcustomgpucoo.c: the state it kept is superseded */
  PetscFunctionReturn(0);
}

/* A's own device copy (a bsrc_cuda_matrix, on device *device), brought up to date with the host matrix M */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUOwnCopy_Private(Mat A, const bsrk_matrix *M, void **gpu, PetscInt *device)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomCUDAUpdate(A, M));
  *gpu    = b->held->gpu.matrix;
  *device = b->held->gpu.device;
  PetscFunctionReturn(0);
}

/*
   out = alpha*M*x + beta*in on the device matrix g (on device gpu_device) that holds M for A: A's own
   copy or its transposed copy, with the kernel A's settings choose (auto: g's own choice); logs M's
   flops (nonzero_block_rows: M's non-empty block rows) as GPU flops.
*/
static PetscErrorCode MatSeqBSRCustomCUDARun(Mat A, void *g, PetscInt gpu_device, const bsrk_matrix *M, PetscInt nonzero_block_rows, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out)
{
  Mat_SeqBSRCustom  *b = (Mat_SeqBSRCustom *)A->spptr;
  bsrc_cuda_kernel   k = MatSeqBSRCustomCUDAKernelChoice(&b->set);
  const PetscScalar *xa, *ina = NULL;
  PetscScalar       *outa;
  PetscMemType       mx, mo, mi;
  PetscBool          device, plain = PETSC_FALSE;

  PetscFunctionBegin;
  /* VECSEQ/VECMPI, the vectors whose arrays are host memory (the bsrc_cuda_multadd_host branch
     below), are page-locked on their second use; other types are left alone */
  PetscCall(MatBSRCustomCUDAPinProductVecs_Private(b->set.cuda_pin_vectors, x, beta, in, out));
  /* device arrays where PETSc has them (a CUDA-enabled PETSc); host arrays otherwise */
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  if (beta == (PetscScalar)0.0) PetscCall(VecGetArrayWriteAndMemType(out, &outa, &mo));
  else PetscCall(VecGetArrayAndMemType(out, &outa, &mo));
  if (beta != (PetscScalar)0.0 && in != out) PetscCall(VecGetArrayReadAndMemType(in, &ina, &mi));
  else mi = mo; /* in unread (beta 0) or out itself: it does not decide where the product runs */
  if (beta != (PetscScalar)0.0 && in == out) ina = outa;
  device = (PetscBool)(!PetscMemTypeHost(mx) && !PetscMemTypeHost(mo) && !PetscMemTypeHost(mi));
  if (!device && (!PetscMemTypeHost(mx) || !PetscMemTypeHost(mo) || !PetscMemTypeHost(mi))) {
    /* mixed: give everything back and take host arrays */
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
    if (beta == (PetscScalar)0.0) PetscCall(VecRestoreArrayWriteAndMemType(out, &outa));
    else PetscCall(VecRestoreArrayAndMemType(out, &outa));
    if (beta != (PetscScalar)0.0 && in != out) PetscCall(VecRestoreArrayReadAndMemType(in, &ina));
    PetscCall(VecGetArrayRead(x, &xa));
    if (beta == (PetscScalar)0.0) PetscCall(VecGetArrayWrite(out, &outa));
    else PetscCall(VecGetArray(out, &outa));
    ina = NULL;
    if (beta != (PetscScalar)0.0) {
      if (in != out) PetscCall(VecGetArrayRead(in, &ina));
      else ina = outa;
    }
    plain = PETSC_TRUE;
  }
  if (device) {
    /* device arrays (PETSc's CUDA vectors): queued on PETSc's current stream, behind the vector
       kernels that filled x and in and ahead of those that read out; nothing waits here */
    void    *stream;
    PetscInt petsc_device;

    PetscCall(MatBSRCustomNoteVectors_Private(A, x, PETSC_TRUE));
    PetscCall(MatBSRCustomPETScDeviceId_Private(&petsc_device));
    PetscCheck(petsc_device < 0 || petsc_device == gpu_device, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The vectors live on CUDA device %" PetscInt_FMT " (PETSc's) and the matrix on device %" PetscInt_FMT " (-mat_bsrcustom_cuda_device): leave the option out or give PETSc the same device (-device_select_cuda)", petsc_device, gpu_device);
    PetscCall(MatBSRCustomPETScStream_Private(&stream));
    PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Kernel, A, x, out, 0));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(BSRCudaCheckOn(g, bsrc_cuda_multadd_device_on((bsrc_cuda_matrix *)g, k, stream, alpha, xa, beta, ina, outa), "the GPU product"));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Kernel, A, x, out, 0));
  } else {
    PetscCall(MatBSRCustomNoteVectors_Private(A, mx == PETSC_MEMTYPE_HOST ? x : out, PETSC_FALSE));
    PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Kernel, A, x, out, 0));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(BSRCudaCheckOn(g, bsrc_cuda_multadd_host((bsrc_cuda_matrix *)g, k, alpha, xa, beta, ina, outa), "the GPU product"));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Kernel, A, x, out, 0));
    PetscCall(PetscLogCpuToGpu((M->nbcols * M->bs + (beta != (PetscScalar)0.0 ? M->nbrows * M->bs : 0)) * sizeof(PetscScalar)));
    PetscCall(PetscLogGpuToCpu(M->nbrows * M->bs * sizeof(PetscScalar)));
  }
  /* counted once (MatBSRCustomLogDeviceFlops_Private); the same count as the CPU kernel's */
  PetscCall(MatBSRCustomLogDeviceFlops_Private(2.0 * M->rowptr[M->nbrows] * M->bs * M->bs - (beta == (PetscScalar)0.0 ? (PetscLogDouble)nonzero_block_rows * M->bs : 0.0)));
  if (plain) {
    PetscCall(VecRestoreArrayRead(x, &xa));
    if (beta == (PetscScalar)0.0) PetscCall(VecRestoreArrayWrite(out, &outa));
    else PetscCall(VecRestoreArray(out, &outa));
    if (beta != (PetscScalar)0.0 && in != out) PetscCall(VecRestoreArrayRead(in, &ina));
  } else {
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
    if (beta == (PetscScalar)0.0) PetscCall(VecRestoreArrayWriteAndMemType(out, &outa));
    else PetscCall(VecRestoreArrayAndMemType(out, &outa));
    if (beta != (PetscScalar)0.0 && in != out) PetscCall(VecRestoreArrayReadAndMemType(in, &ina));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUApply_Private(Mat A, const bsrk_matrix *M, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomCUDAUpdate(A, M));
  PetscCall(MatSeqBSRCustomCUDARun(A, b->held->gpu.matrix, b->held->gpu.device, M, b->nonzero_block_rows, alpha, x, beta, in, out));
  PetscFunctionReturn(0);
}

/* out = alpha*M*x + beta*in on a device matrix kept for A (its transposed copy), M being the host
   matrix it mirrors: its structure uploaded when `structure` changed, its values when `values` did */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUKeptApply_Private(Mat A, MatSeqBSRCustomKept *k, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between)
{
  MatSeqBSRCustomDeviceMatrix *d = &k->dev;

  PetscFunctionBegin;
  (void)between;
  PetscCall(MatSeqBSRCustomCUDASync(A, &k->M, &d->gpu, &d->device, k->structure, &d->structure, (PetscBool)(k->values != d->values), k->what));
  d->values = k->values;
  PetscCall(MatSeqBSRCustomCUDARun(A, d->gpu, d->device, &k->M, k->nonzero_block_rows, alpha, x, beta, in, out));
  d->products++;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqBSRCustomCUDAKeptFree(MatSeqBSRCustomDeviceMatrix *d)
{
  PetscFunctionBegin;
  bsrc_cuda_destroy((bsrc_cuda_matrix *)d->gpu);
  d->gpu       = NULL;
  d->structure = -1;
  PetscFunctionReturn(0);
}

/* the kernel a kept device matrix runs (auto resolved) and the device memory it holds */
static PetscErrorCode MatSeqBSRCustomCUDAKeptInfo(Mat A, const MatSeqBSRCustomDeviceMatrix *d, const char **kernel, double *mib)
{
  bsrc_cuda_kernel k = MatSeqBSRCustomCUDAKernelChoice(&((Mat_SeqBSRCustom *)A->spptr)->set);

  PetscFunctionBegin;
  if (k == BSRC_CUDA_KERNEL_AUTO && d->gpu) k = bsrc_cuda_auto_kernel((const bsrc_cuda_matrix *)d->gpu);
  *kernel = bsrc_cuda_kernel_names[k];
  *mib    = d->gpu ? bsrc_cuda_device_bytes((const bsrc_cuda_matrix *)d->gpu) / 1048576.0 : 0.0;
  PetscFunctionReturn(0);
}

/*
   An MPI matrix's product on host vectors, one rank: out = Ad*x + beta*in + Ao*ghost_x, where Ad is the
   local block and Ao the ghost block, both on this rank's GPU (the host-staged path: the ghosts travel
   through host memory, PETSc's VecScatter). Begin uploads x (and in) and queues Ad's product, returning
   at once so that the caller's halo exchange runs meanwhile; end uploads ghost_x (its transfer
   overlapping Ad's product), queues Ao's product into the same device y and downloads y once.
*/
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUSplitBegin_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscScalar beta, Vec x, Vec in)
{
  Mat_SeqBSRCustom  *b = (Mat_SeqBSRCustom *)Ad->spptr, *g = (Mat_SeqBSRCustom *)Ao->spptr;
  const PetscScalar *xa, *ina                              = NULL;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x, &xa));
  if (beta != (PetscScalar)0.0) PetscCall(VecGetArrayRead(in, &ina));
  PetscCall(MatSeqBSRCustomCUDAUpdate(Ad, M));
  if (Ao->cmap->n > 0) {
    PetscCall(MatSeqBSRCustomCUDAUpdate(Ao, G));
    PetscCheck(g->held->gpu.device == b->held->gpu.device, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The ghost block is on CUDA device %" PetscInt_FMT " and the local block on %" PetscInt_FMT ": give both the same -mat_bsrcustom_cuda_device",
               g->held->gpu.device, b->held->gpu.device);
  }
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Kernel, Ad, x, in, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(BSRCudaCheck(Ad, bsrc_cuda_split_begin((bsrc_cuda_matrix *)b->held->gpu.matrix, MatSeqBSRCustomCUDAKernelChoice(&b->set), 1.0, xa, beta, ina), "the GPU product of the local block"));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Kernel, Ad, x, in, 0));
  PetscCall(VecRestoreArrayRead(x, &xa));
  if (beta != (PetscScalar)0.0) PetscCall(VecRestoreArrayRead(in, &ina));
  PetscCall(PetscLogCpuToGpu((M->nbcols * M->bs + (beta != (PetscScalar)0.0 ? M->nbrows * M->bs : 0)) * sizeof(PetscScalar)));
  PetscCall(MatBSRCustomLogDeviceFlops_Private(2.0 * M->rowptr[M->nbrows] * M->bs * M->bs));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUSplitEnd_Private(Mat Ad, Mat Ao, const bsrk_matrix *G, Vec ghost_x, Vec out)
{
  Mat_SeqBSRCustom  *b = (Mat_SeqBSRCustom *)Ad->spptr, *g = (Mat_SeqBSRCustom *)Ao->spptr;
  const PetscScalar *ga     = NULL;
  PetscScalar       *outa   = NULL;
  const PetscBool    ghosts = (PetscBool)(Ao->cmap->n > 0 && g->held->gpu.matrix);

  PetscFunctionBegin;
  if (ghosts) PetscCall(VecGetArrayRead(ghost_x, &ga));
  PetscCall(VecGetArrayWrite(out, &outa)); /* in (if any) was read at begin: out may alias it */
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Kernel, Ad, ghost_x, out, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(BSRCudaCheck(Ad, bsrc_cuda_split_end((bsrc_cuda_matrix *)b->held->gpu.matrix, ghosts ? (bsrc_cuda_matrix *)g->held->gpu.matrix : NULL, MatSeqBSRCustomCUDAKernelChoice(&g->set), 1.0, ga, outa), "the GPU product of the ghost block"));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Kernel, Ad, ghost_x, out, 0));
  PetscCall(VecRestoreArrayWrite(out, &outa));
  if (ghosts) {
    PetscCall(VecRestoreArrayRead(ghost_x, &ga));
    PetscCall(PetscLogCpuToGpu(Ao->cmap->n * sizeof(PetscScalar)));
    PetscCall(MatBSRCustomLogDeviceFlops_Private(2.0 * G->rowptr[G->nbrows] * G->bs * G->bs));
  }
  PetscCall(PetscLogGpuToCpu(Ad->rmap->n * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}

/* Flops of a block SpMM of k columns (beta 0: the first product of each nonempty row is no add),
   counted once (MatBSRCustomLogDeviceFlops_Private) */
static PetscErrorCode LogSpMMFlops(Mat A, const bsrk_matrix *M, PetscInt k, PetscBool beta_zero)
{
  Mat_SeqBSRCustom    *b     = (Mat_SeqBSRCustom *)A->spptr;
  const PetscLogDouble flops = (PetscLogDouble)k * (2.0 * M->rowptr[M->nbrows] * M->bs * M->bs - (beta_zero ? (PetscLogDouble)b->nonzero_block_rows * M->bs : 0.0));

  PetscFunctionBegin;
  PetscCall(MatBSRCustomLogDeviceFlops_Private(flops));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUProductDense_Private(Mat A, const bsrk_matrix *Mv, Mat B, Mat C)
{
  Mat_SeqBSRCustom  *b   = (Mat_SeqBSRCustom *)A->spptr;
  bsrc_cuda_kernel   one = MatSeqBSRCustomCUDAKernelChoice(&b->set);
  const bsrk_matrix  M   = *Mv;
  const PetscScalar *x;
  PetscScalar       *y;
  PetscInt           k, ldx, ldy;
  PetscBool          device = PETSC_FALSE, plain = PETSC_TRUE;
  #if defined(BSRC_HAVE_PETSC_CUDA)
  PetscMemType mx = PETSC_MEMTYPE_HOST, my = PETSC_MEMTYPE_HOST;
  #endif

  PetscFunctionBegin;
  PetscCall(MatGetSize(B, NULL, &k));
  PetscCall(MatDenseGetLDA(B, &ldx));
  PetscCall(MatDenseGetLDA(C, &ldy));
  PetscCall(MatSeqBSRCustomCUDAUpdate(A, &M));
  #if defined(BSRC_HAVE_PETSC_CUDA)
  /* device arrays where both matrices have them (seqdensecuda), host arrays otherwise */
  PetscCall(MatDenseGetArrayReadAndMemType(B, &x, &mx));
  PetscCall(MatDenseGetArrayWriteAndMemType(C, &y, &my));
  device = (PetscBool)(!PetscMemTypeHost(mx) && !PetscMemTypeHost(my));
  plain  = PETSC_FALSE;
  if (!device && (!PetscMemTypeHost(mx) || !PetscMemTypeHost(my))) { /* mixed: host arrays for both */
    PetscCall(MatDenseRestoreArrayReadAndMemType(B, &x));
    PetscCall(MatDenseRestoreArrayWriteAndMemType(C, &y));
    plain = PETSC_TRUE;
  }
  #endif
  if (plain) {
    PetscCall(MatDenseGetArrayRead(B, &x));
    PetscCall(MatDenseGetArrayWrite(C, &y));
  }
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Kernel, A, B, C, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (device) {
    void    *stream;
    PetscInt petsc_device;

    PetscCall(MatBSRCustomPETScDeviceId_Private(&petsc_device));
    PetscCheck(petsc_device < 0 || petsc_device == b->held->gpu.device, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The dense matrices live on CUDA device %" PetscInt_FMT " (PETSc's) and the matrix on device %" PetscInt_FMT " (-mat_bsrcustom_cuda_device): leave the option out or give PETSc the same device (-device_select_cuda)", petsc_device,
               b->held->gpu.device);
    PetscCall(MatBSRCustomPETScStream_Private(&stream));
    PetscCall(BSRCudaCheck(A, bsrc_cuda_spmm_device_on((bsrc_cuda_matrix *)b->held->gpu.matrix, one, stream, (bsrk_idx)k, 1.0, x, (bsrk_idx)ldx, 0.0, y, (bsrk_idx)ldy), "the block SpMM on the GPU"));
  } else {
    PetscCall(BSRCudaCheck(A, bsrc_cuda_spmm_host((bsrc_cuda_matrix *)b->held->gpu.matrix, one, (bsrk_idx)k, 1.0, x, (bsrk_idx)ldx, 0.0, y, (bsrk_idx)ldy), "the block SpMM on the GPU (host arrays)"));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)k * M.nbcols * M.bs * sizeof(PetscScalar)));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)k * M.nbrows * M.bs * sizeof(PetscScalar)));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Kernel, A, B, C, 0));
  PetscCall(LogSpMMFlops(A, &M, k, PETSC_TRUE));
  b->held->gpu.spmms++;
  PetscCall(PetscInfo(A, "Block SpMM on the GPU, one pass for all %" PetscInt_FMT " columns, on %s arrays\n", k, device ? "device (queued on PETSc's stream)" : "host (copied through the device)"));
  if (plain) {
    PetscCall(MatDenseRestoreArrayRead(B, &x));
    PetscCall(MatDenseRestoreArrayWrite(C, &y));
  }
  #if defined(BSRC_HAVE_PETSC_CUDA)
  else {
    PetscCall(MatDenseRestoreArrayReadAndMemType(B, &x));
    PetscCall(MatDenseRestoreArrayWriteAndMemType(C, &y));
  }
  #endif
  PetscFunctionReturn(0);
}

/* MATMPIBSRCUSTOM's SpMM of one rank on host arrays: Y = Ad X + Ao Xg, begun before B's ghost rows Xg
   have arrived (X: B's local rows, leading dimension ldx; k columns; Y written at the end) and ended
   with them */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUSpMMSplitBegin_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *X, PetscInt ldx, PetscScalar *Y, PetscInt ldy)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)Ad->spptr, *g = (Mat_SeqBSRCustom *)Ao->spptr;

  PetscFunctionBegin;
  (void)Y, (void)ldy;
  PetscCall(MatSeqBSRCustomCUDAUpdate(Ad, M));
  if (Ao->cmap->n > 0) {
    PetscCall(MatSeqBSRCustomCUDAUpdate(Ao, G));
    PetscCheck(g->held->gpu.device == b->held->gpu.device, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The ghost block is on CUDA device %" PetscInt_FMT " and the local block on %" PetscInt_FMT ": give both the same -mat_bsrcustom_cuda_device",
               g->held->gpu.device, b->held->gpu.device);
  }
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Kernel, Ad, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(BSRCudaCheck(Ad, bsrc_cuda_spmm_split_begin((bsrc_cuda_matrix *)b->held->gpu.matrix, (bsrk_idx)k, 1.0, X, (bsrk_idx)ldx), "the block SpMM on the GPU of the local block"));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Kernel, Ad, 0, 0, 0));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)k * M->nbcols * M->bs * sizeof(PetscScalar)));
  PetscCall(LogSpMMFlops(Ad, M, k, PETSC_TRUE));
  b->held->gpu.spmms++;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUSpMMSplitEnd_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *Xg, PetscInt ldg, PetscScalar *Y, PetscInt ldy)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)Ad->spptr, *g = (Mat_SeqBSRCustom *)Ao->spptr;
  const PetscBool   ghosts = (PetscBool)(Ao->cmap->n > 0 && g->held->gpu.matrix);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Kernel, Ao, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(BSRCudaCheck(Ad, bsrc_cuda_spmm_split_end((bsrc_cuda_matrix *)b->held->gpu.matrix, ghosts ? (bsrc_cuda_matrix *)g->held->gpu.matrix : NULL, (bsrk_idx)k, 1.0, Xg, (bsrk_idx)ldg, Y, (bsrk_idx)ldy), "the block SpMM on the GPU of the ghost block"));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Kernel, Ao, 0, 0, 0));
  (void)M;
  if (ghosts) {
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)k * Ao->cmap->n * sizeof(PetscScalar)));
    PetscCall(LogSpMMFlops(Ao, G, k, PETSC_FALSE));
    g->held->gpu.spmms++;
  }
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)k * Ad->rmap->n * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqBSRCustomCUDASpMMView(Mat A, char *text, size_t len)
{
  Mat_SeqBSRCustom *b     = (Mat_SeqBSRCustom *)A->spptr;
  int               lanes = 0, tile = 0;

  PetscFunctionBegin;
  if (b->held->gpu.matrix && bsrc_cuda_spmm_launch_info((bsrc_cuda_matrix *)b->held->gpu.matrix, &lanes, &tile, NULL, NULL) != BSRC_CUDA_OK) lanes = 0; /* no structure on the device: the short line */
  if (lanes) PetscCall(PetscSNPrintf(text, len, "block SpMM on the GPU, one pass for all columns (%d lanes a block row, tiles of %d columns; %" PetscInt_FMT " product(s) so far)", lanes, tile, b->held->gpu.spmms));
  else PetscCall(PetscSNPrintf(text, len, "block SpMM on the GPU, one pass for all columns (not on the device yet; %" PetscInt_FMT " product(s) so far)", b->held->gpu.spmms));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPURelease_Private(Mat A, MatSeqBSRCustomKept *k)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (k) PetscCall(MatSeqBSRCustomCUDAKeptFree(&k->dev));
  else {
    bsrc_cuda_destroy((bsrc_cuda_matrix *)b->held->gpu.matrix);
    b->held->gpu.matrix = NULL;
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUKernelUsed_Private(Mat A, MatBSRCustomCUDAKernel *used)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  bsrc_cuda_kernel  k = MatSeqBSRCustomCUDAKernelChoice(&b->set);

  PetscFunctionBegin;
  if (k == BSRC_CUDA_KERNEL_AUTO && b->held->gpu.matrix) k = bsrc_cuda_auto_kernel((bsrc_cuda_matrix *)b->held->gpu.matrix);
  *used = k <= BSRC_CUDA_KERNEL_LAST_OWN ? (MatBSRCustomCUDAKernel)k : MAT_BSRCUSTOM_CUDA_KERNEL_AUTO;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUView_Private(Mat A, PetscViewer viewer)
{
  Mat_SeqBSRCustom *b       = (Mat_SeqBSRCustom *)A->spptr;
  bsrc_cuda_kernel  k       = MatSeqBSRCustomCUDAKernelChoice(&b->set);
  int               threads = 0, grid = 0;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomViewDeviceVectors_Private(A, viewer));
  if (!b->held->gpu.matrix) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: backend %s, not on the device yet (uploaded at the first product)\n", b->backend->name));
    PetscCall(MatBSRCustomCUDAViewHostVectors_Private(b->set.cuda_pin_vectors, viewer));
    PetscFunctionReturn(0);
  }
  if (k == BSRC_CUDA_KERNEL_AUTO) k = bsrc_cuda_auto_kernel((bsrc_cuda_matrix *)b->held->gpu.matrix);
  if (k <= BSRC_CUDA_KERNEL_LAST_OWN) PetscCall(BSRCudaCheck(A, bsrc_cuda_launch_info((bsrc_cuda_matrix *)b->held->gpu.matrix, k, &threads, &grid, NULL, NULL), "launch info"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: backend %s on CUDA device %d, kernel %s%s (%s; %d threads per block, grid %d), %" PetscInt_FMT " tasks, %.1f MiB on the device\n", b->backend->name, (int)b->held->gpu.device, bsrc_cuda_kernel_names[k],
                                   (b->set.backend == MAT_BSRCUSTOM_BACKEND_CUDA && b->set.cuda_kernel == MAT_BSRCUSTOM_CUDA_KERNEL_AUTO) ? " (chosen by auto)" : "", BSRCKernelLayouts[k], threads, grid,
                                   (PetscInt)bsrc_cuda_task_count((bsrc_cuda_matrix *)b->held->gpu.matrix), bsrc_cuda_device_bytes((bsrc_cuda_matrix *)b->held->gpu.matrix) / 1048576.0));
  PetscCall(MatBSRCustomCUDAViewHostVectors_Private(b->set.cuda_pin_vectors, viewer));
  PetscFunctionReturn(0);
}

/* MatView line of the transpose products on the GPU backends (see MatBSRCustomBackendOps) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUTransposeView_Private(Mat A, const MatSeqBSRCustomKept *k, PetscBool baij, PetscInt builds, PetscInt refreshes, PetscViewer viewer)
{
  char        spmm[256] = "";
  const char *kernel    = NULL;
  double      mib       = 0.0;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomCUDASpMMView(A, spmm, sizeof(spmm)));
  if (baij) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: BAIJ's serial transpose product on the host (-mat_bsrcustom_transpose baij, no extra memory); MatMatMult with a dense matrix: %s\n", spmm));
    PetscFunctionReturn(0);
  }
  if (k && k->dev.gpu) PetscCall(MatSeqBSRCustomCUDAKeptInfo(A, &k->dev, &kernel, &mib));
  if (!kernel) PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: %s (built and uploaded at the first transpose product); MatMatMult with a dense matrix: %s\n", MATBSRCUSTOM_GPU_TRANSPOSE_PATH, spmm));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: %s (kernel %s; %" PetscInt_FMT " blocks in %" PetscInt_FMT " block rows, %.3g MiB on the device; built %" PetscInt_FMT " time(s), values refreshed %" PetscInt_FMT " time(s), %" PetscInt_FMT " product(s) on the GPU); MatMatMult with a dense matrix: %s\n", MATBSRCUSTOM_GPU_TRANSPOSE_PATH, kernel,
                                     (PetscInt)k->M.rowptr[k->M.nbrows], (PetscInt)k->M.nbrows, mib, builds, refreshes, k->dev.products, spmm));
  PetscFunctionReturn(0);
}

#else /* no CUDA in this build: the GPU tables are never chosen (MatBSRCustomBackendCheck_Private
        refuses them first); their entries still say what is missing */

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUApply_Private(Mat A, const bsrk_matrix *M, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between)
{
  PetscFunctionBegin;
  (void)M, (void)alpha, (void)x, (void)beta, (void)in, (void)out, (void)between;
  PetscCall(MatBSRCustomCUDAAvailable_Private(A, "MatMult"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUKeptApply_Private(Mat A, MatSeqBSRCustomKept *k, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between)
{
  PetscFunctionBegin;
  (void)k, (void)alpha, (void)x, (void)beta, (void)in, (void)out, (void)between;
  PetscCall(MatBSRCustomCUDAAvailable_Private(A, "MatMultTranspose"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUProductDense_Private(Mat A, const bsrk_matrix *M, Mat B, Mat C)
{
  PetscFunctionBegin;
  (void)M, (void)B, (void)C;
  PetscCall(MatBSRCustomCUDAAvailable_Private(A, "MatMatMult"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUSplitBegin_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscScalar beta, Vec x, Vec in)
{
  PetscFunctionBegin;
  (void)M, (void)Ao, (void)G, (void)beta, (void)x, (void)in;
  PetscCall(MatBSRCustomCUDAAvailable_Private(Ad, "MatMult"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUSplitEnd_Private(Mat Ad, Mat Ao, const bsrk_matrix *G, Vec ghost_x, Vec out)
{
  PetscFunctionBegin;
  (void)Ao, (void)G, (void)ghost_x, (void)out;
  PetscCall(MatBSRCustomCUDAAvailable_Private(Ad, "MatMult"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUSpMMSplitBegin_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *X, PetscInt ldx, PetscScalar *Y, PetscInt ldy)
{
  PetscFunctionBegin;
  (void)M, (void)Ao, (void)G, (void)k, (void)X, (void)ldx, (void)Y, (void)ldy;
  PetscCall(MatBSRCustomCUDAAvailable_Private(Ad, "MatMatMult"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUSpMMSplitEnd_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *Xg, PetscInt ldg, PetscScalar *Y, PetscInt ldy)
{
  PetscFunctionBegin;
  (void)M, (void)Ao, (void)G, (void)k, (void)Xg, (void)ldg, (void)Y, (void)ldy;
  PetscCall(MatBSRCustomCUDAAvailable_Private(Ad, "MatMatMult"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPURelease_Private(Mat A, MatSeqBSRCustomKept *k)
{
  PetscFunctionBegin;
  (void)A;
  if (k) k->dev.gpu = NULL;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUKernelUsed_Private(Mat A, MatBSRCustomCUDAKernel *used)
{
  PetscFunctionBegin;
  (void)A;
  *used = MAT_BSRCUSTOM_CUDA_KERNEL_AUTO;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUView_Private(Mat A, PetscViewer viewer)
{
  PetscFunctionBegin;
  (void)A, (void)viewer;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUTransposeView_Private(Mat A, const MatSeqBSRCustomKept *k, PetscBool baij, PetscInt builds, PetscInt refreshes, PetscViewer viewer)
{
  PetscFunctionBegin;
  (void)A, (void)k, (void)baij, (void)builds, (void)refreshes, (void)viewer;
  PetscFunctionReturn(0);
}

#endif
