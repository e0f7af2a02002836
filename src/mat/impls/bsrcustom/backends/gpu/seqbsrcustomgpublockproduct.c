/*
   The numeric phase of GAMG's block products (seq/seqbsrcustomgalerkin.c, mpi/mpibsrcustomgalerkin.c)
   on the GPU backends: the plan the cpu backend's symbolic phase made on the host is copied to A's
   device once (cuda/bsrcuda_blockproduct.h) and kept with the plan, which gives it back when it goes
   (a new pattern plans again, so the device copy follows). Each numeric phase then sends P's values,
   computes A P (and P^T A P) on the device and brings C's values back to the host matrix. Only A P
   with rectangular blocks (an AIJ matrix filled on the host) stays on the host.

   A's values are not sent where A's own device copy holds them: a seqbsrcustom's product with its
   own BSR arrays (the seq Galerkin product; GAMG has multiplied with A by then, or the products of
   the solve will need the copy anyway). An MPI product's A (its local rows with the ghost columns
   merged) is given as blocks in the local and ghost blocks' host arrays: they are gathered into one
   host array kept with the device copy and sent each time.
*/
#include "seqbsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuseq.h>
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h> /* MatSeqBSRCustomKernelCheck_Private */

#if defined(BSRCUSTOM_HAVE_CUDA)
  #include "bsrcuda_blockproduct.h"

/* what the plan keeps of ours: the device copy and how it was made */
typedef struct {
  bsrc_cuda_block_product *dev;
  PetscInt                 device;
  PetscBool                a_on_device; /* A's values from A's own device copy */
  PetscScalar             *a_host;      /* A's blocks gathered into one array to be sent, where they live in two (an MPI product) */
} DeviceProduct;

/* called by the kernel layer when the plan goes: plain free, since it cannot report an error */
static void DeviceProductRelease(void *arg)
{
  DeviceProduct *d = (DeviceProduct *)arg;

  if (!d) return;
  bsrc_cuda_block_product_destroy(d->dev);
  free(d->a_host);
  free(d);
}

/* the device copy of plan for A's device and A's source, made (again) where it is missing or differs */
static PetscErrorCode DeviceProductGet(Mat A, bsrk_block_product *plan, const bsrk_rect_matrix *RA, const bsrk_rect_matrix *RP, PetscInt device, PetscBool a_on_device, DeviceProduct **out)
{
  DeviceProduct            *d = (DeviceProduct *)bsrk_block_product_attached(plan);
  bsrk_block_product_layout L;
  bsrc_cuda_block_product  *dev = NULL;

  PetscFunctionBegin;
  if (d && d->device == device && d->a_on_device == a_on_device) {
    *out = d;
    PetscFunctionReturn(0);
  }
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_block_product_get_layout(plan, &L), "the block product's plan"));
  PetscCall(MatBSRCustomCUDAStatusCheck_Private(bsrc_cuda_block_product_create((int)device, &L, RA, RP, (int)a_on_device, &dev), bsrc_cuda_block_product_last_error(NULL), "copying the block product's plan to the GPU"));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)bsrc_cuda_block_product_device_bytes(dev)));
  d = (DeviceProduct *)calloc(1, sizeof(*d));
  if (!d) bsrc_cuda_block_product_destroy(dev);
  PetscCheck(d, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of host memory for the block product's device copy");
  d->dev         = dev;
  d->device      = device;
  d->a_on_device = a_on_device;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_block_product_attach(plan, d, DeviceProductRelease), "keeping the device copy with the plan"));
  PetscCall(PetscInfo(A, "The numeric phase of %s runs on CUDA device %" PetscInt_FMT ": its plan copied there (%.3g MiB); A's values %s\n", L.kind == BSRK_PRODUCT_PTAP ? "P^T A P" : "A P", device, (double)bsrc_cuda_block_product_device_bytes(dev) / 1048576.0, a_on_device ? "from A's own device copy" : "sent from the host at each numeric phase"));
  *out = d;
  PetscFunctionReturn(0);
}

/* A's blocks, which live in two arrays, gathered into one kept with the device copy, as the device
   product reads A (the buffer is the plan's, so only its first fill touches new memory) */
