#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every metric name the PromQL of a Prometheus rules file and of a Grafana
dashboard reads must be a known one.

    promql_names.py --known FILE [--rules FILE]... [--dashboard FILE]...

--known: the metric names that exist, one a line (the sample names of a real
uringtune.prom, plus what Prometheus itself records, such as up). The names
a rules file records (record:) are known too. For each expression, string
literals, label matchers {...}, ranges [...], grouping clauses (by, without,
on, ignoring, group_left, group_right (...)), numbers and Grafana variables
are stripped; of the identifiers left, those called as functions and the
PromQL keywords are dropped; the rest are metric names. Prints each unknown
name with where it is read and exits 1; 2 on bad input (a file it cannot
read or an expression form it does not know). Aggregation operators are keywords
too, never metric names. No YAML library: the rules
file's expr: is a one-line value or a block scalar (|, >, with - or +), as
in contrib/prometheus/uringtune.rules.yml.
"""
import argparse
import json
import re
import sys

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and",
            "or", "unless", "offset", "inf", "nan", "atan2", "start", "end",
            # aggregation operators: "sum by (x) (...)" leaves "sum by (...)"
            "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
            "bottomk", "topk", "quantile"}
IDENT = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")


def die(msg):
    print("promql_names: " + msg, file=sys.stderr)
    sys.exit(2)


def strip_balanced(expr, open_c, close_c):
    """remove every open_c ... close_c span (not nested in these files' PromQL)"""
    out, depth = [], 0
    for c in expr:
        if c == open_c:
            depth += 1
        elif c == close_c and depth:
            depth -= 1
        elif not depth:
            out.append(c)
    if depth:
        raise ValueError("unbalanced " + open_c)
    return "".join(out)


def metric_names(expr):
    """the metric names an expression reads"""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    e = re.sub(r"'(?:[^'\\]|\\.)*'", "''", e)
    e = re.sub(r"`[^`]*`", "``", e)
    e = strip_balanced(e, "{", "}")
    e = strip_balanced(e, "[", "]")
    # grouping clauses: their parenthesised label lists
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", r"\1", e)
    # Grafana variables ($x, ${x}, $__rate_interval) and numbers (1e-05, 0x1f, .5)
    e = re.sub(r"\$\{[^}]*\}|\$\w+", " ", e)
    e = re.sub(r"(?<![A-Za-z0-9_:.])(0x[0-9a-fA-F]+|\d*\.?\d+(?:[eE][-+]?\d+)?)", " ", e)
    names = set()
    for m in IDENT.finditer(e):
        word = m.group(0)
        rest = e[m.end():].lstrip()
        if word.lower() in KEYWORDS or rest.startswith("("):
            continue
        names.add(word)
    return names


def rules_exprs(path):
    """(where, expr) of each rule, and the names the file records"""
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError as err:
        die(f"{path}: {err.strerror}")
    exprs, recorded, where = [], set(), "?"
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^\s*-\s*(alert|record):\s*(\S+)", line)
        if m:
            where = f"{path}: {m.group(1)} {m.group(2)}"
            if m.group(1) == "record":
                recorded.add(m.group(2))
        m = re.match(r"^(\s*)(?:-\s*)?expr:\s*(.*)$", line)
        if m:
            indent, value = len(m.group(1)), m.group(2).strip()
            if re.fullmatch(r"[|>][-+]?", value):
                block = []
                i += 1
                while i < len(lines) and (not lines[i].strip() or
                                          len(lines[i]) - len(lines[i].lstrip()) > indent):
                    block.append(lines[i].strip())
                    i += 1
                exprs.append((where, " ".join(block)))
                continue
            if not value or value[0] in "\"'[{&*!%@":
                die(f"{path}:{i + 1}: expr form not understood: {value!r}")
            exprs.append((where, value))
        i += 1
    if not exprs:
        die(f"{path}: no expr found")
    return exprs, recorded


def dashboard_exprs(path):
    """(where, expr) of every panel target and template variable query"""
    try:
        dash = json.load(open(path, encoding="utf-8"))
    except (OSError, ValueError) as err:
        die(f"{path}: {err}")
    exprs = []

    def panels(ps):
        for p in ps:
            yield p
            yield from panels(p.get("panels", []))

    for p in panels(dash.get("panels", [])):
        for t in p.get("targets", []):
            if "expr" in t:
                exprs.append((f"{path}: panel {p.get('title')!r} {t.get('refId')}", t["expr"]))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        m = re.fullmatch(r"\s*label_values\((.*),\s*[A-Za-z_]\w*\s*\)\s*", q or "")
        if not m:
            die(f"{path}: variable {v.get('name')}: query form not understood: {q!r}")
        exprs.append((f"{path}: variable {v.get('name')}", m.group(1)))
    if not exprs:
        die(f"{path}: no expr found")
    return exprs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--known", required=True)
    ap.add_argument("--rules", action="append", default=[])
    ap.add_argument("--dashboard", action="append", default=[])
    a = ap.parse_args()
    try:
        known = {w for w in open(a.known, encoding="utf-8").read().split() if w}
    except OSError as err:
        die(f"{a.known}: {err.strerror}")
    exprs = []
    for r in a.rules:
        e, recorded = rules_exprs(r)
        exprs += e
        known |= recorded
    for d in a.dashboard:
        exprs += dashboard_exprs(d)
    unknown, used = [], set()
    for where, expr in exprs:
        try:
            names = metric_names(expr)
        except ValueError as err:
            die(f"{where}: {err}: {expr}")
        if not names:
            die(f"{where}: reads no metric: {expr}")
        used |= names
        unknown += [(where, n) for n in sorted(names - known)]
    for where, n in unknown:
        print(f"unknown metric {n} in {where}")
    print(f"{len(exprs)} expressions read {len(used)} metric names, {len(unknown)} unknown")
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
