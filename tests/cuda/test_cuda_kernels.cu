/*
   Self-contained test of the CUDA layer (bsrcuda.h): no PETSc, no GoogleTest, so it builds and runs
   on a bare GPU host. Every product is compared with bsrk_reference_multadd on the host.

   Prints "PASS name" / "FAIL name: why" and finally "N passed, M failed, K skipped".
   Exit status: 0 when nothing failed, 1 otherwise, 77 when no GPU is visible ("SKIPPED: no CUDA
   device"; CTest's SKIP_RETURN_CODE).
   BSRC_TEST_QUICK=1 runs fewer (alpha, beta) pairs and matrices (for the slow sanitizer tools).
*/
#include <cuda_runtime.h>

#include <algorithm>
#include <initializer_list>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_cuda_baselines.h"
#include "cuda_test_hooks.h"
#include "bsrcuda.h"
#include "bsrkernels.h"

namespace {

int  g_passed = 0, g_failed = 0, g_skipped = 0;
bool g_quick = false;

void pass(const std::string &name)
{
  ++g_passed;
  printf("PASS %s\n", name.c_str());
}

void failf(const std::string &name, const char *fmt, ...)
{
  ++g_failed;
  char    buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  printf("FAIL %s: %s\n", name.c_str(), buf);
}

void expect(bool ok, const std::string &name, const char *why)
{
  if (ok) pass(name);
  else failf(name, "%s", why);
}

#define CUDA_OK(call) \
  do { \
    const cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      printf("FAIL cuda-call %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1); \
    } \
  } while (0)

/* ---- host matrices ---- */

struct host_matrix {
  std::string           name;
  bsrk_idx              nbrows = 0, nbcols = 0, bs = 1;
  std::vector<bsrk_idx> rowptr{0}, colidx;
  std::vector<double>   values;

  bsrk_idx    nblocks() const { return rowptr.back(); }
  bsrk_matrix view() const { return bsrk_matrix{nbrows, nbcols, bs, rowptr.data(), colidx.data(), values.data()}; }
};

using rng_t = std::mt19937_64;

double uniform(rng_t &rng, double lo, double hi)
{
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

void fill_values(host_matrix &A, rng_t &rng)
{
  A.values.resize((size_t)A.nblocks() * A.bs * A.bs);
  for (double &v : A.values) v = uniform(rng, -1.0, 1.0);
}

/* nrows rows whose lengths cycle through `lengths`; row i holds columns (i * step + j) % nbcols,
   j < its length (distinct: no length may exceed nbcols), sorted. */
std::vector<std::vector<bsrk_idx>> cycled_rows(size_t nrows, std::initializer_list<bsrk_idx> lengths, bsrk_idx step, bsrk_idx nbcols)
{
  std::vector<std::vector<bsrk_idx>> rows(nrows);
  const std::vector<bsrk_idx>        len(lengths);
  for (size_t i = 0; i < nrows; ++i) {
    for (bsrk_idx j = 0; j < len[i % len.size()]; ++j) rows[i].push_back((bsrk_idx)((i * step + j) % nbcols));
    std::sort(rows[i].begin(), rows[i].end());
  }
  return rows;
}

/* Rows from per-row column lists (sorted, unique). */
host_matrix from_rows(const std::string &name, bsrk_idx nbcols, bsrk_idx bs, const std::vector<std::vector<bsrk_idx>> &rows, rng_t &rng, bool with_values = true)
{
  host_matrix A;
  A.name   = name;
  A.nbrows = (bsrk_idx)rows.size();
  A.nbcols = nbcols;
  A.bs     = bs;
  A.rowptr.assign(1, 0);
  for (const auto &r : rows) {
    A.colidx.insert(A.colidx.end(), r.begin(), r.end());
    A.rowptr.push_back((bsrk_idx)A.colidx.size());
  }
  if (with_values) fill_values(A, rng);
  return A;
}

/* Random rows: lengths uniform in [0, 2*mean], about `empty_share` of rows empty. */
host_matrix random_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, int mean, double empty_share, rng_t &rng)
{
  std::vector<std::vector<bsrk_idx>> rows(nbrows);
  std::vector<bsrk_idx>              all(nbcols);
  for (bsrk_idx c = 0; c < nbcols; ++c) all[c] = c;
  for (auto &r : rows) {
    if (uniform(rng, 0, 1) < empty_share) continue;
    const int len = std::min<int>((int)nbcols, (int)(rng() % (2 * mean + 1)));
    std::shuffle(all.begin(), all.end(), rng);
    r.assign(all.begin(), all.begin() + len);
    std::sort(r.begin(), r.end());
  }
  return from_rows(name, nbcols, bs, rows, rng);
}

/* One block row holds most blocks (every column), the others 0-2 blocks. */
host_matrix heavy_row_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, rng_t &rng)
{
  std::vector<std::vector<bsrk_idx>> rows(nbrows);
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    if (i == nbrows / 2) {
      for (bsrk_idx c = 0; c < nbcols; ++c) rows[i].push_back(c);
    } else {
      const int len = (int)(rng() % 3);
      for (int j = 0; j < len; ++j) rows[i].push_back((bsrk_idx)((i + 7 * j) % nbcols));
      std::sort(rows[i].begin(), rows[i].end());
      rows[i].erase(std::unique(rows[i].begin(), rows[i].end()), rows[i].end());
    }
  }
  return from_rows(name, nbcols, bs, rows, rng);
}

/* Block rows of power-law lengths (Pareto, exponent 2.2, at least 1 block, at most nbcols), columns
   distinct and spread over the whole width: mostly short rows and a few very long ones. */
host_matrix powerlaw_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, rng_t &rng)
{
  std::vector<std::vector<bsrk_idx>> rows(nbrows);
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    const double   u   = ((double)(rng() % 1000000) + 0.5) / 1e6;
    const bsrk_idx len = std::min<bsrk_idx>(nbcols, (bsrk_idx)(2.0 * std::pow(u, -1.0 / 1.2)));
    const bsrk_idx off = (bsrk_idx)(rng() % (uint64_t)nbcols);
    for (bsrk_idx j = 0; j < len; ++j) rows[i].push_back((off + j * (nbcols / std::max<bsrk_idx>(len, 1))) % nbcols);
    std::sort(rows[i].begin(), rows[i].end());
    rows[i].erase(std::unique(rows[i].begin(), rows[i].end()), rows[i].end());
  }
  return from_rows(name, nbcols, bs, rows, rng);
}

/* 3D grid n^3, one block per point, neighbours within distance 1 in each direction (27 or 7 points). */
host_matrix stencil_matrix(const std::string &name, int n, bsrk_idx bs, bool full27, rng_t &rng, bool with_values = true)
{
  std::vector<std::vector<bsrk_idx>> rows((size_t)n * n * n);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        auto &r = rows[((size_t)k * n + j) * n + i];
        for (int dk = -1; dk <= 1; ++dk)
          for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di) {
              if (!full27 && std::abs(di) + std::abs(dj) + std::abs(dk) > 1) continue;
              const int ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || jj < 0 || kk < 0 || ii >= n || jj >= n || kk >= n) continue;
              r.push_back((bsrk_idx)(((size_t)kk * n + jj) * n + ii));
            }
      }
  return from_rows(name, (bsrk_idx)n * n * n, bs, rows, rng, with_values);
}

/* Thesis dataset structure: 32000 x 32000, 5x5 blocks, 320 blocks per block row in a band. */
host_matrix thesis_structure(rng_t &rng)
{
  const bsrk_idx                     nb = 6400, per_row = 320;
  std::vector<std::vector<bsrk_idx>> rows(nb);
  for (bsrk_idx i = 0; i < nb; ++i) {
    const bsrk_idx start = std::min(std::max<bsrk_idx>(0, i - per_row / 2), nb - per_row);
    for (bsrk_idx c = 0; c < per_row; ++c) rows[i].push_back(start + c);
  }
  return from_rows("thesis", nb, 5, rows, rng, false);
}

/* ---- products ---- */

/* What a test case runs: a kernel of the API, or one of the benchmark-only cuSPARSE paths. */
enum {
  BENCH_BSRMV_ROW = BSRC_CUDA_KERNEL_COUNT,
  BENCH_CSR_ALG1,
  BENCH_CSR_ALG2,
  PRODUCT_COUNT
};

const char *product_name(int p)
{
  switch (p) {
  case BENCH_BSRMV_ROW:
    return "bench_bsrmv_rowmajor";
  case BENCH_CSR_ALG1:
    return "bench_spmv_csr_alg1";
  case BENCH_CSR_ALG2:
    return "bench_spmv_csr_alg2";
  default:
    return bsrc_cuda_kernel_names[p];
  }
}

/* One benchmark-only baseline (bench/bench_cuda_baselines.h) on M, with baselines made for this
   call and freed after it (which waits for M's stream). */
bsrc_cuda_status run_baseline(bsrc_cuda_matrix *M, int p, double alpha, const double *x, double beta, const double *in, double *out)
{
  bench_baselines *B = nullptr;
  bsrc_cuda_status s = bench_baselines_create(M, &B);
  if (s == BSRC_CUDA_OK) s = p == BENCH_BSRMV_ROW ? bench_cusparse_rowmajor_bsrmv(B, alpha, x, beta, in, out) : bench_cusparse_spmv_csr(B, p == BENCH_CSR_ALG1 ? 1 : p == BENCH_CSR_ALG2 ? 2 : p, alpha, x, beta, in, out);
  bench_baselines_destroy(B);
  return s;
}

bsrc_cuda_status run_device(bsrc_cuda_matrix *M, int p, double alpha, const double *x, double beta, const double *in, double *out)
{
  if (p < BSRC_CUDA_KERNEL_COUNT) return bsrc_cuda_multadd_device(M, (bsrc_cuda_kernel)p, alpha, x, beta, in, out);
  return run_baseline(M, p, alpha, x, beta, in, out);
}

struct ab_pair {
  double alpha, beta;
};
const ab_pair all_pairs[]   = {{1.0, 0.0}, {1.0, 1.0}, {2.5, -0.5}, {0.0, 1.0}};
const ab_pair quick_pairs[] = {{1.0, 0.0}, {2.5, -0.5}};

/* Compares out with the reference: |out - ref| <= 1e-13 * (|alpha| |A| |x| + |beta| |in|) per entry. */
bool compare(const host_matrix &A, double alpha, const std::vector<double> &x, double beta, const std::vector<double> &in, const std::vector<double> &out, std::string &why)
{
  const size_t        n = (size_t)A.nbrows * A.bs;
  std::vector<double> ref(n), scale(n);
  const bsrk_matrix   Av = A.view();
  bsrk_reference_multadd(&Av, alpha, x.data(), beta, beta != 0.0 ? in.data() : nullptr, ref.data());
  host_matrix Abs = A;
  for (double &v : Abs.values) v = std::fabs(v);
  std::vector<double> xabs(x.size()), inabs(in.size());
  for (size_t i = 0; i < x.size(); ++i) xabs[i] = std::fabs(x[i]);
  for (size_t i = 0; i < in.size(); ++i) inabs[i] = std::fabs(in[i]);
  const bsrk_matrix Absv = Abs.view();
  bsrk_reference_multadd(&Absv, std::fabs(alpha), xabs.data(), std::fabs(beta), beta != 0.0 ? inabs.data() : nullptr, scale.data());
  for (size_t i = 0; i < n; ++i) {
    const double err = std::fabs(out[i] - ref[i]);
    if (!(err <= 1e-13 * scale[i] + 1e-300)) {
      char buf[256];
      snprintf(buf, sizeof(buf), "entry %zu: got %.17g, reference %.17g (scale %.3g)", i, out[i], ref[i], scale[i]);
      why = buf;
      return false;
    }
  }
  return true;
}

