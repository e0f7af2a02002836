/*
   Standalone GPU benchmark of the CUDA layer (no PETSc): our kernels against cuSPARSE.

   Datasets:
     thesis     the thesis's matrix (ch. 5/8): 32000 x 32000, 5x5 dense blocks, 5% nonzero: 320
                blocks per block row in a contiguous band around the diagonal (shifted at the
                edges), positive values, every scalar row summing to 1;
     stencil27  a 3D 27-point stencil with 3x3 blocks on an n^3 grid (n = 54: 4.1M blocks, 295 MB
                of values).
   For each product: the result is checked against bsrk_reference_multadd first, then timed with
   CUDA events around each call (back-to-back on the matrix's stream, after warm-up), median of
   --reps runs. GB/s counts values + colidx + rowptr + x + y written (+ y read when beta != 0) of the
   BSR matrix for every product (the CSR baselines move more: their figure is an effective one).
   "% copy" compares with a device-to-device cudaMemcpy (bytes counted twice: read + write).
   "vs bsrmv-row" is t(cusparseDbsrmv, row-major blocks) / t(product): above 1 is faster.

   --staging times the host entry instead (bsrc_cuda_multadd_host, auto kernel, pageable host
   vectors): wall-clock median per call for several staging settings (BSRC_CUDA_STAGING: "serial"
   is the one-piece, one-thread staging of before, "<KiB>[x<threads>]" other pieces / threads,
   "default" the built-in ones), against the kernel alone (events) and the pinned cudaMemcpy
   bandwidth for the same byte counts: bound = kernel + bytes moved / pinned bandwidth.

   Usage: bench_cuda [--reps N] [--n N] [--only thesis|stencil27] [--no-sweep] [--csv FILE] [--staging]
*/
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bsrcuda.h"
#include "bsrkernels.h"

namespace {

#define CUDA_OK(call) \
  do { \
    const cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(2); \
    } \
  } while (0)

struct options {
  int         reps   = 30;
  int         warmup = 5;
  int         n      = 54;
  std::string only;
  bool        sweep = true;
  std::string csv;
  bool        staging = false;
};

/* splitmix64: fast, reproducible random numbers for large datasets */
struct rng64 {
  uint64_t s;
  uint64_t next()
  {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); } /* [0, 1) */
};

struct dataset {
  std::string           name;
  bsrk_idx              nbrows = 0, nbcols = 0, bs = 1;
  std::vector<bsrk_idx> rowptr, colidx;
  std::vector<double>   values;
  bsrk_idx              nblocks() const { return rowptr.back(); }
  bsrk_matrix           view() const { return bsrk_matrix{nbrows, nbcols, bs, rowptr.data(), colidx.data(), values.data()}; }
};

dataset thesis_dataset()
{
  dataset D;
  D.name = "thesis";
  D.bs = 5;
  D.nbrows = D.nbcols = 32000 / 5;
  const bsrk_idx per_row = 320; /* 5% of 6400 block columns */
  D.rowptr.resize(D.nbrows + 1);
  D.colidx.resize((size_t)D.nbrows * per_row);
  D.values.resize((size_t)D.nbrows * per_row * 25);
  rng64 rng{12345};
  for (bsrk_idx i = 0; i < D.nbrows; ++i) {
    D.rowptr[i]          = i * per_row;
    const bsrk_idx start = std::min(std::max<bsrk_idx>(0, i - per_row / 2), D.nbcols - per_row);
    for (bsrk_idx j = 0; j < per_row; ++j) D.colidx[(size_t)i * per_row + j] = start + j;
    double *blocks = D.values.data() + (size_t)i * per_row * 25;
    for (int r = 0; r < 5; ++r) { /* scalar row r of this block row: entries blocks[k*25 + c*5 + r] */
      double sum = 0.0;
      for (bsrk_idx k = 0; k < per_row; ++k)
        for (int c = 0; c < 5; ++c) sum += (blocks[k * 25 + c * 5 + r] = 1e-3 + rng.uniform());
      for (bsrk_idx k = 0; k < per_row; ++k)
        for (int c = 0; c < 5; ++c) blocks[k * 25 + c * 5 + r] /= sum;
    }
  }
  D.rowptr[D.nbrows] = D.nbrows * per_row;
  return D;
}

