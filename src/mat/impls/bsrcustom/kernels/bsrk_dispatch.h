/*
   From a run-time block size to the compile-time one the kernels are templated on, written once
   for the task product, the SpMM and the transposed copy (C++ only, PETSc-free).

   bsrk_dispatch_block_size(bs, f) calls f(bsrk_block_size<BS>{}) with BS = bs for
   1..BSRK_MAX_FIXED_BS, and BS = 0 (the generic kernel, block size read at run time) beyond.
   f is usually a generic lambda that names the instantiation:

     bsrk_dispatch_block_size(A->bs, [&](auto BS) { copy_values<BS.value>(A, T, nthreads); });

   The lambda is inlined: each case is the direct call the switch had before.
*/
#pragma once

#include "bsrkernels.h"

#include <cstdint>
#include <type_traits>

/* The compile-time block size a kernel is instantiated for; 0: any, read at run time. */
template <int BS>
using bsrk_block_size = std::integral_constant<int, BS>;

template <class F>
inline void bsrk_dispatch_block_size(int64_t bs, F &&f)
{
  static_assert(BSRK_MAX_FIXED_BS == 8, "a case below for each block size that bsrk_streams_used counts as fixed");
  switch (bs) {
  case 1:
    f(bsrk_block_size<1>{});
    break;
  case 2:
    f(bsrk_block_size<2>{});
    break;
  case 3:
    f(bsrk_block_size<3>{});
    break;
  case 4:
    f(bsrk_block_size<4>{});
    break;
  case 5:
    f(bsrk_block_size<5>{});
    break;
  case 6:
    f(bsrk_block_size<6>{});
    break;
  case 7:
    f(bsrk_block_size<7>{});
    break;
  case 8:
    f(bsrk_block_size<8>{});
    break;
  default:
    f(bsrk_block_size<0>{});
    break;
  }
}
