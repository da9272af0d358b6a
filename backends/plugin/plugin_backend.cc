// The `plugin:` backend (see plugin_backend.h): the library runs in
// hloref-plugin-host, a child process spoken to over a socket
// (plugin_protocol.h), so that a plugin that crashes, aborts, exits or hangs
// fails the case it was running with a message instead of taking hloref
// down; the next request starts a fresh host.
#include "backends/plugin/plugin_backend.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "backends/plugin/hloref_plugin.h"
#include "backends/plugin/plugin_protocol.h"
#include "backends/plugin/plugin_replies.h"
#include "spec/ir/hlo_printer.h"
#include "spec/types/primitive_type.h"
#include "spec/util/status_macros.h"

extern char** environ;

namespace hloref::backends {
namespace {

namespace proto = plugin_protocol;

// How long the host may take to load the library and answer hello, and to
// answer a supports query.
constexpr absl::Duration kHelloTimeout = absl::Minutes(1);
constexpr absl::Duration kSupportsTimeout = absl::Minutes(1);

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0 &&
         S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Where hloref-plugin-host is: $HLOREF_PLUGIN_HOST, else beside the running
// program (an installed or relocated hloref), else where this build put it.
absl::StatusOr<std::string> FindHost() {
  if (const char* env = std::getenv("HLOREF_PLUGIN_HOST"); env != nullptr) {
    if (IsExecutableFile(env)) return std::string(env);
    return absl::FailedPreconditionError(absl::StrCat(
        "HLOREF_PLUGIN_HOST='", env, "' is not an executable file"));
  }
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::string beside;
  if (!ec) {
    beside = (self.parent_path() / "hloref-plugin-host").string();
    if (IsExecutableFile(beside)) return beside;
  }
  if (IsExecutableFile(HLOREF_PLUGIN_HOST_BUILD_PATH)) {
    return std::string(HLOREF_PLUGIN_HOST_BUILD_PATH);
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot find hloref-plugin-host, the process that runs plugin: "
      "libraries (looked at '",
      beside, "' and '", HLOREF_PLUGIN_HOST_BUILD_PATH,
      "'; set HLOREF_PLUGIN_HOST to its path)"));
}

std::string DescribeExit(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    const char* name = strsignal(sig);
    return absl::StrCat("crashed with signal ", sig, " (",
                        name != nullptr ? name : "unknown", ")");
  }
  if (WIFEXITED(wait_status)) {
    return absl::StrCat("exited with status ", WEXITSTATUS(wait_status));
  }
  return "stopped";
}

// One running hloref-plugin-host and the socket to it.
class Host {
 public:
  ~Host() {
    // Reap closes the socket (the host sees EOF and exits) exactly once: a
    // second close here could close a descriptor another thread has just
    // been given for its own host.
    Reap(absl::Seconds(2));
  }

  static absl::StatusOr<std::unique_ptr<Host>> Start(
      const std::string& host_path, const std::string& plugin_path) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      return absl::InternalError(
          absl::StrCat("socketpair: ", std::strerror(errno)));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    // dup2 to descriptor 3 clears close-on-exec there; sv[1] is never 3
    // when 0-2 are open, and if it were, dup2 onto itself keeps the flag,
    // so move it out of the way first.
    int child_end = sv[1];
    if (child_end == proto::kHostSocketFd) {
      child_end = ::fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
      ::close(sv[1]);
    }
    posix_spawn_file_actions_adddup2(&actions, child_end, proto::kHostSocketFd);
    std::vector<std::string> args = {host_path, plugin_path};
    std::vector<char*> argv = {args[0].data(), args[1].data(), nullptr};
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, host_path.c_str(), &actions, nullptr,
                               argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(child_end);
    if (rc != 0) {
      ::close(sv[0]);
      return absl::FailedPreconditionError(
          absl::StrCat("cannot start '", host_path, "': ", std::strerror(rc)));
    }
    auto host = std::unique_ptr<Host>(new Host);
    host->fd_ = sv[0];
    host->pid_ = pid;
    return host;
  }

  bool dead() const { return dead_; }

  // Sends a request and waits for its reply. When the host dies or does
  // not answer in time, the status says so (naming `what`, the request)
  // and the host is dead from then on.
  absl::StatusOr<std::string> Call(const std::string& request,
                                   absl::Duration timeout,
                                   const std::string& what) {
    if (dead_) return absl::InternalError("the plugin host is not running");
    if (!proto::SendFrame(fd_, request)) return Died(what);
    std::string reply;
    const auto deadline = timeout == absl::InfiniteDuration()
                              ? std::chrono::steady_clock::time_point::max()
                              : std::chrono::steady_clock::now() +
                                    absl::ToChronoNanoseconds(timeout);
    switch (proto::ReceiveFrame(fd_, &reply, deadline)) {
      case proto::ReceiveResult::kOk:
        return reply;
      case proto::ReceiveResult::kClosed:
        return Died(what);
      case proto::ReceiveResult::kTimedOut:
        Kill();
        return absl::DeadlineExceededError(absl::StrCat(
            what, " did not finish within ", absl::FormatDuration(timeout),
            "; the plugin's process was killed (the limit is "
            "the run timeout, --timeout)"));
      case proto::ReceiveResult::kCorrupt:
        Kill();
        return absl::InternalError(
            absl::StrCat(what,
                         ": the plugin's process sent a corrupt reply "
                         "(did the plugin write to descriptor 3?)"));
    }
    return absl::InternalError("unreachable");
  }

  // Sends a request that has no reply; a dead host is left for the next
  // Call to notice.
  void Post(const std::string& request) {
    if (!dead_) proto::SendFrame(fd_, request);
  }

 private:
  Host() = default;

  absl::Status Died(const std::string& what) {
    const int status = Reap(absl::Seconds(5));
    return absl::InternalError(absl::StrCat(
        what, ": the plugin's process ",
        status >= 0 ? DescribeExit(status) : std::string("stopped answering"),
        " (hloref itself is unharmed; the next case starts a new one)"));
  }

  void Kill() {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
    Reap(absl::Seconds(5));
  }

  // Waits for the host to exit (killing it after `grace`); returns its
  // wait status, or -1 if it had been reaped already.
  int Reap(absl::Duration grace) {
    dead_ = true;
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
    if (pid_ <= 0) return -1;
    const absl::Time until = absl::Now() + grace;
    int status = 0;
    for (;;) {
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_ || (r < 0 && errno != EINTR)) break;
      if (absl::Now() >= until) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    pid_ = -1;
    return status;
  }

  int fd_ = -1;
  pid_t pid_ = -1;
  bool dead_ = false;
};

