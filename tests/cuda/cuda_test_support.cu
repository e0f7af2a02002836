/*
   The shared pieces of the CUDA layer's GoogleTest cases (cuda_test_support.h): host matrices, the
   reference comparison, one product through every entry, the fixture.
*/
#include "cuda_test_support.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_cuda_baselines.h"

namespace cudatest {

bool quick_mode()
{
  const char *q = getenv("BSRC_TEST_QUICK");
  return q && *q && strcmp(q, "0") != 0;
}

/* ---- host matrices ---- */

double uniform(rng_t &rng, double lo, double hi)
{
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

void fill_values(host_matrix &A, rng_t &rng)
{
  A.values.resize((size_t)A.nblocks() * A.bs * A.bs);
  for (double &v : A.values) v = uniform(rng, -1.0, 1.0);
}

rows_t cycled_rows(size_t nrows, std::initializer_list<bsrk_idx> lengths, bsrk_idx step, bsrk_idx nbcols)
{
  rows_t                      rows(nrows);
  const std::vector<bsrk_idx> len(lengths);
  for (size_t i = 0; i < nrows; ++i) {
    for (bsrk_idx j = 0; j < len[i % len.size()]; ++j) rows[i].push_back((bsrk_idx)((i * step + j) % nbcols));
    std::sort(rows[i].begin(), rows[i].end());
  }
  return rows;
}

void sort_unique(rows_t &rows)
{
  for (auto &r : rows) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }
}

host_matrix from_rows(const std::string &name, bsrk_idx nbcols, bsrk_idx bs, const rows_t &rows, rng_t &rng, bool with_values)
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

host_matrix random_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, int mean, double empty_share, rng_t &rng)
{
  rows_t                rows(nbrows);
  std::vector<bsrk_idx> all(nbcols);
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

host_matrix sparse_random_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, int per_row, rng_t &rng)
{
  rows_t rows(nbrows);
  for (auto &r : rows)
    for (int j = 0; j < per_row; ++j) r.push_back((bsrk_idx)(rng() % (uint64_t)nbcols));
  sort_unique(rows);
  return from_rows(name, nbcols, bs, rows, rng);
}

host_matrix heavy_row_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, rng_t &rng)
{
  rows_t rows(nbrows);
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    if (i == nbrows / 2) {
      for (bsrk_idx c = 0; c < nbcols; ++c) rows[i].push_back(c);
    } else {
      const int len = (int)(rng() % 3);
      for (int j = 0; j < len; ++j) rows[i].push_back((bsrk_idx)((i + 7 * j) % nbcols));
    }
  }
  sort_unique(rows);
  return from_rows(name, nbcols, bs, rows, rng);
}

host_matrix powerlaw_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, rng_t &rng)
{
  rows_t rows(nbrows);
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    const double   u   = ((double)(rng() % 1000000) + 0.5) / 1e6;
    const bsrk_idx len = std::min<bsrk_idx>(nbcols, (bsrk_idx)(2.0 * std::pow(u, -1.0 / 1.2)));
    const bsrk_idx off = (bsrk_idx)(rng() % (uint64_t)nbcols);
    for (bsrk_idx j = 0; j < len; ++j) rows[i].push_back((off + j * (nbcols / std::max<bsrk_idx>(len, 1))) % nbcols);
  }
  sort_unique(rows);
  return from_rows(name, nbcols, bs, rows, rng);
}