/* Runs product p over the (alpha, beta) pairs, host and device entries, in separate from and aliasing out. */
bool check_product(bsrc_cuda_matrix *M, const host_matrix &A, int p, rng_t &rng, std::string &why)
{
  const size_t        nx = (size_t)A.nbcols * A.bs, ny = (size_t)A.nbrows * A.bs;
  std::vector<double> x(nx), in(ny);
  for (double &v : x) v = uniform(rng, -1, 1);
  for (double &v : in) v = uniform(rng, -1, 1);
  double *dx = nullptr, *dy = nullptr, *din = nullptr;
  CUDA_OK(cudaMalloc(&dx, std::max<size_t>(nx, 1) * sizeof(double)));
  CUDA_OK(cudaMalloc(&dy, std::max<size_t>(ny, 1) * sizeof(double)));
  CUDA_OK(cudaMalloc(&din, std::max<size_t>(ny, 1) * sizeof(double)));
  CUDA_OK(cudaMemcpy(dx, x.data(), nx * sizeof(double), cudaMemcpyHostToDevice));
  const bool   host_ok = p < BSRC_CUDA_KERNEL_COUNT; /* the benchmark paths take device arrays only */
  bool         ok      = true;
  const auto   pairs   = g_quick ? std::vector<ab_pair>(std::begin(quick_pairs), std::end(quick_pairs)) : std::vector<ab_pair>(std::begin(all_pairs), std::end(all_pairs));
  const double nan     = std::nan("");
  for (const ab_pair &ab : pairs) {
    for (int entry = 0; entry < 2 && ok; ++entry) {
      if (entry == 0 && !host_ok) continue;
      for (int alias = 0; alias < 2 && ok; ++alias) {
        std::vector<double> out(ny, nan);
        bsrc_cuda_status    s;
        const char         *where = entry == 0 ? (alias ? "host, in==out" : "host") : (alias ? "device, in==out" : "device");
        if (entry == 0) {
          std::vector<double> buf = in; /* alias: in is out */
          if (alias) {
            if (ab.beta == 0.0) std::fill(buf.begin(), buf.end(), nan); /* beta == 0 must not read in */
            s   = bsrc_cuda_multadd_host(M, (bsrc_cuda_kernel)p, ab.alpha, x.data(), ab.beta, buf.data(), buf.data());
            out = buf;
          } else {
            s = bsrc_cuda_multadd_host(M, (bsrc_cuda_kernel)p, ab.alpha, x.data(), ab.beta, ab.beta != 0.0 ? in.data() : nullptr, out.data());
          }
        } else {
          CUDA_OK(cudaMemset(dy, 0xff, std::max<size_t>(ny, 1) * sizeof(double))); /* NaN poison */
          if (alias) {
            if (ab.beta != 0.0) CUDA_OK(cudaMemcpy(dy, in.data(), ny * sizeof(double), cudaMemcpyHostToDevice));
            CUDA_OK(cudaDeviceSynchronize()); /* inputs in place before the matrix's stream runs */
            s = run_device(M, p, ab.alpha, dx, ab.beta, dy, dy);
          } else {
            CUDA_OK(cudaMemcpy(din, in.data(), ny * sizeof(double), cudaMemcpyHostToDevice));
            CUDA_OK(cudaDeviceSynchronize());
            s = run_device(M, p, ab.alpha, dx, ab.beta, ab.beta != 0.0 ? din : nullptr, dy);
          }
          CUDA_OK(cudaMemcpy(out.data(), dy, ny * sizeof(double), cudaMemcpyDeviceToHost));
        }
        char buf[1400];
        if (s != BSRC_CUDA_OK) {
          snprintf(buf, sizeof(buf), "alpha %g beta %g (%s): status %d: %s", ab.alpha, ab.beta, where, (int)s, bsrc_cuda_last_error(M));
          why = buf;
          ok  = false;
        } else if (!compare(A, ab.alpha, x, ab.beta, in, out, why)) {
          snprintf(buf, sizeof(buf), "alpha %g beta %g (%s): %s", ab.alpha, ab.beta, where, why.c_str());
          why = buf;
          ok  = false;
        }
      }
    }
    if (!ok) break;
  }
  CUDA_OK(cudaFree(dx));
  CUDA_OK(cudaFree(dy));
  CUDA_OK(cudaFree(din));
  return ok;
}

bool upload(bsrc_cuda_matrix *M, const host_matrix &A, const std::string &name)
{
  bsrc_cuda_status s = bsrc_cuda_set_structure(M, A.nbrows, A.nbcols, A.bs, A.rowptr.data(), A.colidx.data());
  if (s == BSRC_CUDA_OK) s = bsrc_cuda_set_values(M, A.values.data());
  if (s != BSRC_CUDA_OK) failf(name, "upload: status %d: %s", (int)s, bsrc_cuda_last_error(M));
  return s == BSRC_CUDA_OK;
}

/* Every product on matrix A (already uploaded to M); one PASS/FAIL line per product. */
void check_all_products(bsrc_cuda_matrix *M, const host_matrix &A, const std::string &tag, rng_t &rng)
{
  for (int p = 0; p < PRODUCT_COUNT; ++p) {
    std::string       why;
    const std::string name = tag + "/" + product_name(p);
    if (check_product(M, A, p, rng, why)) pass(name);
    else failf(name, "%s", why.c_str());
  }
}

std::string case_name(const host_matrix &A)
{
  char buf[160];
  snprintf(buf, sizeof(buf), "%s[bs=%lld,%lldx%lld,%lld blocks]", A.name.c_str(), (long long)A.bs, (long long)A.nbrows, (long long)A.nbcols, (long long)A.nblocks());
  return buf;
}

/* ---- groups of tests ---- */

void test_products(bsrc_cuda_matrix *M, rng_t &rng)
{
  std::vector<host_matrix> cases;
  const bsrk_idx           sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 16};
  for (bsrk_idx bs : sizes) {
    if (g_quick && !(bs == 1 || bs == 3 || bs == 5 || bs == 8 || bs == 11)) continue;
    cases.push_back(random_matrix("random", 37, 41, bs, 5, 0.2, rng));
  }
  const bsrk_idx special[] = {1, 3, 5, 11};
  for (bsrk_idx bs : special) {
    if (g_quick && bs != 3 && bs != 11) continue;
    cases.push_back(heavy_row_matrix("heavy_row", 61, 300, bs, rng));
    cases.push_back(powerlaw_matrix("powerlaw", 900, 3000, bs, rng));
    cases.push_back(from_rows("single_block", 4, bs, {{}, {2}, {}}, rng));
    cases.push_back(from_rows("no_blocks", 5, bs, {{}, {}, {}, {}, {}}, rng));
  }
  if (!g_quick) {
    cases.push_back(random_matrix("random_large", 3000, 2500, 3, 10, 0.05, rng));
    cases.push_back(random_matrix("random_large", 2000, 2000, 5, 12, 0.05, rng));
    cases.push_back(stencil_matrix("stencil27", 9, 3, true, rng));
    cases.push_back(stencil_matrix("stencil7", 10, 4, false, rng));
  }
  for (const host_matrix &A : cases) {
    const std::string name = case_name(A);
    if (upload(M, A, name)) check_all_products(M, A, name, rng);
  }
}

/* Task partitions other than the default: one task (no carries), a few, and one block per task. */
void test_task_counts(bsrc_cuda_matrix *M, rng_t &rng)
{
  const bsrk_idx sizes[] = {3, 11};
  for (bsrk_idx bs : sizes) {
    const host_matrix A = heavy_row_matrix("heavy_row", 40, 120, bs, rng);
    if (!upload(M, A, case_name(A))) continue;
    const bsrk_idx counts[] = {1, 5, A.nblocks(), 0};
    for (bsrk_idx nt : counts) {
      const bsrc_cuda_status s = bsrc_cuda_set_task_count(M, nt);
      char                   tag[64];
      snprintf(tag, sizeof(tag), "/tasks=%lld(got %lld)", (long long)nt, (long long)bsrc_cuda_task_count(M));
      if (s != BSRC_CUDA_OK) {
        failf(case_name(A) + tag, "set_task_count: %s", bsrc_cuda_last_error(M));
        continue;
      }
      for (int p = BSRC_CUDA_KERNEL_ROWMAJOR_SHARED; p <= BSRC_CUDA_KERNEL_VECTOR_UNROLLED; ++p) {
        std::string       why;
        const std::string name = case_name(A) + tag + "/" + product_name(p);
        if (check_product(M, A, p, rng, why)) pass(name);
        else failf(name, "%s", why.c_str());
      }
    }
  }
}

/* Thread counts other than the defaults (the team kernel's fallback when bs*bs > threads). */
void test_thread_counts(bsrc_cuda_matrix *M, rng_t &rng)
{
  const bsrk_idx sizes[] = {2, 8, 16};
  for (bsrk_idx bs : sizes) {
    const host_matrix A = random_matrix("random", 50, 60, bs, 6, 0.1, rng);
    if (!upload(M, A, case_name(A))) continue;
    const int threads[] = {32, 256, 1024};
    for (int t : threads) {
      for (int p = BSRC_CUDA_KERNEL_ROWMAJOR_SHARED; p <= BSRC_CUDA_KERNEL_LAST_OWN; ++p) {
        char tag[64];
        snprintf(tag, sizeof(tag), "/threads=%d/%s", t, product_name(p));
        const std::string name = case_name(A) + tag;
        if (p == BSRC_CUDA_KERNEL_SLICED && t > 256) { /* compiled for at most 256 threads a block */
          expect(bsrc_cuda_set_threads(M, (bsrc_cuda_kernel)p, t) == BSRC_CUDA_ERR_ARG, name + " refused", bsrc_cuda_last_error(M));
          continue;
        }
        if (bsrc_cuda_set_threads(M, (bsrc_cuda_kernel)p, t) != BSRC_CUDA_OK) {
          failf(name, "set_threads: %s", bsrc_cuda_last_error(M));
          continue;
        }
        std::string why;
        if (check_product(M, A, p, rng, why)) pass(name);
        else failf(name, "%s", why.c_str());
        (void)bsrc_cuda_set_threads(M, (bsrc_cuda_kernel)p, 0);
      }
    }
  }
}

/* Kernel k on the uploaded matrix A with each of `values` set through `set` (bsrc_cuda_set_lanes or
   bsrc_cuda_set_threads, `what` names it), then back to the default (0). */
using kernel_setting = bsrc_cuda_status (*)(bsrc_cuda_matrix *, bsrc_cuda_kernel, int);
void check_settings(bsrc_cuda_matrix *M, const host_matrix &A, bsrc_cuda_kernel k, kernel_setting set, const char *what, std::initializer_list<int> values, rng_t &rng)
{
  for (int v : values) {
    const std::string name = case_name(A) + "/" + bsrc_cuda_kernel_names[k] + "/" + what + "=" + std::to_string(v);
    std::string       why;
    if (set(M, k, v) != BSRC_CUDA_OK) failf(name, "%s: %s", what, bsrc_cuda_last_error(M));
    else if (!check_product(M, A, k, rng, why)) failf(name, "%s", why.c_str());
    else pass(name);
  }
  (void)set(M, k, 0);
}

/* HYBRID's parts: every lane count on uneven rows (the long-row threshold moves with the lanes, so
   the pieces are rebuilt), and rows just at and past the threshold, a row of many pieces, empty
   rows, with beta = 0 and 1 (check_product runs both). */
