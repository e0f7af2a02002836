/*
   Which threads a matrix's task products run on: the OpenMP team, or the passive team while that
   is measured to be faster (bsrk_team in bsrkernels.h).

   An OpenMP team waits for its slowest member at the end of a product and, under libgomp's default
   wait policy, its idle threads spin for milliseconds between products. When other work keeps every
   core busy (a compile, more ranks than cores), the operating system runs our threads in turns with
   it; spinning threads use up their share and the thread the product waits for is not run, so that
   a product can take many times as long as MATBAIJ's. The passive team (bsrk_passive_team.cpp) sleeps instead, but each
   product then pays for waking its threads, which an idle machine notices. So each matrix measures:
   - its first products alternate: one unmeasured on the OpenMP team (its threads start, pages fault
     in), then passive, OpenMP, passive, OpenMP; the faster mean wins (the passive team must be
     kMargin faster). An OpenMP team already kDisturbed times slower after the first pair ends the
     opening there, so that a busy machine pays for two products on it;
   - on the OpenMP team, each product updates a running mean and the fastest time; while the mean
     stays within kDisturbed times the fastest (an idle machine) nothing else happens; otherwise the
     passive team is tried again (kBurst products), at most once per gap;
   - on the passive team, the OpenMP team is tried once per gap: one product first, and only if that
     one was not far slower (kDisturbed times the passive mean), kBurst - 1 more;
   - the gap starts at kFirstGap seconds and doubles, up to kMaxGap, each time a try loses, so that
     a machine that stays busy pays a try every couple of seconds, and one whose load went away gets
     the OpenMP team back within that time.
*/
#include "bsrkernels.h"

#include <omp.h>

namespace {

constexpr int    kBurst     = 3;
constexpr double kFirstGap  = 0.25;
constexpr double kMaxGap    = 2.0;
constexpr double kMargin    = 0.9;
constexpr double kDisturbed = 2.0;
constexpr double kWeight    = 0.5; /* of a new product in the running mean: load that arrives shows at once */

constexpr int OPENMP  = BSRK_THREADS_OPENMP;
constexpr int PASSIVE = BSRK_THREADS_PASSIVE;

/* the opening sequence; the first product is not measured */
constexpr int kOpening[]    = {OPENMP, PASSIVE, OPENMP, PASSIVE, OPENMP};
constexpr int kOpeningCount = sizeof(kOpening) / sizeof(kOpening[0]);

int other(int kind)
{
  return kind == OPENMP ? PASSIVE : OPENMP;
}

/* a try of the other kind is over: keep it if it beat the current one */
void settle(bsrk_team *t, double now)
{
  const int    o     = other(t->mode);
  const double tried = t->burst_sum / t->burst_n;
  t->mean[o]         = tried;
  t->last_try        = now;
  if (tried < (o == PASSIVE ? kMargin : 1.0 / kMargin) * t->mean[t->mode]) {
    t->mode = o;
    t->gap  = kFirstGap;
    t->switches++;
  } else {
    t->gap = t->gap < kMaxGap / 2 ? 2 * t->gap : kMaxGap;
  }
}

} // namespace

extern "C" void bsrk_team_init(bsrk_team *t)
{
  t->mode    = OPENMP;
  t->mean[0] = t->mean[1] = -1.0;
  t->fastest              = -1.0;
  t->opening              = 0;
  t->trying               = 0;
  t->burst_sum            = 0.0;
  t->burst_n              = 0;
  t->gap                  = kFirstGap;
  t->last_try             = 0.0;
  t->started              = 0.0;
  t->running              = OPENMP;
  t->switches             = 0;
}

extern "C" double bsrk_team_clock(void)
{
  return omp_get_wtime();
}

extern "C" bsrk_threads bsrk_team_begin(bsrk_team *t, double now)
{
  t->started = now;
  if (t->opening < kOpeningCount) {
    t->running = kOpening[t->opening];
  } else {
    if (!t->trying && t->started - t->last_try > t->gap && (t->mode == PASSIVE || t->mean[OPENMP] > kDisturbed * t->fastest)) {
      t->trying    = kBurst;
      t->burst_sum = 0.0;
      t->burst_n   = 0;
    }
    t->running = t->trying ? other(t->mode) : t->mode;
  }
  return (bsrk_threads)t->running;
}

extern "C" void bsrk_team_end(bsrk_team *t, double now)
{
  const double seconds = now - t->started;

  if (t->running == OPENMP && (t->fastest < 0 || seconds < t->fastest)) t->fastest = seconds;
  if (t->opening < kOpeningCount) {
    if (t->opening++ == 0) return; /* the first product: not measured */
    t->mean[t->running] = t->mean[t->running] < 0 ? seconds : 0.5 * (t->mean[t->running] + seconds);
    if (t->opening == 3 && t->mean[OPENMP] > kDisturbed * t->mean[PASSIVE]) t->opening = kOpeningCount;
    if (t->opening == kOpeningCount) {
      t->mode     = t->mean[PASSIVE] < kMargin * t->mean[OPENMP] ? PASSIVE : OPENMP;
      t->switches = t->mode == PASSIVE;
      t->last_try = now;
    }
    return;
  }
  if (t->trying) {
    t->burst_sum += seconds;
    t->burst_n++;
    /* an OpenMP team far slower than the passive one on its first product of a try: the try ends there */
    if (t->running == OPENMP && t->burst_n == 1 && seconds > kDisturbed * t->mean[PASSIVE]) t->trying = 1;
    if (--t->trying == 0) settle(t, now);
    return;
  }
  const double m   = t->mean[t->mode];
  t->mean[t->mode] = m < 0 ? seconds : (1 - kWeight) * m + kWeight * seconds;
}
