// SPDX-License-Identifier: GPL-2.0-only
/*
 * inventory_died_since(): a sweep's or a scan's records of rings that went
 * while it ran must not bring them back; and when more rings went than are
 * remembered, the answer errs on "it may have".
 */
#include <stdint.h>
#include <stdlib.h>

#include "inventory.h"
#include "unit.h"

static void died(struct inventory *inv, uint64_t ctx, uint64_t ts)
{
	inv->deaths[inv->n_deaths % INVENTORY_DEATHS] = (struct inventory_death){ ctx, ts };
	inv->n_deaths++;
}

UT_TEST(only_deaths_after_t0)
{
	struct inventory *inv = calloc(1, sizeof(*inv));

	UT_ASSERT(!inventory_died_since(inv, 0x1000, 0));
	died(inv, 0x1000, 100);
	died(inv, 0x2000, 200);
	died(inv, 0x3000, 300);
	UT_ASSERT(inventory_died_since(inv, 0x2000, 150));
	UT_ASSERT(inventory_died_since(inv, 0x2000, 200));
	UT_ASSERT(!inventory_died_since(inv, 0x2000, 201));	/* before the sweep began */
	UT_ASSERT(!inventory_died_since(inv, 0x1000, 150));
	UT_ASSERT(!inventory_died_since(inv, 0x4000, 0));
	free(inv);
}

/* an address freed and taken by a new ring: the death is the old one's */
UT_TEST(address_reused)
{
	struct inventory *inv = calloc(1, sizeof(*inv));

	died(inv, 0x1000, 100);
	UT_ASSERT(inventory_died_since(inv, 0x1000, 50));
	UT_ASSERT(!inventory_died_since(inv, 0x1000, 101));
	free(inv);
}

UT_TEST(overflow_errs_on_caution)
{
	struct inventory *inv = calloc(1, sizeof(*inv));

	for (uint64_t i = 0; i < INVENTORY_DEATHS + 10; i++)
		died(inv, 0x10000 + i * 64, 1000 + i);
	/* the first 10 are forgotten; all went after t0 = 0: unknown, so yes */
	UT_ASSERT(inventory_died_since(inv, 0x10000, 0));
	UT_ASSERT(inventory_died_since(inv, 0x99999999, 0));
	/* a t0 inside what is remembered is answered exactly */
	UT_ASSERT(!inventory_died_since(inv, 0x99999999, 1000 + INVENTORY_DEATHS));
	UT_ASSERT(inventory_died_since(inv, 0x10000 + (INVENTORY_DEATHS + 9) * 64,
				       1000 + INVENTORY_DEATHS));
	free(inv);
}

int main(void)
{
	ut_run("only_deaths_after_t0", only_deaths_after_t0);
	ut_run("address_reused", address_reused);
	ut_run("overflow_errs_on_caution", overflow_errs_on_caution);
	return ut_finish();
}
