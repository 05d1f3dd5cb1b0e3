// SPDX-License-Identifier: GPL-2.0-only
/* Pieces of the Prometheus text exposition format: see prom_text.h. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "prom_text.h"

#define NS_PER_S	UINT64_C(1000000000)

/* U+FFFD REPLACEMENT CHARACTER */
#define REPLACEMENT	"\xef\xbf\xbd"

/* length of the valid UTF-8 sequence at @s (@n bytes left), 0 if none */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;	/* continuation byte, overlong lead, beyond U+10FFFF */
	if (n < len)
		return 0;	/* cut short, as comm cuts names at 15 bytes */
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong 3 and 4-byte forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

size_t prom_escape(char *dst, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, len), k = 0;

	for (size_t i = 0; i < n;) {
		const char *esc = NULL;
		size_t seq;

		switch (p[i]) {
		case '\\':
			esc = "\\\\";
			break;
		case '"':
			esc = "\\\"";
			break;
		case '\n':
			esc = "\\n";
			break;
		}
		if (esc) {
			memcpy(dst + k, esc, 2);
			k += 2;
			i++;
			continue;
		}
		/* other control characters are valid UTF-8, but no one wants them raw */
		seq = p[i] < 0x20 || p[i] == 0x7f ? 0 : utf8_len(p + i, n - i);
		if (seq) {
			memcpy(dst + k, p + i, seq);
			k += seq;
			i += seq;
		} else {
			memcpy(dst + k, REPLACEMENT, 3);
			k += 3;
			i++;
		}
	}
	dst[k] = '\0';
	return k;
}

const char *prom_seconds(char buf[PROM_SECONDS_SIZE], uint64_t ns)
{
	int n;

	n = snprintf(buf, PROM_SECONDS_SIZE, "%" PRIu64 ".%09" PRIu64, ns / NS_PER_S,
		     ns % NS_PER_S);
	while (buf[n - 1] == '0')
		n--;
	buf[buf[n - 1] == '.' ? n - 1 : n] = '\0';
	return buf;
}

/*
 * hist_slot_max() has at most 10 significant digits for the 32 slots (slot
 * 31: 4294967295), so %.10g prints the edge exactly and no two edges alike.
 */
void prom_le(char buf[PROM_LE_SIZE], unsigned int slot)
{
	snprintf(buf, PROM_LE_SIZE, "%.10g", (double)hist_slot_max(slot) / NS_PER_S);
}

void prom_family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void prom_counter_pair(FILE *out, const char *name, const char *help, const char *label,
		       const char *v1, uint64_t n1, const char *v2, uint64_t n2)
{
	prom_family(out, name, "counter", help);
	fprintf(out, "%s{%s=\"%s\"} %" PRIu64 "\n", name, label, v1, n1);
	fprintf(out, "%s{%s=\"%s\"} %" PRIu64 "\n", name, label, v2, n2);
}