dataset stencil27_dataset(int n)
{
  dataset D;
  D.name   = "stencil27";
  D.bs     = 3;
  D.nbrows = D.nbcols = (bsrk_idx)n * n * n;
  D.rowptr.reserve(D.nbrows + 1);
  D.rowptr.push_back(0);
  D.colidx.reserve((size_t)D.nbrows * 27);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        for (int dk = -1; dk <= 1; ++dk)
          for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di) {
              const int ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || jj < 0 || kk < 0 || ii >= n || jj >= n || kk >= n) continue;
              D.colidx.push_back((bsrk_idx)(((int64_t)kk * n + jj) * n + ii));
            }
        D.rowptr.push_back((bsrk_idx)D.colidx.size());
      }
  D.values.resize((size_t)D.nblocks() * 9);
  rng64 rng{777};
  for (double &v : D.values) v = 2.0 * rng.uniform() - 1.0;
  return D;
}

/* What one table row times. */
enum product_kind { OWN, CUSP_BSRMV_COL, CUSP_BSRMV_ROW, CUSP_SPMV_BSR, CUSP_CSR1, CUSP_CSR2 };

struct product {
  std::string      label;
  product_kind     kind;
  bsrc_cuda_kernel kernel; /* OWN */
};

bsrc_cuda_status run(bsrc_cuda_matrix *M, const product &p, double alpha, const double *x, double beta, const double *in, double *out)
{
  switch (p.kind) {
  case OWN:
    return bsrc_cuda_multadd_device_async(M, p.kernel, alpha, x, beta, in, out);
  case CUSP_BSRMV_COL:
    return bsrc_cuda_multadd_device_async(M, BSRC_CUDA_KERNEL_CUSPARSE_BSRMV, alpha, x, beta, in, out);
  case CUSP_SPMV_BSR:
    return bsrc_cuda_multadd_device_async(M, BSRC_CUDA_KERNEL_CUSPARSE_SPMV_BSR, alpha, x, beta, in, out);
  case CUSP_BSRMV_ROW:
    return bsrc_cuda_bench_cusparse_rowmajor_bsrmv(M, alpha, x, beta, in, out);
  case CUSP_CSR1:
    return bsrc_cuda_bench_cusparse_spmv_csr(M, 1, alpha, x, beta, in, out);
  case CUSP_CSR2:
    return bsrc_cuda_bench_cusparse_spmv_csr(M, 2, alpha, x, beta, in, out);
  }
  return BSRC_CUDA_ERR_ARG;
}

struct timing {
  double median_ms = NAN, min_ms = NAN;
  bool   ok        = false;
  std::string note;
};

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Events around every call, calls back to back (the host stays ahead of the GPU). */
timing time_product(bsrc_cuda_matrix *M, const product &p, double beta, const double *dx, const double *din, double *dy, const options &o)
{
  timing            t;
  cudaStream_t      s = (cudaStream_t)bsrc_cuda_stream(M);
  for (int i = 0; i < o.warmup; ++i)
    if (run(M, p, 1.0, dx, beta, din, dy) != BSRC_CUDA_OK) {
      t.note = bsrc_cuda_last_error(M);
      return t;
    }
  CUDA_OK(cudaStreamSynchronize(s));
  std::vector<cudaEvent_t> ev(2 * o.reps);
  for (auto &e : ev) CUDA_OK(cudaEventCreate(&e));
  for (int i = 0; i < o.reps && t.note.empty(); ++i) {
    CUDA_OK(cudaEventRecord(ev[2 * i], s));
    if (run(M, p, 1.0, dx, beta, din, dy) != BSRC_CUDA_OK) t.note = bsrc_cuda_last_error(M);
    CUDA_OK(cudaEventRecord(ev[2 * i + 1], s));
  }
  CUDA_OK(cudaStreamSynchronize(s));
  if (!t.note.empty()) {
    for (auto &e : ev) CUDA_OK(cudaEventDestroy(e));
    return t;
  }
  std::vector<double> ms(o.reps);
  for (int i = 0; i < o.reps; ++i) {
    float f = 0;
    CUDA_OK(cudaEventElapsedTime(&f, ev[2 * i], ev[2 * i + 1]));
    ms[i] = f;
  }
  for (auto &e : ev) CUDA_OK(cudaEventDestroy(e));
  t.median_ms = median(ms);
  t.min_ms    = *std::min_element(ms.begin(), ms.end());
  t.ok        = true;
  return t;
}

