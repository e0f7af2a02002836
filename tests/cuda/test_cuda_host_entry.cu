/*
   The host entry of the CUDA layer (bsrc_cuda_multadd_host) and the split product on host arrays:
   the staging of x and y in pieces, page-locked arrays (bsrc_cuda_host_register) that the copies
   reach directly, and the task kernels' downloads of y in row ranges. Every product against the host
   reference.
*/
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cuda_test_support.h"

namespace cudatest {
namespace {

using HostStaging = CudaTest;

/* The host entry's staging in pieces: vectors of several default pieces (1 MiB; y over 8 of them, so
   the download's event ring wraps) with x and y of different lengths that are no multiple of a
   piece, and BSRC_CUDA_STAGING's overrides: tiny pieces (many ring turns, one thread), pieces split
   among threads, one thread, more threads, and "serial". */
host_matrix staging_large(rng_t &rng)
{
  const bsrk_idx nbrows = 350003, nbcols = 200001; /* y 8.4 MB, x 4.8 MB */
  rows_t         rows(nbrows);
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    const bsrk_idx a = i % nbcols, b = (bsrk_idx)(rng() % (uint64_t)nbcols);
    rows[i].push_back(std::min(a, b));
    if (a != b) rows[i].push_back(std::max(a, b));
  }
  return from_rows("staging_large", nbcols, 3, rows, rng);
}

TEST_F(HostStaging, Pieces)
{
  const host_matrix cases[]    = {staging_large(rng), random_matrix("staging_mid", 3001, 2503, 3, 4, 0.05, rng) /* y 72 KB */};
  const char       *settings[] = {nullptr, "1", "256x3", "1024x1", "512x16", "serial"};
  for (const host_matrix &A : cases) {
    ASSERT_TRUE(upload(M, A)) << "staging/" << case_name(A);
    for (const char *set : settings) {
      if (quick_mode() && set && strcmp(set, "1") != 0 && strcmp(set, "256x3") != 0) continue;
      if (set) setenv("BSRC_CUDA_STAGING", set, 1);
      else unsetenv("BSRC_CUDA_STAGING");
      EXPECT_TRUE(check_product(M, A, BSRC_CUDA_KERNEL_AUTO, rng)) << "staging[" << (set ? set : "default") << "]/" << case_name(A) << "/auto";
    }
    unsetenv("BSRC_CUDA_STAGING");
  }
}

/* x and y of a host-entry test, as a PETSc vector's arrays are: from malloc, page-locked with
   bsrc_cuda_host_register; xv (x's values) and in random. ok() is false when malloc failed (then
   nothing was registered); `registered` and unregister() report the (un)registration; the destructor
   unregisters what is still registered and frees. */
struct registered_xy {
  size_t              nx, ny;
  double             *x = nullptr, *y = nullptr;
  std::vector<double> xv, in;
  bool                registered = false;
  registered_xy(size_t nx_, size_t ny_, rng_t &rng) : nx(nx_), ny(ny_), xv(nx_), in(ny_)
  {
    x = (double *)malloc(nx * sizeof(double));
    y = (double *)malloc(ny * sizeof(double));
    for (double &v : xv) v = uniform(rng, -1, 1);
    for (double &v : in) v = uniform(rng, -1, 1);
    if (!ok()) return;
    memcpy(x, xv.data(), nx * sizeof(double));
    registered = bsrc_cuda_host_register(x, nx * sizeof(double)) == BSRC_CUDA_OK && bsrc_cuda_host_register(y, ny * sizeof(double)) == BSRC_CUDA_OK;
  }
  registered_xy(const registered_xy &)            = delete;
  registered_xy &operator=(const registered_xy &) = delete;
  ~registered_xy()
  {
    if (registered) (void)unregister();
    free(x);
    free(y);
  }
  bool ok() const { return x && y; }
  bool unregister()
  {
    registered = false;
    return bsrc_cuda_host_unregister(x) == BSRC_CUDA_OK && bsrc_cuda_host_unregister(y) == BSRC_CUDA_OK;
  }
  /* y = in, or NaN where beta is 0 (then in aliases out and must not be read) */
  void fill_y(double beta) const
  {
    if (beta == 0.0) std::fill(y, y + ny, std::nan(""));
    else memcpy(y, in.data(), ny * sizeof(double));
  }
};

/* Rows of 1-3 random columns (at most `per_row`), row `longrow` (if any) of `longlen` random ones. */
host_matrix few_blocks_a_row(const char *name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, bool random_len, bsrk_idx longrow, int longlen, rng_t &rng)
{
  rows_t rows(nbrows);
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    const int n = i == longrow ? longlen : random_len ? 1 + (int)(rng() % 3) : 3;
    for (int j = 0; j < n; ++j) rows[i].push_back((bsrk_idx)(rng() % (uint64_t)nbcols));
  }
  sort_unique(rows);
  return from_rows(name, nbcols, bs, rows, rng);
}