void test_hybrid(bsrc_cuda_matrix *M, rng_t &rng)
{
  const host_matrix P = powerlaw_matrix("powerlaw", 2000, 4000, 2, rng);
  if (upload(M, P, case_name(P))) {
    const int lanes[] = {4, 8, 16, 32};
    for (int l : lanes) {
      const std::string name = case_name(P) + "/hybrid and warp_row/lanes=" + std::to_string(l);
      if (bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_HYBRID, l) != BSRC_CUDA_OK || bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_WARP_ROW, l) != BSRC_CUDA_OK) {
        failf(name, "set_lanes: %s", bsrc_cuda_last_error(M));
        continue;
      }
      int got = 0;
      (void)bsrc_cuda_launch_info(M, BSRC_CUDA_KERNEL_HYBRID, nullptr, nullptr, nullptr, &got);
      std::string why;
      if (got != l) failf(name, "launch_info reports %d lanes", got);
      else if (!check_product(M, P, BSRC_CUDA_KERNEL_HYBRID, rng, why) || !check_product(M, P, BSRC_CUDA_KERNEL_WARP_ROW, rng, why)) failf(name, "%s", why.c_str());
      else pass(name);
    }
    (void)bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_HYBRID, 0);
    (void)bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_WARP_ROW, 0);
    check_settings(M, P, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2}, rng); /* HYBRID only */
    expect(bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_HYBRID, 12) == BSRC_CUDA_ERR_ARG, "set_lanes/12 refused", bsrc_cuda_last_error(M));
    expect(bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_WARP_ROW, 2) == BSRC_CUDA_ERR_ARG, "set_lanes/warp_row 2 refused", bsrc_cuda_last_error(M));
    expect(bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_VECTOR_UNROLLED, 8) == BSRC_CUDA_ERR_ARG, "set_lanes/vector_unrolled refused", bsrc_cuda_last_error(M));
  }
  /* bs 1: with 4 lanes a row goes to the pieces from 65 blocks (1 lane: 17, 32 lanes: 513), pieces of 512
     blocks; rows of one piece store directly, longer ones go through the fix-up */
  const host_matrix E = from_rows("piece_edges", 6000, 1, cycled_rows(40, {64, 65, 0, 3, 511, 512, 513, 1024, 1025, 5000}, 37, 6000), rng);
  if (!upload(M, E, case_name(E))) return;
  check_settings(M, E, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2, 4, 32}, rng); /* the long-row threshold and the work list move with the lanes */
  /* 16 rows of 100 blocks, then 3 short ones: with 4 lanes every row of the first two warps' groups
     is long (no group in the work list, only pieces), with 32 lanes none is */
  std::vector<std::vector<bsrk_idx>> longs(19);
  for (size_t i = 0; i < longs.size(); ++i)
    for (bsrk_idx j = 0; j < (i < 16 ? 100 : 5); ++j) longs[i].push_back((bsrk_idx)(i * 3 + j * 2));
  const host_matrix G = from_rows("long_groups", 400, 1, longs, rng);
  if (!upload(M, G, case_name(G))) return;
  check_settings(M, G, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2, 4, 32}, rng);
  /* bs 2 at every lane count: rows at the long-row threshold of each (16 blocks up to 4 lanes, then
     32, 64, 128), long rows next to short ones in a warp's rows, two long rows in a row, empty rows,
     and 203 rows, so that the last warp's rows run past the end */
  const host_matrix R2 = from_rows("edges_bs2", 700, 2, cycled_rows(203, {0, 1, 16, 17, 32, 33, 3, 64, 65, 129, 300, 300, 5, 0, 128}, 7, 700), rng);
  if (!upload(M, R2, case_name(R2))) return;
  check_settings(M, R2, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2, 4, 8, 16, 32, 0}, rng);
  /* bs 1 with one lane: the middle tier (rows of 25-128 blocks, 8 lanes each, 4 a warp) at its edges
     (24 | 25 and 128 | 129 blocks), between short rows, empty rows and pieces; rows 32-63 all in the
     tier (that group of 32 has no item of its own); 65 tier rows, so the last tier warp has one */
  std::vector<std::vector<bsrk_idx>> tiers(106);
  const bsrk_idx                     tier_lengths[] = {24, 25, 0, 128, 129, 1, 26, 127, 513};
  for (size_t i = 0; i < tiers.size(); ++i) {
    const bsrk_idx n = i >= 32 && i < 64 ? 60 : tier_lengths[i % 9];
    for (bsrk_idx j = 0; j < n; ++j) tiers[i].push_back((bsrk_idx)((i * 11 + j * 3) % 2000));
    std::sort(tiers[i].begin(), tiers[i].end());
    tiers[i].erase(std::unique(tiers[i].begin(), tiers[i].end()), tiers[i].end());
  }
  const host_matrix T = from_rows("middle_tier", 2000, 1, tiers, rng);
  if (!upload(M, T, case_name(T))) return;
  check_settings(M, T, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2, 0}, rng);
}

/* SEGMENTED's strips and pieces: for bs 1, 2 (a block per item) and 3 (a column per item: the long
   threshold is 170 blocks there), rows at and past the long threshold (512 items) between short ones,
   runs of more than 32 short rows (a strip holds 32), empty rows alone, in runs and at the ends, a row
   of many pieces, rows ending exactly at a step's end; beta 0 and 1 (check_product runs both), and
   1024 threads per block. */
void test_segmented(bsrc_cuda_matrix *M, rng_t &rng)
{
  const bsrk_idx lengths[] = {0, 1, 2, 31, 32, 33, 170, 171, 511, 512, 513, 0, 0, 1024, 1025, 5000, 3, 0};
  for (bsrk_idx bs : {1, 2, 3}) {
    std::vector<std::vector<bsrk_idx>> rows;
    for (int rep = 0; rep < 3; ++rep) {
      for (bsrk_idx n : lengths) {
        rows.emplace_back();
        for (bsrk_idx j = 0; j < n; ++j) rows.back().push_back((bsrk_idx)((rows.size() * 37 + j * 7) % 6000));
        std::sort(rows.back().begin(), rows.back().end());
        rows.back().erase(std::unique(rows.back().begin(), rows.back().end()), rows.back().end());
      }
      for (int i = 0; i < 70; ++i) rows.push_back({(bsrk_idx)(i * 11 % 6000), (bsrk_idx)(i * 11 % 6000 + 1)}); /* 70 short rows: three strips */
    }
    const host_matrix E = from_rows("strip_edges", 6000, bs, rows, rng);
    if (!upload(M, E, case_name(E))) continue;
    check_settings(M, E, BSRC_CUDA_KERNEL_SEGMENTED, bsrc_cuda_set_threads, "threads", {0, 1024}, rng);
  }
  /* only empty rows */
  const host_matrix Z = from_rows("all_empty", 50, 2, std::vector<std::vector<bsrk_idx>>(40), rng);
  if (upload(M, Z, case_name(Z))) {
    std::string why;
    if (!check_product(M, Z, BSRC_CUDA_KERNEL_SEGMENTED, rng, why)) failf(case_name(Z) + "/segmented", "%s", why.c_str());
    else pass(case_name(Z) + "/segmented");
  }
}

/* SLICED's copy of the matrix, both layouts. Sorted (uneven rows): rows of 0, 1, 2, 7 blocks, of 33
   and 100 (groups of 2 and 4 lanes), 32 empty rows in a run, 203 rows; and every group size at its
   edges (rows of 32 | 33, 64 | 65, .., 512 | 513 and 1024 blocks: 1-32 lanes, one lane of a 32-lane
   group 17 blocks long) next to rows of more than a slice (1025, 2048, 2049 and 3000 blocks: whole
   slices, added up by the warp of the last to finish), so that slices hold groups of several sizes.
   Natural (1024 rows of 7 blocks: no padding): lane l of slice s is row 32 s + l. Every specialised
   block size and two generic ones (9: one pass of 8 sums and one of 1; 17), thread blocks of 32 and
   256 threads; then new values (the copy is rebuilt). check_product runs beta 0 and 1. */
void test_sliced(bsrc_cuda_matrix *M, rng_t &rng)
{
  for (bsrk_idx bs : {1, 2, 3, 4, 5, 6, 7, 8, 9, 17}) {
    const host_matrix N = from_rows("slice_natural", 1100, bs, cycled_rows(1024, {7}, 1, 1100), rng);
    if (upload(M, N, case_name(N))) check_settings(M, N, BSRC_CUDA_KERNEL_SLICED, bsrc_cuda_set_threads, "threads", {32, 0}, rng);
    const host_matrix G = from_rows("slice_groups", 4000, bs, cycled_rows(90, {32, 33, 64, 65, 0, 128, 129, 256, 257, 3000, 512, 513, 1, 1024, 1025, 2048, 2049, 7}, 13, 4000), rng);
    if (bs <= 9 && upload(M, G, case_name(G))) check_settings(M, G, BSRC_CUDA_KERNEL_SLICED, bsrc_cuda_set_threads, "threads", {32, 0}, rng);
    std::vector<std::vector<bsrk_idx>> rows = cycled_rows(203, {0, 1, 7, 33, 0, 2, 100, 7}, 13, 300);
    for (int i = 64; i < 96; ++i) rows[i].clear(); /* a run of empty rows */
    const host_matrix A = from_rows("slice_edges", 300, bs, rows, rng);
    if (!upload(M, A, case_name(A))) continue;
    check_settings(M, A, BSRC_CUDA_KERNEL_SLICED, bsrc_cuda_set_threads, "threads", {32, 256, 0}, rng);
    if (bs > 4) continue;
    host_matrix B = A;
    fill_values(B, rng);
    const std::string name = case_name(B) + "/sliced/new values";
    std::string       why;
    if (bsrc_cuda_set_values(M, B.values.data()) != BSRC_CUDA_OK) failf(name, "set_values: %s", bsrc_cuda_last_error(M));
    else if (!check_product(M, B, BSRC_CUDA_KERNEL_SLICED, rng, why)) failf(name, "%s", why.c_str());
    else pass(name);
  }
  expect(bsrc_cuda_set_threads(M, BSRC_CUDA_KERNEL_SLICED, 512) == BSRC_CUDA_ERR_ARG, "sliced/threads 512 refused", bsrc_cuda_last_error(M));
  const host_matrix Z = from_rows("all_empty", 50, 3, std::vector<std::vector<bsrk_idx>>(70), rng);
  if (upload(M, Z, case_name(Z))) {
    std::string why;
    if (!check_product(M, Z, BSRC_CUDA_KERNEL_SLICED, rng, why)) failf(case_name(Z) + "/sliced", "%s", why.c_str());
    else pass(case_name(Z) + "/sliced");
  }
}

/* Long rows of many pieces (HYBRID and SEGMENTED, their fix-up pass; SLICED's sorted layout: rows of
   more than a slice, one partial sum a slice, added by the warp of the row's last slice to finish):
   each piece leaves its row sums in a slot and the row's slots are added in a fixed order. Twenty
   products in a row of each kernel (SLICED: its arrival counts must be back at 0 after each), beta 0
   and 1, bs 1, 2 and 5, rows of about 40 pieces (4-20 slices) between short ones: the first checked
   against the reference, every one bitwise equal to the first (the order of the sum must not depend on which piece
   finished first; out is NaN-poisoned before each product, so a row left unwritten shows). */
