// The hloref subcommands. Each returns the process exit code: 0 success,
// 1 a user-facing error (bad input, failed check), 2 a usage error.
#ifndef HLOREF_TOOLS_HLOREF_SUBCOMMANDS_H_
#define HLOREF_TOOLS_HLOREF_SUBCOMMANDS_H_

namespace hloref::tools {

// argv[0] is the program, argv[1] the subcommand name.
int RunCheck(int argc, char** argv);
int RunRun(int argc, char** argv);
int RunConformance(int argc, char** argv);
int RunDiff(int argc, char** argv);
int RunReduce(int argc, char** argv);
int RunCompile(int argc, char** argv);
int RunConvert(int argc, char** argv);

}  // namespace hloref::tools

#endif  // HLOREF_TOOLS_HLOREF_SUBCOMMANDS_H_