// What a backend and its executables share: the library's identity and the
// current host, restarted after one died. Requests take turns (mu).
struct Connection {
  std::string path;
  std::string host_path;
  std::string plugin_name;
  bool has_supports = false;

  std::mutex mu;
  std::unique_ptr<Host> host;
  uint64_t generation = 0;  // bumped at each start

  // Starts a host if none is running and checks its hello. mu held.
  absl::Status EnsureHost() {
    if (host != nullptr && !host->dead()) return absl::OkStatus();
    HLOREF_ASSIGN_OR_RETURN(host, Host::Start(host_path, path));
    ++generation;
    proto::Writer w;
    w.U32(static_cast<uint32_t>(proto::Request::kHello));
    HLOREF_ASSIGN_OR_RETURN(
        std::string reply,
        host->Call(w.body(), kHelloTimeout,
                   absl::StrCat("loading plugin '", path, "'")));
    proto::Reader r(reply);
    const uint32_t magic = r.U32();
    r.U32();  // the host's ABI version, checked by the host itself
    const uint32_t code = r.U32();
    const std::string text(r.Bytes());
    const bool supports = r.U32() != 0;
    if (!r.done() || magic != proto::kMagic) {
      host.reset();
      return absl::FailedPreconditionError(absl::StrCat(
          "'", host_path, "' is not the plugin host of this hloref build"));
    }
    if (code != HLOREF_OK) {
      host.reset();
      return absl::FailedPreconditionError(text);
    }
    plugin_name = text;
    has_supports = supports;
    return absl::OkStatus();
  }

  plugin_internal::PluginIdentity identity() const {
    return {plugin_name, path};
  }

  absl::Status ToStatus(uint32_t code, absl::string_view text,
                        absl::string_view what) const {
    return plugin_internal::StatusFromPlugin(identity(), code, text, what);
  }

  // Compiles `text` in the current host. mu held.
  absl::StatusOr<uint64_t> Compile(const std::string& text,
                                   absl::Duration timeout,
                                   const std::string& module_name) {
    HLOREF_RETURN_IF_ERROR(EnsureHost());
    proto::Writer w;
    w.U32(static_cast<uint32_t>(proto::Request::kCompile));
    w.String(text);
    HLOREF_ASSIGN_OR_RETURN(
        std::string reply,
        host->Call(w.body(), timeout,
                   absl::StrCat("plugin '", plugin_name,
                                "' compile of module '", module_name, "'")));
    return plugin_internal::ReadCompileReply(identity(), reply);
  }
};

class PluginExecutable : public Executable {
 public:
  PluginExecutable(std::shared_ptr<Connection> conn, std::string text,
                   std::string module_name, absl::Duration timeout, uint64_t id)
      : conn_(std::move(conn)),
        text_(std::move(text)),
        module_name_(std::move(module_name)),
        timeout_(timeout),
        id_(id),
        generation_(conn_->generation) {}

