/*
   Fixed-size task partition of the nonzero blocks (see bsrkernels.h).

   Task t covers blocks [block_begin[t], block_begin[t+1]). With q = nblocks / ntasks and
   m = nblocks % ntasks the first m tasks get q+1 blocks and the others q, i.e.
   block_begin[t] = t*q + min(t, m). Every term is <= nblocks, so nothing can overflow.

   Row ownership: row r belongs to the task holding block position rowptr[r] (the last
   task when rowptr[r] == nblocks). Ownership is monotone in r, so row_begin[t] is the first
   row with rowptr[r] >= block_begin[t] (t = 1..ntasks-1), found by one merge walk over the
   rows and the task boundaries: O(nbrows + ntasks).
*/
#include "bsrkernels.h"

#include <stdlib.h>

static void partition_clear(bsrk_partition *p)
{
  p->ntasks      = 0;
  p->block_begin = NULL;
  p->row_begin   = NULL;
  p->head_row    = NULL;
}

void bsrk_partition_free(bsrk_partition *p)
{
  if (!p) return;
  free(p->block_begin);
  free(p->row_begin);
  free(p->head_row);
  partition_clear(p);
}

bsrk_status bsrk_partition_build(bsrk_idx nbrows, const bsrk_idx *rowptr, bsrk_idx ntasks_wanted, bsrk_partition *p)
{
  if (!p) return BSRK_ERR_ARG;
  partition_clear(p);
  if (nbrows < 0 || ntasks_wanted < 1 || !rowptr) return BSRK_ERR_ARG;
  if (rowptr[0] != 0) return BSRK_ERR_ARG;
  for (bsrk_idx r = 0; r < nbrows; ++r)
    if (rowptr[r + 1] < rowptr[r]) return BSRK_ERR_ARG;

  const bsrk_idx nblocks = rowptr[nbrows];
  bsrk_idx       ntasks  = ntasks_wanted;
  const bsrk_idx maxt    = nblocks > 1 ? nblocks : 1;
  if (ntasks > maxt) ntasks = maxt;

  const size_t n1 = (size_t)ntasks + 1;
  bsrk_idx    *bb = (bsrk_idx *)malloc(n1 * sizeof(bsrk_idx));
  bsrk_idx    *rb = (bsrk_idx *)malloc(n1 * sizeof(bsrk_idx));
  bsrk_idx    *hr = (bsrk_idx *)malloc((size_t)ntasks * sizeof(bsrk_idx));
  if (!bb || !rb || !hr) {
    free(bb);
    free(rb);
    free(hr);
    return BSRK_ERR_ALLOC;
  }

  const bsrk_idx q = nblocks / ntasks;
  const bsrk_idx m = nblocks % ntasks;
  for (bsrk_idx t = 0; t <= ntasks; ++t) bb[t] = t * q + (t < m ? t : m);

  /* Merge walk: r is the first row with rowptr[r] >= bb[t]. */
  rb[0]      = 0;
  hr[0]      = -1;
  bsrk_idx r = 0;
  for (bsrk_idx t = 1; t < ntasks; ++t) {
    while (r < nbrows && rowptr[r] < bb[t]) ++r;
    rb[t] = r;
    /* Row r-1 starts before bb[t]; the task continues it when it also ends after bb[t]. */
    hr[t] = (r > 0 && rowptr[r] > bb[t]) ? r - 1 : -1;
  }
  rb[ntasks] = nbrows;

  p->ntasks      = ntasks;
  p->block_begin = bb;
  p->row_begin   = rb;
  p->head_row    = hr;
  return BSRK_OK;
}
