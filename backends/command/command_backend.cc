// The out-of-process backend (see command_backend.h for the protocol).
#include "backends/command/command_backend.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "spec/ir/hlo_printer.h"
#include "spec/types/npy.h"
#include "spec/util/status_macros.h"

extern char** environ;

namespace hloref::backends {
namespace {

namespace fs = std::filesystem;

// Leaves of a shape (a non-tuple shape is one leaf).
int64_t CountLeaves(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += CountLeaves(s);
  return n;
}

// True when `path` names an executable regular file.
bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

absl::Status WriteFile(const std::string& path, absl::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  }
  return absl::OkStatus();
}

// An anonymous file (created then unlinked) that the child writes its
// stdout or stderr to; read back after it exits. Files, not pipes, so a
// chatty program can never block on a full pipe.
class CaptureFile {
 public:
  static absl::StatusOr<std::unique_ptr<CaptureFile>> Create(
      const std::string& dir) {
    std::string name = dir + "/hloref-capture-XXXXXX";
    int fd = mkstemp(name.data());
    if (fd < 0) {
      return absl::InternalError(absl::StrCat(
          "cannot create a capture file in '", dir, "': ", strerror(errno)));
    }
    unlink(name.c_str());
    return std::unique_ptr<CaptureFile>(new CaptureFile(fd));
  }
  ~CaptureFile() { close(fd_); }
  int fd() const { return fd_; }
  // The last `max_bytes` bytes written.
  std::string Tail(size_t max_bytes) const {
    off_t size = lseek(fd_, 0, SEEK_END);
    if (size <= 0) return "";
    off_t start = size > static_cast<off_t>(max_bytes)
                      ? size - static_cast<off_t>(max_bytes)
                      : 0;
    std::string out(static_cast<size_t>(size - start), '\0');
    ssize_t n = pread(fd_, out.data(), out.size(), start);
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
    if (start > 0) out = "..." + out;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
      out.pop_back();
    }
    return out;
  }

 private:
  explicit CaptureFile(int fd) : fd_(fd) {}
  int fd_;
};

// Removes the exchange directory on scope exit unless asked to keep it.
class DirGuard {
 public:
  DirGuard(std::string dir, bool keep) : dir_(std::move(dir)), keep_(keep) {}
  ~DirGuard() {
    if (keep_) return;
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

 private:
  std::string dir_;
  bool keep_;
};

struct ChildResult {
  bool timed_out = false;
  int wait_status = 0;
};

// Spawns argv in its own process group, stdin from /dev/null, and waits
// at most `timeout` (then kills the group).
absl::StatusOr<ChildResult> SpawnAndWait(const std::vector<std::string>& argv,
                                         int out_fd, int err_fd,
                                         absl::Duration timeout) {
  std::vector<char*> cargv;
  for (const std::string& a : argv)
    cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, cargv[0], &actions, &attr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start '", argv[0], "': ", strerror(rc)));
  }

  ChildResult result;
  const absl::Time deadline = absl::Now() + timeout;
  auto sleep = std::chrono::milliseconds(1);
  while (true) {
    pid_t w = waitpid(pid, &result.wait_status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      return absl::InternalError(
          absl::StrCat("waitpid for '", argv[0], "': ", strerror(errno)));
    }
    if (absl::Now() >= deadline) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &result.wait_status, 0) < 0 && errno == EINTR) {
      }
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(sleep);
    if (sleep < std::chrono::milliseconds(50)) sleep *= 2;
  }
  return result;
}

class CommandExecutable : public Executable {
 public:
  CommandExecutable(std::vector<std::string> argv, std::string module_text,
                    int64_t num_results, int64_t participants,
                    CompileOptions options)
      : argv_(std::move(argv)),
        module_text_(std::move(module_text)),
        num_results_(num_results),
        participants_(participants),
        options_(std::move(options)) {}

