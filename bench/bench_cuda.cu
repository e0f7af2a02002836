/*
   Standalone GPU benchmark of the CUDA layer (no PETSc): our kernels against cuSPARSE and the copy
   bandwidth, on generated matrices (and one read from a PETSc binary file).

   Matrices (--only takes a comma list of these names; --quick shrinks the large ones for a smoke run;
   --scale F multiplies the sizes of the stencils and the power-law pairs by F, e.g. 4 for >= 1 GB):
     thesis           the thesis's dataset (ch. 5/8): 32000 x 32000, 5x5 dense blocks, 5% nonzero: 320
                      blocks per block row in a contiguous band around the diagonal (shifted at the
                      edges), positive values, every scalar row summing to 1 (418 MB)
     thesis8x         the same construction with 8x the nonzeros: 90510 x 90510, 5% (3.3 GB)
     stencil27_bs<b>  3D 27-point stencils, b = 2, 3, 4, 5, 8, the grid chosen so that values >= 256 MB
     stencil7_bs3     3D 7-point stencil with 3x3 blocks, >= 256 MB
     powerlaw_bs<b>   b = 1, 2, 4: block-row lengths drawn from a power law (Pareto, exponent 2.2: most
                      rows short, a few thousands of blocks long), ~300 MB; each with a twin
     regular_bs<b>    of the same rows and blocks but every row the same length (the "within 15%" pair)
     small_thesis     4000 x 4000 thesis construction (6.4 MB: fits in L2)
     small_stencil27  27-point bs 3 on 16^3 (7 MB); small_stencil27_1mb on 9^3 (1.1 MB)
     jacobian         --jacobian FILE[:bs]: a matrix saved by a PETSc program (-ksp_view_mat binary:FILE,
                      an AIJ or BAIJ file read as scalar CSR) and blocked with bs (default 4)
   For each product: the result is checked against bsrk_reference_multadd first, then timed with
   CUDA events around each call (back-to-back on the matrix's stream, after warm-up), median of
   --reps runs; calls under 0.05 ms are timed again with events around enough back-to-back calls
   for about 0.2 ms (the line's note gives the count) and reported per call. GB/s counts values +
   colidx + rowptr + x + y written (+ y read when beta != 0) of the BSR matrix for every product
   (the CSR baselines move more: their figure is an effective one).
   "% copy" compares with a device-to-device cudaMemcpy (bytes counted twice: read + write).
   "vs row" is t(cusparseDbsrmv, row-major blocks) / t(product); "vs best cuSPARSE" divides the
   fastest cuSPARSE path's time by the product's. TARGET lines give the issue's targets PASS/MISS; the
   target against the best cuSPARSE path is judged on auto and that path timed again in alternating
   spans, each after one untimed call of its own (the median of the per-pair ratios), so that a
   disturbance hits both alike.

   --staging times the host entry instead (bsrc_cuda_multadd_host, auto kernel, pageable host
   vectors): wall-clock median per call for several staging settings (BSRC_CUDA_STAGING: "serial"
   is the one-piece, one-thread staging of before, "<KiB>[x<threads>]" other pieces / threads,
   "default" the built-in ones), against the kernel alone (events) and the pinned cudaMemcpy
   bandwidth for the same byte counts: bound = kernel + bytes moved / pinned bandwidth.

   --spmm times products with k = 1, 4, 8, 32 dense columns instead (bench_spmm): our block SpMM
   against one product per column and cuSPARSE's SpMM paths (cusparseDbsrmm, cusparseSpMM on CSR),
   with TARGET lines (ours >= 1.1x cuSPARSE's best; k = 8 per column <= 0.3x one product); thesis and
   stencil27_bs3 unless --only names others.

   Usage: bench_cuda [--reps N] [--warmup N] [--only LIST] [--quick] [--scale F] [--no-sweep] [--sweep-all] [--pair-calls N] [--csv FILE]
                     [--json FILE] [--jacobian FILE[:bs]] [--staging] [--spmm] [--describe]
   (--warmup 0 --reps 1 under a profiler: each product then runs twice, its check and one timed call)
*/
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "bench_cuda_baselines.h"
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
  std::string only; /* comma list of matrix names; empty: all */
  bool        quick     = false;
  double      scale     = 1.0; /* --scale: stencils and power-law pairs F times larger */
  bool        sweep     = true;
  bool        sweep_all = false; /* sweep every matrix, not only thesis and stencil27_bs3 */
  std::string csv, json, jacobian;
  bool        staging = false, describe = false; /* --describe: list the selected matrices (no GPU needed) */
  bool        spmm       = false;                /* --spmm: products with 1, 4, 8, 32 columns (bench_spmm) */
  int         pair_calls = 1;                    /* --pair-calls: at least this many calls a span in the alternating measurement */
  bool        wants(const std::string &name) const { return only.empty() || ("," + only + ",").find("," + name + ",") != std::string::npos; }
};

#include "bench_datasets.h" /* rng64, dataset and the generated matrices */

/* A matrix in PETSc's binary format (big-endian: class id 1211216, rows, columns, nonzeros, row
   lengths, column indices, values), blocked with bs: every bs x bs block holding an entry is stored
   whole (the zeros inside included, as BAIJ does). */
uint32_t be32(const unsigned char *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool petsc_binary_dataset(const std::string &path, int bs, dataset &D, std::string &why)
{
  FILE *f = fopen(path.c_str(), "rb");
  if (!f) {
    why = "cannot open " + path;
    return false;
  }
  auto          read_all = [&](void *dst, size_t bytes) { return fread(dst, 1, bytes, f) == bytes; };
  unsigned char h[16];
  if (!read_all(h, 16) || be32(h) != 1211216u) {
    fclose(f);
    why = path + ": not a PETSc binary matrix (class id)";
    return false;
  }
  const int64_t M = be32(h + 4), N = be32(h + 8), nz = be32(h + 12);
  if (M % bs || N % bs) {
    fclose(f);
    why = path + ": size not divisible by the block size";
    return false;
  }
  std::vector<unsigned char> buf((size_t)std::max<int64_t>(M, nz) * 4);
  std::vector<int64_t>       rp(M + 1, 0);
  std::vector<int32_t>       cols(nz);
  std::vector<double>        vals(nz);
  bool                       ok = read_all(buf.data(), (size_t)M * 4);
  for (int64_t i = 0; ok && i < M; ++i) rp[i + 1] = rp[i] + be32(&buf[4 * i]);
  ok = ok && rp[M] == nz && read_all(buf.data(), (size_t)nz * 4);
  for (int64_t k = 0; ok && k < nz; ++k) cols[k] = (int32_t)be32(&buf[4 * k]);
  ok = ok && read_all(vals.data(), (size_t)nz * 8);
  fclose(f);
  if (!ok) {
    why = path + ": truncated";
    return false;
  }
  for (double &v : vals) { /* big-endian doubles */
    uint64_t u;
    memcpy(&u, &v, 8);
    u = __builtin_bswap64(u);
    memcpy(&v, &u, 8);
  }
  D.bs     = bs;
  D.nbrows = (bsrk_idx)(M / bs);
  D.nbcols = (bsrk_idx)(N / bs);
  D.rowptr.assign(1, 0);
  std::vector<bsrk_idx> bcols;
  for (bsrk_idx I = 0; I < D.nbrows; ++I) {
    bcols.clear();
    for (int r = 0; r < bs; ++r)
      for (int64_t k = rp[(int64_t)I * bs + r]; k < rp[(int64_t)I * bs + r + 1]; ++k) bcols.push_back(cols[k] / bs);
    std::sort(bcols.begin(), bcols.end());
    bcols.erase(std::unique(bcols.begin(), bcols.end()), bcols.end());
    const size_t base = D.colidx.size();
    D.colidx.insert(D.colidx.end(), bcols.begin(), bcols.end());
    D.rowptr.push_back((bsrk_idx)D.colidx.size());
    D.values.resize(D.colidx.size() * bs * bs, 0.0);
    for (int r = 0; r < bs; ++r)
      for (int64_t k = rp[(int64_t)I * bs + r]; k < rp[(int64_t)I * bs + r + 1]; ++k) {
        const size_t b                                          = base + (size_t)(std::lower_bound(bcols.begin(), bcols.end(), (bsrk_idx)(cols[k] / bs)) - bcols.begin());
        D.values[b * bs * bs + (size_t)(cols[k] % bs) * bs + r] = vals[k]; /* column-major blocks */
      }
  }
  return true;
}

/* D on device 0 (structure and values), or exit with the CUDA layer's message. */
bsrc_cuda_matrix *device_matrix(const dataset &D)
{
  bsrc_cuda_matrix *M = nullptr;
  if (bsrc_cuda_create(0, &M) != BSRC_CUDA_OK || bsrc_cuda_set_structure(M, D.nbrows, D.nbcols, D.bs, D.rowptr.data(), D.colidx.data()) != BSRC_CUDA_OK || bsrc_cuda_set_values(M, D.values.data()) != BSRC_CUDA_OK) {
    fprintf(stderr, "setup failed: %s\n", bsrc_cuda_last_error(M));
    exit(2);
  }
  return M;
}

/* ref[b] = A x + b in and its error scale scale[b] = |A| |x| + b |in|, for b = 0 and 1. */
void references(const dataset &D, const std::vector<double> &x, const std::vector<double> &in, std::vector<double> ref[2], std::vector<double> scale[2])
{
  const size_t nx = x.size(), ny = in.size();
  dataset      Dabs = D;
  for (double &v : Dabs.values) v = std::fabs(v);
  std::vector<double> xa(nx), ina(ny);
  for (size_t i = 0; i < nx; ++i) xa[i] = std::fabs(x[i]);
  for (size_t i = 0; i < ny; ++i) ina[i] = std::fabs(in[i]);
  const bsrk_matrix A = D.view(), Aa = Dabs.view();
  for (int b = 0; b < 2; ++b) {
    ref[b].resize(ny);
    scale[b].resize(ny);
    bsrk_reference_multadd(&A, 1.0, x.data(), (double)b, b ? in.data() : nullptr, ref[b].data());
    bsrk_reference_multadd(&Aa, 1.0, xa.data(), (double)b, b ? ina.data() : nullptr, scale[b].data());
  }
}

/* What one table row times. */
enum product_kind {
  OWN,
  CUSP_BSRMV_COL,
  CUSP_BSRMV_ROW,
  CUSP_SPMV_BSR,
  CUSP_CSR1,
  CUSP_CSR2
};

struct product {
  std::string      label;
  product_kind     kind;
  bsrc_cuda_kernel kernel; /* OWN */
};

/* The benchmark-only baselines of the matrix bench_dataset measures (made and freed with it). */
bench_baselines *g_baselines = nullptr;

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
    return bench_cusparse_rowmajor_bsrmv(g_baselines, alpha, x, beta, in, out);
  case CUSP_CSR1:
    return bench_cusparse_spmv_csr(g_baselines, 1, alpha, x, beta, in, out);
  case CUSP_CSR2:
    return bench_cusparse_spmv_csr(g_baselines, 2, alpha, x, beta, in, out);
  }
  return BSRC_CUDA_ERR_ARG;
}

