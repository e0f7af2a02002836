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
/* fail_cuda after clearing the error (cudaGetLastError): for errors that are not sticky
   (allocation, registration), which later calls must not see. */
bsrc_cuda_status fail_cuda_cleared(error_sink e, cudaError_t err, const char *what);
/* For a call whose error only means "take the other way" (pageable memory, no device): clears the
   error, as above, and returns `answer`. */
template <class T>
T cleared(cudaError_t, T answer)
{
  (void)cudaGetLastError();
  return answer;
}

} // namespace bsrc

/* Runs `call` (a cudaError_t expression) once; on an error, the calling function returns `report`,
   an expression of its return type that reads the error as bsrc_err: fail_cuda(...), a clean-up
   that reports (abandon, ...), or bsrc_err itself where the function returns cudaError_t. The one
   check of a CUDA call in this layer; BSRC_CUDA_CHECK is its common case. */
#define BSRC_CUDA_CHECK_OR(call, report) \
  do { \
    const cudaError_t bsrc_err = (call); \
    if (bsrc_err != cudaSuccess) return (report); \
  } while (0)

/* On an error, returns what fail_cuda makes of it (the calling function returns bsrc_cuda_status),
   its message "what: ..." left in `sink`. */
#define BSRC_CUDA_CHECK(call, sink, what) BSRC_CUDA_CHECK_OR(call, ::bsrc::fail_cuda((sink), bsrc_err, (what)))

/* The same for a cusparseStatus_t expression, the status read as bsrc_st. */
#define BSRC_CUSPARSE_CHECK_OR(call, report) \
  do { \
    const cusparseStatus_t bsrc_st = (call); \
    if (bsrc_st != CUSPARSE_STATUS_SUCCESS) return (report); \
  } while (0)

/* On an error, returns what fail_cusparse makes of it. */
#define BSRC_CUSPARSE_CHECK(call, sink, what) BSRC_CUSPARSE_CHECK_OR(call, ::bsrc::fail_cusparse((sink), bsrc_st, (what)))

#endif
