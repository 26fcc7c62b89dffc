/* nccl_compat.h - what f8bench uses of NCCL past 2.18, in one place
 * (the only NCCL version tests in the tree).
 *
 * Builds against any NCCL; runs against any too: every symbol newer than
 * the oldest NCCL f8bench supports is declared weak (a library without it
 * leaves it NULL), and comm.c refuses an option with a message naming the
 * NCCL version it needs, checked with ncclGetVersion at run time before
 * any such symbol is called.  Versions from NCCL's release notes and
 * nccl.h (doc/allgather.md, "NCCL buffers and CTA policy"):
 *   ncclMemAlloc, ncclCommRegister   2.19
 *   ncclCommWindowRegister           2.27 (NCCL_WIN_COLL_SYMMETRIC)
 *   ncclConfig_t.CTAPolicy           2.27 (DEFAULT, EFFICIENCY), 2.28 (ZERO)
 */
#ifndef F8B_NCCL_COMPAT_H
#define F8B_NCCL_COMPAT_H

#include <nccl.h>

#define F8B_NCCL_V(a, b, c) ((a)*10000 + (b)*100 + (c))
#define F8B_NCCL_V_REGISTER F8B_NCCL_V(2, 19, 0)
#define F8B_NCCL_V_WINDOW   F8B_NCCL_V(2, 27, 0)
#define F8B_NCCL_V_CTA      F8B_NCCL_V(2, 27, 0)
#define F8B_NCCL_V_CTA_ZERO F8B_NCCL_V(2, 28, 0)

#if NCCL_VERSION_CODE >= F8B_NCCL_V(2, 19, 0)
#define F8B_NCCL_HAVE_REGISTER 1
#pragma weak ncclMemAlloc
#pragma weak ncclMemFree
#pragma weak ncclCommRegister
#pragma weak ncclCommDeregister
#else
#define F8B_NCCL_HAVE_REGISTER 0
#endif

#if NCCL_VERSION_CODE >= F8B_NCCL_V(2, 27, 0)
#define F8B_NCCL_HAVE_WINDOW 1
#define F8B_NCCL_HAVE_CTA    1
#pragma weak ncclCommWindowRegister
#pragma weak ncclCommWindowDeregister
#else
#define F8B_NCCL_HAVE_WINDOW 0
#define F8B_NCCL_HAVE_CTA    0
#endif

#if defined(NCCL_CTA_POLICY_ZERO)
#define F8B_NCCL_CTA_ZERO NCCL_CTA_POLICY_ZERO
#else
#define F8B_NCCL_CTA_ZERO 2 /* a header older than 2.28: refused at run time */
#endif

#endif