void test_many_pieces(bsrc_cuda_matrix *M, rng_t &rng)
{
  for (bsrk_idx bs : {1, 2, 5}) {
    const bsrk_idx                     nbcols = 30000;
    std::vector<std::vector<bsrk_idx>> rows(64);
    for (size_t i = 0; i < rows.size(); ++i) {
      const bsrk_idx n = i % 8 == 3 ? (bsrk_idx)(20000 / bs + i * 37) : (bsrk_idx)(3 + i % 8);
      for (bsrk_idx j = 0; j < n; ++j) rows[i].push_back((bsrk_idx)((i * 101 + (size_t)j) % nbcols));
      std::sort(rows[i].begin(), rows[i].end());
    }
    const host_matrix A = from_rows("many_pieces", nbcols, bs, rows, rng);
    if (!upload(M, A, case_name(A))) continue;
    const size_t        nx = (size_t)A.nbcols * bs, ny = (size_t)A.nbrows * bs;
    std::vector<double> x(nx), in(ny);
    for (double &v : x) v = uniform(rng, -1, 1);
    for (double &v : in) v = uniform(rng, -1, 1);
    double *dx = nullptr, *din = nullptr, *dy = nullptr;
    CUDA_OK(cudaMalloc(&dx, nx * sizeof(double)));
    CUDA_OK(cudaMalloc(&din, ny * sizeof(double)));
    CUDA_OK(cudaMalloc(&dy, ny * sizeof(double)));
    CUDA_OK(cudaMemcpy(dx, x.data(), nx * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(din, in.data(), ny * sizeof(double), cudaMemcpyHostToDevice));
    for (bsrc_cuda_kernel k : {BSRC_CUDA_KERNEL_HYBRID, BSRC_CUDA_KERNEL_SEGMENTED, BSRC_CUDA_KERNEL_SLICED}) {
      for (double beta : {0.0, 1.0}) {
        const std::string   name = case_name(A) + "/" + bsrc_cuda_kernel_names[k] + "/beta=" + std::to_string((int)beta) + "/20 products";
        std::vector<double> first(ny), out(ny);
        std::string         why;
        bool                ok = true;
        for (int rep = 0; rep < 20 && ok; ++rep) {
          CUDA_OK(cudaMemset(dy, 0xff, ny * sizeof(double))); /* NaN poison */
          CUDA_OK(cudaDeviceSynchronize());
          const bsrc_cuda_status s = run_device(M, k, 1.5, dx, beta, beta != 0.0 ? din : nullptr, dy);
          CUDA_OK(cudaStreamSynchronize((cudaStream_t)bsrc_cuda_stream(M)));
          CUDA_OK(cudaMemcpy(out.data(), dy, ny * sizeof(double), cudaMemcpyDeviceToHost));
          if (s != BSRC_CUDA_OK) {
            why = std::string("status ") + std::to_string((int)s) + ": " + bsrc_cuda_last_error(M);
            ok  = false;
          } else if (rep == 0) {
            ok    = compare(A, 1.5, x, beta, in, out, why);
            first = out;
          } else if (memcmp(out.data(), first.data(), ny * sizeof(double)) != 0) {
            size_t i = 0;
            while (i < ny && memcmp(&out[i], &first[i], sizeof(double)) == 0) ++i;
            char buf[160];
            snprintf(buf, sizeof(buf), "product %d differs from the first at entry %zu: %.17g vs %.17g", rep + 1, i, out[i], first[i]);
            why = buf;
            ok  = false;
          }
        }
        if (ok) pass(name);
        else failf(name, "%s", why.c_str());
      }
    }
    CUDA_OK(cudaFree(dx));
    CUDA_OK(cudaFree(din));
    CUDA_OK(cudaFree(dy));
  }
}

/* The L2 prefetches of WARP_ROW and HYBRID (compute capability 9.0+, block sizes 1-3): they reach
   2 MiB (WARP_ROW) and 1 MiB (HYBRID) ahead of each thread block, so these matrices hold 12-24 MB of
   values, every lane count and thread-block size moving where a block's prefetched range starts and
   ends, the last ones at the matrix's end, with empty rows and rows of uneven length. Some rows are
   long enough for HYBRID's pieces (and, with bs 1 and one lane, its middle tier), so that its work
   list mixes every kind of item. Prefetching changes no result, and its ranges must stay inside the
   arrays (compute-sanitizer, on the GPU host). */
void test_l2_prefetch(bsrc_cuda_matrix *M, rng_t &rng)
{
  for (bsrk_idx bs : {1, 2, 3}) {
    const bsrk_idx                     nbrows = bs == 1 ? 150000 : bs == 2 ? 60000 : 25000, nbcols = nbrows;
    std::vector<std::vector<bsrk_idx>> rows(nbrows);
    for (bsrk_idx i = 0; i < nbrows; ++i) {
      /* 0-20 blocks, mean about 10; every 50th row 40-100 blocks, every 1000th 1500 */
      const int len = i % 97 == 0 ? 0 : i % 1000 == 500 ? 1500 : i % 50 == 7 ? 40 + (int)(rng() % 61) : (int)(rng() % 21);
      for (int j = 0; j < len; ++j) rows[i].push_back((bsrk_idx)(((int64_t)i + (int64_t)j * 131) % nbcols));
      std::sort(rows[i].begin(), rows[i].end());
      rows[i].erase(std::unique(rows[i].begin(), rows[i].end()), rows[i].end());
    }
    const host_matrix A = from_rows("l2_prefetch", nbcols, bs, rows, rng);
    if (!upload(M, A, case_name(A))) continue;
    check_settings(M, A, BSRC_CUDA_KERNEL_WARP_ROW, bsrc_cuda_set_lanes, "lanes", {4, 8, 16, 32, 0}, rng);
    check_settings(M, A, BSRC_CUDA_KERNEL_WARP_ROW, bsrc_cuda_set_threads, "threads", {32, 1024}, rng);
    check_settings(M, A, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2, 4, 8, 16, 32, 0}, rng);
    check_settings(M, A, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_threads, "threads", {32, 1024}, rng);
  }
}

/* x at an address that is 8 but not 16 bytes aligned (a device pointer into the middle of an array):
   the bs 2 path loads x 16 bytes at a time only when x allows it. */
void test_unaligned_x(bsrc_cuda_matrix *M, rng_t &rng)
{
  const host_matrix A = random_matrix("unaligned_x", 300, 280, 2, 9, 0.1, rng);
  if (!upload(M, A, case_name(A))) return;
  const size_t        nx = (size_t)A.nbcols * 2, ny = (size_t)A.nbrows * 2;
  std::vector<double> x(nx), in(ny, 0.0), out(ny);
  for (double &v : x) v = uniform(rng, -1, 1);
  double *dx = nullptr, *dy = nullptr;
  if (cudaMalloc(&dx, (nx + 1) * sizeof(double)) != cudaSuccess || cudaMalloc(&dy, ny * sizeof(double)) != cudaSuccess) {
    failf("unaligned_x", "cudaMalloc");
    cudaFree(dx);
    return;
  }
  (void)cudaMemcpy(dx + 1, x.data(), nx * sizeof(double), cudaMemcpyHostToDevice);
  for (bsrc_cuda_kernel k : {BSRC_CUDA_KERNEL_WARP_ROW, BSRC_CUDA_KERNEL_HYBRID, BSRC_CUDA_KERNEL_SEGMENTED, BSRC_CUDA_KERNEL_SLICED}) {
    const std::string name = case_name(A) + "/x 8-byte aligned/" + bsrc_cuda_kernel_names[k];
    std::string       why;
    if (bsrc_cuda_multadd_device(M, k, 1.5, dx + 1, 0.0, nullptr, dy) != BSRC_CUDA_OK) failf(name, "%s", bsrc_cuda_last_error(M));
    else if (cudaMemcpy(out.data(), dy, ny * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess) failf(name, "cudaMemcpy");
    else if (!compare(A, 1.5, x, 0.0, in, out, why)) failf(name, "%s", why.c_str());
    else pass(name);
  }
  cudaFree(dx);
  cudaFree(dy);
}

/* set_values again (same structure), then set_structure + set_values with another matrix. */
void test_updates(bsrc_cuda_matrix *M, rng_t &rng)
{
  host_matrix A = random_matrix("update", 30, 30, 4, 4, 0.1, rng);
  if (!upload(M, A, case_name(A))) return;
  std::string why;
  /* products that keep derived copies (cuSPARSE row-major / CSR) must see the new values */
  for (int p = 0; p < PRODUCT_COUNT; ++p) (void)check_product(M, A, p, rng, why);
  fill_values(A, rng);
  if (bsrc_cuda_set_values(M, A.values.data()) != BSRC_CUDA_OK) failf("set_values again", "%s", bsrc_cuda_last_error(M));
  else check_all_products(M, A, "set_values again/" + case_name(A), rng);

  const host_matrix B = random_matrix("update2", 45, 20, 3, 6, 0.2, rng);
  if (upload(M, B, "set_structure again")) check_all_products(M, B, "set_structure again/" + case_name(B), rng);
  const int layout = bsrc_cuda_spmv_bsr_layout(M);
  printf("  cusparse_spmv_bsr layout (bs 3): %d (1 column-major blocks in place, 0 row-major copy, 2 CSR)%s%s\n", layout, layout == 0 ? ": " : "", layout == 0 ? bsrc_cuda_last_error(M) : "");
}

void test_auto_choice(bsrc_cuda_matrix *M, rng_t &rng)
{
  struct auto_case {
    host_matrix      A;
    bsrc_cuda_kernel expect;
    int              expect_lanes;
  };
  std::vector<auto_case> cases;
  cases.push_back({stencil_matrix("stencil27", 12, 3, true, rng, false), BSRC_CUDA_KERNEL_WARP_ROW, 32});
  cases.push_back({stencil_matrix("stencil7", 12, 1, false, rng, false), BSRC_CUDA_KERNEL_WARP_ROW, 4});
  if (!g_quick) cases.push_back({thesis_structure(rng), BSRC_CUDA_KERNEL_VECTOR_UNROLLED, 0});
  /* rows of 6 blocks, no padding in the slices: SLICED for 2x2 to 4x4 blocks (where it was measured
     ahead of WARP_ROW: rows of at most 1 KiB of values), WARP_ROW for bs 1 and 5; a 12^3 7-point stencil of 3x3 blocks holds 7.7 %
     padding (its faces' rows are shorter): WARP_ROW */
  for (bsrk_idx bs : {1, 2, 4, 5}) cases.push_back({from_rows("even6", 1024, bs, cycled_rows(1024, {6}, 1, 1024), rng, false), bs >= 2 && bs <= 4 ? BSRC_CUDA_KERNEL_SLICED : BSRC_CUDA_KERNEL_WARP_ROW, 0});
  /* rows of 6 blocks in 1000 rows: the last slice has 8 rows and 24 empty lanes, 2.4 % of the
     slices' blocks: WARP_ROW; rows of 40 2x2 blocks (1280 B): WARP_ROW; of 30 (960 B): SLICED */
  cases.push_back({from_rows("even6", 1000, 2, cycled_rows(1000, {6}, 1, 1000), rng, false), BSRC_CUDA_KERNEL_WARP_ROW, 0});
  cases.push_back({from_rows("even40", 1024, 2, cycled_rows(1024, {40}, 1, 1024), rng, false), BSRC_CUDA_KERNEL_WARP_ROW, 0});
  cases.push_back({from_rows("even30", 1024, 2, cycled_rows(1024, {30}, 1, 1024), rng, false), BSRC_CUDA_KERNEL_SLICED, 0});
  cases.push_back({stencil_matrix("stencil7", 12, 3, false, rng, false), BSRC_CUDA_KERNEL_WARP_ROW, 0});
  /* short rows of 0-2 3x3 blocks (76 bytes a block): one lane each (hybrid_row_lanes) */
  cases.push_back({heavy_row_matrix("heavy_row", 200, 1000, 3, rng), BSRC_CUDA_KERNEL_HYBRID, 1});
  /* power-law rows: SLICED's sorted layout for 2x2 and 4x4 blocks (measured ahead of HYBRID there),
     HYBRID for 3x3 (not measured) and for uneven rows of more than 2 KiB on average */
  cases.push_back({powerlaw_matrix("powerlaw", 3000, 6000, 2, rng), BSRC_CUDA_KERNEL_SLICED, 0});
  cases.push_back({powerlaw_matrix("powerlaw", 3000, 6000, 4, rng), BSRC_CUDA_KERNEL_SLICED, 0});
  cases.push_back({powerlaw_matrix("powerlaw", 3000, 6000, 3, rng), BSRC_CUDA_KERNEL_HYBRID, 0});
  {
    std::vector<std::vector<bsrk_idx>> rows = cycled_rows(2000, {10, 60, 400, 5, 1, 60, 30, 40}, 7, 3000);
    cases.push_back({from_rows("uneven_long_bs2", 3000, 2, rows, rng, false), BSRC_CUDA_KERNEL_HYBRID, 0});
  }
  { /* a band of even long rows (the thesis type): the task kernel as the thesis has it */
    std::vector<std::vector<bsrk_idx>> rows(400);
    for (bsrk_idx i = 0; i < 400; ++i)
      for (bsrk_idx c = 0; c < 100; ++c) rows[i].push_back((i + c) % 500);
    for (auto &r : rows) std::sort(r.begin(), r.end());
    cases.push_back({from_rows("band100", 500, 5, rows, rng, false), BSRC_CUDA_KERNEL_VECTOR_UNROLLED, 0});
  }
  { /* an MPI ghost block of a band: only the last 160 of 16000 block rows have blocks (up to 160):
       skewed rows, which HYBRID takes (no task walks the ~16000 empty rows; the long rows in pieces);
       with 2x2 blocks too (mean row under kSlicedUnevenMinMeanBlocks) */
    std::vector<std::vector<bsrk_idx>> rows(16000);
    for (bsrk_idx i = 0; i < 160; ++i)
      for (bsrk_idx c = 0; c <= i; ++c) rows[16000 - 160 + i].push_back(c);
    cases.push_back({from_rows("ghost_band", 160, 5, rows, rng, false), BSRC_CUDA_KERNEL_HYBRID, 0});
    cases.push_back({from_rows("ghost_band", 160, 2, rows, rng, false), BSRC_CUDA_KERNEL_HYBRID, 0});
  }
  /* power-law rows cut into 4 tasks, so that each task walks more than 1024 rows (as the default
     tasks do on power-law bs 1 rows of 593 MB): still HYBRID, which uses no tasks, not WARP_ROW */
  const size_t few_tasks = cases.size();
  cases.push_back({powerlaw_matrix("powerlaw_4tasks", 12000, 12000, 1, rng), BSRC_CUDA_KERNEL_HYBRID, 0});
  { /* an even band in 4 tasks of 2000 rows each, mean 80 blocks: a warp per row (no task walks 2000 rows) */
    std::vector<std::vector<bsrk_idx>> rows(8000);
    for (bsrk_idx i = 0; i < 8000; ++i)
      for (bsrk_idx c = 0; c < 80; ++c) rows[i].push_back((i + c) % 8000);
    for (auto &r : rows) std::sort(r.begin(), r.end());
    cases.push_back({from_rows("band80_4tasks", 8000, 1, rows, rng), BSRC_CUDA_KERNEL_WARP_ROW, 0});
  }
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const auto       &c    = cases[ci];
    const std::string name = "auto/" + case_name(c.A);
    if (bsrc_cuda_set_task_count(M, ci >= few_tasks ? 4 : 0) != BSRC_CUDA_OK) failf(name, "set_task_count: %s", bsrc_cuda_last_error(M));
    if (bsrc_cuda_set_structure(M, c.A.nbrows, c.A.nbcols, c.A.bs, c.A.rowptr.data(), c.A.colidx.data()) != BSRC_CUDA_OK) {
      failf(name, "set_structure: %s", bsrc_cuda_last_error(M));
      continue;
    }
    const bsrc_cuda_kernel k       = bsrc_cuda_auto_kernel(M);
    int                    threads = 0, grid = 0, per_sm = 0, lanes = 0;
    (void)bsrc_cuda_launch_info(M, BSRC_CUDA_KERNEL_AUTO, &threads, &grid, &per_sm, &lanes);
    printf("  auto choice for %s: %s (threads %d, grid %d, %d blocks/SM, lanes %d, %lld tasks)\n", case_name(c.A).c_str(), bsrc_cuda_kernel_names[k], threads, grid, per_sm, lanes, (long long)bsrc_cuda_task_count(M));
    if (k != c.expect) failf(name, "auto chose %s, expected %s", bsrc_cuda_kernel_names[k], bsrc_cuda_kernel_names[c.expect]);
    else if (c.expect_lanes && lanes != c.expect_lanes) failf(name, "%s lanes %d, expected %d", bsrc_cuda_kernel_names[k], lanes, c.expect_lanes);
    else pass(name);
    if (ci < few_tasks) continue;
    /* the choice must also compute right */
    if (bsrc_cuda_set_values(M, c.A.values.data()) != BSRC_CUDA_OK) failf(name, "set_values: %s", bsrc_cuda_last_error(M));
    else check_all_products(M, c.A, name, rng);
  }
  if (bsrc_cuda_set_task_count(M, 0) != BSRC_CUDA_OK) failf("auto/reset tasks", "%s", bsrc_cuda_last_error(M));
}

