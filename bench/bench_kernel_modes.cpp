// bench_kernel_modes: PETSc-free timing of bsrk_tasks_multadd, CARRY vs ATOMIC shared rows,
// for 1..omp_get_max_threads() threads, several tasks-per-thread counts, 1, 2 and 4 streams
// (tasks a thread walks at once) and prefetch distances, plus the sequential reference. Every
// configuration is checked against the reference first.
//
//   usage: bench_kernel_modes [grid_n=64] [reps=5] [datasets=band,stencil] [streams=1,2,4]
//                             [threads=all|N,M,..] [chunks=1,2,8,32,128] [prefetch=0,8192 (bytes)]
//
// Datasets
//   band    : the thesis matrix, 32000 x 32000 with 5x5 dense blocks and 5% nonzeros as a
//             "stochastic block band": every block row holds 320 (= 6400*0.05) blocks in a
//             contiguous band around the diagonal (shifted inwards at the edges), positive
//             values, every scalar row sums to 1.
//   stencil : 3D 27-point stencil on a grid_n^3 grid of block rows, 3x3 blocks.
// Timing: out = A*x (alpha = 1, beta = 0), median of `reps` runs after one warm-up run,
// omp_get_wtime. GB/s counts the bytes of one product once each: values (nblocks*bs*bs*8)
// + colidx (nblocks*sizeof(bsrk_idx)) + rowptr ((nbrows+1)*sizeof(bsrk_idx)) + x read
// (nbcols*bs*8) + y written (nbrows*bs*8); the y write-allocate traffic is not counted.
#include "bsrkernels.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Matrix {
  std::string           name;
  bsrk_idx              nbrows = 0, nbcols = 0, bs = 1;
  std::vector<bsrk_idx> rowptr, colidx;
  double               *values      = nullptr; // malloc'ed: no zero-fill, first touch in parallel
  size_t                nvalues     = 0;
  Matrix()                          = default;
  Matrix(const Matrix &)            = delete;
  Matrix &operator=(const Matrix &) = delete;
  ~Matrix() { std::free(values); }
  bsrk_matrix view() const { return bsrk_matrix{nbrows, nbcols, bs, rowptr.data(), colidx.data(), values}; }
  int64_t     nblocks() const { return rowptr.back(); }
  double      bytes() const { return (double)nblocks() * bs * bs * 8 + (double)nblocks() * sizeof(bsrk_idx) + (double)(nbrows + 1) * sizeof(bsrk_idx) + (double)nbcols * bs * 8 + (double)nbrows * bs * 8; }
};

