/*
   A team of threads that wait without spinning, for task products on busy cores (see
   bsrk_passive_run in bsrk_passive_team.h).

   libgomp's team suits an idle machine: its idle threads spin, so a product starts and ends within
   microseconds. On cores kept busy by other work that spinning is what hurts (bsrk_team.cpp says
   how much). This team's helper threads sleep on a condition variable between products and are
   woken for each; the calling thread takes items itself from the first moment, so a helper that the
   operating system has not scheduled yet only finds less to do, and the caller waits at the end for
   items that helpers have taken, never for helpers that took none. Items are claimed with a
   compare-and-swap on (product number, next item), so a helper that wakes late, after its product
   is over, can claim nothing of a later one with the earlier product's work function.
*/
#include "bsrk_passive_team.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace {

struct PassiveTeam {
  std::mutex               m;
  std::condition_variable  work, finished;
  std::vector<std::thread> helpers;
  /* the product under way, written under m before its number is published */
  uint32_t number                   = 0;
  void (*fn)(const void *, int64_t) = nullptr;
  const void           *ctx         = nullptr;
  int64_t               nitems      = 0;
  std::atomic<uint64_t> claim{0}; /* (product number << 32) | next item */
  std::atomic<int64_t>  done{0};  /* items of the current product finished */
  bool                  quit = false;

  ~PassiveTeam()
  {
    {
      std::lock_guard<std::mutex> lk(m);
      quit = true;
    }
    work.notify_all();
    for (auto &h : helpers) h.join();
  }

  /* claims the next item of product `num`; false when it has none left or is over */
  bool take(uint32_t num, int64_t n, int64_t *item)
  {
    uint64_t w = claim.load(std::memory_order_acquire);
    for (;;) {
      if ((uint32_t)(w >> 32) != num || (int64_t)(w & 0xffffffffu) >= n) return false;
      if (claim.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel)) {
        *item = (int64_t)(w & 0xffffffffu);
        return true;
      }
    }
  }

  void finish_one(int64_t n)
  {
    if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == n) {
      std::lock_guard<std::mutex> lk(m); /* the caller may be about to sleep on `finished` */
      finished.notify_one();
    }
  }

  void helper()
  {
    uint32_t seen = 0;
    for (;;) {
      uint32_t num;
      int64_t  n;
      void (*f)(const void *, int64_t);
      const void *c;
      {
        std::unique_lock<std::mutex> lk(m);
        work.wait(lk, [&] { return quit || number != seen; });
        if (quit) return;
        seen = num = number;
        f          = fn;
        c          = ctx;
        n          = nitems;
      }
      int64_t item;
      while (take(num, n, &item)) {
        f(c, item);
        finish_one(n);
      }
    }
  }

  void run(int nthreads, int64_t n, void (*f)(const void *, int64_t), const void *c, void (*between)(void *), void *bctx)
  {
    while ((int)helpers.size() < nthreads - 1) helpers.emplace_back([this] { helper(); });
    uint32_t num;
    {
      std::lock_guard<std::mutex> lk(m);
      num    = ++number;
      fn     = f;
      ctx    = c;
      nitems = n;
      done.store(0, std::memory_order_relaxed);
      claim.store((uint64_t)num << 32, std::memory_order_release);
    }
    work.notify_all();
    int64_t item;
    while (take(num, n, &item)) {
      f(c, item);
      finish_one(n);
      if (between) between(bctx);
    }
    if (done.load(std::memory_order_acquire) < n) {
      std::unique_lock<std::mutex> lk(m);
      finished.wait(lk, [&] { return done.load(std::memory_order_acquire) >= n; });
    }
  }
};

} // namespace

void bsrk_passive_run_between(int nthreads, int64_t nitems, void (*fn)(const void *, int64_t), const void *ctx, void (*between)(void *), void *between_ctx)
{
  /* one team per calling thread: products of several calling threads do not share helpers */
  static thread_local PassiveTeam team;
  if (nthreads <= 1 || nitems <= 1 || nitems >= (int64_t)0xffffffffu) { /* items are numbered in 32 bits */
    for (int64_t i = 0; i < nitems; ++i) {
      fn(ctx, i);
      if (between) between(between_ctx);
    }
    return;
  }
  team.run(nthreads, nitems, fn, ctx, between, between_ctx);
}

void bsrk_passive_run(int nthreads, int64_t nitems, void (*fn)(const void *, int64_t), const void *ctx)
{
  bsrk_passive_run_between(nthreads, nitems, fn, ctx, nullptr, nullptr);
}
