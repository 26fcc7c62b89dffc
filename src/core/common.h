/* common.h - types and error reporting shared by every f8bench module.
 *
 * Status convention: every fallible function returns an int status,
 * F8B_OK (0) on success.  The function that detects an error records a
 * one-line message with f8b_errorf() (which also returns the status), so a
 * caller can simply propagate the int upward; only main() prints and
 * decides to exit.
 */
#ifndef F8B_COMMON_H
#define F8B_COMMON_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum f8b_status {
	F8B_OK = 0,
	F8B_EINVAL,       /* bad user input: message names it and what is accepted */
	F8B_ENOMEM,       /* host or device allocation failed */
	F8B_EIO,          /* file could not be read/written */
	F8B_EUNSUPPORTED, /* configuration this backend/GPU/library cannot run */
	F8B_EDEVICE,      /* CUDA / cuBLASLt / NCCL / driver failure */
	F8B_EMPI,         /* MPI failure */
	F8B_EINTERRUPTED, /* a signal asked us to stop */
	F8B_EINTERNAL,    /* a bug: an invariant did not hold */
};

/* Element types.  Storage is little-endian raw bits: fp8 = 1 byte,
 * bf16 = uint16_t, f32 = float. */
enum f8b_dtype {
	F8B_F32 = 0,
	F8B_BF16,
	F8B_E4M3, /* float8_e4m3fn: no infinities, NaN = S.1111.111, max 448 */
	F8B_E5M2, /* float8_e5m2: IEEE-like, inf and NaN, max 57344 */
	F8B_DTYPE_COUNT
};

size_t f8b_dtype_size(enum f8b_dtype t);
const char *f8b_dtype_name(enum f8b_dtype t); /* "f32","bf16","e4m3","e5m2" */
/* Accepts the names above (case-insensitive) plus "fp32"/"float32",
 * "bfloat16", "e4m3fn", "float8_e4m3fn", "float8_e5m2". */
int f8b_dtype_parse(const char *s, enum f8b_dtype *out);
bool f8b_dtype_is_fp8(enum f8b_dtype t);
/* Largest finite value: 448 (e4m3), 57344 (e5m2), 3.3895e38 (bf16), FLT_MAX. */
float f8b_dtype_max(enum f8b_dtype t);

/* Error reporting.  The message is kept per thread; f8b_errorf returns
 * `status` so it can be used as `return F8B_ERR(F8B_EINVAL, "...")`.
 * Messages are one line, name the offending input and what is accepted. */
int f8b_errorf(int status, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define F8B_ERR(status, ...) f8b_errorf((status), __FILE__, __LINE__, __VA_ARGS__)
const char *f8b_last_error(void); /* "" when none */
void f8b_clear_error(void);
const char *f8b_status_name(int status);
/* Context prefixed to every message: "host:rank N: " (set once by comm). */
void f8b_set_error_context(const char *host, int rank);

/* Propagate a non-OK status; the argument is evaluated once. */
#define F8B_TRY(expr)                                                                              \
	do {                                                                                       \
		int f8b_try_rc_ = (expr);                                                          \
		if (f8b_try_rc_ != F8B_OK)                                                         \
			return f8b_try_rc_;                                                        \
	} while (0)

/* Checked arithmetic for sizes computed from user input. */
bool f8b_mul_overflows(int64_t a, int64_t b, int64_t *out);

/* Monotonic wall clock in seconds (CLOCK_MONOTONIC). */
double f8b_now(void);

/* s without leading and trailing white space: cuts the end in place and
 * returns a pointer into s. */
char *f8b_trim(char *s);

/* dst = s, NUL-padded to n bytes (a fixed-length string column), cut to fit. */
void f8b_setstr(char *dst, size_t n, const char *s);

/* A number in (0, max] given to --opt; F8B_EINVAL naming the option. */
int f8b_parse_positive(const char *opt, const char *arg, double max, double *out);
/* --timeout's argument: seconds in (0, 86400]. */
int f8b_parse_timeout(const char *arg, double *out);

#ifdef __cplusplus
}
#endif

#endif
