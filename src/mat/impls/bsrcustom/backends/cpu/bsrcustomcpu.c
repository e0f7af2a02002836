/* The cpu backend's table: OpenMP fixed-size tasks on the host (kernels/). */
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h>

const MatBSRCustomBackendOps MatBSRCustomBackendCPU = {
  .name                  = "cpu",
  .vectors_follow        = MatBSRCustomCPUVectorsFollow_Private,
  .partition_built       = MatSeqBSRCustomCPUPartitionBuilt_Private,
  .apply                 = MatSeqBSRCustomCPUApply_Private,
  .kept_apply            = MatSeqBSRCustomCPUKeptApply_Private,
  .transpose_view        = MatSeqBSRCustomCPUTransposeView_Private,
  .transpose_path        = MATBSRCUSTOM_CPU_TRANSPOSE_PATH,
  .spmm                  = MatSeqBSRCustomCPUProductDense_Private,
  .view                  = MatSeqBSRCustomCPUView_Private,
  .release               = MatSeqBSRCustomCPURelease_Private,
  .block_product_plan    = MatSeqBSRCustomCPUBlockProductPlan_Private,
  .block_product_numeric = MatSeqBSRCustomCPUBlockProductNumeric_Private,
  .place_vectors         = MatMPIBSRCustomCPUPlaceVectors_Private,
  .on_device             = MatBSRCustomCPUOnDevice_Private,
  .between               = MatMPIBSRCustomCPUBetween_Private,
  .split_begin           = MatMPIBSRCustomCPUSplitBegin_Private,
  .split_end             = MatMPIBSRCustomCPUSplitEnd_Private,
  .spmm_split_begin      = MatMPIBSRCustomCPUSpMMSplitBegin_Private,
  .spmm_split_end        = MatMPIBSRCustomCPUSpMMSplitEnd_Private,
  .mpi_path              = MatMPIBSRCustomCPUPath_Private,
  .mpi_transpose_path    = MatMPIBSRCustomCPUTransposePath_Private,
  .mpi_transpose_text    = "ghost block's transpose, reverse scatter ADD of the ghost part while the local block's transpose runs",
  .mpi_spmm_text         = "block SpMM of the local rows while B's ghost rows arrive, then the ghost block's",
  .mpi_view              = MatMPIBSRCustomCPUView_Private,
};