host_matrix stencil_matrix(const std::string &name, int n, bsrk_idx bs, bool full27, rng_t &rng, bool with_values)
{
  rows_t rows((size_t)n * n * n);
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

host_matrix thesis_structure(rng_t &rng)
{
  const bsrk_idx nb = 6400, per_row = 320;
  rows_t         rows(nb);
  for (bsrk_idx i = 0; i < nb; ++i) {
    const bsrk_idx start = std::min(std::max<bsrk_idx>(0, i - per_row / 2), nb - per_row);
    for (bsrk_idx c = 0; c < per_row; ++c) rows[i].push_back(start + c);
  }
  return from_rows("thesis", nb, 5, rows, rng, false);
}

std::string case_name(const host_matrix &A)
{
  char buf[160];
  snprintf(buf, sizeof(buf), "%s[bs=%lld,%lldx%lld,%lld blocks]", A.name.c_str(), (long long)A.bs, (long long)A.nbrows, (long long)A.nbcols, (long long)A.nblocks());
  return buf;
}

/* ---- products ---- */

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

std::vector<ab_pair> all_ab_pairs()
{
  return {{1.0, 0.0}, {1.0, 1.0}, {2.5, -0.5}, {0.0, 1.0}};
}

std::vector<ab_pair> ab_pairs()
{
  if (quick_mode()) return {{1.0, 0.0}, {2.5, -0.5}};
  return all_ab_pairs();
}

std::string status_text(bsrc_cuda_status s, const bsrc_cuda_matrix *M)
{
  return "status " + std::to_string((int)s) + ": " + bsrc_cuda_last_error(M);
}

::testing::AssertionResult compare(const host_matrix &A, double alpha, const std::vector<double> &x, double beta, const std::vector<double> &in, const std::vector<double> &out)
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
      return ::testing::AssertionFailure() << buf;
    }
  }
  return ::testing::AssertionSuccess();
}

