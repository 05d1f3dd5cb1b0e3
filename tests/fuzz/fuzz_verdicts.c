// SPDX-License-Identifier: GPL-2.0-only
/*
 * state_dir/hybrid-verdicts.json read back from any bytes: verdicts_from_json()
 * (verdict_json.c), as a start reads the file. What must hold besides no
 * crash and no leak:
 *   - refused, the table is empty and the reason is one line;
 *   - taken, at most HV_MAX_PROGRAMS programs, each judged as verdicts.c
 *     judges (hv_judge() again changes nothing), with names that fit;
 *   - written again (verdicts_to_json()), it reads back as the same table.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "verdict_file.h"

static const struct hv_bounds bounds = { .min_saving = 0.25, .max_loss = 0.10 };
static struct verdicts v, w;

static void check_taken(void)
{
	for (size_t i = 0; i < v.n; i++) {
		struct hv_record r = v.rec[i];

		FUZZ_CHECK(memchr(r.comm, '\0', sizeof(r.comm)) && memchr(r.exe, '\0', sizeof(r.exe)));
		FUZZ_CHECK(r.verdict >= HV_UNJUDGED && r.verdict <= HV_VERDICT_CLASSIC);
		hv_judge(&r, &bounds);
		FUZZ_CHECK(r.verdict == v.rec[i].verdict && !strcmp(r.why, v.rec[i].why));
	}
}

static void check_round_trip(void)
{
	char err[256], *text = verdicts_to_json(&v);
	size_t dropped;

	FUZZ_CHECK(text);
	verdicts_init(&w, &bounds);
	FUZZ_CHECK(verdicts_from_json(text, strlen(text), &w, &dropped, err, sizeof(err)) == 0);
	free(text);
	FUZZ_CHECK(w.n == v.n && !dropped);
	for (size_t i = 0; i < v.n; i++) {
		const struct hv_record *a = &v.rec[i], *b = &w.rec[i];

		FUZZ_CHECK(!strcmp(a->comm, b->comm) && !strcmp(a->exe, b->exe));
		FUZZ_CHECK(!memcmp(a->side, b->side, sizeof(a->side)));
		FUZZ_CHECK(a->have_pred == b->have_pred && a->pred_unix_s == b->pred_unix_s &&
			   a->updated_unix_s == b->updated_unix_s && a->verdict == b->verdict);
		FUZZ_CHECK(!a->have_pred || (a->pred_saving == b->pred_saving &&
					     a->pred_iops_change == b->pred_iops_change));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	size_t dropped;
	int ret;

	if (size > VERDICT_FILE_MAX)
		return 0;
	verdicts_init(&v, &bounds);
	err[0] = '\0';
	ret = verdicts_from_json((const char *)data, size, &v, &dropped, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL || ret == -ENOMEM);
		FUZZ_CHECK(v.n == 0 && !strchr(err, '\n'));
		return 0;
	}
	FUZZ_CHECK(v.n <= HV_MAX_PROGRAMS);
	check_taken();
	check_round_trip();
	return 0;
}
