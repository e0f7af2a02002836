/*
   Test-only access to the CUDA layer's internals (built into test_cuda_kernels only; the production
   library exports nothing for tests).
*/
#ifndef CUDA_TEST_HOOKS_H
#define CUDA_TEST_HOOKS_H

#include <stddef.h>

#include "bsrcuda.h"

/* Allocates `bytes` of device memory through the path every allocation of the matrix's storage takes
   (dev_alloc: same error mapping, message and byte count), then frees it; M is left unchanged. For
   testing the out-of-memory report without filling the GPU. */
bsrc_cuda_status cuda_test_try_alloc(bsrc_cuda_matrix *M, size_t bytes);

#endif
