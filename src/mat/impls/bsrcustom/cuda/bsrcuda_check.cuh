/*
   Errors of the CUDA layer: where a message goes (error_sink), how CUDA and cuSPARSE errors map to
   bsrc_cuda_status, and the one macro for each that the layer's .cu files check a call with.
   Private: not installed, not for C callers.
*/
#ifndef BSRCUDA_CHECK_CUH
#define BSRCUDA_CHECK_CUH

#include <cuda_runtime.h>
#include <cusparse.h>
#include <stddef.h>

#include "bsrcuda.h"

namespace bsrc {

/* Where a message goes: the matrix's buffer (or the thread's, for calls without a matrix). */
struct error_sink {
  char  *msg;
  size_t len;
};
bsrc_cuda_status fail(error_sink e, bsrc_cuda_status s, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
/* Maps a CUDA error to a status (allocation failures -> BSRC_CUDA_ERR_MEM, no device or driver ->
   BSRC_CUDA_ERR_NODEVICE, else BSRC_CUDA_ERR_CUDA) with "what: <CUDA text> (<name>)". */
bsrc_cuda_status fail_cuda(error_sink e, cudaError_t err, const char *what);
/* Maps a cuSPARSE status likewise (ALLOC_FAILED and INSUFFICIENT_RESOURCES -> BSRC_CUDA_ERR_MEM,
   else BSRC_CUDA_ERR_CUSPARSE) with "what: <cuSPARSE text> (<name>)". */
bsrc_cuda_status fail_cusparse(error_sink e, cusparseStatus_t st, const char *what);

} // namespace bsrc

/* Runs `call` (a cudaError_t expression); on an error, returns from the calling function (which
   returns bsrc_cuda_status) what fail_cuda makes of it, its message "what: ..." left in `sink`. */
#define BSRC_CUDA_CHECK(call, sink, what) \
  do { \
    const cudaError_t bsrc_err_ = (call); \
    if (bsrc_err_ != cudaSuccess) return ::bsrc::fail_cuda((sink), bsrc_err_, (what)); \
  } while (0)

/* The same for a cusparseStatus_t expression, through fail_cusparse. */
#define BSRC_CUSPARSE_CHECK(call, sink, what) \
  do { \
    const cusparseStatus_t bsrc_st_ = (call); \
    if (bsrc_st_ != CUSPARSE_STATUS_SUCCESS) return ::bsrc::fail_cusparse((sink), bsrc_st_, (what)); \
  } while (0)

#endif