struct timing {
  double      median_ms = NAN, min_ms = NAN;
  int         calls = 1; /* calls between the two events of one timed span */
  bool        ok    = false;
  std::string note;
};

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Calls shorter than this are timed again in spans of several calls (time_product). */
constexpr double kShortCallMs = 0.05;
constexpr double kSpanMs      = 0.2;

/* Events around every call, calls back to back (the host stays ahead of the GPU), median over
   o.reps spans. A call of a few microseconds (the L2-sized matrices) is then timed again with
   `calls` calls between the two events (spans of about kSpanMs), and the per-call median of those
   spans is reported: an event pair around a single call that short is dominated by launch and
   clock jitter, enough to decide whether such a matrix passed its cuSPARSE target. Every product,
   ours and cuSPARSE's, is timed the same way. */
timing time_product(bsrc_cuda_matrix *M, const product &p, double beta, const double *dx, const double *din, double *dy, const options &o, int calls = 1)
{
  timing       t;
  cudaStream_t s = (cudaStream_t)bsrc_cuda_stream(M);
  t.calls        = calls;
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
    for (int c = 0; c < calls && t.note.empty(); ++c)
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
    ms[i] = f / calls;
  }
  for (auto &e : ev) CUDA_OK(cudaEventDestroy(e));
  t.median_ms = median(ms);
  t.min_ms    = *std::min_element(ms.begin(), ms.end());
  t.ok        = true;
  if (calls == 1 && t.median_ms < kShortCallMs) return time_product(M, p, beta, dx, din, dy, o, (int)std::ceil(kSpanMs / std::max(t.median_ms, 1e-4)));
  return t;
}

/* a and b timed in o.reps alternating spans on M's stream (a's span, then b's), each span with the
   product's own calls count (what time_product chose, at least --pair-calls), after o.warmup calls of
   each. Returns the median of the per-pair ratios t(b) / t(a), and their quartiles. Timed one after
   the other, the two medians also meet different moments of the machine: with calls of a few
   microseconds, one disturbed stretch can move a median far from the other's even for the same
   kernel. Each span follows one untimed call of its own product, because the first call of ours
   after a cusparseSpMV call runs slower than the next ones (cuSPARSE's first call after ours does
   not, and idling the GPU in between does not change it). Each span so times its product as
   time_product does, calls that follow calls of the same product. */
bool paired_ratio(bsrc_cuda_matrix *M, const product &a, int calls_a, const product &b, int calls_b, const double *dx, double *dy, const options &o, double *med, double *q1, double *q3, double *ms_a, double *ms_b)
{
  cudaStream_t s = (cudaStream_t)bsrc_cuda_stream(M);
  calls_a        = std::max(calls_a, o.pair_calls);
  calls_b        = std::max(calls_b, o.pair_calls);
  for (int i = 0; i < o.warmup; ++i)
    if (run(M, a, 1.0, dx, 0.0, nullptr, dy) != BSRC_CUDA_OK || run(M, b, 1.0, dx, 0.0, nullptr, dy) != BSRC_CUDA_OK) return false;
  std::vector<cudaEvent_t> ev(4 * o.reps);
  for (auto &e : ev) CUDA_OK(cudaEventCreate(&e));
  bool ok = true;
  for (int i = 0; i < o.reps && ok; ++i) {
    ok = run(M, a, 1.0, dx, 0.0, nullptr, dy) == BSRC_CUDA_OK; /* untimed: the switch from b */
    CUDA_OK(cudaEventRecord(ev[4 * i], s));
    for (int c = 0; c < calls_a && ok; ++c) ok = run(M, a, 1.0, dx, 0.0, nullptr, dy) == BSRC_CUDA_OK;
    CUDA_OK(cudaEventRecord(ev[4 * i + 1], s));
    ok = ok && run(M, b, 1.0, dx, 0.0, nullptr, dy) == BSRC_CUDA_OK; /* untimed: the switch from a */
    CUDA_OK(cudaEventRecord(ev[4 * i + 2], s));
    for (int c = 0; c < calls_b && ok; ++c) ok = run(M, b, 1.0, dx, 0.0, nullptr, dy) == BSRC_CUDA_OK;
    CUDA_OK(cudaEventRecord(ev[4 * i + 3], s));
  }
  CUDA_OK(cudaStreamSynchronize(s));
  std::vector<double> r, ta, tb;
  for (int i = 0; i < o.reps && ok; ++i) {
    float fa = 0, fb = 0;
    CUDA_OK(cudaEventElapsedTime(&fa, ev[4 * i], ev[4 * i + 1]));
    CUDA_OK(cudaEventElapsedTime(&fb, ev[4 * i + 2], ev[4 * i + 3]));
    ta.push_back(fa / calls_a);
    tb.push_back(fb / calls_b);
    r.push_back(tb.back() / ta.back());
  }
  for (auto &e : ev) CUDA_OK(cudaEventDestroy(e));
  if (!ok || r.empty()) return false;
  *ms_a = median(ta);
  *ms_b = median(tb);
  std::sort(r.begin(), r.end());
  *med = median(r);
  *q1  = r[r.size() / 4];
  *q3  = r[(3 * r.size()) / 4];
  return true;
}

/* Median ms of o.reps calls of `call` on the legacy default stream, each timed alone between two
   events and waited for (after o.warmup untimed calls): the copy and read references below. */
template <class F>
double median_call_ms(const options &o, F call)
{
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  for (int i = 0; i < o.warmup; ++i) call();
  std::vector<double> ms;
  for (int i = 0; i < o.reps; ++i) {
    CUDA_OK(cudaEventRecord(e0));
    call();
    CUDA_OK(cudaEventRecord(e1));
    CUDA_OK(cudaEventSynchronize(e1));
    float f = 0;
    CUDA_OK(cudaEventElapsedTime(&f, e0, e1));
    ms.push_back(f);
  }
  CUDA_OK(cudaEventDestroy(e0));
  CUDA_OK(cudaEventDestroy(e1));
  return median(ms);
}

