/*
   The scalar CSR view of a matrix in rbs x cbs blocks (bsrk_blockproducts.h), for a caller that hands a
   block product's result to a scalar (AIJ) format: the rows of a block row share its pattern, each
   block column expanded to cbs columns, so row r of block row br starts at
   rowptr[br]*rbs*cbs + r*(rowptr[br+1]-rowptr[br])*cbs. Both passes are OpenMP over block rows; the
   writes touch the output in order, so on a fresh allocation each thread first-touches its part.
*/
#include "bsrk_blockproducts.h"

#include <omp.h>

namespace {

bool valid(const bsrk_rect_matrix *M, int nthreads)
{
  return M && M->rowptr && (M->colidx || M->rowptr[M->nbrows] == 0) && M->nbrows >= 0 && M->rbs >= 1 && M->cbs >= 1 && nthreads >= 1;
}

} // namespace

extern "C" bsrk_status bsrk_rect_csr_structure(const bsrk_rect_matrix *M, int nthreads, bsrk_idx *row_start, bsrk_idx *cols)
{
  if (!valid(M, nthreads) || !row_start || (!cols && M->rowptr[M->nbrows] > 0)) return BSRK_ERR_ARG;
  const bsrk_idx rbs = M->rbs, cbs = M->cbs;
#pragma omp parallel for num_threads(nthreads) schedule(static)
  for (bsrk_idx br = 0; br < M->nbrows; br++) {
    const bsrk_idx b0 = M->rowptr[br], len = (M->rowptr[br + 1] - b0) * cbs;
    for (bsrk_idx r = 0; r < rbs; r++) {
      const bsrk_idx start    = b0 * rbs * cbs + r * len;
      bsrk_idx      *out      = cols + start;
      row_start[br * rbs + r] = start;
      for (bsrk_idx k = b0; k < M->rowptr[br + 1]; k++)
        for (bsrk_idx s = 0; s < cbs; s++) *out++ = M->colidx[k] * cbs + s;
    }
  }
  row_start[M->nbrows * rbs] = M->rowptr[M->nbrows] * rbs * cbs;
  return BSRK_OK;
}

extern "C" bsrk_status bsrk_rect_csr_values(const bsrk_rect_matrix *M, int nthreads, double *values)
{
  if (!valid(M, nthreads) || (!values && M->rowptr[M->nbrows] > 0)) return BSRK_ERR_ARG;
  const bsrk_idx rbs = M->rbs, cbs = M->cbs;
#pragma omp parallel for num_threads(nthreads) schedule(static)
  for (bsrk_idx br = 0; br < M->nbrows; br++) {
    const bsrk_idx b0 = M->rowptr[br], len = (M->rowptr[br + 1] - b0) * cbs;
    for (bsrk_idx r = 0; r < rbs; r++) {
      double *out = values + b0 * rbs * cbs + r * len;
      for (bsrk_idx k = b0; k < M->rowptr[br + 1]; k++) {
        const double *block = M->values ? M->values + (size_t)k * rbs * cbs : nullptr;
        for (bsrk_idx s = 0; s < cbs; s++) *out++ = block ? block[s * rbs + r] : 0.0;
      }
    }
  }
  return BSRK_OK;
}
