/*
   MatSetValuesCOO with the values in device memory (a GPU code's assembly, PetscMemType as
   MATAIJCUSPARSE takes them).

   Where the values are is asked of CUDA (cudaPointerGetAttributes), so a device pointer is seen with
   any PETSc, also one built without CUDA. On a GPU backend the coordinates' values are summed into
   the matrix's device copy there, by a gather plan made once per pattern from the host map (one thread
   a stored value, the same additions in the same order as the host pass: the same bits), and then
   copied once to the host values, which every host path of BAIJ's reads directly; the device copy is
   marked current, so the next product uploads nothing. Elsewhere (the cpu backend, a block of PETSc's
   own type, a build without CUDA where CUDA memory cannot exist) the values are copied to the host
   first and take the host pass.
*/
#include "seqbsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuseq.h>

#if defined(BSRCUSTOM_HAVE_CUDA)
  #include "bsrcuda_coo.h"

PETSC_INTERN PetscErrorCode MatBSRCustomCOOValuesOnDevice_Private(const PetscScalar v[], PetscBool *device)
{
  PetscFunctionBegin;
  *device = (PetscBool)(v && bsrc_cuda_is_device_pointer(v));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCOOHostCopy_Private(const PetscScalar v[], PetscCount n, PetscScalar **host)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, host));
  PetscCall(MatBSRCustomCUDAStatusCheck_Private(bsrc_cuda_copy_to_host(*host, v, (size_t)n), bsrc_cuda_last_error(NULL), "MatSetValuesCOO(): copying the values from device memory"));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)n * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}

/* A's device gather plan, composed on A: made from part `part` of the scatter named id, on a device */
typedef struct {
  bsrc_cuda_coo *plan;
  PetscInt64     id;
  PetscInt       part, device;
} GPUCOOPlan;

static PetscErrorCode GPUCOOPlanDestroy(void *arg)
{
  GPUCOOPlan *p = (GPUCOOPlan *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  bsrc_cuda_coo_destroy(p->plan);
  PetscCall(PetscFree(p));
  PetscFunctionReturn(0);
}

/* jmap/perm of part `part` of sc: its values' sources, each value's in the order given (a value's pairs
   all belong to one thread of sc and are in the order given there, so a stable count by destination
   keeps that order) */
static PetscErrorCode GPUCOOPlanArrays(const MatBSRCustomCOOScatter *sc, PetscInt part, bsrk_idx **jmap, bsrk_idx **perm)
{
  const PetscInt lo = part ? sc->nvals[0] : 0, nv = sc->nvals[part], nruns = sc->roff[sc->nthreads];
  bsrk_idx      *j, *p, *fill;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nv + 1, &j));
  for (PetscInt q = 0; q < sc->off[sc->nthreads]; q++) {
    const PetscInt d = MatBSRCustomCOODst(sc->dst[q]);
    if (d >= lo && d < lo + nv) j[d - lo + 1]++;
  }
  for (PetscInt d = 0; d < nv; d++) j[d + 1] += j[d];
  PetscCall(PetscMalloc1(j[nv], &p));
  PetscCall(PetscMalloc1(nv, &fill));
  PetscCall(PetscArraycpy(fill, j, nv));
  for (PetscInt k = 0; k < nruns; k++) /* the pairs of run k: sources run_src[k] on */
    for (PetscInt q = sc->run[k]; q < sc->run[k + 1]; q++) {
      const PetscInt d = MatBSRCustomCOODst(sc->dst[q]);
      if (d >= lo && d < lo + nv) p[fill[d - lo]++] = (bsrk_idx)(sc->run_src[k] + (q - sc->run[k]));
    }
  PetscCall(PetscFree(fill));
  *jmap = j;
  *perm = p;
  PetscFunctionReturn(0);
}

/* A's plan for part `part` of sc on A's device matrix gpu (device `device`), made where missing or made
   from another scatter or for another device */
