/*
   PETSc-free CUDA side of the staged halo exchange of mpibsrcustom on CUDA vectors, for an MPI that
   cannot read device memory: x's entries that other ranks need are gathered on the GPU into one
   buffer and copied to page-locked host memory on a stream of the halo's own, so the copy runs while
   the local product (queued by the caller behind the gather) computes; the received entries go back
   the same way into the ghost vector, and the caller's stream waits for them before the ghost
   product. MPI itself stays with the caller.
*/
#ifndef BSRCUDA_HALO_H
#define BSRCUDA_HALO_H

#include "bsrcuda.h" /* bsrc_cuda_status, bsrk_idx */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsrc_cuda_halo bsrc_cuda_halo; /* opaque */

/* On device: nsend entries gathered from x at send_idx[] (host array, copied), nrecv entries received
   into the ghost vector in order. Either count may be 0. */
bsrc_cuda_status bsrc_cuda_halo_create(int device, bsrk_idx nsend, const bsrk_idx *send_idx, bsrk_idx nrecv, bsrc_cuda_halo **H);
void             bsrc_cuda_halo_destroy(bsrc_cuda_halo *H); /* NULL is fine; waits for its copies */
/* The message of the last failure of H (of create when H is NULL). */
const char *bsrc_cuda_halo_last_error(const bsrc_cuda_halo *H);

/* Page-locked host buffers: what to send (valid after bsrc_cuda_halo_wait_packed), where to receive. */
double *bsrc_cuda_halo_send_buffer(bsrc_cuda_halo *H);
double *bsrc_cuda_halo_recv_buffer(bsrc_cuda_halo *H);

/* Queues the gather of x_dev on stream (a cudaStream_t as void *, NULL the legacy default stream),
   behind the work that filled x, and the copy of the gathered entries to the host send buffer on the
   halo's stream; nothing waits on the host. */
bsrc_cuda_status bsrc_cuda_halo_pack(bsrc_cuda_halo *H, void *stream, const double *x_dev);
/* The host waits until the send buffer holds the entries of the last pack. */
bsrc_cuda_status bsrc_cuda_halo_wait_packed(bsrc_cuda_halo *H);
/* The host waits until the receive buffer's last copy to the device is done (before receiving into
   it again). */
bsrc_cuda_status bsrc_cuda_halo_wait_unpacked(bsrc_cuda_halo *H);
/* Queues the copy of the receive buffer into ghost_dev on the halo's stream and makes stream wait
   for it, so that work queued there afterwards (the ghost product) reads the new entries. */
bsrc_cuda_status bsrc_cuda_halo_unpack(bsrc_cuda_halo *H, void *stream, double *ghost_dev);

#ifdef __cplusplus
}
#endif

#endif
