/*
   The device part of COO assembly (bsrcuda_coo.h): the gather plan's arrays on a matrix's device
   and the one kernel that sums each stored value's sources.
*/
#include "bsrcuda_coo.h"
#include "bsrcuda_matrix.cuh"

#include <new>

struct bsrc_cuda_coo {
  int              device = -1;
  int64_t          nvals  = 0;
  bsrc::dev_buffer jmap, perm, recv; /* recv: the received values' device copy, grown as needed */
  size_t           bytes = 0;
};

namespace bsrc {
namespace {

/* a[q] = (insert ? 0 : a[q]) + its sources, in the plan's order: the host pass's additions */
__global__ void coo_gather(int64_t nvals, const bsrk_idx *__restrict__ jmap, const bsrk_idx *__restrict__ perm, const double *__restrict__ v, bsrk_idx nv, const double *__restrict__ r, bool insert, double *__restrict__ a)
{
  for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < nvals; q += (int64_t)gridDim.x * blockDim.x) {
    double s = insert ? 0.0 : a[q];
    for (bsrk_idx k = jmap[q]; k < jmap[q + 1]; ++k) {
      const bsrk_idx e = perm[k];
      s += e < nv ? v[e] : r[e - nv];
    }
    a[q] = s;
  }
}

constexpr int coo_threads = 256;

} // namespace
} // namespace bsrc

extern "C" bsrc_cuda_status bsrc_cuda_coo_create(bsrc_cuda_matrix *M, int64_t nvals, const bsrk_idx *jmap, const bsrk_idx *perm, bsrc_cuda_coo **Cout)
{
  using namespace bsrc;
  if (!Cout) return fail(sink(M), BSRC_CUDA_ERR_ARG, "COO plan: no place for the result");
  *Cout = nullptr;
  if (!M || !M->has_structure) return fail(sink(M), BSRC_CUDA_ERR_ARG, "COO plan: the device matrix has no structure");
  if (nvals != (int64_t)M->nblocks * M->bs * M->bs) return fail(sink(M), BSRC_CUDA_ERR_ARG, "COO plan: %lld values, the device matrix holds %lld", (long long)nvals, (long long)M->nblocks * M->bs * M->bs);
  if (!jmap || (nvals > 0 && jmap[nvals] > 0 && !perm)) return fail(sink(M), BSRC_CUDA_ERR_ARG, "COO plan: jmap or perm is NULL");
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "COO plan: cudaSetDevice");
  bsrc_cuda_coo *C = new (std::nothrow) bsrc_cuda_coo;
  if (!C) return fail(sink(M), BSRC_CUDA_ERR_MEM, "COO plan: out of host memory");
  C->device              = M->device;
  C->nvals               = nvals;
  const size_t     njmap = ((size_t)nvals + 1) * sizeof(bsrk_idx), nperm = (size_t)jmap[nvals] * sizeof(bsrk_idx);
  bsrc_cuda_status s = dev_alloc(C->jmap, njmap, "COO plan: jmap", &C->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(C->perm, nperm, "COO plan: perm", &C->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = upload(M, C->jmap, jmap, njmap, "COO plan: upload of jmap");
  if (s == BSRC_CUDA_OK) s = upload(M, C->perm, perm, nperm, "COO plan: upload of perm");
  if (s != BSRC_CUDA_OK) {
    bsrc_cuda_coo_destroy(C);
    return s;
  }
  *Cout = C;
  return BSRC_CUDA_OK;
}

extern "C" void bsrc_cuda_coo_destroy(bsrc_cuda_coo *C)
{
  if (!C) return;
  bsrc::device_scope ds(C->device);
  bsrc::dev_free(C->jmap, &C->bytes);
  bsrc::dev_free(C->perm, &C->bytes);
  bsrc::dev_free(C->recv, &C->bytes);
  (void)cudaGetLastError();
  delete C;
}

extern "C" size_t bsrc_cuda_coo_device_bytes(const bsrc_cuda_coo *C)
{
  return C ? C->bytes : 0;
}

extern "C" bsrc_cuda_status bsrc_cuda_coo_set_values(bsrc_cuda_matrix *M, bsrc_cuda_coo *C, int insert, const double *v, bsrk_idx nv, const double *r, bsrk_idx nr, double *host_values)
{
  using namespace bsrc;
  if (!M || !C) return fail(sink(M), BSRC_CUDA_ERR_ARG, "COO values: matrix or plan is NULL");
  if (!M->has_structure || C->device != M->device || C->nvals != (int64_t)M->nblocks * M->bs * M->bs) return fail(sink(M), BSRC_CUDA_ERR_ARG, "COO values: the plan is not for this device matrix");
  if ((nv > 0 && !v) || (nr > 0 && !r) || nv < 0 || nr < 0) return fail(sink(M), BSRC_CUDA_ERR_ARG, "COO values: a source array is missing");
  if (!insert && !M->has_values) return fail(sink(M), BSRC_CUDA_ERR_ARG, "COO values: ADD_VALUES needs the device matrix's values set first");
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "COO values: cudaSetDevice");
  bsrc_cuda_status s = join_caller(M, "COO values: ordering after queued products");
  if (s != BSRC_CUDA_OK) return s;
  const size_t rbytes = (size_t)nr * sizeof(double);
  if (C->recv.bytes < rbytes) s = dev_alloc(C->recv, rbytes, "COO values: received values", &C->bytes, sink(M));
  if (s == BSRC_CUDA_OK) BSRC_CUDA_CHECK(cudaMemcpyAsync(C->recv.ptr, r, rbytes, cudaMemcpyHostToDevice, M->stream), sink(M), "COO values: upload of the received values");
  if (s != BSRC_CUDA_OK) return s;
  double *a = (double *)M->values.ptr;
  if (C->nvals > 0) {
    const int64_t want = (C->nvals + coo_threads - 1) / coo_threads;
    const int     grid = (int)(want < (int64_t)M->dev.sm_count * 32 ? want : (int64_t)M->dev.sm_count * 32);
    coo_gather<<<grid, coo_threads, 0, M->stream>>>(C->nvals, (const bsrk_idx *)C->jmap.ptr, (const bsrk_idx *)C->perm.ptr, v, nv, (const double *)C->recv.ptr, insert != 0, a);
    BSRC_CUDA_CHECK(cudaGetLastError(), sink(M), "COO values: kernel launch");
    if (host_values) BSRC_CUDA_CHECK(cudaMemcpyAsync(host_values, a, (size_t)C->nvals * sizeof(double), cudaMemcpyDeviceToHost, M->stream), sink(M), "COO values: copy of the values to the host");
  }
  BSRC_CUDA_CHECK(cudaStreamSynchronize(M->stream), sink(M), "COO values: the gather kernel");
  M->has_values = true;
  ++M->values_epoch; /* the kernels' layouts made from the values (SLICED's) follow */
  return BSRC_CUDA_OK;
}

extern "C" int bsrc_cuda_is_device_pointer(const void *p)
{
  if (!p) return 0;
  cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError(); /* no device or driver: host memory */
    return 0;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

extern "C" bsrc_cuda_status bsrc_cuda_copy_to_host(double *dst, const double *src, size_t n)
{
  using namespace bsrc;
  if (n == 0) return BSRC_CUDA_OK;
  if (!dst || !src) return fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "copy to host: NULL array");
  BSRC_CUDA_CHECK(cudaMemcpy(dst, src, n * sizeof(double), cudaMemcpyDeviceToHost), sink(nullptr), "copy of device values to the host");
  return BSRC_CUDA_OK;
}
