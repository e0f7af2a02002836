/*
   Work plans of the kernels (bsrcuda_plan.cu): what a kernel reads besides the BAIJ arrays, planned
   on the host from the row pointers and uploaded, or (SLICED's copy) built on the device. Private.
*/
#ifndef BSRCUDA_PLAN_CUH
#define BSRCUDA_PLAN_CUH

#include "bsrcuda_matrix.cuh"

namespace bsrc {

/* Lanes per row (WARP_ROW) or per short row (HYBRID): the override, else the matrix's choice. */
int lanes_of(const bsrc_cuda_matrix *M, bsrc_cuda_kernel k);

/* The fixed-size task partition of the task kernels (bsrk_partition_build), with the task ranges
   of the overlapped download; the auto choice reads its longest task. */
bsrc_cuda_status build_tasks(bsrc_cuda_matrix *M);
void             release_tasks(bsrc_cuda_matrix *M);
/* HYBRID's pieces of long rows and its work list, for the lanes it runs with (lanes_of). */
bsrc_cuda_status build_hybrid_work(bsrc_cuda_matrix *M);
void             release_hybrid(bsrc_cuda_matrix *M);
/* SEGMENTED's strips and pieces. */
bsrc_cuda_status build_strips(bsrc_cuda_matrix *M);
void             release_strips(bsrc_cuda_matrix *M);
/* SLICED: plan_slices at set_structure (natural layout, padding, whether the sorted layout is
   needed); plan_sorted_slices before its first launch configuration or build; ensure_slices its copy
   of the matrix, up to date with the values, queued on stream s. */
bsrc_cuda_status plan_slices(bsrc_cuda_matrix *M);
bsrc_cuda_status plan_sorted_slices(bsrc_cuda_matrix *M);
bsrc_cuda_status ensure_slices(bsrc_cuda_matrix *M, cudaStream_t s);
void             release_slices(bsrc_cuda_matrix *M);

} // namespace bsrc

#endif