static PetscErrorCode GatherHostBlocks(Mat A, DeviceProduct *d, const bsrk_rect_matrix *RA, const bsrk_block_source *src, const double **values)
{
  const size_t bsize = (size_t)RA->rbs * RA->cbs, nblocks = (size_t)RA->rowptr[RA->nbrows];

  PetscFunctionBegin;
  if (!d->a_host) d->a_host = (PetscScalar *)malloc(nblocks * bsize * sizeof(PetscScalar) + 1);
  PetscCheck(d->a_host, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of host memory for A's blocks of the block product");
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_block_source_gather(src, (int64_t)nblocks, (int64_t)bsize, d->a_host), "gathering A's blocks for the GPU's block product"));
  *values = d->a_host;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUBlockProductNumeric_Private(Mat A, const bsrk_matrix *M, bsrk_block_product *plan, const bsrk_rect_matrix *RA, const bsrk_block_source *A_blocks, const bsrk_rect_matrix *RP, PetscScalar *C_values)
{
  Mat_SeqBSRCustom *b   = (Mat_SeqBSRCustom *)A->spptr;
  void             *gpu = NULL;
  PetscInt          device;
  PetscBool         own;
  bsrk_rect_matrix  C;
  DeviceProduct    *d        = NULL;
  const double     *a_values = RA->values;
  char              how[128];

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_block_product_result(plan, &C), "the block product's result"));
  if (C.rbs != C.cbs) {
    /* A P with rectangular blocks becomes an AIJ matrix filled on the host from these values: they are
       computed there, on A's threads, rather than brought back from the GPU (a transfer of the whole
       result, slower than the host's product) */
    PetscCall(MatSeqBSRCustomCPUBlockProductNumeric_Private(A, M, plan, RA, A_blocks, RP, C_values));
    PetscFunctionReturn(0);
  }
  PetscCall(MatBSRCustomCUDAAvailable_Private(A, "the block products on the GPU"));
  /* RA is A's own BSR (the same arrays): A's device copy holds its values */
  own = (PetscBool)(M && RA->nbrows == M->nbrows && RA->rbs == M->bs && RA->rowptr == M->rowptr && RA->colidx == M->colidx && RA->values == M->values);
  if (own) PetscCall(MatSeqBSRCustomGPUOwnCopy_Private(A, M, &gpu, &device));
  else PetscCall(MatBSRCustomCUDADevice_Private(b->set.cuda_device, &device, how, sizeof(how)));
  PetscCall(DeviceProductGet(A, plan, RA, RP, device, own, &d));
  if (A_blocks) PetscCall(GatherHostBlocks(A, d, RA, A_blocks, &a_values));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBSRCustomCUDAStatusCheck_Private(bsrc_cuda_block_product_numeric(d->dev, (const bsrc_cuda_matrix *)gpu, own ? NULL : a_values, RP->values, C_values), bsrc_cuda_block_product_last_error(d->dev), "the numeric phase of the block product on the GPU"));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogCpuToGpu(((PetscLogDouble)RP->rowptr[RP->nbrows] * RP->rbs * RP->cbs + (own ? 0.0 : (PetscLogDouble)RA->rowptr[RA->nbrows] * RA->rbs * RA->cbs)) * sizeof(PetscScalar)));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)C.rowptr[C.nbrows] * C.rbs * C.cbs * sizeof(PetscScalar)));
  PetscCall(MatBSRCustomLogDeviceFlops_Private(bsrk_block_product_flops(plan)));
  PetscFunctionReturn(0);
}

#else /* no CUDA in this build: the GPU tables are never chosen; the entry still says what is missing */

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUBlockProductNumeric_Private(Mat A, const bsrk_matrix *M, bsrk_block_product *plan, const bsrk_rect_matrix *RA, const bsrk_block_source *A_blocks, const bsrk_rect_matrix *RP, PetscScalar *C_values)
{
  PetscFunctionBegin;
  (void)M, (void)plan, (void)RA, (void)A_blocks, (void)RP, (void)C_values;
  PetscCall(MatBSRCustomCUDAAvailable_Private(A, "the block products on the GPU"));
  PetscFunctionReturn(0);
}

#endif