static PetscErrorCode GPUCOOPlanGet(Mat A, const MatBSRCustomCOOScatter *sc, PetscInt part, void *gpu, PetscInt device, bsrc_cuda_coo **plan)
{
  PetscContainer container;
  GPUCOOPlan    *p    = NULL;
  bsrk_idx      *jmap = NULL, *perm = NULL;
  bsrc_cuda_coo *made = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, "MatSeqBSRCustomGPUCOO", (PetscObject *)&container));
  if (container) PetscCall(PetscContainerGetPointer(container, (void **)&p));
  if (p && p->id == sc->id && p->part == part && p->device == device) {
    *plan = p->plan;
    PetscFunctionReturn(0);
  }
  PetscCall(GPUCOOPlanArrays(sc, part, &jmap, &perm));
  {
    const bsrc_cuda_status st = bsrc_cuda_coo_create((bsrc_cuda_matrix *)gpu, sc->nvals[part], jmap, perm, &made);
    PetscCall(PetscLogCpuToGpu((sc->nvals[part] + 1.0 + jmap[sc->nvals[part]]) * sizeof(bsrk_idx)));
    PetscCall(PetscFree(jmap));
    PetscCall(PetscFree(perm));
    PetscCall(MatBSRCustomCUDAStatusCheck_Private(st, bsrc_cuda_last_error((bsrc_cuda_matrix *)gpu), "MatSetValuesCOO(): copying the COO map to the GPU"));
  }
  PetscCall(PetscNew(&p));
  p->plan   = made;
  p->id     = sc->id;
  p->part   = part;
  p->device = device;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, p));
  PetscCall(BSRCContainerSetDestroy(container, GPUCOOPlanDestroy));
  PetscCall(PetscObjectCompose((PetscObject)A, "MatSeqBSRCustomGPUCOO", (PetscObject)container)); /* the previous plan goes */
  PetscCall(PetscContainerDestroy(&container));
  PetscCall(PetscInfo(A, "MatSetValuesCOO() from device memory: the COO map of %" PetscInt_FMT " values copied to CUDA device %" PetscInt_FMT " (%.3g MiB)\n", sc->nvals[part], device, (double)bsrc_cuda_coo_device_bytes(made) / 1048576.0));
  *plan = made;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOODeviceValues_Private(Mat A, const bsrk_matrix *Mv, const MatBSRCustomCOOScatter *sc, PetscInt part, PetscInt nv, const PetscScalar v[], PetscInt nr, const PetscScalar r[], InsertMode mode, PetscScalar a[])
{
  bsrk_matrix    M = *Mv;
  void          *gpu;
  PetscInt       device;
  bsrc_cuda_coo *plan = NULL;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomGPUOwnCopy_Private(A, &M, &gpu, &device)); /* ADD_VALUES adds to the values it holds */
  PetscCall(GPUCOOPlanGet(A, sc, part, gpu, device, &plan));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBSRCustomCUDAStatusCheck_Private(bsrc_cuda_coo_set_values((bsrc_cuda_matrix *)gpu, plan, mode == INSERT_VALUES, v, (bsrk_idx)nv, r, (bsrk_idx)nr, a), bsrc_cuda_last_error((bsrc_cuda_matrix *)gpu), "MatSetValuesCOO() on the GPU"));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)nr * sizeof(PetscScalar)));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)sc->nvals[part] * sizeof(PetscScalar)));
  if (part == 0) PetscCall(MatBSRCustomLogDeviceFlops_Private((PetscLogDouble)sc->off[sc->nthreads])); /* every coordinate's add, once, as the host pass counts them */
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOODeviceFollow_Private(Mat A)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &b->held->gpu.values_state));
  b->held->gpu.coo_fresh = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* MatSetValuesCOO() ends with MatAssemblyBegin/End() (PETSc 3.25) or a bare state increase (3.18): after
   the values pass, the state moves once more without a value changing. The assembly is seen here: no
   MatSetValues since (insertmode) and no other change (the state) means the device copy still holds the
   values once MatAssemblyEnd() has increased the state, as it does right after its type's method. A
   later assembly (PETSc 3.18) sees the flag too: the same test holds there. */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOOAssembly_Private(Mat A)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  PetscObjectState  state;

  PetscFunctionBegin;
  if (!b || !b->held->gpu.coo_fresh) PetscFunctionReturn(0);
  b->held->gpu.coo_fresh = PETSC_FALSE;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (A->insertmode == NOT_SET_VALUES && state == b->held->gpu.values_state) b->held->gpu.values_state = state + 1;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOOForget_Private(Mat B)
{
  PetscBool ours;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBSRCUSTOM, &ours));
  if (ours && B->spptr) ((Mat_SeqBSRCustom *)B->spptr)->held->gpu.coo_fresh = PETSC_FALSE;
  PetscFunctionReturn(0);
}

#else /* no CUDA in this build: no memory is device memory to it, and the GPU tables are never chosen */

PETSC_INTERN PetscErrorCode MatBSRCustomCOOValuesOnDevice_Private(const PetscScalar v[], PetscBool *device)
{
  PetscFunctionBegin;
  (void)v;
  *device = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCOOHostCopy_Private(const PetscScalar v[], PetscCount n, PetscScalar **host)
{
  PetscFunctionBegin;
  (void)v, (void)n, (void)host;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "MatSetValuesCOO(): values in device memory need bsrcustom built with CUDA");
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOODeviceValues_Private(Mat A, const bsrk_matrix *Mv, const MatBSRCustomCOOScatter *sc, PetscInt part, PetscInt nv, const PetscScalar v[], PetscInt nr, const PetscScalar r[], InsertMode mode, PetscScalar a[])
{
  PetscFunctionBegin;
  (void)Mv, (void)sc, (void)part, (void)nv, (void)v, (void)nr, (void)r, (void)mode, (void)a;
  PetscCall(MatBSRCustomCUDAAvailable_Private(A, "MatSetValuesCOO() on the GPU"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOODeviceFollow_Private(Mat A)
{
  PetscFunctionBegin;
  (void)A;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOOAssembly_Private(Mat A)
{
  PetscFunctionBegin;
  (void)A;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOOForget_Private(Mat B)
{
  PetscFunctionBegin;
  (void)B;
  PetscFunctionReturn(0);
}
#endif

/* The values v (n of them, on_device as MatBSRCustomCOOValuesOnDevice_Private says) as a star forest
   of this PETSc reads them: v itself, or, for device values and a PETSc whose star forests read host
   memory only (no CUDA in it), a host copy in *host (PetscFree it; NULL when none was made). */
PETSC_INTERN PetscErrorCode MatBSRCustomCOOValuesForSF_Private(const PetscScalar v[], PetscBool on_device, PetscCount n, const PetscScalar **sent, PetscScalar **host)
{
  PetscFunctionBegin;
  *sent = v;
  *host = NULL;
#if !defined(BSRC_HAVE_PETSC_CUDA)
  if (on_device && n > 0) {
    PetscCall(MatBSRCustomCOOHostCopy_Private(v, n, host));
    *sent = *host;
  }
#else
  (void)on_device, (void)n;
#endif
  PetscFunctionReturn(0);
}
