// SPDX-License-Identifier: GPL-2.0-only
/* The verdict table in state_dir (daemon/hybrid/verdict_file.c, verdict_json.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "verdict_file.h"

#define NSEC		1000000000ULL
#define T0		1800000000ULL

static const struct hv_bounds bounds = { .min_saving = 0.25, .max_loss = 0.10 };
static char dir[64], path[128], bad_path[128];
static struct verdicts v, w;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ut-verdicts.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	chmod(dir, 0700);
	snprintf(path, sizeof(path), "%s/" VERDICT_FILE_NAME, dir);
	snprintf(bad_path, sizeof(bad_path), "%s/" VERDICT_FILE_NAME ".bad", dir);
	verdicts_init(&v, &bounds);
	verdicts_init(&w, &bounds);
}

static void teardown(void)
{
	unlink(path);
	unlink(bad_path);
	rmdir(dir);
}

static void put_file(const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
}

/* a measured program, a predicted one, one with odd bytes in its name */
static void fill(struct verdicts *t)
{
	struct hv_sample c = { .reads = 10000, .cpu_ns = NSEC / 100, .wall_ns = NSEC };
	struct hv_sample h = { .reads = 6000, .cpu_ns = NSEC / 300, .wall_ns = NSEC };
	struct hybrid_pred p = { .valid = true, .cpu_per_read_saving = 0.1 / 3,
				 .iops_change = -1.0 / 7 };

	for (int i = 0; i < 4; i++) {
		verdicts_note_window(t, "fio", "/usr/bin/fio", false, &c, T0 + i);
		verdicts_note_window(t, "fio", "/usr/bin/fio", true, &h, T0 + i);
	}
	verdicts_note_ring(t, "fio", "/usr/bin/fio", true, T0 + 5);
	verdicts_note_prediction(t, "fio", "/usr/bin/fio", &p, T0 + 6);
	verdicts_note_prediction(t, "db \"x\"\\", "/opt/a b/\xc3\xa9", &p, T0 + 7);
}

UT_TEST(round_trip)
{
	struct verdict_file f;

	setup();
	fill(&v);
	UT_ASSERT_EQ_INT(verdict_file_open(&f, dir), 0);
	UT_ASSERT_EQ_INT(verdict_file_save(&f, &v), 0);
	UT_ASSERT(!v.dirty);
	verdict_file_close(&f, &v);
	UT_ASSERT_EQ_INT(verdict_file_open(&f, dir), 0);
	verdict_file_load(&f, &w);
	verdict_file_close(&f, &w);
	UT_ASSERT_EQ_INT(w.n, 2);
	UT_ASSERT(!w.dirty);
	/* the same numbers, to the last bit, and the same judgement */
	for (int i = 0; i < 2; i++) {
		const struct hv_record *a = &v.rec[i], *b = &w.rec[i];

		UT_ASSERT_STR_EQ(a->comm, b->comm);
		UT_ASSERT_STR_EQ(a->exe, b->exe);
		UT_ASSERT(!memcmp(a->side, b->side, sizeof(a->side)));
		UT_ASSERT_EQ_INT(a->have_pred, b->have_pred);
		UT_ASSERT(a->pred_saving == b->pred_saving);
		UT_ASSERT(a->pred_iops_change == b->pred_iops_change);
		UT_ASSERT_EQ_INT(a->pred_unix_s, b->pred_unix_s);
		UT_ASSERT_EQ_INT(a->measured, b->measured);
		UT_ASSERT(a->meas_saving == b->meas_saving);
		UT_ASSERT(a->meas_iops_change == b->meas_iops_change);
		UT_ASSERT_EQ_INT(a->verdict, b->verdict);
		UT_ASSERT_STR_EQ(a->why, b->why);
		UT_ASSERT_EQ_INT(a->updated_unix_s, b->updated_unix_s);
	}
	UT_ASSERT_EQ_INT(w.rec[0].verdict, HV_VERDICT_CLASSIC);
	UT_ASSERT_STR_EQ(w.rec[1].comm, "db \"x\"\\");
	UT_ASSERT(access(bad_path, F_OK));
	/* other bounds judge fio otherwise: the file is to be written again */
	{
		struct hv_bounds wide = { .min_saving = 0.25, .max_loss = 0.5 };

		verdicts_init(&w, &wide);
		UT_ASSERT_EQ_INT(verdict_file_open(&f, dir), 0);
		verdict_file_load(&f, &w);
		UT_ASSERT_EQ_INT(w.rec[0].verdict, HV_VERDICT_HYBRID);
		UT_ASSERT(w.dirty);
		verdict_file_close(&f, &w);
		UT_ASSERT(!w.dirty);
	}
	teardown();
}

UT_TEST(missing_file_is_empty)
{
	struct verdict_file f;

	setup();
	v.n = 3;
	UT_ASSERT_EQ_INT(verdict_file_open(&f, dir), 0);
	verdict_file_load(&f, &v);
	UT_ASSERT_EQ_INT(v.n, 0);
	/* nothing changed: nothing written at close */
	verdict_file_close(&f, &v);
	UT_ASSERT(access(path, F_OK));
	teardown();
}

/* a file that is not ours: moved aside whole, the table empty */
static void refused(const char *text, size_t len)
{
	struct verdict_file f;
	struct stat st;

	setup();
	put_file(text, len);
	fill(&v);
	UT_ASSERT_EQ_INT(verdict_file_open(&f, dir), 0);
	verdict_file_load(&f, &v);
	UT_ASSERT_EQ_INT(v.n, 0);
	UT_ASSERT(!v.dirty);
	UT_ASSERT(access(path, F_OK));
	UT_ASSERT(!stat(bad_path, &st));
	UT_ASSERT_EQ_INT(st.st_size, len);
	/* and the next save writes a good one beside it */
	fill(&v);
	verdict_file_close(&f, &v);
	UT_ASSERT(!access(path, F_OK));
	teardown();
}