/* The fixture of the page-locked cases: A uploaded to M and to a second matrix G, x and y registered. */
class RegisteredHost : public CudaTest {
protected:
  void SetUp() override
  {
    CudaTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    A = few_blocks_a_row("registered", 400003, 300007, 2, false, -1, 0, rng); /* y 6.4 MB, x 4.8 MB */
    ASSERT_TRUE(upload(M, A));
    ASSERT_EQ(bsrc_cuda_create(0, &G), BSRC_CUDA_OK) << "second matrix: " << bsrc_cuda_last_error(nullptr);
    ASSERT_TRUE(upload(G, A)) << "second matrix";
    xy.reset(new registered_xy((size_t)A.nbcols * A.bs, (size_t)A.nbrows * A.bs, rng));
    ASSERT_TRUE(xy->ok()) << "malloc of x and y";
    ASSERT_TRUE(xy->registered) << "register x and y: " << bsrc_cuda_last_error(nullptr);
  }
  void TearDown() override
  {
    xy.reset();
    bsrc_cuda_destroy(G);
    CudaTest::TearDown();
  }
  /* y = alpha A x + beta y (split: through L = M and G = the same A on x, so y = 2 alpha A x + beta y) */
  void expect_product(double alpha, double beta, bool split, const std::string &what, bsrc_cuda_kernel kern = BSRC_CUDA_KERNEL_AUTO)
  {
    xy->fill_y(beta);
    bsrc_cuda_status s;
    if (split) {
      s = bsrc_cuda_split_begin(M, BSRC_CUDA_KERNEL_AUTO, alpha, xy->x, beta, xy->y);
      if (s == BSRC_CUDA_OK) s = bsrc_cuda_split_end(M, G, BSRC_CUDA_KERNEL_AUTO, alpha, xy->x, xy->y);
    } else {
      s = bsrc_cuda_multadd_host(M, kern, alpha, xy->x, beta, xy->y, xy->y);
    }
    EXPECT_EQ(s, BSRC_CUDA_OK) << case_name(A) << "/" << what << ": " << bsrc_cuda_last_error(M);
    if (s == BSRC_CUDA_OK) EXPECT_TRUE(compare(A, split ? 2.0 * alpha : alpha, xy->xv, beta, xy->in, std::vector<double>(xy->y, xy->y + xy->ny))) << case_name(A) << "/" << what;
  }

  host_matrix                    A;
  bsrc_cuda_matrix              *G = nullptr;
  std::unique_ptr<registered_xy> xy;
};

/* Host arrays page-locked with bsrc_cuda_host_register, as the PETSc layer does with its vectors'
   arrays: the host entry and the split product then DMA straight from/to them. x and y come from
   malloc and span several staging pieces; beta 0 (y poisoned with NaN: in aliases out and must not
   be read) and beta 1 with in aliasing out; the split product with x, ghost x (here x again, through
   a second matrix holding the same A, so out = 2 alpha A x + beta in) and in/out registered. AUTO is
   SLICED here (rows of 1-3 2x2 blocks), which, like WARP_ROW, brings a page-locked y of this size back
   in row ranges overlapping the product; SLICED's ranges start at whole slices of 32 rows, and the
   last one ends at row 400003. */
TEST_F(RegisteredHost, ProductsIntoPageLockedArrays)
{
  EXPECT_EQ(bsrc_cuda_auto_kernel(M), BSRC_CUDA_KERNEL_SLICED) << "auto is sliced here (so the overlapped download runs, in ranges of whole slices): " << bsrc_cuda_kernel_names[bsrc_cuda_auto_kernel(M)];
  cudaPointerAttributes attr;
  EXPECT_TRUE(cudaPointerGetAttributes(&attr, xy->y + xy->ny / 2) == cudaSuccess && attr.type == cudaMemoryTypeHost) << "y is page-locked: cudaPointerGetAttributes does not report cudaMemoryTypeHost";
  for (int rep = 0; rep < 2; ++rep) {
    const std::string r = rep ? "/again" : "";
    expect_product(1.0, 0.0, false, "host, beta 0, in==out" + r);
    expect_product(2.5, 1.0, false, "host, beta 1, in==out" + r);
    expect_product(1.0, 0.0, true, "split, beta 0, in==out" + r);
    expect_product(-0.5, 1.0, true, "split, beta 1, in==out" + r);
    expect_product(2.5, 1.0, false, "host, beta 1, in==out, hybrid (one download)" + r, BSRC_CUDA_KERNEL_HYBRID);
    expect_product(-1.0, 0.0, false, "host, beta 0, warp_row (overlapped download)" + r, BSRC_CUDA_KERNEL_WARP_ROW);
    expect_product(1.5, 1.0, false, "host, beta 1, sliced (overlapped download)" + r, BSRC_CUDA_KERNEL_SLICED);
  }
}