namespace {

/* The inputs of one product check: x and in random, their device copies. */
struct product_inputs {
  size_t              nx, ny;
  std::vector<double> x, in;
  device_array        dx, dy, din;
  product_inputs(const host_matrix &A, rng_t &rng) : nx((size_t)A.nbcols * A.bs), ny((size_t)A.nbrows * A.bs), x(nx), in(ny), dx(nx), dy(ny), din(ny)
  {
    for (double &v : x) v = uniform(rng, -1, 1);
    for (double &v : in) v = uniform(rng, -1, 1);
  }
};

/* The host entry, out separate from in or aliasing it (then, with beta 0, in is NaN and must not be read). */
bsrc_cuda_status host_product(bsrc_cuda_matrix *M, int p, const ab_pair &ab, const product_inputs &v, bool alias, std::vector<double> &out)
{
  if (!alias) return bsrc_cuda_multadd_host(M, (bsrc_cuda_kernel)p, ab.alpha, v.x.data(), ab.beta, ab.beta != 0.0 ? v.in.data() : nullptr, out.data());
  out = v.in;
  if (ab.beta == 0.0) std::fill(out.begin(), out.end(), std::nan(""));
  return bsrc_cuda_multadd_host(M, (bsrc_cuda_kernel)p, ab.alpha, v.x.data(), ab.beta, out.data(), out.data());
}

/* The device entry (or a benchmark baseline) into a NaN-poisoned y, out separate from in or aliasing it. */
::testing::AssertionResult device_product(bsrc_cuda_matrix *M, int p, const ab_pair &ab, const product_inputs &v, bool alias, std::vector<double> &out, bsrc_cuda_status &s)
{
  CUDA_OR_FAIL(v.dx.status);
  CUDA_OR_FAIL(v.dy.status);
  CUDA_OR_FAIL(v.din.status);
  CUDA_OR_FAIL(cudaMemcpy(v.dx.ptr, v.x.data(), v.nx * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_OR_FAIL(cudaMemset(v.dy.ptr, 0xff, std::max<size_t>(v.ny, 1) * sizeof(double))); /* NaN poison */
  if (alias) {
    if (ab.beta != 0.0) CUDA_OR_FAIL(cudaMemcpy(v.dy.ptr, v.in.data(), v.ny * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_OR_FAIL(cudaDeviceSynchronize()); /* inputs in place before the matrix's stream runs */
    s = run_device(M, p, ab.alpha, v.dx.ptr, ab.beta, v.dy.ptr, v.dy.ptr);
  } else {
    CUDA_OR_FAIL(cudaMemcpy(v.din.ptr, v.in.data(), v.ny * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_OR_FAIL(cudaDeviceSynchronize());
    s = run_device(M, p, ab.alpha, v.dx.ptr, ab.beta, ab.beta != 0.0 ? v.din.ptr : nullptr, v.dy.ptr);
  }
  CUDA_OR_FAIL(cudaMemcpy(out.data(), v.dy.ptr, v.ny * sizeof(double), cudaMemcpyDeviceToHost));
  return ::testing::AssertionSuccess();
}

} // namespace

::testing::AssertionResult check_product(bsrc_cuda_matrix *M, const host_matrix &A, int p, rng_t &rng)
{
  const product_inputs v(A, rng);
  const bool           host_ok = p < BSRC_CUDA_KERNEL_COUNT; /* the benchmark paths take device arrays only */
  for (const ab_pair &ab : ab_pairs()) {
    for (int entry = 0; entry < 2; ++entry) {
      if (entry == 0 && !host_ok) continue;
      for (int alias = 0; alias < 2; ++alias) {
        std::vector<double> out(v.ny, std::nan(""));
        bsrc_cuda_status    s     = BSRC_CUDA_OK;
        const char         *where = entry == 0 ? (alias ? "host, in==out" : "host") : (alias ? "device, in==out" : "device");
        if (entry == 0) s = host_product(M, p, ab, v, alias, out);
        else {
          const ::testing::AssertionResult run = device_product(M, p, ab, v, alias, out, s);
          if (!run) return ::testing::AssertionFailure() << "alpha " << ab.alpha << " beta " << ab.beta << " (" << where << "): " << run.message();
        }
        if (s != BSRC_CUDA_OK) return ::testing::AssertionFailure() << "alpha " << ab.alpha << " beta " << ab.beta << " (" << where << "): " << status_text(s, M);
        const ::testing::AssertionResult same = compare(A, ab.alpha, v.x, ab.beta, v.in, out);
        if (!same) return ::testing::AssertionFailure() << "alpha " << ab.alpha << " beta " << ab.beta << " (" << where << "): " << same.message();
      }
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult upload(bsrc_cuda_matrix *M, const host_matrix &A)
{
  bsrc_cuda_status s = bsrc_cuda_set_structure(M, A.nbrows, A.nbcols, A.bs, A.rowptr.data(), A.colidx.data());
  if (s == BSRC_CUDA_OK) s = bsrc_cuda_set_values(M, A.values.data());
  if (s != BSRC_CUDA_OK) return ::testing::AssertionFailure() << "upload of " << case_name(A) << ": " << status_text(s, M);
  return ::testing::AssertionSuccess();
}

void expect_all_products(bsrc_cuda_matrix *M, const host_matrix &A, const std::string &tag, rng_t &rng)
{
  for (int p = 0; p < PRODUCT_COUNT; ++p) EXPECT_TRUE(check_product(M, A, p, rng)) << tag << "/" << product_name(p);
}

void expect_settings(bsrc_cuda_matrix *M, const host_matrix &A, bsrc_cuda_kernel k, kernel_setting set, const char *what, std::initializer_list<int> values, rng_t &rng)
{
  for (int v : values) {
    const std::string      name = case_name(A) + "/" + bsrc_cuda_kernel_names[k] + "/" + what + "=" + std::to_string(v);
    const bsrc_cuda_status s    = set(M, k, v);
    EXPECT_EQ(s, BSRC_CUDA_OK) << name << ": " << what << ": " << bsrc_cuda_last_error(M);
    if (s == BSRC_CUDA_OK) EXPECT_TRUE(check_product(M, A, k, rng)) << name;
  }
  (void)set(M, k, 0);
}

/* ---- fixture ---- */

void CudaTest::SetUp()
{
  if (bsrc_cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible (bsrc_cuda_device_count() == 0)";
  ASSERT_EQ(bsrc_cuda_create(0, &M), BSRC_CUDA_OK) << "bsrc_cuda_create: " << bsrc_cuda_last_error(nullptr);
}

void CudaTest::TearDown()
{
  bsrc_cuda_destroy(M);
  M = nullptr;
}

} // namespace cudatest
