/*
   Work plans of the kernels (bsrcuda_plan.cuh): the fixed-size task partition, the pieces of long
   rows and the row-ordered work lists of HYBRID and SEGMENTED, SLICED's layouts and its copy of the
   matrix. Each plan is built from the host copy of the row pointers (host_rowptr) at set_structure
   (SLICED's sorted layout and copy only when SLICED first runs), uploaded through dev_alloc so that
   bsrc_cuda_device_bytes counts it, and released with the structure.
*/
#include "bsrcuda_plan.cuh"

#include <algorithm>
#include <limits>
#include <new>
#include <stdio.h>
#include <vector>

namespace bsrc {

namespace {

void release_piece_set(bsrc_cuda_matrix *M, piece_set &P)
{
  dev_free(P.piece_row, &M->bytes);
  dev_free(P.piece_start, &M->bytes);
  dev_free(P.long_row, &M->bytes);
  dev_free(P.long_piece_begin, &M->bytes);
  dev_free(P.piece_sum, &M->bytes);
  P.lanes   = 0;
  P.npieces = P.nlong = P.row_long_blocks = P.piece_blocks = 0;
}

void free_slices_device(bsrc_cuda_matrix *M)
{
  for (dev_buffer *b : {&M->slice_step, &M->slice_col, &M->slice_values, &M->lane_out, &M->lane_b0, &M->lane_len, &M->slice_long_row, &M->slice_long_begin, &M->slot_sum, &M->slot_long, &M->long_arrivals}) dev_free(*b, &M->bytes);
}

/* Cuts the rows of more than long_blocks blocks into pieces of piece_blocks blocks (rows of several
   pieces first, so that each long row's pieces are one range, then the rows of one piece) and
   uploads them into P, whose old pieces are released first. Row r's pieces are first_piece[r] ..
   first_piece[r] + npieces_of[r] - 1 (for the work lists). On failure P is left empty. */
bsrc_cuda_status build_piece_set(bsrc_cuda_matrix *M, piece_set &P, bsrk_idx long_blocks, bsrk_idx piece_blocks, int lanes, const char *what, std::vector<bsrk_idx> &first_piece, std::vector<bsrk_idx> &npieces_of)
{
  release_piece_set(M, P);
  const bsrk_idx       *rp = M->host_rowptr.data();
  std::vector<bsrk_idx> prow, pstart, lrow, lbegin, single_row;
  try {
    lbegin.push_back(0);
    for (bsrk_idx r = 0; r < M->nbrows; ++r) {
      const bsrk_idx n = rp[r + 1] - rp[r];
      if (n <= long_blocks) continue;
      if (n <= piece_blocks) {
        single_row.push_back(r);
        continue;
      }
      for (bsrk_idx b = rp[r]; b < rp[r + 1]; b += std::min(piece_blocks, rp[r + 1] - b)) {
        prow.push_back(r);
        pstart.push_back(b);
      }
      lrow.push_back(r);
      lbegin.push_back((bsrk_idx)prow.size());
    }
    for (bsrk_idx r : single_row) {
      prow.push_back(r);
      pstart.push_back(rp[r]);
    }
    first_piece.assign((size_t)M->nbrows, 0);
    npieces_of.assign((size_t)M->nbrows, 0);
    for (size_t q = 0; q < prow.size(); ++q)
      if (npieces_of[prow[q]]++ == 0) first_piece[prow[q]] = (bsrk_idx)q;
  } catch (const std::bad_alloc &) {
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "%s pieces: out of host memory", what);
  }
  /* only the pieces of rows of several pieces have sums: rows of one piece store directly */
  const size_t     np = prow.size(), nl = lrow.size(), nsums = (size_t)lbegin.back();
  bsrc_cuda_status s = BSRC_CUDA_OK;
  char             label[96];
  auto             named = [&](const char *part) {
    snprintf(label, sizeof(label), "%s %s", what, part);
    return label;
  };
  if (np > 0) {
    s = dev_alloc(P.piece_row, np * sizeof(bsrk_idx), named("piece rows"), &M->bytes, sink(M));
    if (s == BSRC_CUDA_OK) s = dev_alloc(P.piece_start, np * sizeof(bsrk_idx), named("piece starts"), &M->bytes, sink(M));
    if (s == BSRC_CUDA_OK) s = dev_alloc(P.long_row, nl * sizeof(bsrk_idx), named("long rows"), &M->bytes, sink(M));
    if (s == BSRC_CUDA_OK) s = dev_alloc(P.long_piece_begin, (nl + 1) * sizeof(bsrk_idx), named("long-row pieces"), &M->bytes, sink(M));
    if (s == BSRC_CUDA_OK) s = dev_alloc(P.piece_sum, nsums * (size_t)M->bs * sizeof(double), named("piece sums"), &M->bytes, sink(M));
    if (s == BSRC_CUDA_OK) s = upload(M, P.piece_row, prow.data(), np * sizeof(bsrk_idx), named("piece rows (upload)"));
    if (s == BSRC_CUDA_OK) s = upload(M, P.piece_start, pstart.data(), np * sizeof(bsrk_idx), named("piece starts (upload)"));
    if (s == BSRC_CUDA_OK) s = upload(M, P.long_row, lrow.data(), nl * sizeof(bsrk_idx), named("long rows (upload)"));
    if (s == BSRC_CUDA_OK) s = upload(M, P.long_piece_begin, lbegin.data(), (nl + 1) * sizeof(bsrk_idx), named("long-row pieces (upload)"));
  }
  if (s != BSRC_CUDA_OK) {
    release_piece_set(M, P);
    return s;
  }
  P.npieces         = (bsrk_idx)np;
  P.nlong           = (bsrk_idx)nl;
  P.row_long_blocks = long_blocks;
  P.piece_blocks    = piece_blocks;
  P.lanes           = lanes;
  return BSRC_CUDA_OK;
}

/* Uploads a work list (the warps' items in row order) into b. */
bsrc_cuda_status upload_work(bsrc_cuda_matrix *M, dev_buffer &b, const std::vector<bsrk_idx> &w, const char *what)
{
  if (w.empty()) return BSRC_CUDA_OK;
  char label[96];
  snprintf(label, sizeof(label), "%s (upload)", what);
  bsrc_cuda_status s = dev_alloc(b, w.size() * sizeof(bsrk_idx), what, &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = upload(M, b, w.data(), w.size() * sizeof(bsrk_idx), label);
  return s;
}

} // namespace

void release_tasks(bsrc_cuda_matrix *M)
{
  dev_free(M->task_block_begin, &M->bytes);
  dev_free(M->task_row_begin, &M->bytes);
  dev_free(M->task_head_row, &M->bytes);
  dev_free(M->carry, &M->bytes);
  M->ntasks      = 0;
  M->has_carries = false;
  for (bool &v : M->cfg_valid) v = false;
}

void release_hybrid(bsrc_cuda_matrix *M)
{
  release_piece_set(M, M->hybrid_pieces);
  dev_free(M->hybrid_work, &M->bytes);
  dev_free(M->hybrid_medium, &M->bytes);
  M->hybrid_nwork = M->hybrid_short_blocks = 0;
  M->cfg_valid[BSRC_CUDA_KERNEL_HYBRID]    = false;
}

void release_strips(bsrc_cuda_matrix *M)
{
  release_piece_set(M, M->segmented_pieces);
  dev_free(M->strip_begin, &M->bytes);
  dev_free(M->strip_end, &M->bytes);
  M->nstrips                               = 0;
  M->cfg_valid[BSRC_CUDA_KERNEL_SEGMENTED] = false;
}

void release_slices(bsrc_cuda_matrix *M)
{
  free_slices_device(M);
  M->host_slice_step.clear();
  M->host_lane_out.clear();
  M->host_lane_b0.clear();
  M->host_lane_len.clear();
  M->host_slice_long_row.clear();
  M->host_slice_long_begin.clear();
  M->host_slot_long.clear();
  M->nslices       = 0;
  M->slice_blocks  = 0;
  M->slices_sorted = M->slices_planned = false;
  M->slice_nlong = M->slice_nslots = 0;
  M->slices_epoch                  = 0;
}

/* Builds the fixed-size task partition on the host (bsrk_partition_build) and uploads it. */
bsrc_cuda_status build_tasks(bsrc_cuda_matrix *M)
{
  release_tasks(M);
  const bsrk_idx    want = M->tasks_wanted > 0 ? M->tasks_wanted : default_task_count(M->nblocks, M->bs, M->dev);
  bsrk_partition    p;
  const bsrk_status ps = bsrk_partition_build(M->nbrows, M->host_rowptr.data(), want, &p);
  if (ps == BSRK_ERR_ALLOC) return fail(sink(M), BSRC_CUDA_ERR_MEM, "task partition: out of host memory (%lld tasks)", (long long)want);
  if (ps != BSRK_OK) return fail(sink(M), BSRC_CUDA_ERR_ARG, "task partition: invalid row pointers");

  const size_t     n1 = (size_t)p.ntasks + 1;
  bsrc_cuda_status s  = dev_alloc(M->task_block_begin, n1 * sizeof(bsrk_idx), "task block ranges", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(M->task_row_begin, n1 * sizeof(bsrk_idx), "task row ranges", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(M->task_head_row, (size_t)p.ntasks * sizeof(bsrk_idx), "task head rows", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(M->carry, (size_t)p.ntasks * (size_t)M->bs * sizeof(double), "task carries", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = upload(M, M->task_block_begin, p.block_begin, n1 * sizeof(bsrk_idx), "upload of the task block ranges");
  if (s == BSRC_CUDA_OK) s = upload(M, M->task_row_begin, p.row_begin, n1 * sizeof(bsrk_idx), "upload of the task row ranges");
  if (s == BSRC_CUDA_OK) s = upload(M, M->task_head_row, p.head_row, (size_t)p.ntasks * sizeof(bsrk_idx), "upload of the task head rows");
  if (s == BSRC_CUDA_OK) {
    M->ntasks        = p.ntasks;
    M->has_carries   = std::any_of(p.head_row, p.head_row + p.ntasks, [](bsrk_idx h) { return h >= 0; });
    M->max_task_rows = 0;
    for (bsrk_idx t = 0; t < p.ntasks; ++t) M->max_task_rows = std::max(M->max_task_rows, p.row_begin[t + 1] - p.row_begin[t]);
    /* a range ends before task t: the rows before the one t continues (head_row), or before the
       first row t owns when it starts a row, have all their blocks in earlier tasks */
    for (int c = 0; c <= overlap_chunks && p.ntasks >= overlap_chunks; ++c) { /* fewer tasks: one download */
      const bsrk_idx t   = (bsrk_idx)((int64_t)p.ntasks * c / overlap_chunks);
      M->overlap_task[c] = t;
      M->overlap_row[c]  = c == 0 ? 0 : c == overlap_chunks ? M->nbrows : std::max(M->overlap_row[c - 1], p.head_row[t] >= 0 ? p.head_row[t] : p.row_begin[t]);
    }
  } else {
    release_tasks(M);
  }
  bsrk_partition_free(&p);
  return s;
}

/* Lanes per row (WARP_ROW) or per short row (HYBRID): the override, else the matrix's choice. */
int lanes_of(const bsrc_cuda_matrix *M, bsrc_cuda_kernel k)
{
  if (M->lanes_override[k] > 0) return M->lanes_override[k];
  return k == BSRC_CUDA_KERNEL_HYBRID ? M->hybrid_lanes : M->lanes;
}

/* HYBRID for the lanes it runs with: rows longer than long_columns_per_lane columns per lane (or than
   kLongColumnsMin columns, whichever is more) cut into pieces of kPieceColumns columns, and the
   warps' work in row order: each group of kWarpSize / lanes rows (unless none of them is short)
   followed by the pieces of its long rows. With one lane a row and bs 1, rows of kOneLaneColumnsMax
   to kMediumColumnsMax columns are the middle tier instead: listed in row order, a work item for
   each kMediumRowsPerWarp of them, placed where its first row falls. Its items are numbered from
   nbrows up, so the tier is left out where that would overflow bsrk_idx. */
bsrc_cuda_status build_hybrid_work(bsrc_cuda_matrix *M)
{
  release_hybrid(M);
  const int             lanes        = lanes_of(M, BSRC_CUDA_KERNEL_HYBRID);
  const bsrk_idx        bs           = M->bs;
  const bool            medium       = lanes == 1 && bs == 1 && (int64_t)M->nbrows + M->nbrows / kMediumRowsPerWarp + 1 <= (int64_t)std::numeric_limits<bsrk_idx>::max();
  const bsrk_idx        long_blocks  = medium ? kMediumColumnsMax : std::max<bsrk_idx>(1, (bsrk_idx)std::max(long_columns_per_lane((int)bs) * lanes, kLongColumnsMin) / bs);
  const bsrk_idx        short_blocks = medium ? kOneLaneColumnsMax : long_blocks;
  const bsrk_idx       *rp           = M->host_rowptr.data();
  std::vector<bsrk_idx> first, count, work, medium_rows;
  bsrc_cuda_status      s = build_piece_set(M, M->hybrid_pieces, long_blocks, std::max<bsrk_idx>(1, (bsrk_idx)kPieceColumns / bs), lanes, "hybrid", first, count);
  if (s != BSRC_CUDA_OK) return s;
  try {
    const bsrk_idx rows_per_warp = kWarpSize / lanes;
    for (bsrk_idx g = 0; g < M->nbrows; g += rows_per_warp) {
      const bsrk_idx end       = std::min(M->nbrows, g + rows_per_warp);
      bool           any_short = false;
      for (bsrk_idx r = g; r < end; ++r) any_short = any_short || rp[r + 1] - rp[r] <= short_blocks;
      if (any_short) work.push_back(g);
      for (bsrk_idx r = g; r < end; ++r) {
        if (medium && count[r] == 0 && rp[r + 1] - rp[r] > short_blocks) { /* the middle tier */
          if (medium_rows.size() % kMediumRowsPerWarp == 0) work.push_back(M->nbrows + (bsrk_idx)(medium_rows.size() / kMediumRowsPerWarp));
          medium_rows.push_back(r);
        }
        for (bsrk_idx q = first[r]; q < first[r] + count[r]; ++q) work.push_back(piece_item(q));
      }
    }
    while (medium_rows.size() % kMediumRowsPerWarp) medium_rows.push_back(-1);
  } catch (const std::bad_alloc &) {
    release_hybrid(M);
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "hybrid work list: out of host memory");
  }
  s = upload_work(M, M->hybrid_work, work, "hybrid work list");
  if (s == BSRC_CUDA_OK && !medium_rows.empty()) s = upload_work(M, M->hybrid_medium, medium_rows, "hybrid middle-tier rows");
  if (s != BSRC_CUDA_OK) {
    release_hybrid(M);
    return s;
  }
  M->hybrid_nwork        = (bsrk_idx)work.size();
  M->hybrid_short_blocks = short_blocks;
  return BSRC_CUDA_OK;
}

/* SEGMENTED's strips: consecutive rows, greedily, up to kStripRows rows and kStripItems items; a
   row of more items is a long row, cut into pieces of kPieceColumns columns that take its place in
   the list, and ends the strip before it (a strip's items are one contiguous run). Empty rows join
   strips (they store beta * in). */
bsrc_cuda_status build_strips(bsrc_cuda_matrix *M)
{
  release_strips(M);
  const bsrk_idx        bs           = M->bs;
  const bsrk_idx        long_blocks  = std::max<bsrk_idx>(1, (bsrk_idx)(kStripItems / strip_items_per_block((int)bs)));
  const bsrk_idx        piece_blocks = std::max<bsrk_idx>(1, (bsrk_idx)kPieceColumns / bs);
  const bsrk_idx       *rp           = M->host_rowptr.data();
  std::vector<bsrk_idx> first, count, begin, end;
  bsrc_cuda_status      s = build_piece_set(M, M->segmented_pieces, long_blocks, piece_blocks, 0, "segmented", first, count);
  if (s != BSRC_CUDA_OK) return s;
  try {
    bsrk_idx r = 0;
    while (r < M->nbrows) {
      if (rp[r + 1] - rp[r] > long_blocks) { /* its pieces, each a work item of its own */
        for (bsrk_idx q = first[r]; q < first[r] + count[r]; ++q) {
          begin.push_back(piece_item(q));
          end.push_back(0);
        }
        ++r;
        continue;
      }
      const bsrk_idx row0 = r;
      while (r < M->nbrows && r - row0 < kStripRows && rp[r + 1] - rp[r] <= long_blocks && rp[r + 1] - rp[row0] <= long_blocks) ++r;
      begin.push_back(row0);
      end.push_back(r);
    }
  } catch (const std::bad_alloc &) {
    release_strips(M);
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "segmented strips: out of host memory");
  }
  s = upload_work(M, M->strip_begin, begin, "segmented strip starts");
  if (s == BSRC_CUDA_OK) s = upload_work(M, M->strip_end, end, "segmented strip ends");
  if (s != BSRC_CUDA_OK) {
    release_strips(M);
    return s;
  }
  M->nstrips = (bsrk_idx)begin.size();
  return BSRC_CUDA_OK;
}

/* SLICED's natural layout, planned on the host from the row pointers (host_rowptr; slices_view) at
   set_structure: its slices' steps, and the blocks they hold with their padding (the auto choice's
   measure). Where that is more than kSlicedMaxPadding x the matrix's blocks, SLICED takes the sorted
   layout, planned only when SLICED is first configured or run (plan_sorted_slices). */
bsrc_cuda_status plan_slices(bsrc_cuda_matrix *M)
{
  const bsrk_idx *rp      = M->host_rowptr.data();
  const bsrk_idx  nslices = (bsrk_idx)(((int64_t)M->nbrows + kWarpSize - 1) / kWarpSize);
  try {
    M->host_slice_step.assign((size_t)nslices + 1, 0);
  } catch (const std::bad_alloc &) {
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "set_structure: out of host memory for the slices of sliced");
  }
  for (bsrk_idx sl = 0; sl < nslices; ++sl) {
    bsrk_idx longest = 0;
    for (int64_t r = (int64_t)sl * kWarpSize; r < std::min<int64_t>(M->nbrows, ((int64_t)sl + 1) * kWarpSize); ++r) longest = std::max(longest, rp[r + 1] - rp[r]);
    M->host_slice_step[sl + 1] = M->host_slice_step[sl] + longest;
  }
  M->nslices        = nslices;
  M->slice_blocks   = M->host_slice_step.back() * kWarpSize;
  M->slices_sorted  = (double)M->slice_blocks > kSlicedMaxPadding * (double)M->nblocks;
  M->slices_planned = !M->slices_sorted;
  return BSRC_CUDA_OK;
}

/* The sorted layout (slices_view), once. Each block row is a unit of lanes: one lane for a row of
   at most sliced_lane_blocks(bs) blocks, else the fewest of 2, 4, .., 32 lanes that leave each at
   most that many (the row's blocks shared out evenly, in order); a row too long for 32 such lanes
   is cut into equal parts of one whole slice each, whose sums go to slots that the warp of the
   row's last part to finish adds up (sliced_long_row_end in bsrcuda_kernels_sliced.cu).
   Units are sorted by lanes, then by their longest lane (longest first; ties in row order) and laid
   out in that order: a unit of g lanes then starts at a multiple of g, so it never straddles two
   slices and the kernel's butterfly over g lanes stays inside it. */
bsrc_cuda_status plan_sorted_slices(bsrc_cuda_matrix *M)
{
  if (M->slices_planned) return BSRC_CUDA_OK;
  const bsrk_idx *rp = M->host_rowptr.data();
  try {
    struct unit {
      int64_t  b0;
      bsrk_idx len, out;
      int      lanes;
      bsrk_idx lane_blocks; /* its longest lane */
    };
    std::vector<unit> units;
    bsrk_idx          nslots      = 0;
    const bsrk_idx    lane_blocks = sliced_lane_blocks(M->bs);
    M->host_slice_long_row.clear();
    M->host_slice_long_begin.clear();
    M->host_slot_long.clear();
    for (bsrk_idx r = 0; r < M->nbrows; ++r) {
      const bsrk_idx len = rp[r + 1] - rp[r]; /* empty rows too: their lanes store beta * in */
      if (len <= (bsrk_idx)kWarpSize * lane_blocks) {
        int g = 1;
        while ((len + g - 1) / g > lane_blocks) g *= 2;
        units.push_back({rp[r], len, r, g, (len + g - 1) / g});
        continue;
      }
      const bsrk_idx parts = (bsrk_idx)(((int64_t)len + kWarpSize * lane_blocks - 1) / (kWarpSize * lane_blocks));
      M->host_slice_long_row.push_back(r);
      M->host_slice_long_begin.push_back(nslots);
      int64_t b0 = rp[r];
      for (bsrk_idx q = 0; q < parts; ++q) {
        const bsrk_idx part = len / parts + (q < len % parts ? 1 : 0);
        units.push_back({b0, part, -2 - nslots++, kWarpSize, (part + kWarpSize - 1) / kWarpSize});
        M->host_slot_long.push_back((bsrk_idx)M->host_slice_long_row.size() - 1);
        b0 += part;
      }
    }
    M->host_slice_long_begin.push_back(nslots);
    std::stable_sort(units.begin(), units.end(), [](const unit &a, const unit &b) { return a.lanes != b.lanes ? a.lanes > b.lanes : a.lane_blocks > b.lane_blocks; });
    int64_t nlanes = 0;
    for (const unit &u : units) nlanes += u.lanes;
    const bsrk_idx       sorted_slices = (bsrk_idx)((nlanes + kWarpSize - 1) / kWarpSize);
    std::vector<int64_t> step((size_t)sorted_slices + 1, 0);
    M->host_lane_out.assign((size_t)sorted_slices * kWarpSize, -1);
    M->host_lane_b0.assign((size_t)sorted_slices * kWarpSize, 0);
    M->host_lane_len.assign((size_t)sorted_slices * kWarpSize, 0);
    int64_t lane = 0;
    for (const unit &u : units) {
      int64_t b0 = u.b0;
      for (int i = 0; i < u.lanes; ++i, ++lane) {
        const bsrk_idx n       = u.len / u.lanes + (i < u.len % u.lanes ? 1 : 0);
        M->host_lane_out[lane] = u.out;
        M->host_lane_b0[lane]  = b0;
        M->host_lane_len[lane] = n;
        b0 += n;
        step[lane / kWarpSize + 1] = std::max<int64_t>(step[lane / kWarpSize + 1], n);
      }
    }
    for (bsrk_idx sl = 0; sl < sorted_slices; ++sl) step[sl + 1] += step[sl];
    M->host_slice_step.swap(step);
    M->nslices        = sorted_slices;
    M->slice_nlong    = (bsrk_idx)M->host_slice_long_row.size();
    M->slice_nslots   = nslots;
    M->slices_planned = true;
  } catch (const std::bad_alloc &) {
    for (auto *v : {&M->host_lane_out, &M->host_lane_len, &M->host_slice_long_row, &M->host_slice_long_begin, &M->host_slot_long}) v->clear();
    M->host_lane_b0.clear();
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "sliced: out of host memory for the plan of its sorted layout");
  }
  return BSRC_CUDA_OK;
}

/* SLICED's copy up to date with the values (struct bsrc_cuda_matrix, slices_view): allocated on
   first use, rebuilt on stream s (ahead of the product queued there) after set_values. */
bsrc_cuda_status ensure_slices(bsrc_cuda_matrix *M, cudaStream_t s)
{
  if (M->slices_epoch == M->values_epoch) return BSRC_CUDA_OK;
  const bsrc_cuda_status ps = plan_sorted_slices(M);
  if (ps != BSRC_CUDA_OK) return ps;
  const size_t steps     = (size_t)M->host_slice_step.back();
  size_t       col_bytes = 0, value_bytes = 0;
  if (!byte_count(steps * kWarpSize, sizeof(bsrk_idx), &col_bytes) || !byte_count(steps * kWarpSize, (size_t)M->bs * (size_t)M->bs * sizeof(double), &value_bytes))
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "sliced: %zu padded blocks of %lldx%lld need more than SIZE_MAX bytes", steps * kWarpSize, (long long)M->bs, (long long)M->bs);
  bsrc_cuda_status st = BSRC_CUDA_OK;
  if (!M->slice_step.ptr) {
    auto put = [&](dev_buffer &b, const void *host, size_t bytes, const char *what) {
      if (st == BSRC_CUDA_OK) st = dev_alloc(b, bytes, what, &M->bytes, sink(M));
      if (st == BSRC_CUDA_OK && host) st = upload(M, b, host, bytes, what);
    };
    put(M->slice_step, M->host_slice_step.data(), M->host_slice_step.size() * sizeof(int64_t), "sliced: slice starts");
    if (M->slices_sorted) {
      put(M->lane_out, M->host_lane_out.data(), M->host_lane_out.size() * sizeof(bsrk_idx), "sliced: lane rows' outputs");
      put(M->lane_b0, M->host_lane_b0.data(), M->host_lane_b0.size() * sizeof(int64_t), "sliced: lane rows' first blocks");
      put(M->lane_len, M->host_lane_len.data(), M->host_lane_len.size() * sizeof(bsrk_idx), "sliced: lane rows' lengths");
      put(M->slice_long_row, M->host_slice_long_row.data(), M->host_slice_long_row.size() * sizeof(bsrk_idx), "sliced: long rows");
      put(M->slice_long_begin, M->host_slice_long_begin.data(), M->host_slice_long_begin.size() * sizeof(bsrk_idx), "sliced: long rows' partial sums");
      put(M->slot_sum, nullptr, (size_t)M->slice_nslots * (size_t)M->bs * sizeof(double), "sliced: partial sums of the long rows");
      put(M->slot_long, M->host_slot_long.data(), M->host_slot_long.size() * sizeof(bsrk_idx), "sliced: the long row of each partial sum");
      put(M->long_arrivals, nullptr, (size_t)M->slice_nlong * sizeof(unsigned), "sliced: the long rows' arrival counts");
      if (st == BSRC_CUDA_OK && M->slice_nlong > 0) { /* 0 before the first product, on the stream that runs it; each product leaves them at 0 */
        const cudaError_t e = cudaMemsetAsync(M->long_arrivals.ptr, 0, (size_t)M->slice_nlong * sizeof(unsigned), s);
        if (e != cudaSuccess) st = fail_cuda(sink(M), e, "sliced: zeroing the long rows' arrival counts");
      }
    }
    put(M->slice_col, nullptr, col_bytes, "sliced: column indices (its copy of the matrix; -mat_bsrcustom_cuda_kernel warp_row or hybrid needs none)");
    put(M->slice_values, nullptr, value_bytes, "sliced: values (its copy of the matrix; -mat_bsrcustom_cuda_kernel warp_row or hybrid needs none)");
    if (st != BSRC_CUDA_OK) {
      free_slices_device(M);
      return st;
    }
  }
  BSRC_CUDA_CHECK(launch_slices_build(view(M), tasks(M).slices, (bsrk_idx *)M->slice_col.ptr, (double *)M->slice_values.ptr, s), sink(M), "sliced: build of its copy");
  M->slices_epoch = M->values_epoch;
  return BSRC_CUDA_OK;
}

} // namespace bsrc