/* The host entry's staging in pieces (bsrc_cuda_multadd_host): vectors of several default pieces
   (1 MiB; y over 8 of them, so the download's event ring wraps) with x and y of different lengths
   that are no multiple of a piece, and BSRC_CUDA_STAGING's overrides: tiny pieces (many ring
   turns, one thread), pieces split among threads, one thread, more threads, and "serial". */
void test_host_staging(bsrc_cuda_matrix *M, rng_t &rng)
{
  std::vector<host_matrix> cases;
  {
    const bsrk_idx                     nbrows = 350003, nbcols = 200001; /* y 8.4 MB, x 4.8 MB */
    std::vector<std::vector<bsrk_idx>> rows(nbrows);
    for (bsrk_idx i = 0; i < nbrows; ++i) {
      const bsrk_idx a = i % nbcols, b = (bsrk_idx)(rng() % (uint64_t)nbcols);
      rows[i].push_back(std::min(a, b));
      if (a != b) rows[i].push_back(std::max(a, b));
    }
    cases.push_back(from_rows("staging_large", nbcols, 3, rows, rng));
  }
  cases.push_back(random_matrix("staging_mid", 3001, 2503, 3, 4, 0.05, rng)); /* y 72 KB */
  const char *settings[] = {nullptr, "1", "256x3", "1024x1", "512x16", "serial"};
  for (const host_matrix &A : cases) {
    if (!upload(M, A, "staging/" + case_name(A))) continue;
    for (const char *set : settings) {
      if (g_quick && set && strcmp(set, "1") != 0 && strcmp(set, "256x3") != 0) continue;
      if (set) setenv("BSRC_CUDA_STAGING", set, 1);
      else unsetenv("BSRC_CUDA_STAGING");
      const std::string name = std::string("staging[") + (set ? set : "default") + "]/" + case_name(A) + "/auto";
      std::string       why;
      if (check_product(M, A, BSRC_CUDA_KERNEL_AUTO, rng, why)) pass(name);
      else failf(name, "%s", why.c_str());
    }
    unsetenv("BSRC_CUDA_STAGING");
  }
}

/* x and y of a host-entry test, as a PETSc vector's arrays are: from malloc, page-locked with
   bsrc_cuda_host_register; xv (x's values) and in random. ok() is false when malloc failed (then
   nothing was registered); unregister() checks the unregistration; the destructor frees. */
struct registered_xy {
  size_t              nx, ny;
  double             *x = nullptr, *y = nullptr;
  std::vector<double> xv, in;
  registered_xy(size_t nx_, size_t ny_, rng_t &rng, const std::string &tag) : nx(nx_), ny(ny_), xv(nx_), in(ny_)
  {
    x = (double *)malloc(nx * sizeof(double));
    y = (double *)malloc(ny * sizeof(double));
    for (double &v : xv) v = uniform(rng, -1, 1);
    for (double &v : in) v = uniform(rng, -1, 1);
    if (!ok()) {
      failf(tag, "malloc of x and y");
      return;
    }
    memcpy(x, xv.data(), nx * sizeof(double));
    const bool reg = bsrc_cuda_host_register(x, nx * sizeof(double)) == BSRC_CUDA_OK && bsrc_cuda_host_register(y, ny * sizeof(double)) == BSRC_CUDA_OK;
    expect(reg, tag + "/register x and y", bsrc_cuda_last_error(nullptr));
  }
  registered_xy(const registered_xy &)            = delete;
  registered_xy &operator=(const registered_xy &) = delete;
  ~registered_xy()
  {
    free(x);
    free(y);
  }
  bool ok() const { return x && y; }
  void unregister(const std::string &tag) const
  {
    const bool unreg = bsrc_cuda_host_unregister(x) == BSRC_CUDA_OK && bsrc_cuda_host_unregister(y) == BSRC_CUDA_OK;
    expect(unreg, tag + "/unregister x and y", bsrc_cuda_last_error(nullptr));
  }
};

/* Host arrays page-locked with bsrc_cuda_host_register, as the PETSc layer does with its vectors'
   arrays: the host entry and the split product then DMA straight from/to them. x and y come from
   malloc and span several staging pieces; beta 0 (y poisoned with NaN: in aliases out and must not
   be read) and beta 1 with in aliasing out; the split product with x, ghost x (here x again, through
   a second matrix holding the same A, so out = 2 alpha A x + beta in) and in/out registered;
   registering y again is refused with a message, CUDA's error is cleared and products still work. */
void test_registered_host(bsrc_cuda_matrix *M, rng_t &rng)
{
  const bsrk_idx                     nbrows = 400003, nbcols = 300007, bs = 2; /* y 6.4 MB, x 4.8 MB */
  std::vector<std::vector<bsrk_idx>> rows(nbrows);
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    for (int j = 0; j < 3; ++j) rows[i].push_back((bsrk_idx)(rng() % (uint64_t)nbcols));
    std::sort(rows[i].begin(), rows[i].end());
    rows[i].erase(std::unique(rows[i].begin(), rows[i].end()), rows[i].end());
  }
  const host_matrix A   = from_rows("registered", nbcols, bs, rows, rng);
  const std::string tag = "registered/" + case_name(A);
  bsrc_cuda_matrix *G   = nullptr;
  if (!upload(M, A, tag)) return;
  if (bsrc_cuda_create(0, &G) != BSRC_CUDA_OK || !upload(G, A, tag + "/second matrix")) {
    failf(tag, "second matrix: %s", bsrc_cuda_last_error(G));
    bsrc_cuda_destroy(G);
    return;
  }
  expect(bsrc_cuda_auto_kernel(M) == BSRC_CUDA_KERNEL_SLICED, tag + "/auto is sliced here (so the overlapped download runs, in ranges of whole slices)", bsrc_cuda_kernel_names[bsrc_cuda_auto_kernel(M)]);
  registered_xy xy((size_t)nbcols * bs, (size_t)nbrows * bs, rng, tag);
  if (!xy.ok()) {
    bsrc_cuda_destroy(G);
    return;
  }
  const size_t               ny = xy.ny;
  double                    *x = xy.x, *y = xy.y;
  const std::vector<double> &xv = xy.xv, &in = xy.in;
  cudaPointerAttributes      attr;
  expect(cudaPointerGetAttributes(&attr, y + ny / 2) == cudaSuccess && attr.type == cudaMemoryTypeHost, tag + "/y is page-locked", "cudaPointerGetAttributes does not report cudaMemoryTypeHost");

  /* out = y = alpha A x + beta y (split: through L = M and G = the same A on x). AUTO is SLICED
     here (rows of 1-3 2x2 blocks), which, like WARP_ROW, brings a page-locked y of this size back in
     row ranges overlapping the product; SLICED's ranges start at whole slices of 32 rows, and the
     last one ends at row 400003 */
  auto product = [&](double alpha, double beta, bool split, const std::string &what, bsrc_cuda_kernel kern = BSRC_CUDA_KERNEL_AUTO) {
    if (beta == 0.0) std::fill(y, y + ny, std::nan(""));
    else memcpy(y, in.data(), ny * sizeof(double));
    bsrc_cuda_status s;
    if (split) {
      s = bsrc_cuda_split_begin(M, BSRC_CUDA_KERNEL_AUTO, alpha, x, beta, y);
      if (s == BSRC_CUDA_OK) s = bsrc_cuda_split_end(M, G, BSRC_CUDA_KERNEL_AUTO, alpha, x, y);
    } else {
      s = bsrc_cuda_multadd_host(M, kern, alpha, x, beta, y, y);
    }
    const std::vector<double> out(y, y + ny);
    std::string               why;
    if (s != BSRC_CUDA_OK) failf(tag + "/" + what, "status %d: %s", (int)s, bsrc_cuda_last_error(M));
    else if (!compare(A, split ? 2.0 * alpha : alpha, xv, beta, in, out, why)) failf(tag + "/" + what, "%s", why.c_str());
    else pass(tag + "/" + what);
  };
  for (int rep = 0; rep < 2; ++rep) {
    const std::string r = rep ? "/again" : "";
    product(1.0, 0.0, false, "host, beta 0, in==out" + r);
    product(2.5, 1.0, false, "host, beta 1, in==out" + r);
    product(1.0, 0.0, true, "split, beta 0, in==out" + r);
    product(-0.5, 1.0, true, "split, beta 1, in==out" + r);
    product(2.5, 1.0, false, "host, beta 1, in==out, hybrid (one download)" + r, BSRC_CUDA_KERNEL_HYBRID);
    product(-1.0, 0.0, false, "host, beta 0, warp_row (overlapped download)" + r, BSRC_CUDA_KERNEL_WARP_ROW);
    product(1.5, 1.0, false, "host, beta 1, sliced (overlapped download)" + r, BSRC_CUDA_KERNEL_SLICED);
  }

  const bsrc_cuda_status twice = bsrc_cuda_host_register(y, ny * sizeof(double));
  const std::string      msg   = bsrc_cuda_last_error(nullptr);
  printf("  message: %s\n", msg.c_str());
  expect(twice != BSRC_CUDA_OK && msg.find("cudaHostRegister") != std::string::npos, tag + "/registering y twice is refused with a message", "expected an error naming cudaHostRegister");
  expect(cudaPeekAtLastError() == cudaSuccess, tag + "/the refused registration left no CUDA error behind", cudaGetErrorString(cudaPeekAtLastError()));
  product(2.5, 1.0, false, "host, beta 1, after the refused registration");
  product(-0.5, 1.0, true, "split, beta 1, after the refused registration");

  xy.unregister(tag);
  product(1.0, 1.0, false, "host, beta 1, unregistered again (staged)");
  bsrc_cuda_destroy(G);
}

