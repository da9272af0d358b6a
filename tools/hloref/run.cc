// `hloref run MODULE.hlo [ARG ...]`: evaluate a module on the oracle.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "conformance/compare/enclosure_model.h"
#include "interpreter/custom_call_registry.h"
#include "interpreter/enclosure.h"
#include "interpreter/evaluator.h"
#include "interpreter/host_queues.h"
#include "spec/ir/annotation_custom_calls.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/npy.h"
#include "spec/verifier/verifier.h"
#include "tools/hloref/arguments.h"
#include "tools/hloref/backend_job.h"
#include "tools/hloref/command_line.h"
#include "tools/hloref/cpu_flags.h"
#include "tools/hloref/module_loader.h"
#include "tools/hloref/real_dumps.h"
#include "tools/hloref/run_backend.h"
#include "tools/hloref/subcommands.h"

namespace hloref::tools {
namespace {

constexpr char kRunHelp[] =
    R"(Usage: hloref run [options] MODULE.hlo [ARG ...]

Parses and verifies MODULE.hlo, evaluates its entry computation on the
reference interpreter (or compiles and runs it on another backend with
--backend) and prints every result as an HLO literal.

Each ARG gives one entry parameter, in parameter order:
  path/to/x.npy           a NumPy file (see README: types NumPy cannot name
                          are stored as a one-field structured dtype)
  'f32[2] {1, 2}'         an HLO literal with its shape
  '{1, 2}'                an HLO literal without shape: the parameter's
                          shape is used
  path/to/x.txt           a file holding an HLO literal (either form)

Options:
  --backend=NAME          run on this backend instead of the oracle: cpu
                          (the LLVM JIT), plugin:PATH.so, command:PROGRAM
                          (default: interpreter); same arguments and output
%CPUFLAGS%  --out=DIR               also write DIR/result_<i>.npy, one per array in
                          the result (a tuple result flattened in order)
  --profile=xla|portable  xla (default): implementation-defined elements
                          take XLA's value; portable: they are reported as
                          don't-care on stderr
  --replicas=N            run N replicas, one thread each, with the same
                          ARGs (default: the module header's
                          replica_count; num_partitions comes from the
                          header). With more than one participant every
                          result is printed after a label ("replica 1:",
                          "replica 1 partition 0:") and --out writes
                          DIR/result_<r>_<i>.npy (DIR/result_<r>_<p>_<i>.npy
                          with partitions). A collective that cannot
                          complete (a replica skips it) is an error naming
                          the instruction and the replicas
  --participant-args=DIR  per-participant arguments instead of ARGs:
                          DIR/p<i>/arg_<k>.npy for participant i (replica
                          i / partitions, partition i % partitions), as a
                          generated conformance case directory holds them
  --collective-timeout=SECONDS
                          how long a replica waits at a collective for the
                          others before the run fails (default 5)
  --partitions=N          num_partitions for a module whose header does
                          not say (like --replicas; a header that says
                          otherwise is a contradiction)
  --random-args[=SEED]    draw every parameter instead of ARGs (seed 0 by
                          default): floats uniform in [-1, 1), signed
                          integers in [-8, 8], unsigned in [0, 8], pred
                          both; integers the module uses as dynamic-slice /
                          dynamic-update-slice starts, gather / scatter
                          indices or while bounds are kept in range. What
                          was drawn is said on stderr
  --fill-elided=zeros|random[:SEED]
                          give elided constants (`constant({...})`, as
                          XLA's dumps abbreviate large constants) values;
                          without it a module with elided constants is
                          refused before anything is evaluated, naming
                          them. What was filled is said on stderr
  --copy-args             read .npy ARGs into memory; by default the
                          oracle maps large ones (copy-on-write: the files
                          never change), which must then stay unchanged
                          during the run (one that shrinks is reported
                          and the run fails)
  --print=full|summary|none
                          full (default): every element; summary: per
                          result its shape, min, max, mean and NaN / inf
                          counts; none: print no result (with --out, the
                          .npy files are still written)
  --max-bytes=BYTES       the most bytes of values the evaluation may hold
                          at once, and the most one literal written in the
                          module may take (default: the machine's available
                          memory, MemAvailable); shapes themselves are never
                          limited
  --threads=N             the oracle's worker threads for large dots
                          (default 1; 0: the cores); results are
                          bit-identical for every N
  --no-progress           no progress line on stderr (by default a run
                          longer than 3 s reports every 3 s: entry
                          instructions done of total, elapsed time, bytes
                          held)
  --progress-interval=SECONDS
                          the progress line's interval, and how long a run
                          goes before the first one (default 3; any
                          positive number, e.g. 0.5)
  --max-elements=N        refuse values with more than N elements (default:
                          no limit)
  --max-while-iterations=N  stop a while loop after N iterations
  --max-call-depth=N      refuse calls nested deeper than N (default 200)
  --timeout=SECONDS       wall-time limit of the evaluation (with --backend:
                          of the backend's compile and of its run, for
                          the out-of-process plugin: and command: backends)
  --infeed=VALUE          queue one value for infeed (repeatable, read in
                          order); VALUE as an ARG (.npy file, literal or
                          literal file; a tuple infeed needs a literal)
  --recv=CHANNEL:VALUE    queue one value for a recv with
                          is_host_transfer=true on channel_id CHANNEL
                          (repeatable)
                          Outfeed values (and host-transfer sends) are
                          printed after the result as `outfeed <i>: ...`
                          (`send <channel> <i>: ...`) and, with --out,
                          written as outfeed_<i>.npy (send_<c>_<i>.npy)
  --custom-call-lib=PATH  a shared library whose symbols serve custom-call
                          targets with the ABI `void f(void* out, void**
                          in)` (repeatable, searched in order; nothing is
                          loaded unless given)
  --seed=N                seed of the rng op's generator (default 0)
  --enclosure             also compute the whole-program error enclosure
                          (docs/enclosures.md): after the result, per
                          result the largest relative radius of its
                          elements' enclosures and the count of unjudged
                          elements (too wide, undecided, no rule, don't
                          care), with the reasons; the oracle's own value
                          is judged against it (exit 1 if it falls
                          outside). Oracle only, one participant
  --enclosure-threshold=R relative radius above which an element is
                          unjudged (default 0.0625)
  --help                  show this text

Exit status: 0 success, 1 bad input or evaluation error, 2 usage error.
)";

std::string RunHelp() {
  std::string help = kRunHelp;
  size_t at = help.find("%CPUFLAGS%");
  if (at != std::string::npos) help.replace(at, 10, kCpuFlagsHelp);
  return help;
}

void Flatten(const Literal& lit, std::vector<const Literal*>* out) {
  if (lit.shape().IsTuple()) {
    for (const Literal& e : lit.tuple_elements()) Flatten(e, out);
  } else {
    out->push_back(&lit);
  }
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "hloref run: %s\n",
               NameLimitFlags(status.message()).c_str());
  return 1;
}

// Notes on stderr about implementation-defined elements of one result.
void NoteMarks(const EvalResult& result, const std::string& label,
               Profile profile) {
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    const EvaluatedOutput& out = result.outputs[i];
    if (!out.dont_care.has_value()) continue;
    int64_t masked = 0;
    for (int64_t j = 0; j < out.dont_care->element_count(); ++j) {
      masked += out.dont_care->GetAsInt64(j) != 0;
    }
    if (masked == 0) continue;
    std::fprintf(stderr,
                 "note: %sresult %zu has %lld implementation-defined "
                 "element(s) (%s)%s\n",
                 label.c_str(), i, static_cast<long long>(masked),
                 absl::StrJoin(out.impl_ids, ", ").c_str(),
                 profile == Profile::kPortable
                     ? ": don't-care under the portable profile"
                     : ": XLA's values printed");
  }
}

