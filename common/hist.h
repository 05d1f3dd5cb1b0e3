/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log2 histograms of durations in nanoseconds, the one convention of the BPF
 * programs that fill them and of everything in user space that reads them:
 *
 *	slot i counts integer nanoseconds in [2^i, 2^(i+1)); slot 0 also 0.
 *
 * UT_HIST_SLOTS slots, the top one ending at 2^32 ns (4.3 s). As a
 * Prometheus bucket, slot i is le = 2^(i+1) - 1 ns: hist_slot_max().
 *
 * Included by the BPF programs (through uringtune.h; __u64 comes from
 * vmlinux.h there) and by user space, which alone gets the slot edges and
 * the quantiles (common/hist.c).
 */
#ifndef UT_HIST_H
#define UT_HIST_H

#ifdef __bpf__
#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif
#define UT_HIST_INLINE		static __always_inline
#else
#include <stdint.h>
#include <linux/types.h>
#define UT_HIST_INLINE		static inline
#endif

#define UT_HIST_SLOTS		32

/* floor(log2(v)), 0 for 0 and 1 */
UT_HIST_INLINE __u32 hist_log2(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

/*
 * The slot of a duration of @ns. The mask is what lets the verifier see the
 * index bounded; it also means that 2^32 ns (4.3 s) or more wraps to a low
 * slot instead of landing in the top one.
 */
UT_HIST_INLINE __u32 hist_slot(__u64 ns)
{
	return hist_log2(ns) & (UT_HIST_SLOTS - 1);
}

/*
 * Fine histograms: four slots per power of two from 2^UT_FINE_BASE ns (1 us)
 * to 2^(UT_FINE_BASE + 16) ns (67 ms), each slot at most 25% wide where a
 * log2 slot is 100%. Slot 0 also takes everything below 1 us, the top slot
 * everything above. For what needs the shape of a distribution, not only
 * its order of magnitude (the hybrid model's completion times).
 */
#define UT_FINE_BASE		10
#define UT_FINE_SUB		4
#define UT_FINE_SLOTS		64

UT_HIST_INLINE __u32 hist_fine_slot(__u64 ns)
{
	__u32 l = hist_log2(ns), s;

	if (l < UT_FINE_BASE)
		return 0;
	if (l >= UT_FINE_BASE + UT_FINE_SLOTS / UT_FINE_SUB)
		return UT_FINE_SLOTS - 1;
	/* the two bits below the leading one say which quarter */
	s = (l - UT_FINE_BASE) * UT_FINE_SUB + ((ns >> (l - 2)) & (UT_FINE_SUB - 1));
	return s & (UT_FINE_SLOTS - 1);
}

#ifndef __bpf__
/* where fine slot i begins: slot 0 begins at 0 */
UT_HIST_INLINE uint64_t hist_fine_lo(unsigned int i)
{
	unsigned int oct = i / UT_FINE_SUB, q = i % UT_FINE_SUB;

	if (!i)
		return 0;
	return (UINT64_C(1) << (UT_FINE_BASE + oct)) +
	       (uint64_t)q * (UINT64_C(1) << (UT_FINE_BASE + oct - 2));
}

/* where fine slot i ends, excluded; the top slot is taken to end at twice its start */
UT_HIST_INLINE uint64_t hist_fine_hi(unsigned int i)
{
	if (!i)
		return hist_fine_lo(1);
	if (i >= UT_FINE_SLOTS - 1)
		return 2 * hist_fine_lo(UT_FINE_SLOTS - 1);
	return hist_fine_lo(i + 1);
}

/* Slot edges, for 0 <= i <= 63 (the histograms have UT_HIST_SLOTS). */

/* the lowest value of slot i: 2^i, and 0 for slot 0 */
UT_HIST_INLINE uint64_t hist_slot_lo(unsigned int i)
{
	return i ? UINT64_C(1) << i : 0;
}

/* where slot i ends, excluded: 2^(i+1) (UINT64_MAX for slot 63) */
UT_HIST_INLINE uint64_t hist_slot_hi(unsigned int i)
{
	return i >= 63 ? UINT64_MAX : UINT64_C(2) << i;
}

/* the highest value slot i holds: 2^(i+1) - 1, its Prometheus le */
UT_HIST_INLINE uint64_t hist_slot_max(unsigned int i)
{
	return i >= 63 ? UINT64_MAX : (UINT64_C(2) << i) - 1;
}

/* the middle of [lo, hi): 1.5 * 2^i, and 1 for slot 0 */
UT_HIST_INLINE double hist_slot_mid(unsigned int i)
{
	return (hist_slot_lo(i) + hist_slot_hi(i)) / 2.0;
}

/*
 * Where inside its slot a quantile is put. Both find the same slot: the
 * first where the running count reaches ceil(total * pct / 100), at least
 * one (pct 0 is the lowest non-empty slot).
 */
enum hist_at {
	/* the slot's end, hist_slot_hi(): no value of the quantile is above it */
	HIST_AT_SLOT_END,
	/* interpolated, the slot's values taken as spread evenly over [lo, hi) */
	HIST_AT_INTERPOLATED,
};

/*
 * The value at @pct percent (above 100 is 100) of @hist, UT_HIST_SLOTS
 * counts; 0 if they are all 0. Counts whose sum overflows 64 bits are taken
 * in units of 64, a non-empty slot keeping at least one.
 */
uint64_t hist_quantile_ns(const __u64 *hist, unsigned int pct, enum hist_at at);
#endif /* !__bpf__ */

#endif /* UT_HIST_H */