/* The task kernels into a page-locked y of at least 1 MB: the product runs in 4 task ranges, each
   range's rows downloaded while the next range computes. Rows of 1-3 blocks and one row of 40000
   blocks in the middle, so that a row continues across tasks and across a range boundary; task
   counts from 4 (one task a range) up, beta 0 (y poisoned) and beta 1 (in aliasing out). */
void test_task_ranges_host(bsrc_cuda_matrix *M, rng_t &rng)
{
  const bsrk_idx                     nbrows = 150001, nbcols = 120011, bs = 2, longrow = 75000; /* y 2.4 MB */
  std::vector<std::vector<bsrk_idx>> rows(nbrows);
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    const int n = i == longrow ? 40000 : 1 + (int)(rng() % 3);
    for (int j = 0; j < n; ++j) rows[i].push_back((bsrk_idx)(rng() % (uint64_t)nbcols));
    std::sort(rows[i].begin(), rows[i].end());
    rows[i].erase(std::unique(rows[i].begin(), rows[i].end()), rows[i].end());
  }
  const host_matrix A   = from_rows("task-ranges", nbcols, bs, rows, rng);
  const std::string tag = "task-ranges/" + case_name(A);
  if (!upload(M, A, tag)) return;
  registered_xy xy((size_t)nbcols * bs, (size_t)nbrows * bs, rng, tag);
  if (!xy.ok()) return;
  const size_t               ny = xy.ny;
  double                    *x = xy.x, *y = xy.y;
  const std::vector<double> &xv = xy.xv, &in = xy.in;
  const bsrc_cuda_kernel     kernels[] = {BSRC_CUDA_KERNEL_VECTOR_UNROLLED, BSRC_CUDA_KERNEL_THREAD_PRIVATE, BSRC_CUDA_KERNEL_TEAM_SCALAR, BSRC_CUDA_KERNEL_ROWMAJOR_SHARED};
  for (bsrk_idx tasks : {(bsrk_idx)0, (bsrk_idx)4, (bsrk_idx)5, (bsrk_idx)64}) {
    if (bsrc_cuda_set_task_count(M, tasks) != BSRC_CUDA_OK) {
      failf(tag, "set_task_count %lld: %s", (long long)tasks, bsrc_cuda_last_error(M));
      continue;
    }
    const std::string tt = tag + "/" + std::to_string((long long)bsrc_cuda_task_count(M)) + " tasks";
    for (bsrc_cuda_kernel k : kernels) {
      for (double beta : {0.0, 1.0}) {
        const double alpha = beta == 0.0 ? -1.5 : 0.75;
        if (beta == 0.0) std::fill(y, y + ny, std::nan(""));
        else memcpy(y, in.data(), ny * sizeof(double));
        const bsrc_cuda_status    st = bsrc_cuda_multadd_host(M, k, alpha, x, beta, y, y);
        const std::vector<double> out(y, y + ny);
        const std::string         what = tt + "/" + bsrc_cuda_kernel_names[k] + (beta == 0.0 ? "/beta 0" : "/beta 1, in==out");
        std::string               why;
        if (st != BSRC_CUDA_OK) failf(what, "status %d: %s", (int)st, bsrc_cuda_last_error(M));
        else if (!compare(A, alpha, xv, beta, in, out, why)) failf(what, "%s", why.c_str());
        else pass(what);
      }
    }
  }
  (void)bsrc_cuda_set_task_count(M, 0);
  xy.unregister(tag);
}

void test_errors(rng_t &rng)
{
  bsrc_cuda_matrix *M = nullptr;
  expect(bsrc_cuda_create(0, nullptr) == BSRC_CUDA_ERR_ARG, "error/create NULL output", "expected ERR_ARG");
  expect(bsrc_cuda_create(-1, &M) == BSRC_CUDA_ERR_ARG && !M && strlen(bsrc_cuda_last_error(nullptr)) > 0, "error/create device -1", "expected ERR_ARG with a message");
  printf("  message: %s\n", bsrc_cuda_last_error(nullptr));
  expect(bsrc_cuda_create(bsrc_cuda_device_count() + 3, &M) == BSRC_CUDA_ERR_ARG, "error/create device out of range", "expected ERR_ARG");
  expect(bsrc_cuda_set_structure(nullptr, 1, 1, 1, nullptr, nullptr) == BSRC_CUDA_ERR_ARG, "error/set_structure NULL matrix", "expected ERR_ARG");
  if (bsrc_cuda_create(0, &M) != BSRC_CUDA_OK) {
    failf("error/create", "%s", bsrc_cuda_last_error(nullptr));
    return;
  }
  const bsrk_idx rp[]    = {0, 1, 2};
  const bsrk_idx bad[]   = {0, 2, 1};
  const bsrk_idx ci[]    = {0, 1};
  const bsrk_idx cbad[]  = {0, 5};
  const double   vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  double        *dx = nullptr, *dy = nullptr;
  CUDA_OK(cudaMalloc(&dx, 8 * sizeof(double)));
  CUDA_OK(cudaMalloc(&dy, 8 * sizeof(double)));
  CUDA_OK(cudaMemset(dx, 0, 8 * sizeof(double)));
  CUDA_OK(cudaDeviceSynchronize());

  expect(bsrc_cuda_set_values(M, vals) == BSRC_CUDA_ERR_ARG, "error/set_values before set_structure", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_set_structure(M, 2, 2, 0, rp, ci) == BSRC_CUDA_ERR_ARG && strstr(bsrc_cuda_last_error(M), "block size"), "error/block size 0", bsrc_cuda_last_error(M));
  printf("  message: %s\n", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_set_structure(M, -1, 2, 1, rp, ci) == BSRC_CUDA_ERR_ARG, "error/negative rows", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_set_structure(M, 2, 2, 1, bad, ci) == BSRC_CUDA_ERR_ARG, "error/rowptr decreasing", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_set_structure(M, 2, 2, 1, rp, cbad) == BSRC_CUDA_ERR_ARG, "error/colidx out of range", bsrc_cuda_last_error(M));
  printf("  message: %s\n", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_set_structure(M, 2, 2, 1, rp, nullptr) == BSRC_CUDA_ERR_ARG, "error/colidx NULL", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_set_structure(M, 2, 2, 2, rp, ci) == BSRC_CUDA_OK, "error/valid structure after errors", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_multadd_device(M, BSRC_CUDA_KERNEL_AUTO, 1.0, dx, 0.0, nullptr, dy) == BSRC_CUDA_ERR_ARG, "error/product before set_values", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_set_values(M, nullptr) == BSRC_CUDA_ERR_ARG, "error/set_values NULL", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_set_values(M, vals) == BSRC_CUDA_OK, "error/set_values", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_multadd_device(M, (bsrc_cuda_kernel)99, 1.0, dx, 0.0, nullptr, dy) == BSRC_CUDA_ERR_ARG, "error/unknown kernel", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_multadd_device(M, BSRC_CUDA_KERNEL_WARP_ROW, 1.0, dx, 1.0, nullptr, dy) == BSRC_CUDA_ERR_ARG, "error/beta != 0 with in NULL", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_multadd_device(M, BSRC_CUDA_KERNEL_WARP_ROW, 1.0, nullptr, 0.0, nullptr, dy) == BSRC_CUDA_ERR_ARG, "error/x NULL", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_multadd_host(M, BSRC_CUDA_KERNEL_WARP_ROW, 1.0, vals, 0.0, nullptr, nullptr) == BSRC_CUDA_ERR_ARG, "error/out NULL (host)", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_set_threads(M, BSRC_CUDA_KERNEL_VECTOR_UNROLLED, 33) == BSRC_CUDA_ERR_ARG, "error/threads 33", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_set_threads(M, BSRC_CUDA_KERNEL_CUSPARSE_BSRMV, 64) == BSRC_CUDA_ERR_ARG, "error/threads for cuSPARSE", bsrc_cuda_last_error(M));
  expect(run_baseline(M, 3, 1.0, dx, 0.0, nullptr, dy) == BSRC_CUDA_ERR_ARG, "error/csr alg 3", bsrc_cuda_last_error(M));

  /* Out of device memory: a petabyte through the matrix's own allocation path. */
  const size_t           absurd = (size_t)1 << 50;
  const size_t           before = bsrc_cuda_device_bytes(M);
  const bsrc_cuda_status s      = cuda_test_try_alloc(M, absurd);
  printf("  message: %s\n", bsrc_cuda_last_error(M));
  expect(s == BSRC_CUDA_ERR_MEM && strstr(bsrc_cuda_last_error(M), "out of memory") != nullptr, "error/out of device memory", bsrc_cuda_last_error(M));
  expect(bsrc_cuda_device_bytes(M) == before, "error/byte count after failed allocation", "device bytes changed");
  /* the matrix still works afterwards */
  host_matrix A = random_matrix("after_oom", 6, 6, 2, 2, 0.0, rng);
  if (upload(M, A, "error/usable after out-of-memory")) {
    std::string why;
    if (check_product(M, A, BSRC_CUDA_KERNEL_VECTOR_UNROLLED, rng, why)) pass("error/usable after out-of-memory");
    else failf("error/usable after out-of-memory", "%s", why.c_str());
  }
  CUDA_OK(cudaFree(dx));
  CUDA_OK(cudaFree(dy));
  bsrc_cuda_destroy(M);
  bsrc_cuda_destroy(nullptr);
  pass("error/destroy NULL");
}

/* Device memory returns to its baseline after destroy (cudaMemGetInfo; the allocator's granularity
   is 2 MiB, so a matrix of ~64 MiB makes any leak of its storage visible). */
void test_leaks(rng_t &rng)
{
  const host_matrix A     = random_matrix("leak", 4000, 4000, 8, 16, 0.0, rng); /* ~64000 blocks x 512 B */
  auto              cycle = [&](bool &ok) {
    bsrc_cuda_matrix *M = nullptr;
    ok                  = bsrc_cuda_create(0, &M) == BSRC_CUDA_OK && upload(M, A, "leak/upload");
    if (ok) {
      std::vector<double> x((size_t)A.nbcols * A.bs, 1.0), y((size_t)A.nbrows * A.bs);
      for (int p = 0; p < BSRC_CUDA_KERNEL_COUNT && ok; ++p) ok = bsrc_cuda_multadd_host(M, (bsrc_cuda_kernel)p, 1.0, x.data(), 0.0, nullptr, y.data()) == BSRC_CUDA_OK;
      double *dx = nullptr, *dy = nullptr;
      CUDA_OK(cudaMalloc(&dx, x.size() * sizeof(double)));
      CUDA_OK(cudaMalloc(&dy, y.size() * sizeof(double)));
      CUDA_OK(cudaMemset(dx, 0, x.size() * sizeof(double)));
      CUDA_OK(cudaDeviceSynchronize());
      ok = ok && run_baseline(M, BENCH_BSRMV_ROW, 1.0, dx, 0.0, nullptr, dy) == BSRC_CUDA_OK;
      ok = ok && run_baseline(M, BENCH_CSR_ALG1, 1.0, dx, 0.0, nullptr, dy) == BSRC_CUDA_OK;
      ok = ok && run_baseline(M, BENCH_CSR_ALG2, 1.0, dx, 0.0, nullptr, dy) == BSRC_CUDA_OK;
      CUDA_OK(cudaStreamSynchronize((cudaStream_t)bsrc_cuda_stream(M)));
      printf("  leak cycle: matrix held %.1f MiB of device memory\n", bsrc_cuda_device_bytes(M) / 1048576.0);
      CUDA_OK(cudaFree(dx));
      CUDA_OK(cudaFree(dy));
    }
    bsrc_cuda_destroy(M);
  };
  bool   ok    = true;
  size_t free0 = 0, free1 = 0, total = 0;
  cycle(ok); /* first cycle: lazy initialisation (cuSPARSE library, module loading) */
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemGetInfo(&free0, &total));
  for (int i = 0; i < 3 && ok; ++i) cycle(ok);
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemGetInfo(&free1, &total));
  const double delta = ((double)free0 - (double)free1) / 1048576.0;
  printf("  device memory free before %.1f MiB, after 3 create/destroy cycles %.1f MiB (delta %.1f MiB)\n", free0 / 1048576.0, free1 / 1048576.0, delta);
  if (!ok) failf("leak/device memory back to baseline", "a cycle failed");
  else if (delta > 2.0) failf("leak/device memory back to baseline", "%.1f MiB not returned", delta);
  else pass("leak/device memory back to baseline");
}

} // namespace

