/* A team of threads that sleep between products (bsrk_passive_team.cpp); kernel layer only. */
#ifndef BSRK_PASSIVE_TEAM_H
#define BSRK_PASSIVE_TEAM_H

#include <cstdint>

/* Runs fn(ctx, i) for i in [0, nitems) on the calling thread and up to nthreads - 1 helper threads of
   the calling thread's team (started at its first use, kept until the thread exits), and returns once
   every item is done. The caller works from the start and waits only for items that helpers took. */
void bsrk_passive_run(int nthreads, int64_t nitems, void (*fn)(const void *, int64_t), const void *ctx);
/* The same, the calling thread running between(between_ctx) after each item it ran (between may be NULL). */
void bsrk_passive_run_between(int nthreads, int64_t nitems, void (*fn)(const void *, int64_t), const void *ctx, void (*between)(void *), void *between_ctx);

#endif
