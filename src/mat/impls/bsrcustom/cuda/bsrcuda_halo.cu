/* The staged halo exchange's device side (bsrcuda_halo.h). */
#include "bsrcuda_halo.h"

#include <cuda_runtime.h>

#include <cstdio>
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

thread_local char create_msg[256] = "";

bsrc_cuda_status fail(char *buf, cudaError_t err, const char *what)
{
  (void)cudaGetLastError();
  std::snprintf(buf, 256, "%s: %s", what, cudaGetErrorString(err));
  return err == cudaErrorMemoryAllocation ? BSRC_CUDA_ERR_MEM : (err == cudaErrorNoDevice || err == cudaErrorInvalidDevice ? BSRC_CUDA_ERR_NODEVICE : BSRC_CUDA_ERR_CUDA);
}

/* The halo's device current for one call, the caller's put back afterwards. */
class device_scope {
public:
  explicit device_scope(int device)
  {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    if (device >= 0 && device != previous_) err_ = cudaSetDevice(device);
  }
  ~device_scope()
  {
    int now = -1;
    if (previous_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
  }
  cudaError_t error() const { return err_; }

private:
  int         previous_ = -1;
  cudaError_t err_      = cudaSuccess;
};

__global__ void gather(bsrk_idx n, const bsrk_idx *__restrict__ idx, const double *__restrict__ x, double *__restrict__ out)
{
  for (bsrk_idx i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = x[idx[i]];
}

} // namespace

extern "C" bsrc_cuda_status bsrc_cuda_halo_create(int device, bsrk_idx nsend, const bsrk_idx *send_idx, bsrk_idx nrecv, bsrc_cuda_halo **Hout)
{
  *Hout = nullptr;
  if (nsend < 0 || nrecv < 0 || (nsend > 0 && !send_idx)) {
    std::snprintf(create_msg, sizeof(create_msg), "halo: %lld entries to send (indices %s), %lld to receive", (long long)nsend, send_idx ? "given" : "missing", (long long)nrecv);
    return BSRC_CUDA_ERR_ARG;
  }
  device_scope ds(device);
  if (ds.error() != cudaSuccess) return fail(create_msg, ds.error(), "halo: cudaSetDevice");
  bsrc_cuda_halo *H = new (std::nothrow) bsrc_cuda_halo;
  if (!H) {
    std::snprintf(create_msg, sizeof(create_msg), "halo: out of host memory");
    return BSRC_CUDA_ERR_MEM;
  }
  H->device = device;
  H->nsend  = nsend;
  H->nrecv  = nrecv;
  cudaError_t err = cudaStreamCreateWithFlags(&H->copies, cudaStreamNonBlocking);
  if (err == cudaSuccess) err = cudaEventCreateWithFlags(&H->gathered, cudaEventDisableTiming);
  if (err == cudaSuccess) err = cudaEventCreateWithFlags(&H->downloaded, cudaEventDisableTiming);
  if (err == cudaSuccess) err = cudaEventCreateWithFlags(&H->uploaded, cudaEventDisableTiming);
  if (err == cudaSuccess && nsend > 0) err = cudaMalloc(&H->send_idx, sizeof(bsrk_idx) * nsend);
  if (err == cudaSuccess && nsend > 0) err = cudaMalloc(&H->send_dev, sizeof(double) * nsend);
  if (err == cudaSuccess && nsend > 0) err = cudaMallocHost(&H->send_host, sizeof(double) * nsend);
  if (err == cudaSuccess && nrecv > 0) err = cudaMallocHost(&H->recv_host, sizeof(double) * nrecv);
  if (err == cudaSuccess && nsend > 0) err = cudaMemcpy(H->send_idx, send_idx, sizeof(bsrk_idx) * nsend, cudaMemcpyHostToDevice);
  /* the first wait_unpacked must not wait for a copy that never ran */
  if (err == cudaSuccess) err = cudaEventRecord(H->uploaded, H->copies);
  if (err != cudaSuccess) {
    bsrc_cuda_status s = fail(create_msg, err, "halo: creating its streams, events and buffers");
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
  if (H->nsend > 0 && !x_dev) {
    std::snprintf(H->msg, sizeof(H->msg), "halo pack: x has no device array");
    return BSRC_CUDA_ERR_ARG;
  }
  device_scope ds(H->device);
  if (ds.error() != cudaSuccess) return fail(H->msg, ds.error(), "halo pack: cudaSetDevice");
  const cudaStream_t cs  = stream ? (cudaStream_t)stream : cudaStreamLegacy;
  cudaError_t        err = cudaSuccess;
  if (H->nsend > 0) {
    const int      threads = 256;
    const bsrk_idx blocks  = (H->nsend + threads - 1) / threads < 65535 ? (H->nsend + threads - 1) / threads : 65535;
    gather<<<(unsigned)blocks, threads, 0, cs>>>(H->nsend, H->send_idx, x_dev, H->send_dev);
    err = cudaGetLastError();
  }
  /* also without entries to send: the copies stream then follows the caller's earlier work, the
     last ghost product that read the ghost vector among it, before unpack overwrites that vector */
  if (err == cudaSuccess) err = cudaEventRecord(H->gathered, cs);
  if (err == cudaSuccess) err = cudaStreamWaitEvent(H->copies, H->gathered, 0);
  if (err == cudaSuccess && H->nsend > 0) err = cudaMemcpyAsync(H->send_host, H->send_dev, sizeof(double) * H->nsend, cudaMemcpyDeviceToHost, H->copies);
  if (err == cudaSuccess && H->nsend > 0) err = cudaEventRecord(H->downloaded, H->copies);
  return err == cudaSuccess ? BSRC_CUDA_OK : fail(H->msg, err, "halo pack: gather and copy to the host");
}

extern "C" bsrc_cuda_status bsrc_cuda_halo_wait_packed(bsrc_cuda_halo *H)
{
  if (H->nsend == 0) return BSRC_CUDA_OK;
  const cudaError_t err = cudaEventSynchronize(H->downloaded);
  return err == cudaSuccess ? BSRC_CUDA_OK : fail(H->msg, err, "halo: waiting for the entries to send");
}

extern "C" bsrc_cuda_status bsrc_cuda_halo_wait_unpacked(bsrc_cuda_halo *H)
{
  const cudaError_t err = cudaEventSynchronize(H->uploaded);
  return err == cudaSuccess ? BSRC_CUDA_OK : fail(H->msg, err, "halo: waiting for the last received entries to reach the device");
}

extern "C" bsrc_cuda_status bsrc_cuda_halo_unpack(bsrc_cuda_halo *H, void *stream, double *ghost_dev)
{
  if (H->nrecv == 0) return BSRC_CUDA_OK;
  if (!ghost_dev) {
    std::snprintf(H->msg, sizeof(H->msg), "halo unpack: the ghost vector has no device array");
    return BSRC_CUDA_ERR_ARG;
  }
  device_scope ds(H->device);
  if (ds.error() != cudaSuccess) return fail(H->msg, ds.error(), "halo unpack: cudaSetDevice");
  const cudaStream_t cs  = stream ? (cudaStream_t)stream : cudaStreamLegacy;
  cudaError_t        err = cudaMemcpyAsync(ghost_dev, H->recv_host, sizeof(double) * H->nrecv, cudaMemcpyHostToDevice, H->copies);
  if (err == cudaSuccess) err = cudaEventRecord(H->uploaded, H->copies);
  if (err == cudaSuccess) err = cudaStreamWaitEvent(cs, H->uploaded, 0);
  return err == cudaSuccess ? BSRC_CUDA_OK : fail(H->msg, err, "halo unpack: copy to the device");
}