/* The split product of an MPI rank (bsrc_cuda_split_begin/end): local block L and ghost block G
   against the reference on [L G] with x = [x_local; x_ghost]. */
void test_split(rng_t &rng)
{
  struct shape {
    const char *name;
    bsrk_idx    nbrows, nloc, nghost, bs;
    int         mean;
  };
  const shape shapes[] = {{"small", 37, 41, 9, 3, 5}, {"no_ghost_cols", 20, 20, 0, 2, 4}, {"large", 120001, 120001, 3001, 4, 3}, {"bs5", 503, 503, 77, 5, 20}};
  for (const shape &sh : shapes) {
    if (g_quick && sh.nbrows > 100000) continue;
    /* random_matrix shuffles every column per row: fine for small shapes; the large one is drawn row by row */
    auto sparse_rows = [&](const char *name, bsrk_idx nbcols, int per_row) {
      std::vector<std::vector<bsrk_idx>> rows(sh.nbrows);
      for (bsrk_idx i = 0; i < sh.nbrows; ++i) {
        for (int j = 0; j < per_row; ++j) rows[i].push_back((bsrk_idx)(rng() % (uint64_t)nbcols));
        std::sort(rows[i].begin(), rows[i].end());
        rows[i].erase(std::unique(rows[i].begin(), rows[i].end()), rows[i].end());
      }
      return from_rows(name, nbcols, sh.bs, rows, rng);
    };
    const bool  big = sh.nbrows > 100000;
    host_matrix L   = big ? sparse_rows("split_local", sh.nloc, sh.mean) : random_matrix("split_local", sh.nbrows, sh.nloc, sh.bs, sh.mean, 0.1, rng);
    host_matrix G   = !sh.nghost ? host_matrix{} : big ? sparse_rows("split_ghost", sh.nghost, 1) : random_matrix("split_ghost", sh.nbrows, sh.nghost, sh.bs, 2, 0.3, rng);
    /* F = [L G] row by row */
    host_matrix F;
    F.nbrows         = sh.nbrows;
    F.nbcols         = sh.nloc + sh.nghost;
    F.bs             = sh.bs;
    const size_t bs2 = (size_t)sh.bs * sh.bs;
    for (bsrk_idx i = 0; i < sh.nbrows; ++i) {
      for (bsrk_idx k = L.rowptr[i]; k < L.rowptr[i + 1]; ++k) {
        F.colidx.push_back(L.colidx[k]);
        F.values.insert(F.values.end(), L.values.begin() + k * bs2, L.values.begin() + (k + 1) * bs2);
      }
      if (sh.nghost)
        for (bsrk_idx k = G.rowptr[i]; k < G.rowptr[i + 1]; ++k) {
          F.colidx.push_back(sh.nloc + G.colidx[k]);
          F.values.insert(F.values.end(), G.values.begin() + k * bs2, G.values.begin() + (k + 1) * bs2);
        }
      F.rowptr.push_back((bsrk_idx)F.colidx.size());
    }
    bsrc_cuda_matrix *ML = nullptr, *MG = nullptr;
    if (bsrc_cuda_create(0, &ML) != BSRC_CUDA_OK || bsrc_cuda_create(0, &MG) != BSRC_CUDA_OK) {
      failf(std::string("split/") + sh.name, "create: %s", bsrc_cuda_last_error(nullptr));
      bsrc_cuda_destroy(ML);
      continue;
    }
    bool ok = upload(ML, L, std::string("split/") + sh.name + "/local");
    if (sh.nghost) ok = ok && upload(MG, G, std::string("split/") + sh.name + "/ghost");
    const bsrc_cuda_kernel kernels[] = {BSRC_CUDA_KERNEL_AUTO, BSRC_CUDA_KERNEL_VECTOR_UNROLLED, BSRC_CUDA_KERNEL_WARP_ROW, BSRC_CUDA_KERNEL_CUSPARSE_BSRMV};
    for (bsrc_cuda_kernel k : kernels) {
      for (const ab_pair &ab : all_pairs) {
        for (int alias = 0; alias < 2 && ok; ++alias) {
          std::vector<double> x(F.nbcols * sh.bs), in(sh.nbrows * sh.bs), out(sh.nbrows * sh.bs, NAN);
          for (double &v : x) v = uniform(rng, -1, 1);
          for (double &v : in) v = uniform(rng, -1, 1);
          const std::vector<double> in0  = in;
          double                   *dst  = alias ? in.data() : out.data();
          std::string               name = std::string("split/") + sh.name + "/" + bsrc_cuda_kernel_names[k] + "/alpha" + std::to_string(ab.alpha) + "/beta" + std::to_string(ab.beta) + (alias ? "/in=out" : "");
          bsrc_cuda_status          st   = bsrc_cuda_split_begin(ML, k, ab.alpha, x.data(), ab.beta, ab.beta != 0.0 ? in.data() : nullptr);
          if (st == BSRC_CUDA_OK) st = bsrc_cuda_split_end(ML, sh.nghost ? MG : nullptr, k, ab.alpha, x.data() + sh.nloc * sh.bs, dst);
          std::string why;
          if (st != BSRC_CUDA_OK) failf(name, "status %d: %s", (int)st, bsrc_cuda_last_error(ML));
          else if (!compare(F, ab.alpha, x, ab.beta, in0, alias ? in : out, why)) failf(name, "%s", why.c_str());
          else pass(name);
        }
      }
      if (g_quick) break;
    }
    /* misuse: end without begin, begin twice, a ghost block of other rows */
    std::vector<double> x(F.nbcols * sh.bs, 1.0), y(sh.nbrows * sh.bs);
    expect(bsrc_cuda_split_end(ML, MG, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), y.data()) == BSRC_CUDA_ERR_ARG, std::string("split/") + sh.name + "/end without begin", "expected ERR_ARG");
    expect(bsrc_cuda_split_begin(ML, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), 0.0, nullptr) == BSRC_CUDA_OK && bsrc_cuda_split_begin(ML, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), 0.0, nullptr) == BSRC_CUDA_ERR_ARG && bsrc_cuda_split_end(ML, nullptr, BSRC_CUDA_KERNEL_AUTO, 1.0, nullptr, y.data()) == BSRC_CUDA_OK, std::string("split/") + sh.name + "/begin twice", "expected OK, ERR_ARG, then OK");
    if (sh.nghost) {
      host_matrix       other = random_matrix("split_other", 7, sh.nghost, sh.bs, 2, 0.3, rng);
      bsrc_cuda_matrix *MO    = nullptr;
      if (bsrc_cuda_create(0, &MO) == BSRC_CUDA_OK && upload(MO, other, "split/other")) {
        const bool             b = bsrc_cuda_split_begin(ML, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), 0.0, nullptr) == BSRC_CUDA_OK;
        const bsrc_cuda_status e = bsrc_cuda_split_end(ML, MO, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), y.data());
        expect(b && e == BSRC_CUDA_ERR_ARG && strstr(bsrc_cuda_last_error(ML), "block rows"), std::string("split/") + sh.name + "/ghost rows differ", "expected ERR_ARG naming the block rows");
        /* and the pair works again afterwards */
        std::string         why;
        std::vector<double> out(sh.nbrows * sh.bs);
        const bool          again = bsrc_cuda_split_begin(ML, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), 0.0, nullptr) == BSRC_CUDA_OK && bsrc_cuda_split_end(ML, MG, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data() + sh.nloc * sh.bs, out.data()) == BSRC_CUDA_OK;
        expect(again && compare(F, 1.0, x, 0.0, {}, out, why), std::string("split/") + sh.name + "/usable after an error", why.c_str());
      }
      bsrc_cuda_destroy(MO);
    }
    bsrc_cuda_destroy(ML);
    bsrc_cuda_destroy(MG);
  }
}

/* ---- block SpMM (bsrc_cuda_spmm_*) ---- */

/* Y = alpha*A*X + beta*Y0 column by column with the reference product, against the GPU's Y (leading
   dimension ldy); the padding rows of Y (beyond A's rows) must be untouched (pad). */
bool compare_spmm(const host_matrix &A, int64_t k, double alpha, const std::vector<double> &X, int64_t ldx, double beta, const std::vector<double> &Y0, const std::vector<double> &Y, int64_t ldy, double pad, std::string &why)
{
  const int64_t     nrows = (int64_t)A.nbrows * A.bs, ncols = (int64_t)A.nbcols * A.bs;
  const bsrk_matrix V    = A.view();
  host_matrix       Aabs = A;
  for (double &v : Aabs.values) v = std::fabs(v);
  const bsrk_matrix   Va = Aabs.view();
  std::vector<double> xc(ncols), xa(ncols), in(nrows), ref(nrows), scale(nrows);
  for (int64_t j = 0; j < k; ++j) {
    for (int64_t i = 0; i < ncols; ++i) {
      xc[i] = X[j * ldx + i];
      xa[i] = std::fabs(xc[i]);
    }
    for (int64_t i = 0; i < nrows; ++i) in[i] = Y0[j * ldy + i];
    bsrk_reference_multadd(&V, alpha, xc.data(), beta, beta != 0.0 ? in.data() : nullptr, ref.data());
    for (double &v : in) v = std::fabs(v);
    bsrk_reference_multadd(&Va, std::fabs(alpha), xa.data(), std::fabs(beta), beta != 0.0 ? in.data() : nullptr, scale.data());
    for (int64_t i = 0; i < ldy; ++i) {
      const double got = Y[j * ldy + i];
      if (i >= nrows) {
        if (!(got == pad)) {
          char buf[160];
          snprintf(buf, sizeof(buf), "column %lld: padding row %lld written (%.17g)", (long long)j, (long long)i, got);
          why = buf;
          return false;
        }
      } else if (!(std::fabs(got - ref[i]) <= 1e-13 * scale[i] + 1e-300)) {
        char buf[200];
        snprintf(buf, sizeof(buf), "column %lld of %lld, row %lld: %.17g vs reference %.17g", (long long)j, (long long)k, (long long)i, got, ref[i]);
        why = buf;
        return false;
      }
    }
  }
  return true;
}

/* One SpMM of A (uploaded to M) with k columns, alpha, beta, on the device (entry `device`) or on
   host arrays; X and Y with leading dimensions larger than their rows, Y's padding poisoned. */
