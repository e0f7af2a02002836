/*
   main of the CUDA layer's GoogleTest cases: before the cases run (not when they are only listed,
   as CTest's discovery does on machines without a GPU), names the device and the index width.
*/
#include <gtest/gtest.h>

#include <cstdio>

#include "cuda_test_support.h"

namespace {

class device_report : public ::testing::Environment {
public:
  void SetUp() override
  {
    if (bsrc_cuda_device_count() == 0) {
      printf("no CUDA device visible: every case reports itself skipped\n");
      return;
    }
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return;
    printf("device 0: %s, %d SMs, bsrk_idx %zu bytes%s\n", prop.name, prop.multiProcessorCount, sizeof(bsrk_idx), cudatest::quick_mode() ? ", quick mode" : "");
  }
};

} // namespace

int main(int argc, char **argv)
{
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new device_report);
  return RUN_ALL_TESTS();
}