  // A replicated module run through Run (the golden runner's way: its
  // collective cases hold the same value on every participant) runs every
  // participant on `args` and returns their common result; participants
  // that disagree are an error, so a wrong replica can never pass unseen.
  absl::StatusOr<std::vector<Literal>> Run(
      absl::Span<const Literal> args) override {
    if (participants_ > 1) {
      std::vector<std::vector<Literal>> shared(1);
      shared[0].assign(args.begin(), args.end());
      HLOREF_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all,
                              RunReplicated(shared));
      for (size_t i = 1; i < all.size(); ++i) {
        bool same = all[i].size() == all[0].size();
        for (size_t j = 0; same && j < all[i].size(); ++j) {
          same = all[i][j].BitwiseEquals(all[0][j]);
        }
        if (!same) {
          return absl::UnknownError(absl::StrCat(
              "participants 0 and ", i, " of ", participants_,
              " return different results on the same arguments (Run "
              "returns one result, so every participant must agree)"));
        }
      }
      return std::move(all[0]);
    }
    HLOREF_ASSIGN_OR_RETURN(Exchange ex, MakeExchange());
    DirGuard guard(ex.dir, options_.keep_files);
    HLOREF_RETURN_IF_ERROR(WriteFile(ex.dir + "/module.hlo", module_text_));
    HLOREF_RETURN_IF_ERROR(WriteArgs(ex.dir, args));
    HLOREF_RETURN_IF_ERROR(RunProgram(ex));
    return ReadResults(ex, ex.dir, "");
  }

  // Participant i's arguments go to DIR/p<i>/arg_<k>.npy and its results
  // come back from DIR/p<i>/result_<j>.npy; module.hlo stays at the top.
  absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicated(
      absl::Span<const std::vector<Literal>> args) override {
    const size_t n = static_cast<size_t>(participants_);
    if (args.size() != 1 && args.size() != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "RunReplicated: ", args.size(), " argument lists for ", n,
          " participants (want one per participant, or one shared list)"));
    }
    HLOREF_ASSIGN_OR_RETURN(Exchange ex, MakeExchange());
    DirGuard guard(ex.dir, options_.keep_files);
    HLOREF_RETURN_IF_ERROR(WriteFile(ex.dir + "/module.hlo", module_text_));
    for (size_t i = 0; i < n; ++i) {
      const std::string pdir = absl::StrCat(ex.dir, "/p", i);
      if (mkdir(pdir.c_str(), 0755) != 0) {
        return absl::InternalError(
            absl::StrCat("cannot create '", pdir, "': ", strerror(errno)));
      }
      HLOREF_RETURN_IF_ERROR(
          WriteArgs(pdir, args.size() == 1 ? args[0] : args[i]));
    }
    HLOREF_RETURN_IF_ERROR(RunProgram(ex));
    std::vector<std::vector<Literal>> results;
    results.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      HLOREF_ASSIGN_OR_RETURN(std::vector<Literal> r,
                              ReadResults(ex, absl::StrCat(ex.dir, "/p", i),
                                          absl::StrCat("p", i, "/")));
      results.push_back(std::move(r));
    }
    return results;
  }

 private:
  // One run's exchange directory and how messages name it.
  struct Exchange {
    std::string base;  // where the directory and capture files live
    std::string dir;
    std::string kept;  // " (files kept in DIR)" or ""
    std::string command;
  };

  absl::StatusOr<Exchange> MakeExchange() const {
    Exchange ex;
    ex.base = options_.work_dir;
    if (ex.base.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      ex.base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    ex.dir = ex.base + "/hloref-command-XXXXXX";
    if (mkdtemp(ex.dir.data()) == nullptr) {
      return absl::InternalError(
          absl::StrCat("cannot create an exchange directory in '", ex.base,
                       "': ", strerror(errno)));
    }
    ex.kept = options_.keep_files
                  ? absl::StrCat(" (files kept in ", ex.dir, ")")
                  : "";
    ex.command = absl::StrJoin(argv_, " ");
    return ex;
  }

  static absl::Status WriteArgs(const std::string& dir,
                                absl::Span<const Literal> args) {
    for (size_t k = 0; k < args.size(); ++k) {
      if (args[k].shape().IsTuple()) {
        return absl::UnimplementedError(absl::StrCat(
            "the command protocol passes array and token arguments only; "
            "argument ",
            k, " is ", args[k].shape().ToString()));
      }
      HLOREF_ASSIGN_OR_RETURN(std::string bytes, NpyBytesFromLiteral(args[k]));
      HLOREF_RETURN_IF_ERROR(
          WriteFile(absl::StrCat(dir, "/arg_", k, ".npy"), bytes));
    }
    return absl::OkStatus();
  }

  // Runs `<program> DIR` and maps its exit to a status.
  absl::Status RunProgram(const Exchange& ex) const {
    HLOREF_ASSIGN_OR_RETURN(auto out, CaptureFile::Create(ex.base));
    HLOREF_ASSIGN_OR_RETURN(auto err, CaptureFile::Create(ex.base));
    std::vector<std::string> argv = argv_;
    argv.push_back(ex.dir);
    HLOREF_ASSIGN_OR_RETURN(
        ChildResult child,
        SpawnAndWait(argv, out->fd(), err->fd(), options_.timeout));
    std::string stderr_tail = err->Tail(4000);
    if (stderr_tail.empty()) stderr_tail = out->Tail(2000);
    const std::string said =
        stderr_tail.empty() ? " (no output)" : absl::StrCat(": ", stderr_tail);

    if (child.timed_out) {
      return absl::DeadlineExceededError(
          absl::StrCat("command '", ex.command, "' ran longer than ",
                       absl::FormatDuration(options_.timeout),
                       " and was killed", ex.kept, said));
    }
    const int st = child.wait_status;
    if (WIFSIGNALED(st)) {
      return absl::UnknownError(absl::StrCat(
          "command '", ex.command, "' was killed by signal ", WTERMSIG(st),
          " (", strsignal(WTERMSIG(st)), ")", ex.kept, said));
    }
    const int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (code == kUnsupportedExitCode) {
      return absl::UnimplementedError(absl::StrCat(
          "command '", ex.command, "' reports unsupported",
          stderr_tail.empty() ? "" : absl::StrCat(": ", stderr_tail)));
    }
    if (code == kUnavailableExitCode) {
      return absl::FailedPreconditionError(absl::StrCat(
          "command '", ex.command, "' reports its environment unavailable",
          stderr_tail.empty() ? "" : absl::StrCat(": ", stderr_tail)));
    }
    if (code != 0) {
      return absl::UnknownError(absl::StrCat("command '", ex.command,
                                             "' exited with status ", code,
                                             ex.kept, said));
    }
    return absl::OkStatus();
  }

  // Reads dir/result_<i>.npy for every output; `prefix` names the
  // participant directory in messages ("" or "p<i>/").
  absl::StatusOr<std::vector<Literal>> ReadResults(
      const Exchange& ex, const std::string& dir,
      const std::string& prefix) const {
    std::vector<Literal> results;
    for (int64_t i = 0; i < num_results_; ++i) {
      const std::string path = absl::StrCat(dir, "/result_", i, ".npy");
      if (!fs::exists(path)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "command '", ex.command, "' exited with status 0 but wrote no ",
            prefix, "result_", i, ".npy (the module has ", num_results_,
            " output(s))", ex.kept));
      }
      auto lit = ReadNpyFile(path);
      if (!lit.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "command '", ex.command, "' wrote a bad ", prefix, "result_", i,
            ".npy: ", lit.status().message(), ex.kept));
      }
      results.push_back(*std::move(lit));
    }
    if (fs::exists(absl::StrCat(dir, "/result_", num_results_, ".npy"))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "command '", ex.command, "' wrote more ", prefix,
          "results than the module's ", num_results_, " output(s)", ex.kept));
    }
    return results;
  }

  std::vector<std::string> argv_;
  std::string module_text_;
  int64_t num_results_;
  int64_t participants_;
  CompileOptions options_;
};