bool check_spmm(bsrc_cuda_matrix *M, const host_matrix &A, int64_t k, double alpha, double beta, bool device, rng_t &rng, std::string &why)
{
  const int64_t       nrows = (int64_t)A.nbrows * A.bs, ncols = (int64_t)A.nbcols * A.bs;
  const int64_t       ldx = ncols + 3, ldy = nrows + 5;
  const double        pad = -777.0;
  std::vector<double> X((size_t)(ldx * k)), Y0((size_t)(ldy * k)), Y;
  for (int64_t j = 0; j < k; ++j) {
    for (int64_t i = 0; i < ldx; ++i) X[j * ldx + i] = i < ncols ? uniform(rng, -1, 1) : NAN;                        /* padding of X: never read */
    for (int64_t i = 0; i < ldy; ++i) Y0[j * ldy + i] = i < nrows ? (beta != 0.0 ? uniform(rng, -1, 1) : NAN) : pad; /* beta 0: Y not read */
  }
  Y                  = Y0;
  bsrc_cuda_status s = BSRC_CUDA_OK;
  if (device) {
    double *dX, *dY;
    CUDA_OK(cudaMalloc(&dX, X.size() * sizeof(double)));
    CUDA_OK(cudaMalloc(&dY, Y.size() * sizeof(double)));
    CUDA_OK(cudaMemcpy(dX, X.data(), X.size() * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dY, Y.data(), Y.size() * sizeof(double), cudaMemcpyHostToDevice));
    cudaStream_t st;
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    s = bsrc_cuda_spmm_device_on(M, BSRC_CUDA_KERNEL_AUTO, st, k, alpha, dX, ldx, beta, dY, ldy);
    CUDA_OK(cudaStreamSynchronize(st));
    CUDA_OK(cudaStreamDestroy(st));
    CUDA_OK(cudaMemcpy(Y.data(), dY, Y.size() * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaFree(dX));
    CUDA_OK(cudaFree(dY));
  } else s = bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, k, alpha, X.data(), ldx, beta, Y.data(), ldy);
  if (s != BSRC_CUDA_OK) {
    why = std::string("status ") + std::to_string((int)s) + ": " + bsrc_cuda_last_error(M);
    return false;
  }
  return compare_spmm(A, k, alpha, X, ldx, beta, Y0, Y, ldy, pad, why);
}

void test_spmm(bsrc_cuda_matrix *M, rng_t &rng)
{
  const bsrk_idx bss[] = {1, 2, 3, 4, 5, 8, 11};
  const int64_t  ks[]  = {1, 2, 3, 8, 17, 64};
  for (bsrk_idx bs : bss) {
    std::vector<host_matrix> cases;
    cases.push_back(random_matrix("spmm_random", 61, 57, bs, 5, 0.2, rng)); /* empty rows among them */
    cases.push_back(heavy_row_matrix("spmm_heavy_row", 45, 400, bs, rng));  /* one very long row */
    cases.push_back(stencil_matrix("spmm_stencil27", 5, bs, true, rng));
    for (const host_matrix &A : cases) {
      if (!upload(M, A, case_name(A))) continue;
      for (int64_t k : ks)
        for (int variant = 0; variant < 4; ++variant) {
          if (g_quick && variant != 0 && k != 17) continue;
          const bool   device = variant % 2 == 0;
          const double alpha = variant < 2 ? 1.0 : -1.5, beta = variant < 2 ? 0.0 : 0.75;
          std::string  why;
          char         name[256];
          snprintf(name, sizeof(name), "spmm/%s/k=%lld/%s/alpha=%g,beta=%g", case_name(A).c_str(), (long long)k, device ? "device" : "host", alpha, beta);
          expect(check_spmm(M, A, k, alpha, beta, device, rng, why), name, why.c_str());
        }
    }
  }
  /* bad leading dimensions and a NULL X are errors, not crashes */
  const host_matrix A = random_matrix("spmm_errors", 10, 12, 3, 3, 0.0, rng);
  if (upload(M, A, "spmm_errors")) {
    std::vector<double> X(36 * 4), Y(30 * 4);
    expect(bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, 4, 1.0, X.data(), 35, 0.0, Y.data(), 30) == BSRC_CUDA_ERR_ARG, "spmm/errors/ldx_too_small", bsrc_cuda_last_error(M));
    expect(bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, 4, 1.0, X.data(), 36, 0.0, Y.data(), 29) == BSRC_CUDA_ERR_ARG, "spmm/errors/ldy_too_small", bsrc_cuda_last_error(M));
    expect(bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, 4, 1.0, nullptr, 36, 0.0, Y.data(), 30) == BSRC_CUDA_ERR_ARG, "spmm/errors/null_x", bsrc_cuda_last_error(M));
    expect(bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, -1, 1.0, X.data(), 36, 0.0, Y.data(), 30) == BSRC_CUDA_ERR_ARG, "spmm/errors/negative_k", bsrc_cuda_last_error(M));
    expect(bsrc_cuda_spmm_split_end(M, nullptr, 4, 1.0, nullptr, 1, Y.data(), 30) == BSRC_CUDA_ERR_ARG, "spmm/errors/end_without_begin", bsrc_cuda_last_error(M));
    /* the matrix still works after the refused calls */
    std::string why;
    expect(check_spmm(M, A, 4, 1.0, 0.0, false, rng, why), "spmm/errors/after", why.c_str());
  }
}

/* One rank's split SpMM: Y = alpha*(L*X + G*Xg) against the reference of the two products. */
void test_spmm_split(rng_t &rng)
{
  for (bsrk_idx bs : {1, 3, 5, 11}) {
    const host_matrix L = random_matrix("spmm_split_local", 40, 40, bs, 4, 0.1, rng), G = random_matrix("spmm_split_ghost", 40, 9, bs, 1, 0.6, rng);
    bsrc_cuda_matrix *Ml = nullptr, *Mg = nullptr;
    if (bsrc_cuda_create(0, &Ml) != BSRC_CUDA_OK || bsrc_cuda_create(0, &Mg) != BSRC_CUDA_OK) {
      failf("spmm_split/create", "%s", bsrc_cuda_last_error(nullptr));
      bsrc_cuda_destroy(Ml);
      return;
    }
    if (upload(Ml, L, "spmm_split") && upload(Mg, G, "spmm_split"))
      for (int64_t k : {1, 5, 17}) {
        const int64_t       nl = 40 * bs, ng = 9 * bs, ldx = nl + 2, ldg = ng + 1, ldy = nl + 4;
        const double        alpha = 1.25, pad = -5.0;
        std::vector<double> X(ldx * k), Xg(ldg * k), Y(ldy * k, pad), Zero(ldy * k, pad), YL(ldy * k, pad);
        for (double &v : X) v = uniform(rng, -1, 1);
        for (double &v : Xg) v = uniform(rng, -1, 1);
        for (int64_t j = 0; j < k; ++j)
          for (int64_t i = 0; i < nl; ++i) Zero[j * ldy + i] = 0.0;
        char name[128];
        snprintf(name, sizeof(name), "spmm_split/bs=%lld/k=%lld", (long long)bs, (long long)k);
        bsrc_cuda_status s = bsrc_cuda_spmm_split_begin(Ml, k, alpha, X.data(), ldx);
        if (s == BSRC_CUDA_OK) s = bsrc_cuda_spmm_split_end(Ml, Mg, k, alpha, Xg.data(), ldg, Y.data(), ldy);
        if (s != BSRC_CUDA_OK) {
          failf(name, "status %d: %s", (int)s, bsrc_cuda_last_error(Ml));
          continue;
        }
        /* reference: YL = alpha L X, then Y_ref = alpha G Xg + 1 * YL */
        std::string why;
        if (bsrc_cuda_spmm_host(Ml, BSRC_CUDA_KERNEL_AUTO, k, alpha, X.data(), ldx, 0.0, YL.data(), ldy) != BSRC_CUDA_OK) {
          failf(name, "local reference: %s", bsrc_cuda_last_error(Ml));
          continue;
        }
        bool ok = compare_spmm(L, k, alpha, X, ldx, 0.0, Zero, YL, ldy, pad, why);
        if (ok) ok = compare_spmm(G, k, alpha, Xg, ldg, 1.0, YL, Y, ldy, pad, why);
        expect(ok, name, why.c_str());
      }
    bsrc_cuda_destroy(Mg);
    bsrc_cuda_destroy(Ml);
  }
}

/* The benchmark's cuSPARSE SpMM baselines give the reference product too. */
void test_spmm_baselines(bsrc_cuda_matrix *M, rng_t &rng)
{
  for (bsrk_idx bs : {1, 3, 4}) {
    const host_matrix A = random_matrix("spmm_baselines", 50, 47, bs, 4, 0.1, rng);
    if (!upload(M, A, "spmm_baselines")) continue;
    bench_baselines *B = nullptr;
    if (bench_baselines_create(M, &B) != BSRC_CUDA_OK) {
      failf("spmm_baselines/create", "%s", bsrc_cuda_last_error(M));
      continue;
    }
    const int64_t       k = 6, ncols = 47 * bs, nrows = 50 * bs, ldx = ncols + 1, ldy = nrows + 2;
    std::vector<double> X(ldx * k), Y0(ldy * k, 0.0), Y(ldy * k);
    for (double &v : X) v = uniform(rng, -1, 1);
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = nrows; i < ldy; ++i) Y0[j * ldy + i] = -3.0;
    double *dX, *dY;
    CUDA_OK(cudaMalloc(&dX, X.size() * sizeof(double)));
    CUDA_OK(cudaMalloc(&dY, Y.size() * sizeof(double)));
    CUDA_OK(cudaMemcpy(dX, X.data(), X.size() * sizeof(double), cudaMemcpyHostToDevice));
    for (int which = 0; which < 4; ++which) {
      CUDA_OK(cudaMemcpy(dY, Y0.data(), Y0.size() * sizeof(double), cudaMemcpyHostToDevice));
      const bsrc_cuda_status s = which == 0 ? bench_cusparse_bsrmm(B, k, 1.0, dX, ldx, 0.0, dY, ldy) : bench_cusparse_spmm_csr(B, which, k, 1.0, dX, ldx, 0.0, dY, ldy);
      char                   name[128];
      snprintf(name, sizeof(name), "spmm_baselines/bs=%lld/%s", (long long)bs, which == 0 ? "bsrmm" : which == 1 ? "spmm_csr_alg1" : which == 2 ? "spmm_csr_alg2" : "spmm_csr_alg3");
      if (s != BSRC_CUDA_OK) {
        failf(name, "status %d: %s", (int)s, bsrc_cuda_last_error(M));
        continue;
      }
      CUDA_OK(cudaStreamSynchronize((cudaStream_t)bsrc_cuda_stream(M)));
      CUDA_OK(cudaMemcpy(Y.data(), dY, Y.size() * sizeof(double), cudaMemcpyDeviceToHost));
      std::string why;
      expect(compare_spmm(A, k, 1.0, X, ldx, 0.0, Y0, Y, ldy, -3.0, why), name, why.c_str());
    }
    CUDA_OK(cudaFree(dX));
    CUDA_OK(cudaFree(dY));
    bench_baselines_destroy(B);
  }
}

int main()
{
  if (bsrc_cuda_device_count() == 0) {
    printf("SKIPPED: no CUDA device\n");
    printf("0 passed, 0 failed, 1 skipped\n");
    return 77;
  }
  const char *q = getenv("BSRC_TEST_QUICK");
  g_quick       = q && *q && strcmp(q, "0") != 0;
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  printf("device 0: %s, %d SMs, bsrk_idx %zu bytes%s\n", prop.name, prop.multiProcessorCount, sizeof(bsrk_idx), g_quick ? ", quick mode" : "");

  rng_t rng(20240611);
  test_errors(rng);
  bsrc_cuda_matrix *M = nullptr;
  if (bsrc_cuda_create(0, &M) != BSRC_CUDA_OK) {
    failf("create", "%s", bsrc_cuda_last_error(nullptr));
  } else {
    test_products(M, rng);
    test_task_counts(M, rng);
    test_thread_counts(M, rng);
    test_hybrid(M, rng);
    test_segmented(M, rng);
    test_sliced(M, rng);
    test_many_pieces(M, rng);
    test_unaligned_x(M, rng);
    test_l2_prefetch(M, rng);
    test_updates(M, rng);
    test_auto_choice(M, rng);
    test_host_staging(M, rng);
    test_registered_host(M, rng);
    test_task_ranges_host(M, rng);
    test_spmm(M, rng);
    test_spmm_baselines(M, rng);
    bsrc_cuda_destroy(M);
  }
  test_split(rng);
  test_spmm_split(rng);
  if (!g_quick) test_leaks(rng);
  printf("%d passed, %d failed, %d skipped\n", g_passed, g_failed, g_skipped);
  return g_failed == 0 ? 0 : 1;
}
