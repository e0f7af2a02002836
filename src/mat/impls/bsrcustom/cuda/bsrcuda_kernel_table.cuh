/*
   The kernel descriptors: one entry per product of bsrc_cuda_kernel, in enum order, holding
   everything the layer asks about a kernel (name, launch, work plan, settings it accepts), so that
   the rest of the layer looks kernels up here instead of testing for particular ones. Adding a
   kernel: its line in bsrcuda_kernel_list.h (the public enum and the names follow from it), its
   kernel_launch in its family's bsrcuda_kernels_*.cu, its plan (if any) in bsrcuda_plan.cu, and its entry in
   bsrcuda_kernel_table.cu. Private: not installed.
*/
#ifndef BSRCUDA_KERNEL_TABLE_CUH
#define BSRCUDA_KERNEL_TABLE_CUH

#include "bsrcuda_kernels.cuh"

struct bsrc_cuda_matrix;

namespace bsrc {

/* A kernel's work plan (bsrcuda_plan.cu): built on M's structure; on failure nothing of it is kept. */
using plan_fn = bsrc_cuda_status (*)(bsrc_cuda_matrix *M);
/* Brings what a product reads up to date before it is queued on stream s (SLICED: its copy of the
   matrix after the values changed). */
using prepare_fn = bsrc_cuda_status (*)(bsrc_cuda_matrix *M, cudaStream_t s);

struct kernel_desc {
  bsrc_cuda_kernel     id;          /* the public enum value, also the entry's index */
  const char          *name;        /* as -mat_bsrcustom_cuda_kernel spells it (= bsrc_cuda_kernel_names[id]) */
  const kernel_launch *launch;      /* our kernels: how they are launched (bsrcuda_kernels_*.cu); null for AUTO and cuSPARSE */
  cusparse_variant     cusparse;    /* the cuSPARSE kernels (launch null): which cuSPARSE call */
  plan_fn              plan;        /* its own work plan, built at set_structure and again when its lanes change; null: none */
  plan_fn              plan_on_use; /* the part of its plan built only once it is configured or run (SLICED's sorted layout); null: none */
  prepare_fn           prepare;     /* before every product; null: nothing to do */
  bool                 tasks;       /* runs on the fixed-size task partition (carry fix-up; overlapped download in task ranges) */
  int                  min_lanes;   /* lanes per block row settable (bsrc_cuda_set_lanes) from this power of two to 32; 0: none */
  int                  max_threads; /* most threads per thread block it launches with (bsrc_cuda_set_threads) */
  int                  row_unit;    /* rows are independent: ranges of block rows starting at multiples of this (launch_row_range); 0: none */
};

extern const kernel_desc kernel_table[BSRC_CUDA_KERNEL_COUNT];

inline bool valid_kernel(bsrc_cuda_kernel k)
{
  return (int)k >= 0 && k < BSRC_CUDA_KERNEL_COUNT;
}
inline const kernel_desc &kernel_info(bsrc_cuda_kernel k)
{
  return kernel_table[k];
}
/* one of ours (not AUTO, not cuSPARSE) */
inline bool is_own_kernel(bsrc_cuda_kernel k)
{
  return valid_kernel(k) && kernel_table[k].launch != nullptr;
}
inline bool is_task_kernel(bsrc_cuda_kernel k)
{
  return valid_kernel(k) && kernel_table[k].tasks;
}
inline bool has_lanes(bsrc_cuda_kernel k)
{
  return valid_kernel(k) && kernel_table[k].min_lanes > 0;
}

} // namespace bsrc

#endif
