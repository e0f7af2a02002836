/* The staged halo exchange's device side (bsrcuda_halo.h). */
#include "bsrcuda_halo.h"
#include "bsrcuda_check.cuh"
#include "bsrcuda_device.cuh"

#include <cuda_runtime.h>

#include <new>

struct bsrc_cuda_halo {
  int          device = -1;
  bsrk_idx     nsend = 0, nrecv = 0;
  bsrk_idx    *send_idx   = nullptr; /* device */
  double      *send_dev   = nullptr; /* device: the gathered entries */
  double      *send_host  = nullptr; /* page-locked */
  double      *recv_host  = nullptr; /* page-locked */
  cudaStream_t copies     = nullptr; /* non-blocking: never ordered behind the legacy default stream */
  cudaEvent_t  gathered   = nullptr; /* on the caller's stream, after the gather */
  cudaEvent_t  downloaded = nullptr; /* on copies, after the send buffer's copy */
  cudaEvent_t  uploaded   = nullptr; /* on copies, after the receive buffer's copy */
  char         msg[256]   = "";
};

namespace {

using bsrc::device_scope;
using bsrc::error_sink;

thread_local char create_msg[256] = "";

error_sink sink(bsrc_cuda_halo *H)
{
  return H ? error_sink{H->msg, sizeof(H->msg)} : error_sink{create_msg, sizeof(create_msg)};
}

__global__ void gather(bsrk_idx n, const bsrk_idx *__restrict__ idx, const double *__restrict__ x, double *__restrict__ out)
{
  for (bsrk_idx i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = x[idx[i]];
}

} // namespace

/* H's stream, events and buffers, and its send indices uploaded; on an error, what was created is
   left for bsrc_cuda_halo_destroy. */
static bsrc_cuda_status open_halo(bsrc_cuda_halo *H, const bsrk_idx *send_idx)
{
  const char    *what  = "halo: creating its streams, events and buffers";
  const bsrk_idx nsend = H->nsend, nrecv = H->nrecv;
  BSRC_CUDA_CHECK(cudaStreamCreateWithFlags(&H->copies, cudaStreamNonBlocking), sink(nullptr), what);
  BSRC_CUDA_CHECK(cudaEventCreateWithFlags(&H->gathered, cudaEventDisableTiming), sink(nullptr), what);
  BSRC_CUDA_CHECK(cudaEventCreateWithFlags(&H->downloaded, cudaEventDisableTiming), sink(nullptr), what);
  BSRC_CUDA_CHECK(cudaEventCreateWithFlags(&H->uploaded, cudaEventDisableTiming), sink(nullptr), what);
  if (nsend > 0) BSRC_CUDA_CHECK(cudaMalloc(&H->send_idx, sizeof(bsrk_idx) * nsend), sink(nullptr), what);
  if (nsend > 0) BSRC_CUDA_CHECK(cudaMalloc(&H->send_dev, sizeof(double) * nsend), sink(nullptr), what);
  if (nsend > 0) BSRC_CUDA_CHECK(cudaMallocHost(&H->send_host, sizeof(double) * nsend), sink(nullptr), what);
  if (nrecv > 0) BSRC_CUDA_CHECK(cudaMallocHost(&H->recv_host, sizeof(double) * nrecv), sink(nullptr), what);
  if (nsend > 0) BSRC_CUDA_CHECK(cudaMemcpy(H->send_idx, send_idx, sizeof(bsrk_idx) * nsend, cudaMemcpyHostToDevice), sink(nullptr), what);
  /* the first wait_unpacked must not wait for a copy that never ran */
  BSRC_CUDA_CHECK(cudaEventRecord(H->uploaded, H->copies), sink(nullptr), what);
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_halo_create(int device, bsrk_idx nsend, const bsrk_idx *send_idx, bsrk_idx nrecv, bsrc_cuda_halo **Hout)
{
  *Hout = nullptr;
  if (nsend < 0 || nrecv < 0 || (nsend > 0 && !send_idx)) return bsrc::fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "halo: %lld entries to send (indices %s), %lld to receive", (long long)nsend, send_idx ? "given" : "missing", (long long)nrecv);
  device_scope ds(device);
  BSRC_CUDA_CHECK(ds.error(), sink(nullptr), "halo: cudaSetDevice");
  bsrc_cuda_halo *H = new (std::nothrow) bsrc_cuda_halo;
  if (!H) return bsrc::fail(sink(nullptr), BSRC_CUDA_ERR_MEM, "halo: out of host memory");
  H->device                = device;
  H->nsend                 = nsend;
  H->nrecv                 = nrecv;
  const bsrc_cuda_status s = open_halo(H, send_idx);
  if (s != BSRC_CUDA_OK) { /* written out: H is released before returning */
    bsrc_cuda_halo_destroy(H);
    return s;
  }
  *Hout = H;
  return BSRC_CUDA_OK;
}

extern "C" void bsrc_cuda_halo_destroy(bsrc_cuda_halo *H)
{
  if (!H) return;
  device_scope ds(H->device);
  if (H->copies) (void)cudaStreamSynchronize(H->copies);
  (void)cudaFree(H->send_idx);
  (void)cudaFree(H->send_dev);
  (void)cudaFreeHost(H->send_host);
  (void)cudaFreeHost(H->recv_host);
  if (H->gathered) (void)cudaEventDestroy(H->gathered);
  if (H->downloaded) (void)cudaEventDestroy(H->downloaded);
  if (H->uploaded) (void)cudaEventDestroy(H->uploaded);
  if (H->copies) (void)cudaStreamDestroy(H->copies);
  (void)cudaGetLastError();
  delete H;
}

extern "C" const char *bsrc_cuda_halo_last_error(const bsrc_cuda_halo *H)
{
  return H ? H->msg : create_msg;
}

extern "C" double *bsrc_cuda_halo_send_buffer(bsrc_cuda_halo *H)
{
  return H->send_host;
}

extern "C" double *bsrc_cuda_halo_recv_buffer(bsrc_cuda_halo *H)
{
  return H->recv_host;
}

extern "C" bsrc_cuda_status bsrc_cuda_halo_pack(bsrc_cuda_halo *H, void *stream, const double *x_dev)
{
  if (H->nsend > 0 && !x_dev) return bsrc::fail(sink(H), BSRC_CUDA_ERR_ARG, "halo pack: x has no device array");
  device_scope ds(H->device);
  BSRC_CUDA_CHECK(ds.error(), sink(H), "halo pack: cudaSetDevice");
  const cudaStream_t cs = stream ? (cudaStream_t)stream : cudaStreamLegacy;
  if (H->nsend > 0) {
    const int      threads = 256;
    const bsrk_idx blocks  = (H->nsend + threads - 1) / threads < 65535 ? (H->nsend + threads - 1) / threads : 65535;
    gather<<<(unsigned)blocks, threads, 0, cs>>>(H->nsend, H->send_idx, x_dev, H->send_dev);
    BSRC_CUDA_CHECK(cudaGetLastError(), sink(H), "halo pack: the gather kernel");
  }
  /* also without entries to send: the copies stream then follows the caller's earlier work, the
     last ghost product that read the ghost vector among it, before unpack overwrites that vector */
  BSRC_CUDA_CHECK(cudaEventRecord(H->gathered, cs), sink(H), "halo pack: recording the gather");
  BSRC_CUDA_CHECK(cudaStreamWaitEvent(H->copies, H->gathered, 0), sink(H), "halo pack: ordering the copy after the gather");
  if (H->nsend == 0) return BSRC_CUDA_OK;
  BSRC_CUDA_CHECK(cudaMemcpyAsync(H->send_host, H->send_dev, sizeof(double) * H->nsend, cudaMemcpyDeviceToHost, H->copies), sink(H), "halo pack: copy to the host");
  BSRC_CUDA_CHECK(cudaEventRecord(H->downloaded, H->copies), sink(H), "halo pack: recording the copy");
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_halo_wait_packed(bsrc_cuda_halo *H)
{
  if (H->nsend == 0) return BSRC_CUDA_OK;
  BSRC_CUDA_CHECK(cudaEventSynchronize(H->downloaded), sink(H), "halo: waiting for the entries to send");
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_halo_wait_unpacked(bsrc_cuda_halo *H)
{
  BSRC_CUDA_CHECK(cudaEventSynchronize(H->uploaded), sink(H), "halo: waiting for the last received entries to reach the device");
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_halo_unpack(bsrc_cuda_halo *H, void *stream, double *ghost_dev)
{
  if (H->nrecv == 0) return BSRC_CUDA_OK;
  if (!ghost_dev) return bsrc::fail(sink(H), BSRC_CUDA_ERR_ARG, "halo unpack: the ghost vector has no device array");
  device_scope ds(H->device);
  BSRC_CUDA_CHECK(ds.error(), sink(H), "halo unpack: cudaSetDevice");
  const cudaStream_t cs = stream ? (cudaStream_t)stream : cudaStreamLegacy;
  BSRC_CUDA_CHECK(cudaMemcpyAsync(ghost_dev, H->recv_host, sizeof(double) * H->nrecv, cudaMemcpyHostToDevice, H->copies), sink(H), "halo unpack: copy to the device");
  BSRC_CUDA_CHECK(cudaEventRecord(H->uploaded, H->copies), sink(H), "halo unpack: recording the copy");
  BSRC_CUDA_CHECK(cudaStreamWaitEvent(cs, H->uploaded, 0), sink(H), "halo unpack: ordering the ghost product after the copy");
  return BSRC_CUDA_OK;
}