// splitmix64: a tiny, fast, seedable generator (one stream per block row)
inline uint64_t mix(uint64_t &s)
{
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
inline double unit(uint64_t &s)
{
  return ((double)(mix(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
} // (0,1)

void alloc_values(Matrix &A)
{
  A.nvalues = (size_t)A.nblocks() * A.bs * A.bs;
  A.values  = static_cast<double *>(std::malloc(std::max<size_t>(1, A.nvalues) * sizeof(double)));
  if (!A.values) {
    std::fprintf(stderr, "out of memory (%zu values)\n", A.nvalues);
    std::exit(1);
  }
}

// Thesis dataset: stochastic block band.
void build_band(Matrix &A)
{
  const bsrk_idx n = 32000, bs = 5, nb = n / bs, per_row = (bsrk_idx)(nb * 0.05 + 0.5); // 320
  A.name   = "band";
  A.nbrows = nb;
  A.nbcols = nb;
  A.bs     = bs;
  A.rowptr.resize(nb + 1);
  for (bsrk_idx i = 0; i <= nb; ++i) A.rowptr[i] = i * per_row;
  A.colidx.resize((size_t)nb * per_row);
  alloc_values(A);
#pragma omp parallel for schedule(static)
  for (bsrk_idx i = 0; i < nb; ++i) {
    const bsrk_idx start = std::min<bsrk_idx>(std::max<bsrk_idx>(i - per_row / 2, 0), nb - per_row);
    for (bsrk_idx j = 0; j < per_row; ++j) A.colidx[(size_t)i * per_row + j] = start + j;
    uint64_t s      = 0x5EEDull ^ ((uint64_t)i * 0x100000001B3ull);
    double  *v      = A.values + (size_t)i * per_row * bs * bs;
    double   sum[5] = {0, 0, 0, 0, 0};
    for (size_t e = 0; e < (size_t)per_row * bs * bs; ++e) {
      v[e] = unit(s);
      sum[e % bs] += v[e]; // column-major blocks: scalar row r = e % bs
    }
    for (size_t e = 0; e < (size_t)per_row * bs * bs; ++e) v[e] /= sum[e % bs];
  }
}

// 27-point stencil on g^3 block rows, bs = 3, neighbours clipped at the grid boundary.
void build_stencil(Matrix &A, bsrk_idx g)
{
  const bsrk_idx bs = 3, nb = g * g * g;
  A.name   = "stencil27";
  A.nbrows = nb;
  A.nbcols = nb;
  A.bs     = bs;
  A.rowptr.assign(nb + 1, 0);
  auto count = [g](bsrk_idx c) { return (bsrk_idx)((c > 0) + 1 + (c < g - 1)); };
  for (bsrk_idx i = 0; i < nb; ++i) {
    const bsrk_idx x = i % g, y = (i / g) % g, z = i / (g * g);
    A.rowptr[i + 1] = A.rowptr[i] + count(x) * count(y) * count(z);
  }
  A.colidx.resize(A.nblocks());
  alloc_values(A);
#pragma omp parallel for schedule(static)
  for (bsrk_idx i = 0; i < nb; ++i) {
    const bsrk_idx x = i % g, y = (i / g) % g, z = i / (g * g);
    bsrk_idx       k = A.rowptr[i];
    uint64_t       s = 0xC0FFEEull ^ ((uint64_t)i * 0x100000001B3ull);
    for (bsrk_idx dz = -1; dz <= 1; ++dz)
      for (bsrk_idx dy = -1; dy <= 1; ++dy)
        for (bsrk_idx dx = -1; dx <= 1; ++dx) {
          const bsrk_idx xx = x + dx, yy = y + dy, zz = z + dz;
          if (xx < 0 || yy < 0 || zz < 0 || xx >= g || yy >= g || zz >= g) continue;
          const bool diag = dx == 0 && dy == 0 && dz == 0;
          A.colidx[k]     = (zz * g + yy) * g + xx;
          double *v       = A.values + (size_t)k * bs * bs;
          for (bsrk_idx e = 0; e < bs * bs; ++e) v[e] = diag ? (e % (bs + 1) == 0 ? 27.0 : 0.1 * unit(s)) : -unit(s) * 0.5;
          ++k;
        }
  }
}

double median(std::vector<double> t)
{
  std::sort(t.begin(), t.end());
  const size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

double rel_err(const std::vector<double> &a, const std::vector<double> &ref)
{
  double d = 0.0, r = 0.0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double e = std::fabs(a[i] - ref[i]);
    if (!(e == e)) return INFINITY;
    d = std::max(d, e);
    r = std::max(r, std::fabs(ref[i]));
  }
  return r > 0 ? d / r : d;
}

template <class F>
double time_median(int reps, F &&f)
{
  f(); // warm-up
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const double t0 = omp_get_wtime();
    f();
    t.push_back(omp_get_wtime() - t0);
  }
  return median(t);
}

std::vector<int> int_list(const char *text)
{
  std::vector<int> v;
  for (const char *p = text; *p;) {
    v.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return v;
}

bool bench(const Matrix &A, int reps, const std::vector<int> &streams, const std::vector<int> &threads, const std::vector<int> &chunks, const std::vector<int> &prefetch)
{
  const bsrk_matrix   M = A.view();
  std::vector<double> x((size_t)A.nbcols * A.bs), ref((size_t)A.nbrows * A.bs), out(ref.size());
  uint64_t            s = 42;
  for (auto &e : x) e = unit(s);
  const double gb = A.bytes() / 1e9;

  std::printf("\n%s: %lld x %lld, bs=%lld, %lld blocks (%.1f per block row), %.1f MB per product\n", A.name.c_str(), (long long)A.nbrows * A.bs, (long long)A.nbcols * A.bs, (long long)A.bs, (long long)A.nblocks(), (double)A.nblocks() / A.nbrows, A.bytes() / 1e6);
  std::printf("%-10s %-7s %7s %6s %7s %8s %8s %10s %8s %9s\n", "dataset", "mode", "threads", "chunks", "streams", "prefetch", "ntasks", "ms(med)", "GB/s", "relerr");

  bsrk_reference_multadd(&M, 1.0, x.data(), 0.0, nullptr, ref.data());
  const double tref = time_median(reps, [&] { bsrk_reference_multadd(&M, 1.0, x.data(), 0.0, nullptr, out.data()); });
  std::printf("%-10s %-7s %7d %6s %7s %8s %8s %10.3f %8.2f %9s\n", A.name.c_str(), "ref", 1, "-", "-", "-", "-", tref * 1e3, gb / tref, "-");

  bool        ok      = true;
  const char *mname[] = {"CARRY", "ATOMIC"};
  for (int nt : threads)
    for (int ch : chunks) {
      bsrk_partition p{0, nullptr, nullptr, nullptr};
      if (bsrk_partition_build(A.nbrows, A.rowptr.data(), (bsrk_idx)nt * ch, &p) != BSRK_OK) {
        std::fprintf(stderr, "partition failed\n");
        return false;
      }
      std::vector<double> ws(bsrk_tasks_workspace_bytes(&p, A.bs) / sizeof(double) + 1);
      for (int m = 0; m < 2 * (int)(streams.size() * prefetch.size()); ++m) {
        const bsrk_shared_rows mode = m % 2 == 0 ? BSRK_SHARED_ROWS_CARRY : BSRK_SHARED_ROWS_ATOMIC;
        const int              st   = streams[m / 2 / prefetch.size()];
        const int              pf   = prefetch[m / 2 % prefetch.size()];
        auto                   run  = [&] { return bsrk_tasks_multadd(&M, &p, nt, st, pf, mode, 1.0, x.data(), 0.0, nullptr, out.data(), ws.data()); };
        std::fill(out.begin(), out.end(), NAN);
        if (run() != BSRK_OK) {
          std::fprintf(stderr, "bsrk_tasks_multadd failed\n");
          return false;
        }
        const double err = rel_err(out, ref);
        const bool   bad = !(err <= 1e-13);
        ok               = ok && !bad;
        const double t   = bad ? NAN : time_median(reps, run);
        std::printf("%-10s %-7s %7d %6d %7d %8d %8lld %10.3f %8.2f %9.1e%s\n", A.name.c_str(), mname[m % 2], nt, ch, st, pf, (long long)p.ntasks, t * 1e3, gb / t, err, bad ? "  MISMATCH" : "");
      }
      bsrk_partition_free(&p);
    }
  std::fflush(stdout);
  return ok;
}

} // namespace

int main(int argc, char **argv)
{
  const bsrk_idx         g       = argc > 1 ? (bsrk_idx)std::atol(argv[1]) : 64;
  const int              reps    = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::string      which   = argc > 3 ? argv[3] : "band,stencil";
  const std::vector<int> streams = int_list(argc > 4 ? argv[4] : "1,2,4"), chunks = int_list(argc > 6 ? argv[6] : "1,2,8,32,128"), prefetch = int_list(argc > 7 ? argv[7] : "0,8192");
  std::vector<int>       threads;
  if (argc > 5 && std::strcmp(argv[5], "all") != 0) threads = int_list(argv[5]);
  else
    for (int t = 1; t <= omp_get_max_threads(); ++t) threads.push_back(t);
  const auto positive = [](const std::vector<int> &v) { return !v.empty() && std::all_of(v.begin(), v.end(), [](int e) { return e >= 1; }); };
  const bool pf_ok    = !prefetch.empty() && std::all_of(prefetch.begin(), prefetch.end(), [](int e) { return e >= 0 && e <= BSRK_MAX_PREFETCH_BYTES; });
  if (g < 1 || reps < 1 || !positive(streams) || !positive(threads) || !positive(chunks) || !pf_ok) {
    std::fprintf(stderr, "usage: %s [grid_n=64] [reps=5] [datasets=band,stencil] [streams=1,2,4] [threads=all|N,M,..] [chunks=1,2,8,32,128] [prefetch=0,8192 (bytes, 0..%d)]\n", argv[0], BSRK_MAX_PREFETCH_BYTES);
    return 2;
  }
  std::printf("bench_kernel_modes: out = A*x (alpha=1, beta=0); median of %d runs after 1 warm-up; %d OpenMP threads max; index %zu bytes\n", reps, omp_get_max_threads(), sizeof(bsrk_idx));
  std::printf("bytes/product = values + colidx + rowptr + x (read once) + y (written once)\n");
  bool ok = true;
  if (which.find("band") != std::string::npos) {
    Matrix       A;
    const double t0 = omp_get_wtime();
    build_band(A);
    std::printf("(built band in %.2f s)\n", omp_get_wtime() - t0);
    ok = bench(A, reps, streams, threads, chunks, prefetch) && ok;
  }
  if (which.find("stencil") != std::string::npos) {
    Matrix       A;
    const double t0 = omp_get_wtime();
    build_stencil(A, g);
    std::printf("(built stencil in %.2f s)\n", omp_get_wtime() - t0);
    ok = bench(A, reps, streams, threads, chunks, prefetch) && ok;
  }
  if (!ok) std::printf("\nRESULT MISMATCH against the reference\n");
  return ok ? 0 : 1;
}