/* Device-to-device copy bandwidth, bytes counted as read + write. */
double copy_bandwidth_gbs(size_t bytes, const options &o)
{
  void *a = nullptr, *b = nullptr;
  CUDA_OK(cudaMalloc(&a, bytes));
  CUDA_OK(cudaMalloc(&b, bytes));
  CUDA_OK(cudaMemset(a, 1, bytes));
  const double ms = median_call_ms(o, [&] { CUDA_OK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
  CUDA_OK(cudaFree(a));
  CUDA_OK(cudaFree(b));
  return 2.0 * (double)bytes / (ms * 1e-3) / 1e9;
}

/* Reads n2 pairs of doubles as 16-byte loads and keeps a sum per thread (stored only if it is NaN, so the loads
   cannot be dropped): the rate of a read-only stream, what a product's matrix traffic is closest to. */
__global__ void read_stream_kernel(const double2 *__restrict__ a, int64_t n2, double *sink)
{
  double s = 0.0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n2; i += (int64_t)gridDim.x * blockDim.x) {
    const double2 v = a[i];
    s += v.x + v.y;
  }
  if (s != s) sink[0] = s;
}

/* Read-only bandwidth over `bytes`, one kernel a timed call, the best of six launch shapes (256-1024
   threads, 2-8 blocks a multiprocessor, at most 2048 threads a multiprocessor; median of o.reps each). */
double read_bandwidth_gbs(size_t bytes, const options &o)
{
  const int64_t n2   = (int64_t)(bytes / 16);
  double2      *a    = nullptr;
  double       *sink = nullptr;
  CUDA_OK(cudaMalloc(&a, (size_t)n2 * 16));
  CUDA_OK(cudaMalloc(&sink, sizeof(double)));
  CUDA_OK(cudaMemset(a, 1, (size_t)n2 * 16));
  int sms = 0, dev = 0;
  CUDA_OK(cudaGetDevice(&dev));
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  double best = 0.0;
  for (int threads : {256, 512, 1024})
    for (int per_sm : {2, 4, 8}) {
      if (threads * per_sm > 2048) continue;
      const int    grid = sms * per_sm;
      const double ms   = median_call_ms(o, [&] { read_stream_kernel<<<grid, threads>>>(a, n2, sink); });
      best              = std::max(best, (double)n2 * 16 / (ms * 1e-3) / 1e9);
    }
  CUDA_OK(cudaFree(a));
  CUDA_OK(cudaFree(sink));
  return best;
}

struct dataset_info {
  std::string name, auto_kernel;
  std::string best_cusparse;        /* the fastest cuSPARSE path by median (beta = 0) */
  double      vs_best_paired = NAN; /* median over alternating span pairs of t(best) / t(auto) */
  double      vs_best_q1 = NAN, vs_best_q3 = NAN;
  int64_t     rows = 0, nblocks = 0;
  int         bs          = 0;
  double      value_bytes = 0, bytes = 0, max_row = 0, mean_row = 0;
  double      copy_same_gbs = 0; /* a cudaMemcpy moving the product's bytes (bytes / 2 each way), one a call */
  double      read_same_gbs = 0; /* a read-only kernel over the product's bytes, one a call */
};

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

const row *find_row(const std::vector<row> &rows, const std::string &dataset, const std::string &label);
const row *best_cusparse(const std::vector<row> &rows, const std::string &dataset);

/* The products bench_dataset times, in the order of its table. */
std::vector<product> dataset_products()
{
  return {{"rowmajor_shared", OWN, BSRC_CUDA_KERNEL_ROWMAJOR_SHARED}, {"thread_private", OWN, BSRC_CUDA_KERNEL_THREAD_PRIVATE}, {"team_scalar", OWN, BSRC_CUDA_KERNEL_TEAM_SCALAR}, {"vector_unrolled", OWN, BSRC_CUDA_KERNEL_VECTOR_UNROLLED}, {"warp_row", OWN, BSRC_CUDA_KERNEL_WARP_ROW}, {"hybrid", OWN, BSRC_CUDA_KERNEL_HYBRID}, {"segmented", OWN, BSRC_CUDA_KERNEL_SEGMENTED}, {"sliced", OWN, BSRC_CUDA_KERNEL_SLICED}, {"auto", OWN, BSRC_CUDA_KERNEL_AUTO}, {"cusparse_bsrmv_col", CUSP_BSRMV_COL, BSRC_CUDA_KERNEL_AUTO}, {"cusparse_bsrmv_row", CUSP_BSRMV_ROW, BSRC_CUDA_KERNEL_AUTO}, {"cusparse_spmv_bsr", CUSP_SPMV_BSR, BSRC_CUDA_KERNEL_AUTO}, {"cusparse_spmv_csr_alg1", CUSP_CSR1, BSRC_CUDA_KERNEL_AUTO}, {"cusparse_spmv_csr_alg2", CUSP_CSR2, BSRC_CUDA_KERNEL_AUTO}};
}

/* What the products of one matrix share: its device matrix and vectors, the references (beta 0 and
   1) with their error scales, the bytes every product moves besides y's read, and the rows they add to. */
struct dataset_run {
  const dataset             &D;
  const options             &o;
  bsrc_cuda_matrix          *M;
  std::vector<row>          &rows;
  const std::vector<product> products = dataset_products();
  double                    *dx = nullptr, *dy = nullptr, *din = nullptr;
  size_t                     ny         = 0;
  double                     base_bytes = 0;
  std::vector<double>        ref[2], scale[2];

  dataset_run(const dataset &D_, const options &o_, bsrc_cuda_matrix *M_, std::vector<row> &rows_) : D(D_), o(o_), M(M_), rows(rows_) { }

  /* One product checked against the reference (y poisoned), then timed; its line printed, its row kept. */
  row measure(const product &p, double beta, const std::string &label)
  {
    row r;
    r.dataset = D.name;
    r.label   = label;
    r.beta    = beta;
    r.bytes   = base_bytes + (beta != 0.0 ? (double)ny * sizeof(double) : 0.0);
    if (p.kind == OWN) (void)bsrc_cuda_launch_info(M, p.kernel, &r.threads, &r.grid, nullptr, &r.lanes);
    std::string why;
    const int   b = beta != 0.0;
    if (!check_result(beta, ref[b], scale[b], M, p, dx, din, dy, why)) {
      r.t.note = "WRONG RESULT: " + why;
      printf("  %-28s beta=%g  %s\n", label.c_str(), beta, r.t.note.c_str());
    } else {
      r.t = time_product(M, p, beta, dx, beta != 0.0 ? din : nullptr, dy, o);
      if (r.t.ok) r.t.note = why + (r.t.calls > 1 ? ", " + std::to_string(r.t.calls) + " calls a timed span" : std::string());
      printf("  %-28s beta=%g  threads %4d grid %7d  %9.4f ms (min %9.4f)  %7.1f GB/s  %s\n", label.c_str(), beta, r.threads, r.grid, r.t.median_ms, r.t.min_ms, r.bytes / (r.t.median_ms * 1e-3) / 1e9, r.t.note.c_str());
    }
    fflush(stdout);
    rows.push_back(r);
    return r;
  }

  const product &by_label(const char *label) const
  {
    for (const product &p : products)
      if (p.label == label) return p;
    fprintf(stderr, "bench_cuda: no product %s\n", label);
    exit(2);
  }
};

/* The matrix's line of the summary: its shape, the auto choice, and copy and read bandwidths over the
   product's own bytes. The 1 GiB copy of "% copy" runs long enough for a call's fixed cost (launch,
   ramp-up, the last wave) to vanish; a copy of the product's own bytes, timed the same way, pays it
   as the product does. */
dataset_info describe_dataset(const dataset &D, const options &o, bsrc_cuda_kernel ak)
{
  const size_t nx = (size_t)D.nbcols * D.bs, ny = (size_t)D.nbrows * D.bs;
  const double vbytes = (double)D.values.size() * sizeof(double);
  dataset_info in;
  in.name        = D.name;
  in.auto_kernel = bsrc_cuda_kernel_names[ak];
  in.rows        = (int64_t)D.nbrows * D.bs;
  in.nblocks     = D.nblocks();
  in.bs          = (int)D.bs;
  in.value_bytes = vbytes;
  in.mean_row    = (double)D.nblocks() / std::max<bsrk_idx>(1, D.nbrows);
  for (bsrk_idx i = 0; i < D.nbrows; ++i) in.max_row = std::max(in.max_row, (double)(D.rowptr[i + 1] - D.rowptr[i]));
  in.bytes         = vbytes + (double)D.colidx.size() * sizeof(bsrk_idx) + (double)D.rowptr.size() * sizeof(bsrk_idx) + (double)(nx + ny) * sizeof(double);
  in.copy_same_gbs = copy_bandwidth_gbs((size_t)(in.bytes / 2.0 / 256.0) * 256, o);
  in.read_same_gbs = read_bandwidth_gbs((size_t)in.bytes, o);
  printf("the same bytes (%.1f MB): cudaMemcpy (%.1f MB each way) %.1f GB/s, a read-only kernel %.1f GB/s, one call timed\n", in.bytes / 1e6, in.bytes / 2e6, in.copy_same_gbs, in.read_same_gbs);
  return in;
}

/* The cuSPARSE target, judged on auto and the fastest cuSPARSE path timed in alternating spans. */
void compare_with_best_cusparse(const dataset_run &R, dataset_info &in)
{
  const row *a = find_row(R.rows, R.D.name, "auto"), *b = best_cusparse(R.rows, R.D.name);
  if (!a || !b) return;
  in.best_cusparse = b->label;
  double ma = NAN, mb = NAN;
  if (paired_ratio(R.M, R.by_label("auto"), a->t.calls, R.by_label(b->label.c_str()), b->t.calls, R.dx, R.dy, R.o, &in.vs_best_paired, &in.vs_best_q1, &in.vs_best_q3, &ma, &mb))
    printf("  auto vs %s in %d alternating spans: %.3fx (quartiles %.3f-%.3f; medians %.4f and %.4f ms); ratio of the medians above %.3fx\n", b->label.c_str(), R.o.reps, in.vs_best_paired, in.vs_best_q1, in.vs_best_q3, ma, mb, b->t.median_ms / a->t.median_ms);
}

/* Threads per block of every kernel, lanes of WARP_ROW and HYBRID, task counts of VECTOR_UNROLLED
   (beta = 0); each setting back to its default afterwards. */
void sweep_settings(dataset_run &R)
{
  printf("  -- threads-per-block sweep (beta = 0) --\n");
  const int threads[] = {32, 64, 128, 256, 512, 1024};
  for (int k = BSRC_CUDA_KERNEL_ROWMAJOR_SHARED; k <= BSRC_CUDA_KERNEL_LAST_OWN; ++k) {
    for (int t : threads) {
      if (bsrc_cuda_set_threads(R.M, (bsrc_cuda_kernel)k, t) != BSRC_CUDA_OK) continue;
      const product p{bsrc_cuda_kernel_names[k], OWN, (bsrc_cuda_kernel)k};
      char          label[64];
      snprintf(label, sizeof(label), "sweep %s t=%d", bsrc_cuda_kernel_names[k], t);
      R.measure(p, 0.0, label);
    }
    (void)bsrc_cuda_set_threads(R.M, (bsrc_cuda_kernel)k, 0);
  }
  printf("  -- lanes sweep, warp_row and hybrid at their default threads (beta = 0) --\n");
  const bsrc_cuda_kernel laned[] = {BSRC_CUDA_KERNEL_WARP_ROW, BSRC_CUDA_KERNEL_HYBRID};
  for (bsrc_cuda_kernel k : laned) {
    for (int l : {1, 2, 4, 8, 16, 32}) {
      if (bsrc_cuda_set_lanes(R.M, k, l) != BSRC_CUDA_OK) continue; /* warp_row: from 4 */
      const product p{bsrc_cuda_kernel_names[k], OWN, k};
      char          label[64];
      snprintf(label, sizeof(label), "sweep %s lanes=%d", bsrc_cuda_kernel_names[k], l);
      R.measure(p, 0.0, label);
    }
    (void)bsrc_cuda_set_lanes(R.M, k, 0);
  }
  printf("  -- task-count sweep, vector_unrolled (beta = 0) --\n");
  const bsrk_idx def_tasks = bsrc_cuda_task_count(R.M);
  const bsrk_idx counts[]  = {def_tasks / 8, def_tasks / 2, def_tasks * 2, def_tasks * 8};
  for (bsrk_idx c : counts) {
    if (c < 1 || bsrc_cuda_set_task_count(R.M, c) != BSRC_CUDA_OK) continue;
    char label[64];
    snprintf(label, sizeof(label), "sweep tasks=%lld vector_unrolled", (long long)bsrc_cuda_task_count(R.M));
    R.measure(R.by_label("vector_unrolled"), 0.0, label);
  }
  (void)bsrc_cuda_set_task_count(R.M, 0);
}

void bench_dataset(const dataset &D, const options &o, std::vector<row> &rows, std::vector<dataset_info> &infos, bool sweep)
{
  const size_t nx = (size_t)D.nbcols * D.bs, ny = (size_t)D.nbrows * D.bs;
  const double vbytes = (double)D.values.size() * sizeof(double);
  printf("\n== %s: %lld x %lld, bs %lld, %lld blocks (%.1f blocks/row), values %.1f MB ==\n", D.name.c_str(), (long long)ny, (long long)nx, (long long)D.bs, (long long)D.nblocks(), (double)D.nblocks() / D.nbrows, vbytes / 1e6);

  std::vector<double> x(nx), in(ny);
  rng64               rng{99};
  for (double &v : x) v = 2.0 * rng.uniform() - 1.0;
  for (double &v : in) v = 2.0 * rng.uniform() - 1.0;

  bsrc_cuda_matrix *M = device_matrix(D);
  if (bench_baselines_create(M, &g_baselines) != BSRC_CUDA_OK) {
    fprintf(stderr, "%s: benchmark baselines: %s\n", D.name.c_str(), bsrc_cuda_last_error(M));
    exit(2);
  }
  const bsrc_cuda_kernel ak = bsrc_cuda_auto_kernel(M);
  printf("auto choice: %s; %lld tasks\n", bsrc_cuda_kernel_names[ak], (long long)bsrc_cuda_task_count(M));
  infos.push_back(describe_dataset(D, o, ak));

  dataset_run R(D, o, M, rows);
  R.ny = ny;
  CUDA_OK(cudaMalloc(&R.dx, nx * sizeof(double)));
  CUDA_OK(cudaMalloc(&R.dy, ny * sizeof(double)));
  CUDA_OK(cudaMalloc(&R.din, ny * sizeof(double)));
  CUDA_OK(cudaMemcpy(R.dx, x.data(), nx * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(R.din, in.data(), ny * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_OK(cudaDeviceSynchronize());
  references(D, x, in, R.ref, R.scale);
  R.base_bytes = vbytes + (double)D.colidx.size() * sizeof(bsrk_idx) + (double)D.rowptr.size() * sizeof(bsrk_idx) + (double)nx * sizeof(double) + (double)ny * sizeof(double);

  for (const product &p : R.products) R.measure(p, 0.0, p.label);
  compare_with_best_cusparse(R, infos.back());
  const int layout = bsrc_cuda_spmv_bsr_layout(M);
  printf("  spmv_bsr block layout used: %d (1 column-major in place, 0 row-major copy)%s%s\n", layout, layout == 0 ? ": " : "", layout == 0 ? bsrc_cuda_last_error(M) : "");
  R.measure(R.by_label("auto"), 1.0, "auto (beta=1)");
  R.measure(R.by_label("cusparse_bsrmv_col"), 1.0, "cusparse_bsrmv_col (beta=1)");
  if (sweep) sweep_settings(R);

  CUDA_OK(cudaFree(R.dx));
  CUDA_OK(cudaFree(R.dy));
  CUDA_OK(cudaFree(R.din));
  bench_baselines_destroy(g_baselines);
  g_baselines = nullptr;
  bsrc_cuda_destroy(M);
}

/* Median milliseconds of f() by the wall clock (f synchronises itself), after 3 warm-up calls. */
template <class F>
double wall_median_ms(F f, int reps, double *min_ms = nullptr)
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

void add_target(const std::string &what, double value, double threshold, bool higher_is_better, const std::string &unit);

/* What the staging rows of one matrix share: its device matrix, host and device vectors, the
   references (beta 0 and 1) with their error scales, the kernel's own time and the bound. */
struct staging_run {
  bsrc_cuda_matrix   *M = nullptr;
  const options      &o;
  size_t              nx, ny, xb, yb;
  std::vector<double> x, in, out;
  std::vector<double> ref[2], scale[2];
  double             *dx = nullptr, *dy = nullptr, *din = nullptr;
  double              kernel_ms[2] = {NAN, NAN}, bound[2] = {NAN, NAN};

  staging_run(const dataset &D, const options &o_) : o(o_), nx((size_t)D.nbcols * D.bs), ny((size_t)D.nbrows * D.bs), xb(nx * sizeof(double)), yb(ny * sizeof(double)), x(nx), in(ny), out(ny, 0.0)
  {
    rng64 rng{4242};
    for (double &v : x) v = 2.0 * rng.uniform() - 1.0;
    for (double &v : in) v = 2.0 * rng.uniform() - 1.0;
  }

  /* One row of the table: the host entry checked once (out poisoned), then timed. */
  double host_row(const char *label, int b)
  {
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
    double       mn    = NAN;
    const double ms    = wall_median_ms([&] { (void)bsrc_cuda_multadd_host(M, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), (double)b, b ? in.data() : nullptr, out.data()); }, o.reps, &mn);
    const double moved = (double)xb + (double)yb * (b ? 2 : 1);
    printf("%-10s %5d %10.4f %10.4f %10.4f %7.2f %12.1f  %s\n", label, b, ms, mn, bound[b], ms / bound[b], moved / ((ms - kernel_ms[b]) * 1e6), why.c_str());
    fflush(stdout);
    return ms;
  }
};

/* The kernel alone (device arrays; events) and the device entry by the wall clock; the bus: pinned
   and pageable cudaMemcpy of the same byte counts, a one-thread memcpy into pinned memory; then
   bound = kernel + pinned transfers. */
void time_staging_bound(staging_run &R)
{
  const cudaStream_t st = (cudaStream_t)bsrc_cuda_stream(R.M);
  const product      auto_p{"auto", OWN, BSRC_CUDA_KERNEL_AUTO};
  double             device_wall_ms[2];
  for (int b = 0; b < 2; ++b) {
    const timing t = time_product(R.M, auto_p, (double)b, R.dx, b ? R.din : nullptr, R.dy, R.o);
    if (!t.ok) {
      fprintf(stderr, "kernel timing failed: %s\n", t.note.c_str());
      exit(2);
    }
    R.kernel_ms[b]    = t.median_ms;
    device_wall_ms[b] = wall_median_ms([&] { (void)bsrc_cuda_multadd_device(R.M, BSRC_CUDA_KERNEL_AUTO, 1.0, R.dx, (double)b, b ? R.din : nullptr, R.dy); }, R.o.reps);
  }
  const size_t xb = R.xb, yb = R.yb;
  double      *hx = nullptr, *hy = nullptr;
  CUDA_OK(cudaMallocHost(&hx, xb));
  CUDA_OK(cudaMallocHost(&hy, yb));
  memset(hx, 0, xb);
  memset(hy, 0, yb);
  const double h2d_x = copy_ms(R.dx, hx, xb, cudaMemcpyHostToDevice, st, R.o.reps), h2d_y = copy_ms(R.dy, hy, yb, cudaMemcpyHostToDevice, st, R.o.reps);
  const double d2h_y    = copy_ms(hy, R.dy, yb, cudaMemcpyDeviceToHost, st, R.o.reps);
  const double page_h2d = wall_median_ms([&] { CUDA_OK(cudaMemcpy(R.dx, R.x.data(), xb, cudaMemcpyHostToDevice)); }, R.o.reps);
  const double page_d2h = wall_median_ms([&] { CUDA_OK(cudaMemcpy(R.out.data(), R.dy, yb, cudaMemcpyDeviceToHost)); }, R.o.reps);
  const double memcpy1  = wall_median_ms([&] { memcpy(hy, R.in.data(), yb); }, R.o.reps);
  CUDA_OK(cudaFreeHost(hx));
  CUDA_OK(cudaFreeHost(hy));
  printf("kernel (events, auto): beta=0 %.4f ms, beta=1 %.4f ms; device entry (wall, synchronised): %.4f / %.4f ms\n", R.kernel_ms[0], R.kernel_ms[1], device_wall_ms[0], device_wall_ms[1]);
  printf("pinned cudaMemcpy: H2D x %.4f ms (%.1f GB/s), H2D y %.4f ms (%.1f GB/s), D2H y %.4f ms (%.1f GB/s)\n", h2d_x, xb / (h2d_x * 1e6), h2d_y, yb / (h2d_y * 1e6), d2h_y, yb / (d2h_y * 1e6));
  printf("pageable cudaMemcpy (wall): H2D x %.4f ms (%.1f GB/s), D2H y %.4f ms (%.1f GB/s); one-thread memcpy into pinned %.1f GB/s\n", page_h2d, xb / (page_h2d * 1e6), page_d2h, yb / (page_d2h * 1e6), yb / (memcpy1 * 1e6));
  R.bound[0] = R.kernel_ms[0] + h2d_x + d2h_y;
  R.bound[1] = R.kernel_ms[1] + h2d_x + h2d_y + d2h_y;
  printf("bound = kernel + pinned transfers: beta=0 %.4f ms, beta=1 %.4f ms\n", R.bound[0], R.bound[1]);
}

void bench_staging(const dataset &D, const options &o)
{
  staging_run R(D, o);
  printf("\n== staging, %s: %lld x %lld, bs %lld, %lld blocks; x %.2f MB, y %.2f MB ==\n", D.name.c_str(), (long long)R.ny, (long long)R.nx, (long long)D.bs, (long long)D.nblocks(), R.xb / 1e6, R.yb / 1e6);
  R.M = device_matrix(D);
  printf("auto choice: %s\n", bsrc_cuda_kernel_names[bsrc_cuda_auto_kernel(R.M)]);
  references(D, R.x, R.in, R.ref, R.scale);
  CUDA_OK(cudaMalloc(&R.dx, R.xb));
  CUDA_OK(cudaMalloc(&R.dy, R.yb));
  CUDA_OK(cudaMalloc(&R.din, R.yb));
  CUDA_OK(cudaMemcpy(R.dx, R.x.data(), R.xb, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(R.din, R.in.data(), R.yb, cudaMemcpyHostToDevice));
  CUDA_OK(cudaDeviceSynchronize());
  time_staging_bound(R);

  double      staged[2] = {NAN, NAN}, locked[2] = {NAN, NAN};
  const char *settings[] = {"serial", "default", "256", "512", "2048", "4096", "1024x1", "1024x2", "1024x4", "1024x16"};
  printf("%-10s %5s %10s %10s %10s %7s %12s  %s\n", "staging", "beta", "host ms", "min ms", "bound ms", "ratio", "xfer GB/s", "check");
  for (const char *set : settings) {
    if (strcmp(set, "default") == 0) unsetenv("BSRC_CUDA_STAGING");
    else setenv("BSRC_CUDA_STAGING", set, 1);
    for (int b = 0; b < 2; ++b) {
      const double ms = R.host_row(set, b);
      if (strcmp(set, "default") == 0) staged[b] = ms;
    }
  }
  unsetenv("BSRC_CUDA_STAGING");
  /* the same arrays page-locked, as the PETSc layer does with its vectors (-mat_bsrcustom_cuda_pin_vectors):
     one DMA each way, straight from/to them (the download overlaps the product: WARP_ROW, unsorted
     SLICED, the task kernels) */
  const bool reg = bsrc_cuda_host_register(R.x.data(), R.xb) == BSRC_CUDA_OK && bsrc_cuda_host_register(R.in.data(), R.yb) == BSRC_CUDA_OK && bsrc_cuda_host_register(R.out.data(), R.yb) == BSRC_CUDA_OK;
  if (!reg) printf("page-locking the host arrays failed: %s\n", bsrc_cuda_last_error(nullptr));
  else
    for (int b = 0; b < 2; ++b) locked[b] = R.host_row("locked", b);
  (void)bsrc_cuda_host_unregister(R.x.data());
  (void)bsrc_cuda_host_unregister(R.in.data());
  (void)bsrc_cuda_host_unregister(R.out.data());
  for (int b = 0; b < 2; ++b) add_target(D.name + ": host vectors (pageable, staged), beta=" + std::to_string(b) + ", time / (kernel + pinned transfers)", staged[b] / R.bound[b], 1.10, false, "x");
  for (int b = 0; b < 2; ++b) add_target(D.name + ": host vectors (page-locked), beta=" + std::to_string(b) + ", time / (kernel + pinned transfers)", locked[b] / R.bound[b], 1.10, false, "x");
  CUDA_OK(cudaFree(R.dx));
  CUDA_OK(cudaFree(R.dy));
  CUDA_OK(cudaFree(R.din));
  bsrc_cuda_destroy(R.M);
}

/* Median ms per call of call() (queued on stream s, returning false on an error) over o.reps spans
   between two events, after o.warmup calls; spans of enough calls for about kSpanMs where one call
   is shorter than kShortCallMs (as time_product). NaN on an error. */
template <class F>
double time_spans(cudaStream_t s, const options &o, F call)
{
  for (int i = 0; i < o.warmup; ++i)
    if (!call()) return NAN;
  CUDA_OK(cudaStreamSynchronize(s));
  int         calls = 1;
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  double result = NAN;
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<double> ms;
    bool                ok = true;
    for (int i = 0; i < o.reps && ok; ++i) {
      CUDA_OK(cudaEventRecord(e0, s));
      for (int c = 0; c < calls && ok; ++c) ok = call();
      CUDA_OK(cudaEventRecord(e1, s));
      CUDA_OK(cudaEventSynchronize(e1));
      float f = 0;
      CUDA_OK(cudaEventElapsedTime(&f, e0, e1));
      ms.push_back(f / calls);
    }
    if (!ok) break;
    result = median(ms);
    if (calls > 1 || result >= kShortCallMs) break;
    calls = (int)std::ceil(kSpanMs / std::max(result, 1e-4));
  }
  CUDA_OK(cudaEventDestroy(e0));
  CUDA_OK(cudaEventDestroy(e1));
  return result;
}

/* --spmm: products with k dense columns. Our block SpMM (bsrc_cuda_spmm_device_on: one pass over the
   matrix for all columns) against one product (auto) per column and cuSPARSE's ways: cusparseDbsrmm
   (legacy BSR, column-major blocks in place) and cusparseSpMM on the expanded CSR copy (ALG1-3),
   for k = 1, 4, 8, 32; X and Y column-major on the device with leading dimensions of their rows.
   Every product is checked against bsrk_reference_multadd on the first and last column first. */
void bench_spmm(const dataset &D, const options &o)
{
  const int64_t ncols = (int64_t)D.nbcols * D.bs, nrows = (int64_t)D.nbrows * D.bs;
  const int     ks[] = {1, 4, 8, 32};
  const int     kmax = 32;
  printf("\n== SpMM, %s: %lld x %lld, bs %lld, %lld blocks (%.1f blocks/row), values %.1f MB ==\n", D.name.c_str(), (long long)nrows, (long long)ncols, (long long)D.bs, (long long)D.nblocks(), (double)D.nblocks() / std::max<bsrk_idx>(D.nbrows, 1),
         D.values.size() * 8e-6);
  bsrc_cuda_matrix *M = device_matrix(D);
  cudaStream_t      s = (cudaStream_t)bsrc_cuda_stream(M);
  if (bench_baselines_create(M, &g_baselines) != BSRC_CUDA_OK) {
    fprintf(stderr, "baselines: %s\n", bsrc_cuda_last_error(M));
    exit(2);
  }
  std::vector<double> X((size_t)(ncols * kmax));
  rng64               rng{777};
  for (double &v : X) v = 2.0 * rng.uniform() - 1.0;
  double *dX, *dY;
  CUDA_OK(cudaMalloc(&dX, X.size() * sizeof(double)));
  CUDA_OK(cudaMalloc(&dY, (size_t)(nrows * kmax) * sizeof(double)));
  CUDA_OK(cudaMemcpy(dX, X.data(), X.size() * sizeof(double), cudaMemcpyHostToDevice));
  /* references of the columns checked: 0 and k - 1 of each k */
  const bsrk_matrix   A    = D.view();
  dataset             Dabs = D;
  std::vector<double> absX(X.size());
  for (double &v : Dabs.values) v = std::fabs(v);
  for (size_t i = 0; i < X.size(); ++i) absX[i] = std::fabs(X[i]);
  const bsrk_matrix                Aa = Dabs.view();
  std::vector<std::vector<double>> ref(kmax), scale(kmax);
  for (int j : {0, 3, 7, 31}) {
    ref[j].resize(nrows);
    scale[j].resize(nrows);
    bsrk_reference_multadd(&A, 1.0, X.data() + j * ncols, 0.0, nullptr, ref[j].data());
    bsrk_reference_multadd(&Aa, 1.0, absX.data() + j * ncols, 0.0, nullptr, scale[j].data());
  }
  const double matmult_ms = time_spans(s, o, [&] { return bsrc_cuda_multadd_device_async(M, BSRC_CUDA_KERNEL_AUTO, 1.0, dX, 0.0, nullptr, dY) == BSRC_CUDA_OK; });
  int          lanes = 0, tile = 0;
  (void)bsrc_cuda_spmm_launch_info(M, &lanes, &tile, nullptr, nullptr);
  printf("one product (auto: %s): %.4f ms; our SpMM: %d lanes a block row, tiles of %d columns\n", bsrc_cuda_kernel_names[bsrc_cuda_auto_kernel(M)], matmult_ms, lanes, tile);
  struct path {
    const char                          *label;
    std::function<bsrc_cuda_status(int)> run;
  };
  const std::vector<path> paths = {
    {"ours (block SpMM)", [&](int k) { return bsrc_cuda_spmm_device_on(M, BSRC_CUDA_KERNEL_AUTO, s, k, 1.0, dX, ncols, 0.0, dY, nrows); }},
    {"cusparse_bsrmm", [&](int k) { return bench_cusparse_bsrmm(g_baselines, k, 1.0, dX, ncols, 0.0, dY, nrows); }},
    {"cusparse_spmm_csr_alg1", [&](int k) { return bench_cusparse_spmm_csr(g_baselines, 1, k, 1.0, dX, ncols, 0.0, dY, nrows); }},
    {"cusparse_spmm_csr_alg2", [&](int k) { return bench_cusparse_spmm_csr(g_baselines, 2, k, 1.0, dX, ncols, 0.0, dY, nrows); }},
    {"cusparse_spmm_csr_alg3", [&](int k) { return bench_cusparse_spmm_csr(g_baselines, 3, k, 1.0, dX, ncols, 0.0, dY, nrows); }},
  };
  printf("%4s %-24s %10s %12s %12s %10s  %s\n", "k", "product", "ms", "ms/column", "/ MatMult", "vs ours", "check");
  for (int k : ks) {
    std::vector<double>      ms(paths.size(), NAN);
    std::vector<std::string> notes(paths.size());
    for (size_t p = 0; p < paths.size(); ++p) {
      /* check: Y poisoned, columns 0 and k - 1 against the reference */
      CUDA_OK(cudaMemset(dY, 0xff, (size_t)(nrows * k) * sizeof(double)));
      CUDA_OK(cudaDeviceSynchronize());
      if (paths[p].run(k) != BSRC_CUDA_OK) {
        notes[p] = std::string("FAILED: ") + bsrc_cuda_last_error(M);
        (void)cudaGetLastError();
        continue;
      }
      CUDA_OK(cudaStreamSynchronize(s));
      notes[p] = "ok";
      for (int j : {0, k - 1}) {
        std::vector<double> y(nrows);
        CUDA_OK(cudaMemcpy(y.data(), dY + (size_t)j * nrows, (size_t)nrows * sizeof(double), cudaMemcpyDeviceToHost));
        for (int64_t i = 0; i < nrows && notes[p] == "ok"; ++i)
          if (!(std::fabs(y[i] - ref[j][i]) <= 1e-13 * scale[j][i] + 1e-300)) {
            char buf[160];
            snprintf(buf, sizeof(buf), "WRONG: column %d entry %lld: %.17g vs %.17g", j, (long long)i, y[i], ref[j][i]);
            notes[p] = buf;
          }
      }
      if (notes[p] == "ok") ms[p] = time_spans(s, o, [&] { return paths[p].run(k) == BSRC_CUDA_OK; });
    }
    double best = NAN;
    for (size_t p = 1; p < paths.size(); ++p)
      if (!std::isnan(ms[p]) && (std::isnan(best) || ms[p] < best)) best = ms[p];
    for (size_t p = 0; p < paths.size(); ++p) printf("%4d %-24s %10.4f %12.4f %12.3f %10.2f  %s\n", k, paths[p].label, ms[p], ms[p] / k, ms[p] / k / matmult_ms, ms[p] / ms[0], notes[p].c_str());
    if (!std::isnan(ms[0])) {
      if (!std::isnan(best)) add_target(D.name + ": SpMM k=" + std::to_string(k) + ", ours vs cuSPARSE's best", best / ms[0], 1.10, true, "x");
      if (k == 8) add_target(D.name + ": SpMM k=8, time per column / one product", ms[0] / k / matmult_ms, 0.30, false, "x");
    } else add_target(D.name + ": SpMM k=" + std::to_string(k) + ", ours ran and was right", 0.0, 1.0, true, "");
    fflush(stdout);
  }
  CUDA_OK(cudaFree(dX));
  CUDA_OK(cudaFree(dY));
  bench_baselines_destroy(g_baselines);
  g_baselines = nullptr;
  bsrc_cuda_destroy(M);
}

struct target {
  std::string what;
  double      value, threshold;
  bool        pass;
  std::string unit;
};
std::vector<target> g_targets;

void add_target(const std::string &what, double value, double threshold, bool higher_is_better, const std::string &unit)
{
  const bool pass = higher_is_better ? value >= threshold : value <= threshold;
  g_targets.push_back(target{what, value, threshold, pass, unit});
  printf("TARGET %-78s %9.3f%s (%s %.3f%s) %s\n", what.c_str(), value, unit.c_str(), higher_is_better ? ">=" : "<=", threshold, unit.c_str(), pass ? "PASS" : "MISS");
}

const row *find_row(const std::vector<row> &rows, const std::string &dataset, const std::string &label)
{
  for (const row &r : rows)
    if (r.dataset == dataset && r.label == label && r.t.ok) return &r;
  return nullptr;
}

/* Fastest cuSPARSE path of a dataset (beta = 0). */
const row *best_cusparse(const std::vector<row> &rows, const std::string &dataset)
{
  const row *best = nullptr;
  for (const row &r : rows)
    if (r.dataset == dataset && r.beta == 0.0 && r.t.ok && r.label.rfind("cusparse_", 0) == 0 && r.label.find("(beta") == std::string::npos && (!best || r.t.median_ms < best->t.median_ms)) best = &r;
  return best;
}

void print_table(const std::vector<row> &rows, double copy_gbs, FILE *csv)
{
  if (csv) fprintf(csv, "dataset,product,beta,threads,grid,lanes,median_ms,min_ms,gbs,pct_copy,speedup_vs_bsrmv_row,speedup_vs_best_cusparse,note\n");
  printf("\n%-18s %-30s %5s %7s %10s %10s %8s %7s %8s %9s\n", "dataset", "product", "beta", "threads", "ms(med)", "ms(min)", "GB/s", "%copy", "vs-row", "vs-best-cs");
  for (const row &r : rows) {
    const row   *ref   = find_row(rows, r.dataset, "cusparse_bsrmv_row");
    const row   *best  = best_cusparse(rows, r.dataset);
    const double gbs   = r.t.ok ? r.bytes / (r.t.median_ms * 1e-3) / 1e9 : NAN;
    const double pct   = 100.0 * gbs / copy_gbs;
    const double vs    = r.t.ok && ref ? ref->t.median_ms / r.t.median_ms : NAN;
    const double vb    = r.t.ok && best ? best->t.median_ms / r.t.median_ms : NAN;
    const bool   sweep = r.label.rfind("sweep", 0) == 0;
    if (!sweep) printf("%-18s %-30s %5g %7d %10.4f %10.4f %8.1f %6.1f%% %8.2f %9.2f%s%s\n", r.dataset.c_str(), r.label.c_str(), r.beta, r.threads, r.t.median_ms, r.t.min_ms, gbs, pct, vs, vb, r.t.ok ? "" : "  ", r.t.ok ? "" : r.t.note.c_str());
    if (csv) fprintf(csv, "%s,%s,%g,%d,%d,%d,%.6f,%.6f,%.2f,%.2f,%.3f,%.3f,\"%s\"\n", r.dataset.c_str(), r.label.c_str(), r.beta, r.threads, r.grid, r.lanes, r.t.median_ms, r.t.min_ms, gbs, pct, vs, vb, r.t.note.c_str());
  }
  /* best sweep entry per dataset and kernel */
  printf("\nbest threads per kernel (sweep):\n");
  for (const row &r : rows) {
    if (r.label.rfind("sweep", 0) != 0 || !r.t.ok) continue;
    const std::string kernel = r.label.substr(0, r.label.find(" t="));
    bool              best   = true;
    for (const row &q : rows)
      if (q.dataset == r.dataset && q.t.ok && q.label.rfind(kernel + " t=", 0) == 0 && q.t.median_ms < r.t.median_ms) best = false;
    if (best && r.label.find(" t=") != std::string::npos) printf("  %-18s %-40s %9.4f ms %8.1f GB/s\n", r.dataset.c_str(), r.label.c_str(), r.t.median_ms, r.bytes / (r.t.median_ms * 1e-3) / 1e9);
  }
}

/* The thesis's Table 13 (P100: its four kernels in their best configuration against cusparseDbsrmv)
   measured again here: each kernel at its best threads per block from the sweep (the default
   launch where the sweep did not run). Efficiency is against the theoretical peak of the memory
   (2 x memory clock x bus width) and against the measured copy. */
void print_table13(const std::vector<row> &rows, double copy_gbs, double peak_gbs, const char *device)
{
  struct thesis_row {
    const char *kernel, *title;
    double      p100_s, p100_speedup, p100_gbs, p100_eff;
  };
  const thesis_row T[]  = {{"cusparse_bsrmv_row", "cuSPARSE (cusparseDbsrmv, row-major blocks)", 0.337, 1.00, 248.267, 33.9}, {"rowmajor_shared", "Row-Major Access Order", 0.558, 0.60, 149.939, 20.5}, {"thread_private", "Row-Major with Thread-Private Accumulation", 0.707, 0.48, 118.339, 16.2}, {"team_scalar", "Row-Major with Team-Based Accumulation", 0.178, 1.89, 470.033, 64.2}, {"vector_unrolled", "Vector Accumulation with Unrolled Loops", 0.155, 2.17, 539.780, 73.7}};
  const row       *base = find_row(rows, "thesis", "cusparse_bsrmv_row");
  if (!base) return;
  printf("\nTable 13 of the thesis, again on %s (thesis dataset; peak %.0f GB/s from memory clock x bus width, copy %.0f GB/s):\n", device, peak_gbs, copy_gbs);
  printf("%-46s | %9s %8s %8s %7s %7s | %8s %8s %8s %6s\n", "implementation", "ms", "speedup", "GB/s", "%peak", "%copy", "P100 s", "speedup", "GB/s", "%peak");
  for (const thesis_row &t : T) {
    const row *best = find_row(rows, "thesis", t.kernel);
    for (const row &q : rows)
      if (q.dataset == "thesis" && q.t.ok && q.label.rfind(std::string("sweep ") + t.kernel + " t=", 0) == 0 && (!best || q.t.median_ms < best->t.median_ms)) best = &q;
    if (!best) continue;
    const double gbs = best->bytes / (best->t.median_ms * 1e-3) / 1e9;
    printf("%-46s | %9.4f %8.2f %8.1f %6.1f%% %6.1f%% | %8.3f %8.2f %8.1f %5.1f%%\n", t.title, best->t.median_ms, base->t.median_ms / best->t.median_ms, gbs, 100.0 * gbs / peak_gbs, 100.0 * gbs / copy_gbs, t.p100_s, t.p100_speedup, t.p100_gbs, t.p100_eff);
  }
}

/* The issue's GPU targets, from the measured rows. */
void check_targets(const std::vector<row> &rows, const std::vector<dataset_info> &infos, double copy_gbs)
{
  auto auto_row = [&](const std::string &d) { return find_row(rows, d, "auto"); };
  for (const dataset_info &in : infos) {
    const row *a = auto_row(in.name), *b = best_cusparse(rows, in.name);
    if (!a) continue;
    const double pct = 100.0 * a->bytes / (a->t.median_ms * 1e-3) / 1e9 / copy_gbs;
    if (in.value_bytes >= 256e6 && in.bs >= 2 && in.bs <= 8) add_target(in.name + ": auto, % of copy bandwidth (>= 256 MB, bs 2-8)", pct, 95.0, true, "%");
    if (in.name == "thesis") add_target("thesis: auto, % of copy bandwidth", pct, 90.0, true, "%");
    if (in.value_bytes >= 256e6 && in.copy_same_gbs > 0)
      printf("REFERENCE %s: auto at %.1f %% of a copy and %.1f %% of a read of the same bytes (those: %.1f and %.1f %% of the 1 GiB copy)\n", in.name.c_str(), 100.0 * a->bytes / (a->t.median_ms * 1e-3) / 1e9 / in.copy_same_gbs,
             100.0 * a->bytes / (a->t.median_ms * 1e-3) / 1e9 / in.read_same_gbs, 100.0 * in.copy_same_gbs / copy_gbs, 100.0 * in.read_same_gbs / copy_gbs);
    if (b && !std::isnan(in.vs_best_paired)) add_target(in.name + ": auto vs best cuSPARSE (" + in.best_cusparse + "), alternating spans", in.vs_best_paired, 1.05, true, "x");
    else if (b) add_target(in.name + ": auto vs best cuSPARSE (" + b->label + ")", b->t.median_ms / a->t.median_ms, 1.05, true, "x");
    if (in.name == "thesis") {
      const row *r = find_row(rows, "thesis", "cusparse_bsrmv_row");
      if (r) add_target("thesis: auto vs cusparseDbsrmv with row-major blocks", r->t.median_ms / a->t.median_ms, 2.2, true, "x");
    }
    if (in.name.rfind("powerlaw_", 0) == 0) {
      const std::string twin = "regular_" + in.name.substr(9);
      const row        *t    = auto_row(twin);
      if (t) add_target(in.name + ": auto time / its regular twin's (same rows and blocks)", a->t.median_ms / t->t.median_ms, 1.15, false, "x");
    }
  }
}

void json_string(FILE *f, const std::string &v)
{
  fputc('"', f);
  for (char c : v) {
    if (c == '"' || c == '\\') fputc('\\', f);
    if ((unsigned char)c >= 0x20) fputc(c, f);
  }
  fputc('"', f);
}

void write_json(const std::string &path, const char *device, double copy_gbs, double peak_gbs, const std::vector<row> &rows, const std::vector<dataset_info> &infos, const options &o)
{
  FILE *f = fopen(path.c_str(), "w");
  if (!f) {
    fprintf(stderr, "cannot write %s\n", path.c_str());
    return;
  }
  time_t now = time(nullptr);
  char   date[64];
  strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
  fprintf(f, "{\n  \"program\": \"bench_cuda\", \"date\": \"%s\", \"device\": ", date);
  json_string(f, device);
  fprintf(f, ",\n  \"copy_gbs\": %.2f, \"peak_gbs\": %.2f, \"reps\": %d, \"warmup\": %d,\n  \"bytes_counted\": \"values + block column indices + row pointers + x + y (+ y read when beta != 0)\",\n  \"matrices\": [", std::isnan(copy_gbs) ? 0.0 : copy_gbs, peak_gbs, o.reps, o.warmup);
  for (size_t i = 0; i < infos.size(); ++i) {
    const dataset_info &in = infos[i];
    fprintf(f, "%s\n    {\"name\": \"%s\", \"rows\": %lld, \"bs\": %d, \"blocks\": %lld, \"value_bytes\": %.0f, \"bytes\": %.0f, \"mean_row_blocks\": %.3f, \"max_row_blocks\": %.0f, \"auto_kernel\": \"%s\", \"copy_same_bytes_gbs\": %.2f, \"read_same_bytes_gbs\": %.2f, \"best_cusparse\": \"%s\", \"vs_best_cusparse_alternating\": %s}", i ? "," : "",
            in.name.c_str(), (long long)in.rows, in.bs, (long long)in.nblocks, in.value_bytes, in.bytes, in.mean_row, in.max_row, in.auto_kernel.c_str(), in.copy_same_gbs, in.read_same_gbs, in.best_cusparse.c_str(),
            std::isnan(in.vs_best_paired) ? "null" : std::to_string(in.vs_best_paired).c_str());
  }
  fprintf(f, "\n  ],\n  \"products\": [");
  bool first = true;
  for (const row &r : rows) {
    const row   *ref = find_row(rows, r.dataset, "cusparse_bsrmv_row"), *best = best_cusparse(rows, r.dataset);
    const double gbs = r.t.ok ? r.bytes / (r.t.median_ms * 1e-3) / 1e9 : 0.0;
    fprintf(f, "%s\n    {\"matrix\": \"%s\", \"product\": ", first ? "" : ",", r.dataset.c_str());
    json_string(f, r.label);
    fprintf(f, ", \"beta\": %g, \"threads\": %d, \"grid\": %d, \"ok\": %s, \"median_ms\": %.6f, \"min_ms\": %.6f, \"calls_per_span\": %d, \"bytes\": %.0f, \"gbs\": %.2f, \"pct_copy\": %.2f, \"vs_bsrmv_row\": %.4f, \"vs_best_cusparse\": %.4f, \"note\": ", r.beta, r.threads, r.grid, r.t.ok ? "true" : "false",
            r.t.ok ? r.t.median_ms : 0.0, r.t.ok ? r.t.min_ms : 0.0, r.t.calls, r.bytes, gbs, 100.0 * gbs / copy_gbs, r.t.ok && ref ? ref->t.median_ms / r.t.median_ms : 0.0, r.t.ok && best ? best->t.median_ms / r.t.median_ms : 0.0);
    json_string(f, r.t.note);
    fputc('}', f);
    first = false;
  }
  fprintf(f, "\n  ],\n  \"targets\": [");
  for (size_t i = 0; i < g_targets.size(); ++i) {
    fprintf(f, "%s\n    {\"what\": ", i ? "," : "");
    json_string(f, g_targets[i].what);
    fprintf(f, ", \"value\": %.4f, \"threshold\": %.4f, \"unit\": \"%s\", \"pass\": %s}", g_targets[i].value, g_targets[i].threshold, g_targets[i].unit.c_str(), g_targets[i].pass ? "true" : "false");
  }
  fprintf(f, "\n  ]\n}\n");
  fclose(f);
  printf("JSON written to %s\n", path.c_str());
}

/* Reads the command line into o; false (after the usage or the complaint) where it is wrong. */
bool parse_options(int argc, char **argv, options &o)
{
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) o.reps = std::max(1, atoi(argv[++i]));
    else if (a == "--only" && i + 1 < argc) o.only = argv[++i];
    else if (a == "--warmup" && i + 1 < argc) o.warmup = std::max(0, atoi(argv[++i]));
    else if (a == "--quick") o.quick = true;
    else if (a == "--scale" && i + 1 < argc) {
      o.scale = atof(argv[++i]);
      if (!(o.scale > 0.0 && o.scale <= 64.0)) {
        fprintf(stderr, "--scale wants a factor in (0, 64], got %s\n", argv[i]);
        return false;
      }
    } else if (a == "--no-sweep") o.sweep = false;
    else if (a == "--pair-calls" && i + 1 < argc) o.pair_calls = std::max(1, atoi(argv[++i]));
    else if (a == "--sweep-all") o.sweep_all = true;
    else if (a == "--csv" && i + 1 < argc) o.csv = argv[++i];
    else if (a == "--json" && i + 1 < argc) o.json = argv[++i];
    else if (a == "--jacobian" && i + 1 < argc) o.jacobian = argv[++i];
    else if (a == "--staging") o.staging = true;
    else if (a == "--spmm") o.spmm = true;
    else if (a == "--describe") o.describe = true;
    else {
      fprintf(stderr, "usage: %s [--reps N] [--warmup N] [--only LIST] [--quick] [--scale F] [--no-sweep] [--sweep-all] [--pair-calls N] [--csv FILE] [--json FILE] [--jacobian FILE[:bs]] [--staging] [--spmm] [--describe]\n", argv[0]);
      return false;
    }
  }
  return true;
}

/* Device 0's line (name, SMs, L2, memory and its peak bandwidth from the clock and bus width);
   peak_gbs is that peak. */
void print_device(const options &o, cudaDeviceProp &prop, double &peak_gbs)
{
  int mem_clock_khz = 0, bus_width = 0;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  (void)cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
  (void)cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, 0);
  peak_gbs = 2.0 * mem_clock_khz * 1e3 * (bus_width / 8.0) / 1e9;
  printf("device: %s, %d SMs, L2 %.0f MB, %.1f GB, memory peak %.0f GB/s (%d MHz x %d bit x 2); bsrk_idx %zu bytes; %d reps (median), %d warm-up\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6, prop.totalGlobalMem / 1e9, peak_gbs, mem_clock_khz / 1000, bus_width, sizeof(bsrk_idx), o.reps, o.warmup);
}

/* A matrix of the run: its name (--only), how it is made, whether the settings sweep runs on it. */
struct spec {
  std::string                  name;
  std::function<dataset(void)> make;
  bool                         sweep;
};

/* The --jacobian matrix: FILE[:bs] (bs 4 where none is given). */
spec jacobian_spec(const std::string &arg)
{
  std::string  path  = arg;
  int          bs    = 4;
  const size_t colon = path.rfind(':');
  if (colon != std::string::npos && colon + 1 < path.size() && isdigit((unsigned char)path[colon + 1])) {
    bs   = atoi(path.c_str() + colon + 1);
    path = path.substr(0, colon);
  }
  return {"jacobian",
          [=] {
            dataset     D;
            std::string why;
            if (!petsc_binary_dataset(path, bs, D, why)) {
              fprintf(stderr, "jacobian: %s\n", why.c_str());
              exit(2);
            }
            D.name = "jacobian";
            return D;
          },
          false};
}

/* The matrices, in order; each is generated only when selected, and freed before the next. */
std::vector<spec> make_specs(const options &o)
{
  const double      big = (o.quick ? 16e6 : 256e6) * o.scale, plaw = (o.quick ? 20e6 : 330e6) * o.scale;
  std::vector<spec> specs = {
    {"thesis", [] { return thesis_dataset("thesis", 32000, 0.05); }, true},
    {"thesis8x", [&o] { return thesis_dataset("thesis8x", o.quick ? 45255 : 90510, 0.05); }, false},
  };
  for (int bs : {2, 3, 4, 5, 8}) {
    const std::string name = "stencil27_bs" + std::to_string(bs);
    specs.push_back({name, [=] { return stencil_dataset(name, stencil_n_for(big, bs, 27), bs, 27); }, bs == 3});
  }
  specs.push_back({"stencil7_bs3", [=] { return stencil_dataset("stencil7_bs3", stencil_n_for(big, 3, 7), 3, 7); }, false});
  for (int bs : {1, 2, 4}) {
    const std::string pname = "powerlaw_bs" + std::to_string(bs), rname = "regular_bs" + std::to_string(bs);
    const bsrk_idx    nbrows = (bsrk_idx)(plaw / (8.0 * bs * bs) / 16.0);
    specs.push_back({pname, [=] { return powerlaw_dataset(pname, nbrows, bs, 16.0, 0); }, false});
    specs.push_back({rname,
                     [=] {
                       const dataset P = powerlaw_dataset(pname, nbrows, bs, 16.0, 0); /* same draw: its block count */
                       return powerlaw_dataset(rname, nbrows, bs, 16.0, P.nblocks());
                     },
                     false});
  }
  specs.push_back({"small_thesis", [] { return thesis_dataset("small_thesis", 4000, 0.05); }, false});
  specs.push_back({"small_stencil27", [] { return stencil_dataset("small_stencil27", 16, 3, 27); }, false});
  specs.push_back({"small_stencil27_1mb", [] { return stencil_dataset("small_stencil27_1mb", 9, 3, 27); }, false});
  if (!o.jacobian.empty()) specs.push_back(jacobian_spec(o.jacobian));
  return specs;
}

/* --describe: the selected matrices' shapes and a checksum of one product (no GPU needed). */
void describe_specs(const std::vector<spec> &specs, const options &o)
{
  printf("%-20s %10s %3s %11s %10s %9s %9s\n", "matrix", "rows", "bs", "blocks", "values MB", "mean row", "max row");
  for (const spec &sp : specs) {
    if (!o.wants(sp.name)) continue;
    const dataset D  = sp.make();
    bsrk_idx      mx = 0;
    for (bsrk_idx i = 0; i < D.nbrows; ++i) mx = std::max(mx, D.rowptr[i + 1] - D.rowptr[i]);
    double              sum = 0.0; /* a checksum of one product, to compare readers across machines */
    std::vector<double> x((size_t)D.nbcols * D.bs, 1.0), y((size_t)D.nbrows * D.bs);
    const bsrk_matrix   A = D.view();
    bsrk_reference_multadd(&A, 1.0, x.data(), 0.0, nullptr, y.data());
    for (double v : y) sum += v;
    printf("%-20s %10lld %3lld %11lld %10.1f %9.2f %9lld   sum(A*1) %.6e\n", D.name.c_str(), (long long)D.nbrows * D.bs, (long long)D.bs, (long long)D.nblocks(), D.values.size() * 8e-6, (double)D.nblocks() / std::max<bsrk_idx>(1, D.nbrows), (long long)mx, sum);
    fflush(stdout);
  }
}

/* --spmm and --staging run on thesis and stencil27_bs3 unless --only names others. */
bool spmm_or_staging_wants(const options &o, const std::string &name)
{
  return (o.only.empty() && (name == "thesis" || name == "stencil27_bs3")) || (!o.only.empty() && o.wants(name));
}

/* The main run: every selected matrix, the tables, the targets; 1 where a product failed its check. */
int bench_products(const std::vector<spec> &specs, const options &o, const cudaDeviceProp &prop, double peak_gbs)
{
  const double copy_gbs = copy_bandwidth_gbs((size_t)1 << 30, o);
  printf("device-to-device cudaMemcpy of 1 GiB: %.1f GB/s (read + write)\n", copy_gbs);
  printf("read-only kernel over 1 GiB: %.1f GB/s\n", read_bandwidth_gbs((size_t)1 << 30, o));

  std::vector<row>          rows;
  std::vector<dataset_info> infos;
  for (const spec &sp : specs)
    if (o.wants(sp.name)) bench_dataset(sp.make(), o, rows, infos, (sp.sweep || o.sweep_all) && o.sweep);

  FILE *csv = o.csv.empty() ? nullptr : fopen(o.csv.c_str(), "w");
  print_table(rows, copy_gbs, csv);
  if (csv) fclose(csv);
  print_table13(rows, copy_gbs, peak_gbs, prop.name);
  printf("\n");
  check_targets(rows, infos, copy_gbs);
  if (!o.json.empty()) write_json(o.json, prop.name, copy_gbs, peak_gbs, rows, infos, o);
  bool wrong = false;
  for (const row &r : rows) wrong = wrong || !r.t.ok;
  printf("%s\n", wrong ? "SOME PRODUCTS FAILED (see notes)" : "all products checked against the reference");
  return wrong ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
  options o;
  if (!parse_options(argc, argv, o)) return 2;
  cudaDeviceProp prop;
  double         peak_gbs = 0.0;
  if (!o.describe) {
    if (bsrc_cuda_device_count() == 0) {
      printf("SKIPPED: no CUDA device\n");
      return 77;
    }
    print_device(o, prop, peak_gbs);
  }
  const std::vector<spec> specs = make_specs(o);
  if (o.describe) {
    describe_specs(specs, o);
    return 0;
  }
  if (o.spmm) {
    for (const spec &sp : specs)
      if (spmm_or_staging_wants(o, sp.name)) bench_spmm(sp.make(), o);
    if (!o.json.empty()) write_json(o.json, prop.name, NAN, peak_gbs, {}, {}, o);
    bool miss = false;
    for (const target &t : g_targets) miss = miss || (t.what.find("ran and was right") != std::string::npos && !t.pass);
    return miss ? 1 : 0;
  }
  if (o.staging) {
    for (const spec &sp : specs)
      if (spmm_or_staging_wants(o, sp.name)) bench_staging(sp.make(), o);
    if (!o.json.empty()) write_json(o.json, prop.name, NAN, peak_gbs, {}, {}, o);
    return 0;
  }
  return bench_products(specs, o, prop, peak_gbs);
}
