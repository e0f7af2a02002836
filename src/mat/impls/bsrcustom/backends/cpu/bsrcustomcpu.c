/* The cpu backend's table: OpenMP fixed-size tasks on the host (kernels/). */
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h>

const MatBSRCustomBackendOps MatBSRCustomBackendCPU = {
  MATBSRCUSTOM_CPU_ENTRIES, .name = "cpu", .view = MatSeqBSRCustomCPUView_Private, .release = MatSeqBSRCustomCPURelease_Private, .mpi_view = MatMPIBSRCustomCPUView_Private,
};
