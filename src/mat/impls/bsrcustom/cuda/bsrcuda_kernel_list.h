/*
   The GPU products, one line each: X(ID, "name", "how it works, as MatView says it"). The option
   -mat_bsrcustom_cuda_kernel, the CUDA layer's bsrc_cuda_kernel and its names, the public
   MatBSRCustomCUDAKernel (checked at compile time against this list) and MatView all come from it.
   Adding a kernel: its line here and in the public enum, and its entry in the CUDA layer's
   descriptor table (bsrcuda_kernel_table.cu, checked at compile time against this list) with its
   launch and work plan. Plain preprocessor: included by the CUDA layer and by the PETSc layer, with
   or without CUDA.
*/
#ifndef BSRCUDA_KERNEL_LIST_H
#define BSRCUDA_KERNEL_LIST_H

/* Our kernels, in the order of MatBSRCustomCUDAKernel after AUTO. */
#define BSRC_CUDA_OWN_KERNELS(X) \
  X(ROWMAJOR_SHARED, "rowmajor_shared", "fixed-size tasks, row-major block access, sums in shared memory (thesis ch. 8, kernel 1)") \
  X(THREAD_PRIVATE, "thread_private", "fixed-size tasks, a thread's sums in registers (thesis ch. 8, kernel 2)") \
  X(TEAM_SCALAR, "team_scalar", "fixed-size tasks, a team of threads per block, scalar sums (thesis ch. 8, kernel 3)") \
  X(VECTOR_UNROLLED, "vector_unrolled", "fixed-size tasks, a thread per block row of a block, loops unrolled over the block size (thesis ch. 8, kernel 4)") \
  X(WARP_ROW, "warp_row", "a group of lanes per block row") \
  X(HYBRID, "hybrid", "a group of lanes per short block row, a warp per piece of a long one") \
  X(SEGMENTED, "segmented", "a warp per strip of up to 32 block rows, a warp per piece of a long one") \
  X(SLICED, "sliced", "a lane per block row (a group of lanes per longer one where rows are sorted by length), on its own copy of the matrix in slices of 32 block rows")

/* The cuSPARSE baselines of the cusparse backend, after our kernels in bsrc_cuda_kernel. */
#define BSRC_CUDA_CUSPARSE_KERNELS(X) \
  X(CUSPARSE_BSRMV, "cusparse_bsrmv", "cusparseDbsrmv on the column-major blocks") \
  X(CUSPARSE_SPMV_BSR, "cusparse_spmv_bsr", "cusparseSpMV with a BSR descriptor")

#define BSRC_CUDA_KERNEL_PLUS_ONE(id, name, what) +1
/* our kernels: bsrc_cuda_kernel 1 .. BSRC_CUDA_OWN_KERNEL_COUNT (0 is AUTO) */
#define BSRC_CUDA_OWN_KERNEL_COUNT (0 BSRC_CUDA_OWN_KERNELS(BSRC_CUDA_KERNEL_PLUS_ONE))

#endif