/* Device-to-device copy bandwidth, bytes counted as read + write. */
double copy_bandwidth_gbs(size_t bytes, const options &o)
{
  void *a = nullptr, *b = nullptr;
  CUDA_OK(cudaMalloc(&a, bytes));
  CUDA_OK(cudaMalloc(&b, bytes));
  CUDA_OK(cudaMemset(a, 1, bytes));
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  for (int i = 0; i < o.warmup; ++i) CUDA_OK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  std::vector<double> ms;
  for (int i = 0; i < o.reps; ++i) {
    CUDA_OK(cudaEventRecord(e0));
    CUDA_OK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
    CUDA_OK(cudaEventRecord(e1));
    CUDA_OK(cudaEventSynchronize(e1));
    float f = 0;
    CUDA_OK(cudaEventElapsedTime(&f, e0, e1));
    ms.push_back(f);
  }
  CUDA_OK(cudaEventDestroy(e0));
  CUDA_OK(cudaEventDestroy(e1));
  CUDA_OK(cudaFree(a));
  CUDA_OK(cudaFree(b));
  return 2.0 * (double)bytes / (median(ms) * 1e-3) / 1e9;
}

struct row {
  std::string dataset, label;
  int         threads = 0, grid = 0, lanes = 0;
  double      beta = 0, bytes = 0;
  timing      t;
};

/* Checks y against the reference: |y - ref| <= 1e-13 * (|A| |x| + |beta| |in|) per entry. */
bool check_result(double beta, const std::vector<double> &ref, const std::vector<double> &scale, bsrc_cuda_matrix *M, const product &p, const double *dx, const double *din, double *dy, std::string &why)
{
  const size_t n = ref.size();
  CUDA_OK(cudaMemset(dy, 0xff, n * sizeof(double)));
  CUDA_OK(cudaDeviceSynchronize()); /* poison in place before the matrix's stream runs */
  if (run(M, p, 1.0, dx, beta, din, dy) != BSRC_CUDA_OK) {
    why = bsrc_cuda_last_error(M);
    return false;
  }
  CUDA_OK(cudaStreamSynchronize((cudaStream_t)bsrc_cuda_stream(M)));
  std::vector<double> y(n);
  CUDA_OK(cudaMemcpy(y.data(), dy, n * sizeof(double), cudaMemcpyDeviceToHost));
  double worst = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double err = std::fabs(y[i] - ref[i]);
    if (!(err <= 1e-13 * scale[i] + 1e-300)) {
      char buf[200];
      snprintf(buf, sizeof(buf), "entry %zu: %.17g vs reference %.17g", i, y[i], ref[i]);
      why = buf;
      return false;
    }
    if (scale[i] > 0) worst = std::max(worst, err / scale[i]);
  }
  char buf[64];
  snprintf(buf, sizeof(buf), "max rel err %.1e", worst);
  why = buf;
  return true;
}

