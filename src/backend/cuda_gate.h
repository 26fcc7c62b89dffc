/* cuda_gate.h - the stream gate of collective samples (cuda_gate.c). */
#ifndef F8B_CUDA_GATE_H
#define F8B_CUDA_GATE_H

#include <cuda_runtime_api.h>

struct f8b_cuda_gate;

/* Queues on stream a wait for the next release (allocating the gate on
 * first use into *g); the wait gives up after timeout_s. */
int f8b_cuda_gate_hold(struct f8b_cuda_gate **g, cudaStream_t stream, double timeout_s);
/* Lets the held stream run; an error if the hold had already given up. */
int f8b_cuda_gate_release(struct f8b_cuda_gate *g);
/* Releases a pending hold and frees the gate (NULL is fine). */
void f8b_cuda_gate_free(struct f8b_cuda_gate *g);

#endif