  ~PluginExecutable() override {
    std::lock_guard<std::mutex> lock(conn_->mu);
    if (conn_->host != nullptr && conn_->generation == generation_) {
      proto::Writer w;
      w.U32(static_cast<uint32_t>(proto::Request::kFree));
      w.U64(id_);
      conn_->host->Post(w.body());
    }
  }

  absl::StatusOr<std::vector<Literal>> Run(
      absl::Span<const Literal> args) override {
    proto::Writer w;
    w.U32(static_cast<uint32_t>(proto::Request::kRun));
    w.U64(0);  // the executable id, patched below once the host is known
    w.U64(args.size());
    for (size_t k = 0; k < args.size(); ++k) {
      const Literal& arg = args[k];
      if (arg.shape().IsToken()) {
        w.String("token");
        w.I64(0);
        w.Bytes(nullptr, 0);
        continue;
      }
      if (!arg.shape().IsArray()) {
        return absl::UnimplementedError(
            absl::StrCat("plugin ABI v", HLOREF_PLUGIN_ABI_VERSION,
                         " passes array and token arguments only; argument ", k,
                         " is ", arg.shape().ToString()));
      }
      w.String(PrimitiveTypeName(arg.element_type()));
      w.I64(static_cast<int64_t>(arg.shape().dimensions().size()));
      for (int64_t d : arg.shape().dimensions()) w.I64(d);
      w.Bytes(arg.raw().data(), arg.raw().size());
    }
    std::lock_guard<std::mutex> lock(conn_->mu);
    // A host that died since the compile (an earlier run crashed) lost
    // this executable: compile it again in the new one.
    HLOREF_RETURN_IF_ERROR(conn_->EnsureHost());
    if (generation_ != conn_->generation) {
      HLOREF_ASSIGN_OR_RETURN(id_,
                              conn_->Compile(text_, timeout_, module_name_));
      generation_ = conn_->generation;
    }
    std::string request = w.body();
    std::memcpy(request.data() + sizeof(uint32_t), &id_, sizeof id_);
    HLOREF_ASSIGN_OR_RETURN(
        std::string reply,
        conn_->host->Call(
            request, timeout_,
            absl::StrCat("plugin '", conn_->plugin_name, "' run of module '",
                         module_name_, "'")));
    return plugin_internal::ReadRunReply(conn_->identity(), reply);
  }

 private:
  std::shared_ptr<Connection> conn_;
  std::string text_;
  std::string module_name_;
  absl::Duration timeout_;
  uint64_t id_;
  uint64_t generation_;
};

class PluginBackend : public Backend {
 public:
  explicit PluginBackend(std::shared_ptr<Connection> conn)
      : conn_(std::move(conn)) {}

  std::string name() const override { return "plugin:" + conn_->path; }

  absl::Status Supports(const HloInstruction& instruction) const override {
    std::lock_guard<std::mutex> lock(conn_->mu);
    if (!conn_->has_supports) return absl::OkStatus();
    HLOREF_RETURN_IF_ERROR(conn_->EnsureHost());
    proto::Writer w;
    w.U32(static_cast<uint32_t>(proto::Request::kSupports));
    w.String(HloOpcodeString(instruction.opcode()));
    w.String(PrimitiveTypeName(instruction.shape().element_type()));
    HLOREF_ASSIGN_OR_RETURN(
        std::string reply,
        conn_->host->Call(
            w.body(), kSupportsTimeout,
            absl::StrCat("plugin '", conn_->plugin_name, "' supports query")));
    proto::Reader r(reply);
    const uint32_t code = r.U32();
    const std::string message(r.Bytes());
    if (!r.done()) return absl::InternalError("corrupt supports reply");
    return conn_->ToStatus(code, message, "supports");
  }

  absl::StatusOr<std::unique_ptr<Executable>> Compile(
      const HloModule& module, const CompileOptions& options) override {
    std::string text = PrintModule(module);
    std::lock_guard<std::mutex> lock(conn_->mu);
    HLOREF_ASSIGN_OR_RETURN(
        const uint64_t id,
        conn_->Compile(text, options.timeout, std::string(module.name())));
    return std::unique_ptr<Executable>(
        new PluginExecutable(conn_, std::move(text), std::string(module.name()),
                             options.timeout, id));
  }

 private:
  std::shared_ptr<Connection> conn_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreatePluginBackend(
    const std::string& path) {
  auto conn = std::make_shared<Connection>();
  conn->path = path;
  HLOREF_ASSIGN_OR_RETURN(conn->host_path, FindHost());
  {
    std::lock_guard<std::mutex> lock(conn->mu);
    HLOREF_RETURN_IF_ERROR(conn->EnsureHost());
  }
  return std::unique_ptr<Backend>(new PluginBackend(std::move(conn)));
}

}  // namespace hloref::backends
