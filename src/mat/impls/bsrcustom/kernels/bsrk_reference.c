/*
   Plain sequential reference product, deliberately simple: one scalar row at a time,
   summing every entry of that row over its blocks (in block order, then block column
   order), then out = alpha*sum + beta*in. The sum is always scaled by alpha (so NaN/Inf
   propagate as in a plain product, an empty row sums to 0), and `in` is read only when
   beta != 0. Each out[i] is written after the only read of in[i], so in may alias out.
*/
#include "bsrkernels.h"

void bsrk_reference_multadd(const bsrk_matrix *A, double alpha, const double *x, double beta, const double *in, double *out)
{
  const int64_t bs  = A->bs;
  const int64_t bs2 = bs * bs;

  for (int64_t br = 0; br < (int64_t)A->nbrows; ++br) {
    for (int64_t r = 0; r < bs; ++r) {
      double sum = 0.0;
      for (int64_t k = A->rowptr[br]; k < (int64_t)A->rowptr[br + 1]; ++k) {
        const double *blk  = A->values + k * bs2;
        const double *xcol = x + (int64_t)A->colidx[k] * bs;
        for (int64_t c = 0; c < bs; ++c) sum += blk[c * bs + r] * xcol[c];
      }
      const int64_t i = br * bs + r;
      if (beta == 0.0) out[i] = alpha * sum;
      else out[i] = alpha * sum + beta * in[i];
    }
  }
}
