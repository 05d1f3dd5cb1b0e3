/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `uringtune exec`: run a command with liburingtune-agent.so preloaded, so
 * that uringtuned decides hybrid IOPOLL and NAPI busy polling for the rings
 * it sets up, from inside the program (see common/agent_abi.h).
 */
#ifndef UT_CLI_EXEC_H
#define UT_CLI_EXEC_H

#include <stdio.h>

/* exec's options, as `uringtune --help` and `uringtune exec --help` list them */
void exec_usage(FILE *f);

/*
 * @argv[0] is the word "exec", the rest exec's options and the command.
 * Replaces the process with the command (its exit status is then ours);
 * returns only when it does not: the exit status, 0 after --help, 2 for a
 * bad command line, 1 when the agent is missing, 127 when the command is
 * not found, 126 when it cannot be executed.
 */
int exec_main(int argc, char **argv);

#endif /* UT_CLI_EXEC_H */
