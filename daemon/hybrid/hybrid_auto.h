/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hybrid = auto at ring setup: HYBRID_IOPOLL or classic IOPOLL for a
 * program, within the bounds ([agent] hybrid_min_saving, hybrid_max_loss).
 * Pure. In order:
 *
 *   1. a measured verdict (verdicts.h): the program's hybrid rings against
 *      its classic ones; "classic" means hybrid lost more than the bound,
 *      and the program gets classic rings from then on;
 *   2. else the newest prediction of the model (hybrid_model.h), the one
 *      live on a classic ring of the program now or the last one the
 *      record kept: hybrid only where the predicted CPU saving per read is
 *      at least min_saving and the predicted IOPS loss at most max_loss;
 *   3. else classic: nothing is known of the program yet.
 */
#ifndef UT_HYBRID_AUTO_H
#define UT_HYBRID_AUTO_H

#include <stdbool.h>
#include <stdint.h>

#include "hybrid_model.h"
#include "verdicts.h"

enum hybrid_auto_source {
	HYBRID_AUTO_MEASURED,
	HYBRID_AUTO_PREDICTED,
	HYBRID_AUTO_NOTHING,
};

struct hybrid_auto_answer {
	bool hybrid;
	enum hybrid_auto_source source;
	char why[112];			/* "hybrid: ...", one line with the numbers */
};

/*
 * @rec: the program's record (NULL: none); @live: a prediction from one of
 * its classic rings now (NULL, or not valid: none).
 */
void hybrid_auto_decide(const struct hv_record *rec, const struct hybrid_pred *live,
			const struct hv_bounds *b, uint64_t now_unix_s,
			struct hybrid_auto_answer *out);

#endif /* UT_HYBRID_AUTO_H */