void bench_dataset(const dataset &D, const options &o, std::vector<row> &rows)
{
  const size_t nx = (size_t)D.nbcols * D.bs, ny = (size_t)D.nbrows * D.bs;
  const double vbytes = (double)D.values.size() * sizeof(double);
  printf("\n== %s: %lld x %lld, bs %lld, %lld blocks (%.1f blocks/row), values %.1f MB ==\n", D.name.c_str(), (long long)ny, (long long)nx, (long long)D.bs, (long long)D.nblocks(), (double)D.nblocks() / D.nbrows, vbytes / 1e6);

  std::vector<double> x(nx), in(ny);
  rng64               rng{99};
  for (double &v : x) v = 2.0 * rng.uniform() - 1.0;
  for (double &v : in) v = 2.0 * rng.uniform() - 1.0;

  bsrc_cuda_matrix *M = nullptr;
  if (bsrc_cuda_create(0, &M) != BSRC_CUDA_OK || bsrc_cuda_set_structure(M, D.nbrows, D.nbcols, D.bs, D.rowptr.data(), D.colidx.data()) != BSRC_CUDA_OK || bsrc_cuda_set_values(M, D.values.data()) != BSRC_CUDA_OK) {
    fprintf(stderr, "setup failed: %s\n", bsrc_cuda_last_error(M));
    exit(2);
  }
  const bsrc_cuda_kernel ak = bsrc_cuda_auto_kernel(M);
  printf("auto choice: %s; %lld tasks\n", bsrc_cuda_kernel_names[ak], (long long)bsrc_cuda_task_count(M));

  double *dx, *dy, *din;
  CUDA_OK(cudaMalloc(&dx, nx * sizeof(double)));
  CUDA_OK(cudaMalloc(&dy, ny * sizeof(double)));
  CUDA_OK(cudaMalloc(&din, ny * sizeof(double)));
  CUDA_OK(cudaMemcpy(dx, x.data(), nx * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(din, in.data(), ny * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_OK(cudaDeviceSynchronize());

  /* references for beta = 0 and beta = 1 and their error scales */
  const bsrk_matrix   A = D.view();
  std::vector<double> ref0(ny), ref1(ny), scale0(ny), scale1(ny);
  bsrk_reference_multadd(&A, 1.0, x.data(), 0.0, nullptr, ref0.data());
  bsrk_reference_multadd(&A, 1.0, x.data(), 1.0, in.data(), ref1.data());
  {
    dataset Dabs = D;
    for (double &v : Dabs.values) v = std::fabs(v);
    std::vector<double> xa(nx), ina(ny);
    for (size_t i = 0; i < nx; ++i) xa[i] = std::fabs(x[i]);
    for (size_t i = 0; i < ny; ++i) ina[i] = std::fabs(in[i]);
    const bsrk_matrix Aa = Dabs.view();
    bsrk_reference_multadd(&Aa, 1.0, xa.data(), 0.0, nullptr, scale0.data());
    bsrk_reference_multadd(&Aa, 1.0, xa.data(), 1.0, ina.data(), scale1.data());
  }

  const double base_bytes = vbytes + (double)D.colidx.size() * sizeof(bsrk_idx) + (double)D.rowptr.size() * sizeof(bsrk_idx) + (double)nx * sizeof(double) + (double)ny * sizeof(double);

  std::vector<product> products = {
    {"rowmajor_shared", OWN, BSRC_CUDA_KERNEL_ROWMAJOR_SHARED}, {"thread_private", OWN, BSRC_CUDA_KERNEL_THREAD_PRIVATE}, {"team_scalar", OWN, BSRC_CUDA_KERNEL_TEAM_SCALAR},
    {"vector_unrolled", OWN, BSRC_CUDA_KERNEL_VECTOR_UNROLLED}, {"warp_row", OWN, BSRC_CUDA_KERNEL_WARP_ROW},           {"auto", OWN, BSRC_CUDA_KERNEL_AUTO},
    {"cusparse_bsrmv_col", CUSP_BSRMV_COL, BSRC_CUDA_KERNEL_AUTO},   {"cusparse_bsrmv_row", CUSP_BSRMV_ROW, BSRC_CUDA_KERNEL_AUTO},  {"cusparse_spmv_bsr", CUSP_SPMV_BSR, BSRC_CUDA_KERNEL_AUTO},
    {"cusparse_spmv_csr_alg1", CUSP_CSR1, BSRC_CUDA_KERNEL_AUTO},    {"cusparse_spmv_csr_alg2", CUSP_CSR2, BSRC_CUDA_KERNEL_AUTO}};

  auto measure = [&](const product &p, double beta, const std::string &label) {
    row r;
    r.dataset = D.name;
    r.label   = label;
    r.beta    = beta;
    r.bytes   = base_bytes + (beta != 0.0 ? (double)ny * sizeof(double) : 0.0);
    if (p.kind == OWN) (void)bsrc_cuda_launch_info(M, p.kernel, &r.threads, &r.grid, nullptr, &r.lanes);
    std::string why;
    if (!check_result(beta, beta != 0.0 ? ref1 : ref0, beta != 0.0 ? scale1 : scale0, M, p, dx, din, dy, why)) {
      r.t.note = "WRONG RESULT: " + why;
      printf("  %-28s beta=%g  %s\n", label.c_str(), beta, r.t.note.c_str());
    } else {
      r.t      = time_product(M, p, beta, dx, beta != 0.0 ? din : nullptr, dy, o);
      if (r.t.ok) r.t.note = why;
      printf("  %-28s beta=%g  threads %4d grid %7d  %9.4f ms (min %9.4f)  %7.1f GB/s  %s\n", label.c_str(), beta, r.threads, r.grid, r.t.median_ms, r.t.min_ms, r.bytes / (r.t.median_ms * 1e-3) / 1e9, r.t.note.c_str());
    }
    fflush(stdout);
    rows.push_back(r);
    return r;
  };

  for (const product &p : products) measure(p, 0.0, p.label);
  const int layout = bsrc_cuda_spmv_bsr_layout(M);
  printf("  spmv_bsr block layout used: %d (1 column-major in place, 0 row-major copy)%s%s\n", layout, layout == 0 ? ": " : "", layout == 0 ? bsrc_cuda_last_error(M) : "");
  measure(products[5], 1.0, "auto (beta=1)");
  measure(products[6], 1.0, "cusparse_bsrmv_col (beta=1)");

  if (o.sweep) {
    printf("  -- threads-per-block sweep (beta = 0) --\n");
    const int threads[] = {32, 64, 128, 256, 512, 1024};
    for (int k = BSRC_CUDA_KERNEL_ROWMAJOR_SHARED; k <= BSRC_CUDA_KERNEL_WARP_ROW; ++k) {
      for (int t : threads) {
        if (bsrc_cuda_set_threads(M, (bsrc_cuda_kernel)k, t) != BSRC_CUDA_OK) continue;
        const product p{bsrc_cuda_kernel_names[k], OWN, (bsrc_cuda_kernel)k};
        char          label[64];
        snprintf(label, sizeof(label), "sweep %s t=%d", bsrc_cuda_kernel_names[k], t);
        measure(p, 0.0, label);
      }
      (void)bsrc_cuda_set_threads(M, (bsrc_cuda_kernel)k, 0);
    }
    printf("  -- task-count sweep, vector_unrolled (beta = 0) --\n");
    const bsrk_idx def_tasks = bsrc_cuda_task_count(M);
    const bsrk_idx counts[]  = {def_tasks / 8, def_tasks / 2, def_tasks * 2, def_tasks * 8};
    for (bsrk_idx c : counts) {
      if (c < 1 || bsrc_cuda_set_task_count(M, c) != BSRC_CUDA_OK) continue;
      char label[64];
      snprintf(label, sizeof(label), "sweep tasks=%lld vector_unrolled", (long long)bsrc_cuda_task_count(M));
      measure(products[3], 0.0, label);
    }
    (void)bsrc_cuda_set_task_count(M, 0);
  }
  CUDA_OK(cudaFree(dx));
  CUDA_OK(cudaFree(dy));
  CUDA_OK(cudaFree(din));
  bsrc_cuda_destroy(M);
}

/* Median milliseconds of f() by the wall clock (f synchronises itself), after 3 warm-up calls. */
template <class F> double wall_median_ms(F f, int reps, double *min_ms = nullptr)
{
  for (int i = 0; i < 3; ++i) f();
  std::vector<double> ms(reps);
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  if (min_ms) *min_ms = *std::min_element(ms.begin(), ms.end());
  return median(ms);
}

/* Median milliseconds of one cudaMemcpyAsync of `bytes` (events on stream s). */
double copy_ms(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s, int reps)
{
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  std::vector<double> ms;
  for (int i = 0; i < reps + 3; ++i) {
    CUDA_OK(cudaEventRecord(e0, s));
    CUDA_OK(cudaMemcpyAsync(dst, src, bytes, kind, s));
    CUDA_OK(cudaEventRecord(e1, s));
    CUDA_OK(cudaEventSynchronize(e1));
    float f = 0;
    CUDA_OK(cudaEventElapsedTime(&f, e0, e1));
    if (i >= 3) ms.push_back(f);
  }
  CUDA_OK(cudaEventDestroy(e0));
  CUDA_OK(cudaEventDestroy(e1));
  return median(ms);
}

void bench_staging(const dataset &D, const options &o)
{
  const size_t nx = (size_t)D.nbcols * D.bs, ny = (size_t)D.nbrows * D.bs;
  const size_t xb = nx * sizeof(double), yb = ny * sizeof(double);
  printf("\n== staging, %s: %lld x %lld, bs %lld, %lld blocks; x %.2f MB, y %.2f MB ==\n", D.name.c_str(), (long long)ny, (long long)nx, (long long)D.bs, (long long)D.nblocks(), xb / 1e6, yb / 1e6);

  std::vector<double> x(nx), in(ny), out(ny, 0.0);
  rng64               rng{4242};
  for (double &v : x) v = 2.0 * rng.uniform() - 1.0;
  for (double &v : in) v = 2.0 * rng.uniform() - 1.0;

  bsrc_cuda_matrix *M = nullptr;
  if (bsrc_cuda_create(0, &M) != BSRC_CUDA_OK || bsrc_cuda_set_structure(M, D.nbrows, D.nbcols, D.bs, D.rowptr.data(), D.colidx.data()) != BSRC_CUDA_OK || bsrc_cuda_set_values(M, D.values.data()) != BSRC_CUDA_OK) {
    fprintf(stderr, "setup failed: %s\n", bsrc_cuda_last_error(M));
    exit(2);
  }
  cudaStream_t st = (cudaStream_t)bsrc_cuda_stream(M);
  printf("auto choice: %s\n", bsrc_cuda_kernel_names[bsrc_cuda_auto_kernel(M)]);

  /* references (beta 0 and 1) and error scales */
  const bsrk_matrix   A = D.view();
  std::vector<double> ref[2], scale[2];
  {
    dataset Dabs = D;
    for (double &v : Dabs.values) v = std::fabs(v);
    std::vector<double> xa(nx), ina(ny);
    for (size_t i = 0; i < nx; ++i) xa[i] = std::fabs(x[i]);
    for (size_t i = 0; i < ny; ++i) ina[i] = std::fabs(in[i]);
    const bsrk_matrix Aa = Dabs.view();
    for (int b = 0; b < 2; ++b) {
      ref[b].resize(ny);
      scale[b].resize(ny);
      bsrk_reference_multadd(&A, 1.0, x.data(), (double)b, b ? in.data() : nullptr, ref[b].data());
      bsrk_reference_multadd(&Aa, 1.0, xa.data(), (double)b, b ? ina.data() : nullptr, scale[b].data());
    }
  }

  /* the kernel alone (device arrays; events), and the device entry by the wall clock */
  double *dx, *dy, *din;
  CUDA_OK(cudaMalloc(&dx, xb));
  CUDA_OK(cudaMalloc(&dy, yb));
  CUDA_OK(cudaMalloc(&din, yb));
  CUDA_OK(cudaMemcpy(dx, x.data(), xb, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(din, in.data(), yb, cudaMemcpyHostToDevice));
  CUDA_OK(cudaDeviceSynchronize());
  const product auto_p{"auto", OWN, BSRC_CUDA_KERNEL_AUTO};
  double        kernel_ms[2], device_wall_ms[2];
  for (int b = 0; b < 2; ++b) {
    const timing t = time_product(M, auto_p, (double)b, dx, b ? din : nullptr, dy, o);
    if (!t.ok) {
      fprintf(stderr, "kernel timing failed: %s\n", t.note.c_str());
      exit(2);
    }
    kernel_ms[b]      = t.median_ms;
    device_wall_ms[b] = wall_median_ms([&] { (void)bsrc_cuda_multadd_device(M, BSRC_CUDA_KERNEL_AUTO, 1.0, dx, (double)b, b ? din : nullptr, dy); }, o.reps);
  }

  /* the bus: pinned and pageable cudaMemcpy of the same byte counts; a one-thread memcpy into pinned */
  double *hx = nullptr, *hy = nullptr;
  CUDA_OK(cudaMallocHost(&hx, xb));
  CUDA_OK(cudaMallocHost(&hy, yb));
  memset(hx, 0, xb);
  memset(hy, 0, yb);
  const double h2d_x = copy_ms(dx, hx, xb, cudaMemcpyHostToDevice, st, o.reps), h2d_y = copy_ms(dy, hy, yb, cudaMemcpyHostToDevice, st, o.reps);
  const double d2h_y = copy_ms(hy, dy, yb, cudaMemcpyDeviceToHost, st, o.reps);
  const double page_h2d = wall_median_ms([&] { CUDA_OK(cudaMemcpy(dx, x.data(), xb, cudaMemcpyHostToDevice)); }, o.reps);
  const double page_d2h = wall_median_ms([&] { CUDA_OK(cudaMemcpy(out.data(), dy, yb, cudaMemcpyDeviceToHost)); }, o.reps);
  const double memcpy1  = wall_median_ms([&] { memcpy(hy, in.data(), yb); }, o.reps);
  CUDA_OK(cudaFreeHost(hx));
  CUDA_OK(cudaFreeHost(hy));
  printf("kernel (events, auto): beta=0 %.4f ms, beta=1 %.4f ms; device entry (wall, synchronised): %.4f / %.4f ms\n", kernel_ms[0], kernel_ms[1], device_wall_ms[0], device_wall_ms[1]);
  printf("pinned cudaMemcpy: H2D x %.4f ms (%.1f GB/s), H2D y %.4f ms (%.1f GB/s), D2H y %.4f ms (%.1f GB/s)\n", h2d_x, xb / (h2d_x * 1e6), h2d_y, yb / (h2d_y * 1e6), d2h_y, yb / (d2h_y * 1e6));
  printf("pageable cudaMemcpy (wall): H2D x %.4f ms (%.1f GB/s), D2H y %.4f ms (%.1f GB/s); one-thread memcpy into pinned %.1f GB/s\n", page_h2d, xb / (page_h2d * 1e6), page_d2h, yb / (page_d2h * 1e6), yb / (memcpy1 * 1e6));
  const double bound[2] = {kernel_ms[0] + h2d_x + d2h_y, kernel_ms[1] + h2d_x + h2d_y + d2h_y};
  printf("bound = kernel + pinned transfers: beta=0 %.4f ms, beta=1 %.4f ms\n", bound[0], bound[1]);

  const char *settings[] = {"serial", "default", "256", "512", "2048", "4096", "1024x1", "1024x2", "1024x4", "1024x16"};
  printf("%-10s %5s %10s %10s %10s %7s %12s  %s\n", "staging", "beta", "host ms", "min ms", "bound ms", "ratio", "xfer GB/s", "check");
  for (const char *set : settings) {
    if (strcmp(set, "default") == 0) unsetenv("BSRC_CUDA_STAGING");
    else setenv("BSRC_CUDA_STAGING", set, 1);
    for (int b = 0; b < 2; ++b) {
      /* check once (out poisoned), then time */
      std::fill(out.begin(), out.end(), NAN);
      std::string why = "ok";
      if (bsrc_cuda_multadd_host(M, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), (double)b, b ? in.data() : nullptr, out.data()) != BSRC_CUDA_OK) {
        why = std::string("FAILED: ") + bsrc_cuda_last_error(M);
      } else {
        for (size_t i = 0; i < ny; ++i)
          if (!(std::fabs(out[i] - ref[b][i]) <= 1e-13 * scale[b][i] + 1e-300)) {
            char buf[128];
            snprintf(buf, sizeof(buf), "WRONG at %zu: %.17g vs %.17g", i, out[i], ref[b][i]);
            why = buf;
            break;
          }
      }
      double       mn = NAN;
      const double ms = wall_median_ms([&] { (void)bsrc_cuda_multadd_host(M, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), (double)b, b ? in.data() : nullptr, out.data()); }, o.reps, &mn);
      const double moved = (double)xb + (double)yb * (b ? 2 : 1);
      printf("%-10s %5d %10.4f %10.4f %10.4f %7.2f %12.1f  %s\n", set, b, ms, mn, bound[b], ms / bound[b], moved / ((ms - kernel_ms[b]) * 1e6), why.c_str());
      fflush(stdout);
    }
  }
  unsetenv("BSRC_CUDA_STAGING");
  CUDA_OK(cudaFree(dx));
  CUDA_OK(cudaFree(dy));
  CUDA_OK(cudaFree(din));
  bsrc_cuda_destroy(M);
}

void print_table(const std::vector<row> &rows, double copy_gbs, FILE *csv)
{
  if (csv) fprintf(csv, "dataset,product,beta,threads,grid,lanes,median_ms,min_ms,gbs,pct_copy,speedup_vs_bsrmv_row,note\n");
  printf("\n%-10s %-30s %5s %7s %10s %10s %8s %7s %8s\n", "dataset", "product", "beta", "threads", "ms(med)", "ms(min)", "GB/s", "%copy", "vs-row");
  for (const row &r : rows) {
    double ref_ms = NAN;
    for (const row &q : rows)
      if (q.dataset == r.dataset && q.label == "cusparse_bsrmv_row" && q.t.ok) ref_ms = q.t.median_ms;
    const double gbs = r.t.ok ? r.bytes / (r.t.median_ms * 1e-3) / 1e9 : NAN;
    const double pct = 100.0 * gbs / copy_gbs;
    const double vs  = r.t.ok ? ref_ms / r.t.median_ms : NAN;
    const bool   sweep = r.label.rfind("sweep", 0) == 0;
    if (!sweep) printf("%-10s %-30s %5g %7d %10.4f %10.4f %8.1f %6.1f%% %8.2f%s%s\n", r.dataset.c_str(), r.label.c_str(), r.beta, r.threads, r.t.median_ms, r.t.min_ms, gbs, pct, vs, r.t.ok ? "" : "  ", r.t.ok ? "" : r.t.note.c_str());
    if (csv)
      fprintf(csv, "%s,%s,%g,%d,%d,%d,%.6f,%.6f,%.2f,%.2f,%.3f,\"%s\"\n", r.dataset.c_str(), r.label.c_str(), r.beta, r.threads, r.grid, r.lanes, r.t.median_ms, r.t.min_ms, gbs, pct, vs, r.t.note.c_str());
  }
  /* best sweep entry per dataset and kernel */
  printf("\nbest threads per kernel (sweep):\n");
  for (const row &r : rows) {
    if (r.label.rfind("sweep", 0) != 0 || !r.t.ok) continue;
    const std::string kernel = r.label.substr(0, r.label.find(" t="));
    bool              best   = true;
    for (const row &q : rows)
      if (q.dataset == r.dataset && q.t.ok && q.label.rfind(kernel + " t=", 0) == 0 && q.t.median_ms < r.t.median_ms) best = false;
    if (best && r.label.find(" t=") != std::string::npos) printf("  %-10s %-40s %9.4f ms %8.1f GB/s\n", r.dataset.c_str(), r.label.c_str(), r.t.median_ms, r.bytes / (r.t.median_ms * 1e-3) / 1e9);
  }
}

} // namespace

int main(int argc, char **argv)
{
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) o.reps = std::max(1, atoi(argv[++i]));
    else if (a == "--n" && i + 1 < argc) o.n = std::max(3, atoi(argv[++i]));
    else if (a == "--only" && i + 1 < argc) o.only = argv[++i];
    else if (a == "--no-sweep") o.sweep = false;
    else if (a == "--csv" && i + 1 < argc) o.csv = argv[++i];
    else if (a == "--staging") o.staging = true;
    else {
      fprintf(stderr, "usage: %s [--reps N] [--n N] [--only thesis|stencil27] [--no-sweep] [--csv FILE] [--staging]\n", argv[0]);
      return 2;
    }
  }
  if (bsrc_cuda_device_count() == 0) {
    printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  int mem_clock_khz = 0, bus_width = 0;
  (void)cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
  (void)cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, 0);
  printf("device: %s, %d SMs, L2 %.0f MB, %.1f GB; bsrk_idx %zu bytes; %d reps (median), %d warm-up\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6, prop.totalGlobalMem / 1e9, sizeof(bsrk_idx), o.reps, o.warmup);

  if (o.staging) {
    if (o.only.empty() || o.only == "thesis") bench_staging(thesis_dataset(), o);
    if (o.only.empty() || o.only == "stencil27") bench_staging(stencil27_dataset(o.n), o);
    return 0;
  }

  const double copy_gbs = copy_bandwidth_gbs((size_t)1 << 30, o);
  printf("device-to-device cudaMemcpy of 1 GiB: %.1f GB/s (read + write)\n", copy_gbs);

  std::vector<row> rows;
  if (o.only.empty() || o.only == "thesis") bench_dataset(thesis_dataset(), o, rows);
  if (o.only.empty() || o.only == "stencil27") bench_dataset(stencil27_dataset(o.n), o, rows);

  FILE *csv = o.csv.empty() ? nullptr : fopen(o.csv.c_str(), "w");
  print_table(rows, copy_gbs, csv);
  if (csv) fclose(csv);
  bool wrong = false;
  for (const row &r : rows) wrong = wrong || !r.t.ok;
  printf("%s\n", wrong ? "SOME PRODUCTS FAILED (see notes)" : "all products checked against the reference");
  return wrong ? 1 : 0;
}