// --replicas=N (or a header with several replicas/partitions): runs every
// participant with the same arguments and prints each result labelled.
// With --participant-args=DIR each participant i reads DIR/p<i>/arg_<k>.npy
// instead.
int RunReplicas(Evaluator& evaluator, const HloModule& module,
                std::vector<Literal> args, std::optional<std::string> out_dir,
                const EvaluatorOptions& options,
                std::optional<std::string> participant_dir,
                PrintMode print_mode) {
  const int64_t partitions = evaluator.PartitionCount(module);
  std::vector<std::vector<Literal>> all;
  if (participant_dir.has_value()) {
    auto read =
        ReadParticipantArgs(*participant_dir, *module.entry(),
                            evaluator.ReplicaCount(module) * partitions);
    if (!read.ok()) return Fail(read.status());
    all = *std::move(read);
  } else {
    all.push_back(std::move(args));
  }
  auto results = evaluator.RunReplicated(module, all);
  if (!results.ok()) return Fail(results.status());
  if (absl::Status s = CheckMappedNpyFiles(); !s.ok()) return Fail(s);
  if (out_dir.has_value()) {
    std::error_code ec;
    std::filesystem::create_directories(*out_dir, ec);
    if (ec) {
      return Fail(absl::InternalError(absl::StrCat(
          "cannot create directory '", *out_dir, "': ", ec.message())));
    }
  }
  for (size_t id = 0; id < results->size(); ++id) {
    const int64_t r = static_cast<int64_t>(id) / partitions;
    const int64_t p = static_cast<int64_t>(id) % partitions;
    const std::string label =
        partitions == 1 ? absl::StrCat("replica ", r)
                        : absl::StrCat("replica ", r, " partition ", p);
    const EvalResult& result = (*results)[id];
    if (print_mode == PrintMode::kFull) {
      std::printf("%s: %s\n", label.c_str(), result.value.ToString().c_str());
    } else if (print_mode == PrintMode::kSummary) {
      std::fputs(
          SummarizeResult(result.value, absl::StrCat(label, ": ")).c_str(),
          stdout);
    }
    NoteMarks(result, absl::StrCat(label, ": "), options.profile);
    if (!out_dir.has_value()) continue;
    std::vector<const Literal*> leaves;
    Flatten(result.value, &leaves);
    for (size_t i = 0; i < leaves.size(); ++i) {
      const std::string path =
          partitions == 1
              ? absl::StrCat(*out_dir, "/result_", r, "_", i, ".npy")
              : absl::StrCat(*out_dir, "/result_", r, "_", p, "_", i, ".npy");
      absl::Status s = WriteNpyFile(*leaves[i], path);
      if (!s.ok()) return Fail(s);
    }
  }
  // Host queues are shared by the participants.
  if (options.host_queues != nullptr) {
    const std::vector<Literal> outfeed = options.host_queues->TakeOutfeed();
    for (size_t i = 0; i < outfeed.size(); ++i) {
      std::printf("outfeed %zu: %s\n", i, outfeed[i].ToString().c_str());
    }
  }
  return 0;
}

}  // namespace