/* Registering y again is refused with a message, CUDA's error is cleared and products still work;
   after unregistering, the products are staged again. */
TEST_F(RegisteredHost, RegisteringTwiceIsRefused)
{
  const bsrc_cuda_status twice = bsrc_cuda_host_register(xy->y, xy->ny * sizeof(double));
  const std::string      msg   = bsrc_cuda_last_error(nullptr);
  printf("  message: %s\n", msg.c_str());
  EXPECT_TRUE(twice != BSRC_CUDA_OK && msg.find("cudaHostRegister") != std::string::npos) << "registering y twice is refused with a message naming cudaHostRegister: " << msg;
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << "the refused registration left a CUDA error behind: " << cudaGetErrorString(cudaPeekAtLastError());
  expect_product(2.5, 1.0, false, "host, beta 1, after the refused registration");
  expect_product(-0.5, 1.0, true, "split, beta 1, after the refused registration");
  EXPECT_TRUE(xy->unregister()) << "unregister x and y: " << bsrc_cuda_last_error(nullptr);
  expect_product(1.0, 1.0, false, "host, beta 1, unregistered again (staged)");
}

using TaskRanges = CudaTest;

/* The task kernels into a page-locked y of at least 1 MB: the product runs in 4 task ranges, each
   range's rows downloaded while the next range computes. Rows of 1-3 blocks and one row of 40000
   blocks in the middle, so that a row continues across tasks and across a range boundary; task
   counts from 4 (one task a range) up, beta 0 (y poisoned) and beta 1 (in aliasing out). */
TEST_F(TaskRanges, PageLockedY)
{
  const host_matrix A = few_blocks_a_row("task-ranges", 150001, 120011, 2, true, 75000, 40000, rng); /* y 2.4 MB */
  ASSERT_TRUE(upload(M, A));
  registered_xy xy((size_t)A.nbcols * A.bs, (size_t)A.nbrows * A.bs, rng);
  ASSERT_TRUE(xy.ok()) << "malloc of x and y";
  ASSERT_TRUE(xy.registered) << "register x and y: " << bsrc_cuda_last_error(nullptr);
  const bsrc_cuda_kernel kernels[] = {BSRC_CUDA_KERNEL_VECTOR_UNROLLED, BSRC_CUDA_KERNEL_THREAD_PRIVATE, BSRC_CUDA_KERNEL_TEAM_SCALAR, BSRC_CUDA_KERNEL_ROWMAJOR_SHARED};
  for (bsrk_idx tasks : {(bsrk_idx)0, (bsrk_idx)4, (bsrk_idx)5, (bsrk_idx)64}) {
    ASSERT_EQ(bsrc_cuda_set_task_count(M, tasks), BSRC_CUDA_OK) << "set_task_count " << tasks << ": " << bsrc_cuda_last_error(M);
    const std::string tt = case_name(A) + "/" + std::to_string((long long)bsrc_cuda_task_count(M)) + " tasks";
    for (bsrc_cuda_kernel k : kernels) {
      for (double beta : {0.0, 1.0}) {
        const double alpha = beta == 0.0 ? -1.5 : 0.75;
        xy.fill_y(beta);
        const bsrc_cuda_status s    = bsrc_cuda_multadd_host(M, k, alpha, xy.x, beta, xy.y, xy.y);
        const std::string      what = tt + "/" + bsrc_cuda_kernel_names[k] + (beta == 0.0 ? "/beta 0" : "/beta 1, in==out");
        EXPECT_EQ(s, BSRC_CUDA_OK) << what << ": " << bsrc_cuda_last_error(M);
        if (s == BSRC_CUDA_OK) EXPECT_TRUE(compare(A, alpha, xy.xv, beta, xy.in, std::vector<double>(xy.y, xy.y + xy.ny))) << what;
      }
    }
  }
  (void)bsrc_cuda_set_task_count(M, 0);
  EXPECT_TRUE(xy.unregister()) << "unregister x and y: " << bsrc_cuda_last_error(nullptr);
}

} // namespace
} // namespace cudatest