UT_TEST(corrupt_file_moved_aside)
{
	static const char junk[] = "{\"format\": \"uringtune-hybrid-verdicts\",\n  \"version\": 1,\n"
				   "  \"programs\": [ {\"comm\": }\n";

	refused(junk, sizeof(junk) - 1);
}

UT_TEST(unknown_version_moved_aside)
{
	static const char v2[] = "{\"format\":\"uringtune-hybrid-verdicts\",\"version\":2,"
				 "\"programs\":[]}\n";

	refused(v2, sizeof(v2) - 1);
}

UT_TEST(oversized_file_moved_aside)
{
	size_t len = VERDICT_FILE_MAX + 1;
	char *big = malloc(len);

	UT_ASSERT(big);
	memset(big, ' ', len);
	refused(big, len);
	free(big);
}

UT_TEST(what_is_wrong_is_named)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "{\n\"format\":\n  nope}", "line 3: not JSON" },
		{ "{\"format\":\"uringtune-hybrid-verdicts\"", "line 1: not JSON (it ends too early)" },
		{ "[]", "expected an object at the top" },
		{ "{\"format\":\"journal\",\"version\":1,\"programs\":[]}",
		  "format: expected \"uringtune-hybrid-verdicts\"" },
		{ "{\"format\":\"uringtune-hybrid-verdicts\",\"version\":7,\"programs\":[]}",
		  "version: expected 1, got 7" },
		{ "{\"format\":\"uringtune-hybrid-verdicts\",\"version\":1,\"programs\":{}}",
		  "programs: expected an array" },
		{ "{\"format\":\"uringtune-hybrid-verdicts\",\"version\":1,\"programs\":[{\"comm\":"
		  "\"fio\",\"exe\":\"/f\",\"updated\":1,\"classic\":{\"reads\":-1}}]}",
		  "programs[0].classic.reads: expected a non-negative integer" },
		{ "{\"format\":\"uringtune-hybrid-verdicts\",\"version\":1,\"programs\":[{\"comm\":"
		  "\"a-name-longer-than-15\",\"exe\":\"/f\"}]}",
		  "programs[0].comm: expected a string of at most 15 bytes" },
		{ "{\"format\":\"uringtune-hybrid-verdicts\",\"version\":1,\"programs\":[{\"comm\":"
		  "\"fio\",\"exe\":\"/f\",\"updated\":1,\"classic\":{\"reads\":1,\"cpu_ns\":1,"
		  "\"wall_ns\":1,\"windows\":1,\"rings\":1},\"hybrid\":{\"reads\":1,\"cpu_ns\":1,"
		  "\"wall_ns\":1,\"windows\":1,\"rings\":1},\"predicted\":{\"cpu_per_read_saving\":"
		  "\"x\"}}]}", "programs[0].predicted.cpu_per_read_saving: expected a number" },
	};
	char err[256];
	size_t dropped;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		verdicts_init(&v, &bounds);
		UT_ASSERT_EQ_INT(verdicts_from_json(cases[i].text, strlen(cases[i].text), &v,
						    &dropped, err, sizeof(err)), -EINVAL);
		UT_ASSERT_STR_CONTAINS(err, cases[i].why);
		UT_ASSERT_EQ_INT(v.n, 0);
	}
}

/* at most HV_MAX_PROGRAMS programs are taken from a file */
UT_TEST(bounded_load)
{
	struct hv_sample s = { .reads = 10, .cpu_ns = 10, .wall_ns = 10 };
	char comm[16], *text;
	size_t dropped;
	char err[256];

	verdicts_init(&v, &bounds);
	for (int i = 0; i < HV_MAX_PROGRAMS; i++) {
		snprintf(comm, sizeof(comm), "p%d", i);
		verdicts_note_window(&v, comm, "/bin/p", false, &s, T0);
	}
	text = verdicts_to_json(&v);
	UT_ASSERT(text);
	/* the same programs again under other names: twice the table */
	{
		size_t len = strlen(text);
		char *twice = malloc(2 * len + 16), *cut;

		UT_ASSERT(twice);
		cut = strrchr(text, ']');
		memcpy(twice, text, cut - text);
		twice[cut - text] = '\0';
		strcat(twice, ",");
		strcat(twice, strchr(text, '[') + 1);
		/* the copies' names differ from the originals' */
		for (char *p = strstr(twice + (cut - text), "\"p"); p; p = strstr(p + 1, "\"p"))
			if (p[2] >= '0' && p[2] <= '9')
				p[1] = 'q';
		UT_ASSERT_EQ_INT(verdicts_from_json(twice, strlen(twice), &w, &dropped, err,
						    sizeof(err)), 0);
		free(twice);
	}
	UT_ASSERT_EQ_INT(w.n, HV_MAX_PROGRAMS);
	UT_ASSERT_EQ_INT(dropped, HV_MAX_PROGRAMS);
	UT_ASSERT_STR_EQ(w.rec[0].comm, "p0");
	free(text);
}

int main(void)
{
	ut_run("round_trip", round_trip);
	ut_run("missing_file_is_empty", missing_file_is_empty);
	ut_run("corrupt_file_moved_aside", corrupt_file_moved_aside);
	ut_run("unknown_version_moved_aside", unknown_version_moved_aside);
	ut_run("oversized_file_moved_aside", oversized_file_moved_aside);
	ut_run("what_is_wrong_is_named", what_is_wrong_is_named);
	ut_run("bounded_load", bounded_load);
	return ut_finish();
}
