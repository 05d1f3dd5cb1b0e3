/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hybrid verdicts (verdicts.h) in the export, one series per program
 * (comm and exe label it) and family:
 *
 *   uringtune_hybrid_verdict{comm,exe,verdict}                 1
 *   uringtune_hybrid_cpu_per_read_seconds{comm,exe,polling}    polling: classic, hybrid
 *   uringtune_hybrid_iops{comm,exe,polling}
 *   uringtune_hybrid_measured_cpu_per_read_saving{comm,exe}    once both sides have enough
 *   uringtune_hybrid_measured_iops_change{comm,exe}
 *   uringtune_hybrid_predicted_cpu_per_read_saving{comm,exe}   the model's last prediction
 *   uringtune_hybrid_predicted_iops_change{comm,exe}
 *
 * A side without reads, a program not measured or never predicted has no
 * sample. At most HV_MAX_PROGRAMS programs. Pure: formats to a FILE.
 */
#ifndef UT_PROM_VERDICT_H
#define UT_PROM_VERDICT_H

#include <stdio.h>

#include "verdicts.h"

void prom_verdicts(const struct verdicts *v, FILE *out);

#endif /* UT_PROM_VERDICT_H */