class CommandBackend : public Backend {
 public:
  CommandBackend(std::string program, std::vector<std::string> argv)
      : program_(std::move(program)), argv_(std::move(argv)) {}

  std::string name() const override { return "command:" + program_; }

  absl::Status Supports(const HloInstruction&) const override {
    // Only the program knows; it answers with exit status 3.
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Executable>> Compile(
      const HloModule& module, const CompileOptions& options) override {
    const HloComputation* entry = module.entry();
    if (entry == nullptr || entry->root() == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("module '", module.name(), "' has no entry root"));
    }
    for (const HloInstruction* p : entry->parameters()) {
      if (p != nullptr && p->shape().IsTuple()) {
        return absl::UnimplementedError(absl::StrCat(
            "the command protocol passes array and token arguments only; "
            "parameter ",
            p->parameter_number(), " (", p->name(), ") is ",
            p->shape().ToString()));
      }
    }
    // `-0.0` for negative zero: XLA's parser reads XLA's own `-0` as +0.
    PrintOptions print_options;
    print_options.print_negative_zero_as_decimal = true;
    return std::unique_ptr<Executable>(new CommandExecutable(
        argv_, PrintModule(module, print_options),
        CountLeaves(entry->root()->shape()),
        module.config().replica_count * module.config().num_partitions,
        options));
  }

 private:
  std::string program_;
  std::vector<std::string> argv_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateCommandBackend(
    const std::string& program) {
  std::vector<std::string> argv =
      absl::StrSplit(program, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (argv.empty()) {
    return absl::InvalidArgumentError("command backend: empty program");
  }
  const std::string& exe = argv[0];
  bool found = false;
  if (exe.find('/') != std::string::npos) {
    found = IsExecutableFile(exe);
  } else if (const char* path = std::getenv("PATH")) {
    for (absl::string_view d : absl::StrSplit(path, ':')) {
      if (IsExecutableFile(absl::StrCat(d.empty() ? "." : d, "/", exe))) {
        found = true;
        break;
      }
    }
  }
  if (!found) {
    return absl::FailedPreconditionError(
        absl::StrCat("command backend: '", exe, "' is not an executable file",
                     exe.find('/') == std::string::npos ? " on PATH" : ""));
  }
  return std::unique_ptr<Backend>(new CommandBackend(program, std::move(argv)));
}

}  // namespace hloref::backends