int RunRun(int argc, char** argv) {
  std::vector<OptionSpec> specs = {
      {"backend", true},
      {"out", true},
      {"profile", true},
      {"replicas", true},
      {"partitions", true},
      {"random-args", true, /*repeatable=*/false, /*optional_value=*/true},
      {"fill-elided", true},
      {"copy-args", false},
      {"print", true},
      {"max-bytes", true},
      {"no-progress", false},
      {"progress-interval", true},
      {"threads", true},
      {"max-call-depth", true},
      {"participant-args", true},
      {"collective-timeout", true},
      {"max-elements", true},
      {"max-while-iterations", true},
      {"timeout", true},
      {"infeed", true, /*repeatable=*/true},
      {"recv", true, /*repeatable=*/true},
      {"custom-call-lib", true, /*repeatable=*/true},
      {"seed", true},
      {"enclosure", false},
      {"enclosure-threshold", true},
      {"help", false}};
  AddCpuOptionSpecs(&specs);
  auto cl = CommandLine::Parse(argc, argv, 2, specs);
  if (!cl.ok()) {
    std::fprintf(stderr, "hloref run: %s\n",
                 std::string(cl.status().message()).c_str());
    return 2;
  }
  if (cl->Has("help")) {
    std::fputs(RunHelp().c_str(), stdout);
    return 0;
  }
  if (cl->positional().empty()) {
    std::fprintf(stderr, "hloref run: no module given\n\n%s",
                 RunHelp().c_str());
    return 2;
  }
  if (absl::Status s = ApplyCpuFlags(*cl); !s.ok()) {
    std::fprintf(stderr, "hloref run: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  const std::string backend_name = cl->Get("backend").value_or("interpreter");
  EvaluatorOptions options;
  std::string profile = cl->Get("profile").value_or("xla");
  if (profile == "xla") {
    options.profile = Profile::kXla;
  } else if (profile == "portable") {
    options.profile = Profile::kPortable;
  } else {
    std::fprintf(stderr,
                 "hloref run: --profile must be 'xla' or 'portable', got "
                 "'%s'\n",
                 profile.c_str());
    return 2;
  }
  auto replicas = cl->GetInt("replicas", 1);
  auto partitions = cl->GetInt("partitions", 1);
  // No per-value element limit unless asked for: what is allocated is
  // limited in bytes.
  auto max_elements =
      cl->GetInt("max-elements", std::numeric_limits<int64_t>::max() / 2);
  auto max_bytes = cl->GetInt("max-bytes", DefaultMaxBytes());
  auto max_call_depth = cl->GetInt("max-call-depth", options.max_call_depth);
  auto max_iters =
      cl->GetInt("max-while-iterations", options.max_while_iterations);
  auto timeout =
      cl->GetInt("timeout", absl::ToInt64Seconds(options.max_wall_time));
  for (const auto* s : {&replicas, &partitions, &max_elements, &max_bytes,
                        &max_call_depth, &max_iters, &timeout}) {
    if (!s->ok()) {
      std::fprintf(stderr, "hloref run: %s\n",
                   std::string(s->status().message()).c_str());
      return 2;
    }
  }
  auto collective_timeout = cl->GetInt(
      "collective-timeout", absl::ToInt64Seconds(options.collective_timeout));
  if (!collective_timeout.ok()) {
    std::fprintf(stderr, "hloref run: %s\n",
                 std::string(collective_timeout.status().message()).c_str());
    return 2;
  }
  if (*replicas < 1 || *replicas > 1024 || *partitions < 1 ||
      *partitions > 1024 || *collective_timeout <= 0) {
    std::fprintf(
        stderr,
        "hloref run: --replicas must be in [1, 1024], --partitions in [1, "
        "1024] and --collective-timeout positive\n");
    return 2;
  }
  options.collective_timeout = absl::Seconds(*collective_timeout);
  if (*max_elements <= 0 || *max_iters <= 0 || *timeout <= 0 ||
      *max_bytes <= 0 || *max_call_depth <= 0 ||
      *max_call_depth > std::numeric_limits<int>::max()) {
    std::fprintf(stderr, "hloref run: limits must be positive\n");
    return 2;
  }
  options.max_elements_per_value = *max_elements;
  options.max_bytes = *max_bytes;
  auto threads = cl->GetInt("threads", options.threads);
  if (!threads.ok() || *threads < 0 || *threads > 1024) {
    std::fprintf(stderr, "hloref run: --threads must be in [0, 1024]\n");
    return 2;
  }
  options.threads = static_cast<int>(*threads);
  auto progress_interval = PositiveSeconds(*cl, "progress-interval", 3);
  if (!progress_interval.ok()) {
    std::fprintf(stderr, "hloref run: %s\n",
                 std::string(progress_interval.status().message()).c_str());
    return 2;
  }
  options.progress_interval = absl::Seconds(*progress_interval);
  // Set once a progress line was printed: the run then ends with a line
  // of its totals.
  auto progress_reported = std::make_shared<bool>(false);
  if (!cl->Has("no-progress")) {
    options.progress =
        [progress_reported](const EvaluatorOptions::Progress& p) {
          *progress_reported = true;
          std::fprintf(stderr,
                       "hloref run: progress: %lld of %lld entry instructions, "
                       "%lld evaluated in all, %.1f s, %.1f MiB held (peak "
                       "%.1f MiB), --max-bytes=%lld needed so far\n",
                       static_cast<long long>(p.entry_done),
                       static_cast<long long>(p.entry_total),
                       static_cast<long long>(p.evaluated),
                       absl::ToDoubleSeconds(p.elapsed),
                       p.live_bytes / 1048576.0, p.peak_bytes / 1048576.0,
                       static_cast<long long>(p.limit_bytes));
        };
  }
  options.max_call_depth = static_cast<int>(*max_call_depth);
  PrintMode print_mode = PrintMode::kFull;
  if (std::optional<std::string> print = cl->Get("print")) {
    auto mode = ParsePrintMode(*print);
    if (!mode.ok()) {
      std::fprintf(stderr, "hloref run: %s\n",
                   std::string(mode.status().message()).c_str());
      return 2;
    }
    print_mode = *mode;
  }
  std::optional<FillElided> fill_elided;
  if (std::optional<std::string> fill = cl->Get("fill-elided")) {
    auto how = ParseFillElided(*fill);
    if (!how.ok()) {
      std::fprintf(stderr, "hloref run: %s\n",
                   std::string(how.status().message()).c_str());
      return 2;
    }
    fill_elided = *how;
  }
  std::optional<uint64_t> random_args;
  if (std::optional<std::string> seed = cl->Get("random-args")) {
    auto value = ParseRandomArgsSeed(*seed);
    if (!value.ok()) {
      std::fprintf(stderr, "hloref run: %s\n",
                   std::string(value.status().message()).c_str());
      return 2;
    }
    if (cl->positional().size() > 1 || cl->Has("participant-args")) {
      std::fprintf(stderr,
                   "hloref run: --random-args draws every parameter; give "
                   "no ARGs (or --participant-args) with it\n");
      return 2;
    }
    random_args = *value;
  }
  options.max_while_iterations = *max_iters;
  options.max_wall_time = absl::Seconds(*timeout);
  if (std::optional<std::string> seed = cl->Get("seed")) {
    if (!absl::SimpleAtoi(*seed, &options.rng_seed)) {
      std::fprintf(stderr,
                   "hloref run: --seed must be an unsigned 64-bit integer, "
                   "got '%s'\n",
                   seed->c_str());
      return 2;
    }
  }
  // Libraries are opened only because they are named here; a bad path is
  // reported before anything runs.
  options.custom_call_libraries = cl->GetAll("custom-call-lib");
  for (const std::string& lib : options.custom_call_libraries) {
    absl::Status opened = OpenCustomCallLibrary(lib);
    if (!opened.ok()) return Fail(opened);
  }
  HostQueues host_queues;
  options.host_queues = &host_queues;
  // The same values for a backend other than the oracle.
  std::vector<Literal> infeed_values;
  std::map<int64_t, std::vector<Literal>> recv_values;
  for (const std::string& value : cl->GetAll("infeed")) {
    auto lit = ReadArgument(value, nullptr);
    if (!lit.ok()) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("--infeed=", value, ": ", lit.status().message())));
    }
    infeed_values.push_back(*lit);
    host_queues.PushInfeed(*std::move(lit));
  }
  for (const std::string& value : cl->GetAll("recv")) {
    const size_t colon = value.find(':');
    int64_t channel = 0;
    if (colon == std::string::npos ||
        !absl::SimpleAtoi(value.substr(0, colon), &channel)) {
      std::fprintf(stderr, "hloref run: --recv takes CHANNEL:VALUE, got '%s'\n",
                   value.c_str());
      return 2;
    }
    auto lit = ReadArgument(value.substr(colon + 1), nullptr);
    if (!lit.ok()) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("--recv=", value, ": ", lit.status().message())));
    }
    recv_values[channel].push_back(*lit);
    host_queues.PushRecv(channel, *std::move(lit));
  }

  const std::string& module_path = cl->positional()[0];
  std::vector<std::string> warnings;
  ParseOptions parse_options;
  parse_options.warnings = &warnings;
  parse_options.max_literal_bytes = *max_bytes;
  parse_options.limit_flag = "--max-bytes";
  auto module = LoadModuleFile(module_path, parse_options);
  for (const std::string& w : warnings) std::fprintf(stderr, "%s\n", w.c_str());
  if (!module.ok()) return Fail(module.status());
  if (cl->Has("replicas")) {
    // The verifier derives collective shapes from the header's counts, so
    // the count is set before verifying; a header that states another
    // count is a contradiction, not something to override.
    HloModuleConfig& config = *(*module)->mutable_config();
    if (config.replica_count != 1 && config.replica_count != *replicas) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("--replicas=", *replicas,
                       ", but the module header says replica_count=",
                       config.replica_count)));
    }
    config.replica_count = *replicas;
  }
  if (cl->Has("partitions")) {
    HloModuleConfig& config = *(*module)->mutable_config();
    if (config.num_partitions != 1 && config.num_partitions != *partitions) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("--partitions=", *partitions,
                       ", but the module header says num_partitions=",
                       config.num_partitions)));
    }
    config.num_partitions = *partitions;
  }
  // Shapes are not limited here: what is allocated is (--max-bytes and
  // the evaluator's own accounting).
  VerifyOptions verify_options;
  verify_options.max_elements = std::numeric_limits<int64_t>::max() / 2;
  absl::Status verified = VerifyModule(**module, verify_options);
  if (!verified.ok()) return Fail(verified);

  // Annotation custom-calls (Sharding, MoveToHost, ...), said once.
  if (auto counts = CountAnnotationCustomCalls(**module); !counts.empty()) {
    std::fprintf(stderr,
                 "hloref run: note: annotation custom-calls %s: XLA removes "
                 "them before code generation; each is evaluated as the "
                 "identity of its operand (docs/real-dumps.md)\n",
                 AnnotationCountsToString(counts).c_str());
  }
  // Elided constants: refused before anything is evaluated, unless the
  // user asked for made-up values.
  {
    auto notes = ResolveElidedConstants(**module, module_path, fill_elided);
    if (!notes.ok()) return Fail(notes.status());
    if (!notes->empty()) {
      std::fprintf(stderr,
                   "hloref run: --fill-elided: %zu elided constant(s) "
                   "given made-up values:\n",
                   notes->size());
    }
    for (const std::string& n : *notes) {
      std::fprintf(stderr, "  %s\n", n.c_str());
    }
  }

  const HloComputation& entry = *(*module)->entry();
  std::vector<Literal> args;
  if (random_args.has_value()) {
    std::vector<std::string> notes;
    auto drawn = DrawArguments(entry, *random_args, &notes, 0, *max_bytes);
    if (!drawn.ok()) return Fail(drawn.status());
    args = *std::move(drawn);
    if (!notes.empty()) {
      std::fprintf(stderr,
                   "hloref run: --random-args: %zu parameter(s) drawn from "
                   "seed %llu:\n",
                   notes.size(), static_cast<unsigned long long>(*random_args));
    }
    for (const std::string& n : notes) {
      std::fprintf(stderr, "  %s\n", n.c_str());
    }
  } else if (cl->positional().size() == 1 && entry.num_parameters() > 0 &&
             !cl->Has("participant-args")) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        module_path, " takes ", entry.num_parameters(),
        entry.num_parameters() == 1 ? " argument" : " arguments",
        ", got 0: give one ARG per parameter, or --random-args[=SEED] to "
        "draw them")));
  }
  if (const size_t given = cl->positional().size() - 1;
      given > static_cast<size_t>(entry.num_parameters())) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat(module_path, " takes ", entry.num_parameters(),
                     entry.num_parameters() == 1 ? " argument" : " arguments",
                     ", got ", given)));
  }
  for (size_t i = 1; i < cl->positional().size(); ++i) {
    int64_t p = static_cast<int64_t>(i) - 1;
    const HloInstruction* param =
        p < entry.num_parameters() ? entry.parameter(p) : nullptr;
    // Only the oracle's runs map: they check the files afterwards.
    auto lit =
        ReadArgument(cl->positional()[i], param,
                     backend_name == "interpreter" && !cl->Has("copy-args"));
    if (!lit.ok()) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " (parameter ", p,
          param ? absl::StrCat(" '", param->name(), "'") : std::string(),
          "): ", lit.status().message())));
    }
    args.push_back(*std::move(lit));
  }

  Evaluator evaluator(options);
  if (cl->Has("enclosure") &&
      (backend_name != "interpreter" ||
       evaluator.ReplicaCount(**module) * evaluator.PartitionCount(**module) >
           1)) {
    std::fprintf(stderr,
                 "hloref run: --enclosure is computed by the oracle for one "
                 "participant: it does not combine with --backend, "
                 "--replicas or --partitions\n");
    return 2;
  }
  if (backend_name != "interpreter") {
    BackendRunRequest request;
    request.backend_name = backend_name;
    request.module = module->get();
    request.args = std::move(args);
    request.partitions = evaluator.PartitionCount(**module);
    request.participants =
        evaluator.ReplicaCount(**module) * request.partitions;
    if (std::optional<std::string> dir = cl->Get("participant-args")) {
      auto read = ReadParticipantArgs(*dir, entry, request.participants);
      if (!read.ok()) return Fail(read.status());
      request.participant_args = *std::move(read);
    }
    request.uses_host = cl->Has("infeed") || cl->Has("recv");
    request.host.infeed = std::move(infeed_values);
    request.host.recv = std::move(recv_values);
    request.uses_host = request.uses_host || ModuleUsesHost(**module);
    request.out_dir = cl->Get("out");
    request.custom_call_libraries = options.custom_call_libraries;
    request.print_mode = print_mode;
    if (cl->Has("timeout")) request.timeout = absl::Seconds(*timeout);
    return RunOnBackend(std::move(request));
  }
  const bool replicated =
      evaluator.ReplicaCount(**module) * evaluator.PartitionCount(**module) > 1;
  if (cl->Has("participant-args") &&
      (!replicated || cl->positional().size() > 1)) {
    std::fprintf(stderr,
                 "hloref run: --participant-args replaces the ARGs of a "
                 "module with several participants (--replicas or the "
                 "header's replica_count / num_partitions)\n");
    return 2;
  }
  if (replicated) {
    return RunReplicas(evaluator, **module, std::move(args), cl->Get("out"),
                       options, cl->Get("participant-args"), print_mode);
  }
  // --enclosure: computed before the run consumes the arguments.
  std::optional<ModuleEnclosure> enclosure;
  EnclosureJudgeOptions judge_options;
  if (std::optional<std::string> t = cl->Get("enclosure-threshold")) {
    if (!absl::SimpleAtod(*t, &judge_options.max_relative_radius) ||
        !(judge_options.max_relative_radius >= 0)) {
      std::fprintf(stderr,
                   "hloref run: --enclosure-threshold must be a number >= 0, "
                   "got '%s'\n",
                   t->c_str());
      return 2;
    }
  }
  if (cl->Has("enclosure")) {
    auto enc = ComputeEnclosure(**module, args,
                                conformance::PolicyEnclosureOptions(options));
    if (!enc.ok()) return Fail(enc.status());
    enclosure = *std::move(enc);
  }
  // The arguments are not needed afterwards: the evaluator may move them
  // (into a while loop's carried tuple) instead of copying.
  const absl::Time run_start = absl::Now();
  auto result = evaluator.RunConsuming(**module, std::move(args));
  if (!result.ok()) return Fail(result.status());
  if (absl::Status s = CheckMappedNpyFiles(); !s.ok()) return Fail(s);
  if (*progress_reported) {
    // The peak held and the smallest --max-bytes this run is accepted with
    // (EvalResult::limit_bytes: the limit is checked before an op that may
    // write its result over a dying operand, so it can exceed the peak).
    std::fprintf(stderr,
                 "hloref run: done: %lld instructions evaluated in %.1f s, "
                 "peak %.1f MiB held; the run fits --max-bytes=%lld\n",
                 static_cast<long long>(result->instructions_evaluated),
                 absl::ToDoubleSeconds(absl::Now() - run_start),
                 result->peak_bytes / 1048576.0,
                 static_cast<long long>(result->limit_bytes));
  }

  if (print_mode == PrintMode::kFull) {
    std::fputs(result->value.ToString().c_str(), stdout);
    std::fputs("\n", stdout);
  } else if (print_mode == PrintMode::kSummary) {
    std::fputs(SummarizeResult(result->value, "").c_str(), stdout);
  }
  // Values the module sent to the host, after the result.
  const std::vector<Literal> outfeed = host_queues.TakeOutfeed();
  for (size_t i = 0; i < outfeed.size(); ++i) {
    std::printf("outfeed %zu: %s\n", i, outfeed[i].ToString().c_str());
  }
  std::vector<std::pair<int64_t, std::vector<Literal>>> sent;
  for (int64_t channel : host_queues.SentChannels()) {
    sent.emplace_back(channel, host_queues.TakeSent(channel));
    for (size_t i = 0; i < sent.back().second.size(); ++i) {
      std::printf("send %lld %zu: %s\n", static_cast<long long>(channel), i,
                  sent.back().second[i].ToString().c_str());
    }
  }
  for (size_t i = 0; i < result->outputs.size(); ++i) {
    const EvaluatedOutput& out = result->outputs[i];
    if (!out.dont_care.has_value()) continue;
    int64_t masked = 0;
    for (int64_t j = 0; j < out.dont_care->element_count(); ++j) {
      masked += out.dont_care->GetAsInt64(j) != 0;
    }
    if (masked > 0) {
      std::fprintf(stderr,
                   "note: result %zu has %lld implementation-defined "
                   "element(s) (%s)%s\n",
                   i, static_cast<long long>(masked),
                   absl::StrJoin(out.impl_ids, ", ").c_str(),
                   options.profile == Profile::kPortable
                       ? ": don't-care under the portable profile"
                       : ": XLA's values printed");
    }
  }

  int exit_code = 0;
  if (enclosure.has_value()) {
    // RunConsuming leaves outputs[i].value empty: the leaves are in value.
    std::vector<const Literal*> leaves;
    Flatten(result->value, &leaves);
    std::vector<Literal> values;
    for (const Literal* leaf : leaves) values.push_back(*leaf);
    auto verdict = JudgeWithEnclosure(*enclosure, values, judge_options);
    if (!verdict.ok()) return Fail(verdict.status());
    for (size_t i = 0; i < verdict->outputs.size(); ++i) {
      const EnclosureOutputVerdict& o = verdict->outputs[i];
      const int64_t total = o.pass + o.fail + o.unjudged + o.dont_care;
      std::printf(
          "enclosure result %zu: largest relative radius %.3g, unjudged %lld "
          "of %lld (%lld too wide, %lld undecided or without a rule, %lld "
          "don't care)\n",
          i, o.max_relative_radius,
          static_cast<long long>(o.unjudged + o.dont_care),
          static_cast<long long>(total), static_cast<long long>(o.wide),
          static_cast<long long>(o.unjudged - o.wide),
          static_cast<long long>(o.dont_care));
      for (const std::string& r : o.reasons) {
        std::printf("  unjudged: %s\n", r.c_str());
      }
      if (o.fail > 0) {
        exit_code = 1;
        std::fprintf(stderr,
                     "hloref run: internal inconsistency: %lld element(s) "
                     "of the oracle's result %zu lie outside the enclosure\n",
                     static_cast<long long>(o.fail), i);
        for (const EnclosureFailure& f : o.failures) {
          std::fprintf(stderr, "  %s\n", f.ToString().c_str());
        }
      }
    }
  }

  if (std::optional<std::string> dir = cl->Get("out")) {
    std::error_code ec;
    std::filesystem::create_directories(*dir, ec);
    if (ec) {
      return Fail(absl::InternalError(absl::StrCat("cannot create directory '",
                                                   *dir, "': ", ec.message())));
    }
    std::vector<const Literal*> leaves;
    Flatten(result->value, &leaves);
    for (size_t i = 0; i < leaves.size(); ++i) {
      std::string path = absl::StrCat(*dir, "/result_", i, ".npy");
      absl::Status s = WriteNpyFile(*leaves[i], path);
      if (!s.ok()) return Fail(s);
    }
    // Host outputs: arrays only (.npy holds one array).
    for (size_t i = 0; i < outfeed.size(); ++i) {
      if (!outfeed[i].shape().IsArray()) continue;
      absl::Status s =
          WriteNpyFile(outfeed[i], absl::StrCat(*dir, "/outfeed_", i, ".npy"));
      if (!s.ok()) return Fail(s);
    }
    for (const auto& [channel, values] : sent) {
      for (size_t i = 0; i < values.size(); ++i) {
        if (!values[i].shape().IsArray()) continue;
        absl::Status s = WriteNpyFile(
            values[i], absl::StrCat(*dir, "/send_", channel, "_", i, ".npy"));
        if (!s.ok()) return Fail(s);
      }
    }
  }
  return exit_code;
}

}  // namespace hloref::tools
