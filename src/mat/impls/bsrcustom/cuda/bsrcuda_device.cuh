/* The device a call of the CUDA layer runs on. Private: not installed, not for C callers. */
#ifndef BSRCUDA_DEVICE_CUH
#define BSRCUDA_DEVICE_CUH

#include <cuda_runtime.h>

namespace bsrc {

/* Makes a device current for the duration of a call (a matrix's, a halo's) and puts the caller's
   back afterwards. */
class device_scope {
public:
  explicit device_scope(int device)
  {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      previous_ = -1;
      (void)cudaGetLastError();
    }
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

} // namespace bsrc

#endif
