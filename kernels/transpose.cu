/* transpose.cu - the byte transpose of an fp8 tensor: out[c,r] = x[r,c].
 *
 * A weight all-gathered in fp8 (the allgather benchmark) is [N,K] with the
 * scale it was cast with; grad_input's GEMM needs it K-major the other
 * way, [K,N].  The values need no cast, so this moves bytes only.
 *
 * A 256-thread block takes a 64 x 64 byte tile (grid-stride over tiles in
 * row-major order).  Each thread loads one 16-byte chunk of a tile row
 * (4 chunks per row, 64 rows) into shared memory, whose rows are padded to
 * 68 bytes (17 words) so that a column's bytes, read 16 rows at a time,
 * fall in distinct banks; then each thread assembles 16 consecutive rows
 * of one column into a 16-byte store of out's row.  rows and cols are
 * multiples of 16 (checked by the caller), so a chunk is never split by
 * the tensor's edge.
 */
#include "kernels_internal.cuh"

#define TE    64 /* tile edge, bytes */
#define PITCH 68 /* shared row pitch, bytes */

static __global__ void __launch_bounds__(F8B_K_THREADS)
    transpose8_kernel(const uint8_t *__restrict__ x, uint8_t *__restrict__ out, int64_t rows,
                      int64_t cols)
{
	__shared__ __align__(16) uint8_t t[TE * PITCH];
	int64_t trows = (rows + TE - 1) / TE, tcols = (cols + TE - 1) / TE;
	int r = threadIdx.x / 4, ch = threadIdx.x % 4;

	for (int64_t tile = blockIdx.x; tile < trows * tcols; tile += gridDim.x) {
		int64_t r0 = tile / tcols * TE, c0 = tile % tcols * TE;
		int64_t gr = r0 + r, gc = c0 + ch * 16;
		if (gr < rows && gc < cols) {
			uint4 v = *(const uint4 *)(x + gr * cols + gc);
			uint32_t *d = (uint32_t *)(t + r * PITCH + ch * 16);
			d[0] = v.x;
			d[1] = v.y;
			d[2] = v.z;
			d[3] = v.w;
		}
		__syncthreads();
		/* Thread: column c of the tile, rows ch*16 .. ch*16+15. */
		int c = threadIdx.x / 4;
		int64_t oc = c0 + c, orow = r0 + ch * 16;
		if (oc < cols && orow < rows) {
			uint32_t w[4];
			for (int q = 0; q < 4; q++) {
				uint32_t b = 0;
				for (int j = 0; j < 4; j++)
					b |= (uint32_t)t[(ch * 16 + q * 4 + j) * PITCH + c]
					     << (8 * j);
				w[q] = b;
			}
			*(uint4 *)(out + oc * rows + orow) = make_uint4(w[0], w[1], w[2], w[3]);
		}
		__syncthreads();
	}
}

extern "C" int f8b_k_transpose8(const void *x, int64_t rows, int64_t cols, void *out,
                                cudaStream_t stream)
{
	if (!x || !out || rows <= 0 || cols <= 0 || rows % 16 || cols % 16)
		return (int)cudaErrorInvalidValue;
	int64_t tiles = ((rows + TE - 1) / TE) * ((cols + TE - 1) / TE);
	unsigned grid;
	int e = f8b_k_grid(tiles, 8, &grid);
	if (e != cudaSuccess)
		return e;
	transpose8_kernel<<<grid, F8B_K_THREADS, 0, stream>>>((const uint8_t *)x, (uint8_t *)out,
	                                                      rows, cols);
	return (int)cudaGetLastError();
}
