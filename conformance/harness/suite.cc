// The conformance suite runner (see suite.h).
#include "conformance/harness/suite.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "conformance/compare/enclosure_model.h"
#include "conformance/generators/random_programs.h"
#include "conformance/harness/golden_case.h"
#include "interpreter/enclosure.h"
#include "interpreter/evaluator.h"
#include "interpreter/host_queues.h"
#include "spec/ir/hlo_parser.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The harness's reading of a status (style.md 9.5).
Outcome OutcomeOf(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kUnimplemented:
      return Outcome::kUnsupported;
    case absl::StatusCode::kFailedPrecondition:
      return Outcome::kSkipped;
    default:
      return Outcome::kFail;
  }
}

struct CaseRef {
  bool golden = false;
  bool program = false;  // a random program (SuiteOptions::programs)
  bool bf16 = false;     // its element type
  size_t golden_index = 0;
  HloOpcode opcode = HloOpcode::kAdd;
  uint64_t seed = 0;
};

std::string RandomProgramId(uint64_t seed, bool bf16) {
  return absl::StrCat("programs/random/", bf16 ? "bf16" : "f32", "/", seed);
}

// A random program (SuiteOptions::programs) on `backend`, judged by its
// whole-program enclosures.
CaseRecord RunRandomProgram(uint64_t seed, bool bf16,
                            backends::Backend& backend,
                            const SuiteOptions& options) {
  const double start = Now();
  CaseRecord r;
  r.id = RandomProgramId(seed, bf16);
  r.suite = "programs";
  r.op = "program";
  r.type = bf16 ? "bf16" : "f32";
  RandomProgram p = MakeRandomProgram(seed, bf16);
  r.module_text = p.text;
  r.args = p.args;
  auto finish = [&](Outcome o, std::string message) {
    r.outcome = o;
    r.message = std::move(message);
    r.seconds = Now() - start;
    return r;
  };
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(p.text);
  if (!module.ok()) {
    return finish(Outcome::kFail,
                  absl::StrCat("generator: ", module.status().message()));
  }
  EvaluatorOptions oracle;
  oracle.max_bytes = options.max_bytes;
  absl::StatusOr<ModuleEnclosure> enc = ComputeEnclosure(
      **module, p.args, PolicyEnclosureOptions(oracle, options.deviations));
  if (!enc.ok()) {
    return finish(Outcome::kSkipped,
                  absl::StrCat("enclosures: ", enc.status().message()));
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> exe =
      backend.Compile(**module, options.compile_options);
  if (!exe.ok()) {
    return finish(OutcomeOf(exe.status()),
                  absl::StrCat("compile: ", exe.status().message()));
  }
  absl::StatusOr<std::vector<Literal>> got = (*exe)->Run(p.args);
  if (!got.ok()) {
    return finish(OutcomeOf(got.status()),
                  absl::StrCat("run: ", got.status().message()));
  }
  absl::StatusOr<EnclosureVerdict> verdict = JudgeWithEnclosure(*enc, *got);
  if (!verdict.ok()) {
    return finish(Outcome::kFail, std::string(verdict.status().message()));
  }
  for (const EnclosureOutputVerdict& o : verdict->outputs) {
    r.elements += o.pass + o.fail + o.unjudged + o.dont_care;
  }
  const std::string counts = absl::StrCat(
      "whole-program enclosures (", p.ops, " ops, ", p.whiles, " while, ",
      p.attentions, " attention): ", verdict->Summary());
  if (verdict->TotalFail() > 0) return finish(Outcome::kFail, counts);
  if (verdict->TotalUnjudged() > 0) {
    return finish(Outcome::kSkipped,
                  absl::StrCat(verdict->TotalUnjudged(), " of ", r.elements,
                               " elements unjudged; ", counts));
  }
  r.module_text.clear();  // passing cases keep nothing
  r.args.clear();
  return finish(Outcome::kPass, counts);
}

std::optional<CaseRecord> RejudgeWithDeviations(const GoldenCase& c,
                                                backends::Backend& backend,
                                                const SuiteOptions& options);

CaseRecord RunGolden(const GoldenCase& c, backends::Backend& backend,
                     const SuiteOptions& options) {
  CaseRecord r;
  r.id = c.Id();
  r.suite = "golden";
  r.op = c.op();
  r.type = CaseTypeClass(c);
  RunOptions run;
  // The interpreter certifies itself through the runner's own path, which
  // also checks golden/errors/ against the verifier; other backends are
  // compiled and run (error cases are then skipped).
  run.backend = options.backend_name == "interpreter" ? nullptr : &backend;
  run.compile_options = options.compile_options;
  run.deviations = options.deviations;
  if (options.profile.has_value()) {
    run.profile = *options.profile;
  } else {
    run.profile = c.profile == CaseProfile::kPortable ? Profile::kPortable
                                                      : Profile::kXla;
  }
  const double start = Now();
  CaseResult cr = RunGoldenCase(c, run);
  r.seconds = Now() - start;
  r.outcome = cr.outcome;
  r.message = cr.message;
  r.masked = cr.masked;
  if (cr.outcome == Outcome::kFail && run.backend != nullptr &&
      !options.deviations.empty()) {
    // A golden value is the exact semantics; a declared deviation (e.g.
    // flush-to-zero) changes what a conforming backend may return, which
    // only the oracle can recompute. Judge the case again like a
    // generated one: against the oracle, with the deviations' formulas.
    if (std::optional<CaseRecord> again =
            RejudgeWithDeviations(c, backend, options)) {
      if (again->outcome == Outcome::kPass) {
        r.outcome = Outcome::kPass;
        r.message = absl::StrCat("passes only under the declared deviations (",
                                 options.deviations.ToString(),
                                 "); golden: ", cr.message);
      }
    }
  }
  if (auto it = options.expected_failures.find(r.id);
      it != options.expected_failures.end()) {
    if (r.outcome == Outcome::kFail) {
      r.outcome = Outcome::kKnownFailure;
      r.message =
          absl::StrCat(r.message, " (expected failure: ", it->second, ")");
    } else if (r.outcome == Outcome::kPass) {
      r.outcome = Outcome::kFail;
      r.message = absl::StrCat(
          r.id,
          ": listed as an expected failure of this backend but passes; "
          "remove it from the list (reason was: ",
          it->second, ")");
    }
  }
  return r;
}

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> ParseExpectedFailures(
    absl::string_view text) {
  std::map<std::string, std::string> out;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find_first_of(" \t");
    absl::string_view reason =
        space == absl::string_view::npos
            ? absl::string_view()
            : absl::StripAsciiWhitespace(line.substr(space));
    if (reason.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected failures, line ", line_number, ": '", line,
                       "' needs a reason after the case id"));
    }
    const std::string id(line.substr(0, space));
    if (!out.emplace(id, std::string(reason)).second) {
      return absl::InvalidArgumentError(absl::StrCat("expected failures, line ",
                                                     line_number, ": case '",
                                                     id, "' is listed twice"));
    }
  }
  return out;
}

std::vector<HloOpcode> SelectedGeneratedOps(const std::set<std::string>& ops) {
  std::vector<HloOpcode> out;
  for (HloOpcode op : GeneratedOps()) {
    if (ops.empty() || ops.count(std::string(HloOpcodeString(op)))) {
      out.push_back(op);
    }
  }
  return out;
}

namespace {

// "replica 1" or "replica 1 partition 0" (participant r * partitions + p).
std::string ParticipantLabel(const GeneratedCase& c, size_t participant) {
  const int64_t id = static_cast<int64_t>(participant);
  if (c.partition_count == 1) return absl::StrCat("replica ", id);
  return absl::StrCat("replica ", id / c.partition_count, " partition ",
                      id % c.partition_count);
}

// The argument list of each participant (one shared list when the case has
// no per-participant arguments).
// The per-participant argument lists, or c.args as the one list every
// participant gets: views of the case's own lists (a copy would double
// the memory of large arguments: hloref diff on dumps).
absl::Span<const std::vector<Literal>> ParticipantArgs(const GeneratedCase& c) {
  if (!c.participant_args.empty()) return c.participant_args;
  return absl::MakeConstSpan(&c.args, 1);
}

const std::vector<Literal>& ArgsOf(const GeneratedCase& c, size_t i) {
  return c.participant_args.empty() ? c.args : c.participant_args[i];
}

// What one oracle run produced: a result per participant and, for host
// cases, what the run wrote to the host.
struct OracleRun {
  std::vector<EvalResult> results;
  std::vector<Literal> outfeed;
  std::map<int64_t, std::vector<Literal>> sent;
};

absl::StatusOr<OracleRun> RunOracle(
    const GeneratedCase& c, const EvaluatorOptions& base,
    absl::Span<const std::vector<Literal>> participant_args,
    const backends::HostTransfers& host_inputs) {
  OracleRun run;
  if (c.replicated()) {
    Evaluator evaluator(base);
    HLOREF_ASSIGN_OR_RETURN(
        run.results, evaluator.RunReplicated(*c.module, participant_args));
    return run;
  }
  EvaluatorOptions options = base;
  HostQueues queues;
  if (c.uses_host) {
    for (const Literal& v : host_inputs.infeed) queues.PushInfeed(v);
    for (const auto& [channel, values] : host_inputs.recv) {
      for (const Literal& v : values) queues.PushRecv(channel, v);
    }
    options.host_queues = &queues;
  }
  Evaluator evaluator(options);
  HLOREF_ASSIGN_OR_RETURN(EvalResult result,
                          evaluator.Run(*c.module, participant_args[0]));
  run.results.push_back(std::move(result));
  if (c.uses_host) {
    run.outfeed = queues.TakeOutfeed();
    for (int64_t channel : queues.SentChannels()) {
      run.sent[channel] = queues.TakeSent(channel);
    }
  }
  return run;
}

// Outfeed and host-transfer send values are data movement: they must
// match the oracle's bit for bit (policy kBits of outfeed / send), leaf by
// leaf. Returns an empty string when they match.
std::string CompareHostValue(const Literal& want, const Literal& got) {
  std::vector<const Literal*> w, g;
  FlattenLiteral(want, &w);
  FlattenLiteral(got, &g);
  if (w.size() != g.size()) {
    return absl::StrCat("expected ", w.size(), " leaves (", want.ShapeString(),
                        "), got ", g.size(), " (", got.ShapeString(), ")");
  }
  for (size_t leaf = 0; leaf < w.size(); ++leaf) {
    const Literal& a = *w[leaf];
    const Literal& b = *g[leaf];
    if (!a.shape().IsArray() && !b.shape().IsArray()) continue;  // tokens
    if (a.ShapeString() != b.ShapeString()) {
      return absl::StrCat("leaf ", leaf, ": expected shape ", a.ShapeString(),
                          ", got ", b.ShapeString());
    }
    // c128 has no 64-bit pattern (GetRawBits): compare both f64 halves.
    auto same_bits = [&](int64_t i) {
      if (a.element_type() != PrimitiveType::kC128) {
        return a.GetRawBits(i) == b.GetRawBits(i);
      }
      const std::complex<double> x = a.GetAsComplex(i);
      const std::complex<double> y = b.GetAsComplex(i);
      return std::bit_cast<uint64_t>(x.real()) ==
                 std::bit_cast<uint64_t>(y.real()) &&
             std::bit_cast<uint64_t>(x.imag()) ==
                 std::bit_cast<uint64_t>(y.imag());
    };
    for (int64_t i = 0; i < a.element_count(); ++i) {
      if (!same_bits(i)) {
        return absl::StrCat("leaf ", leaf, ", element ", i, ": expected ",
                            a.ElementToString(i), ", got ",
                            b.ElementToString(i), " (EXACT bits)");
      }
    }
  }
  return "";
}

// Judges the values a run wrote to the host against the oracle's (or, with
// a flushed oracle, against either). Empty when they match.
std::string CompareHostOutputs(const OracleRun& oracle,
                               const OracleRun* flushed,
                               const backends::HostTransfers& got) {
  auto judge = [&](const OracleRun& o) -> std::string {
    if (o.outfeed.size() != got.outfeed.size()) {
      return absl::StrCat("outfeed: the oracle wrote ", o.outfeed.size(),
                          " value(s), the backend ", got.outfeed.size());
    }
    for (size_t i = 0; i < o.outfeed.size(); ++i) {
      std::string why = CompareHostValue(o.outfeed[i], got.outfeed[i]);
      if (!why.empty()) return absl::StrCat("outfeed value ", i, ": ", why);
    }
    std::set<int64_t> channels;
    for (const auto& [channel, values] : o.sent) channels.insert(channel);
    for (const auto& [channel, values] : got.sent) channels.insert(channel);
    static const std::vector<Literal> kNone;
    for (int64_t channel : channels) {
      auto wi = o.sent.find(channel);
      auto gi = got.sent.find(channel);
      const std::vector<Literal>& want =
          wi == o.sent.end() ? kNone : wi->second;
      const std::vector<Literal>& have =
          gi == got.sent.end() ? kNone : gi->second;
      if (want.size() != have.size()) {
        return absl::StrCat("send to host on channel ", channel,
                            ": the oracle sent ", want.size(),
                            " value(s), the backend ", have.size());
      }
      for (size_t i = 0; i < want.size(); ++i) {
        std::string why = CompareHostValue(want[i], have[i]);
        if (!why.empty()) {
          return absl::StrCat("send to host on channel ", channel, ", value ",
                              i, ": ", why);
        }
      }
    }
    return "";
  };
  std::string why = judge(oracle);
  if (!why.empty() && flushed != nullptr && judge(*flushed).empty()) {
    return "";
  }
  return why;
}

}  // namespace

CaseRecord RunGeneratedCase(const GeneratedCase& c, backends::Backend& backend,
                            const SuiteOptions& options) {
  CaseRecord r;
  r.id = c.id;
  r.suite = "generated";
  r.op = std::string(HloOpcodeString(c.opcode));
  r.type = std::string(PrimitiveTypeName(c.type));
  const double start = Now();
  auto keep_case = [&] {
    r.module_text = c.module_text;
    for (const Literal& a : c.args) r.args.push_back(a);
    r.participant_args = c.participant_args;
    r.replica_count = c.replica_count;
    r.partition_count = c.partition_count;
    r.host.infeed = c.host.infeed;
    r.host.recv = c.host.recv;
  };
  auto finish = [&](Outcome o, std::string message) {
    r.outcome = o;
    r.message = std::move(message);
    r.seconds = Now() - start;
    if (o == Outcome::kFail) keep_case();
    return r;
  };
  if (c.replicated() && c.uses_host) {
    // Executable::RunReplicated has no host queues and RunWithHost runs
    // one participant: no backend entry point can run such a case.
    return finish(Outcome::kUnsupported,
                  "replicated host transfers: no backend entry point runs "
                  "several participants with host queues");
  }
  const size_t participants =
      static_cast<size_t>(c.replica_count * c.partition_count);
  const absl::Span<const std::vector<Literal>> participant_args =
      ParticipantArgs(c);
  // The oracle: XLA-profile values always (the portable profile masks the
  // don't-care elements it reports under both), with S and m.
  EvaluatorOptions eval_options;
  eval_options.profile = Profile::kXla;
  eval_options.compute_error_data = true;
  // The comparator reads the outputs only: the result held once.
  eval_options.outputs_take_the_result = true;
  // A participant that reaches a collective late (a loaded machine running
  // several jobs) must not turn into a spurious DeadlineExceeded: deadlocks
  // the rendezvous can prove are reported at once anyway, so the wait for
  // a slow participant can be long without slowing any verdict down.
  eval_options.collective_timeout = absl::Seconds(60);
  if (options.max_bytes > 0) eval_options.max_bytes = options.max_bytes;
  auto oracle = RunOracle(c, eval_options, participant_args, c.host);
  if (!oracle.ok()) {
    const absl::Status& s = oracle.status();
    if (s.code() == absl::StatusCode::kUnimplemented) {
      return finish(Outcome::kUnsupported,
                    absl::StrCat("oracle: ", s.message()));
    }
    if (s.code() == absl::StatusCode::kOutOfRange ||
        s.code() == absl::StatusCode::kResourceExhausted) {
      // Data-dependent undefined behaviour or a limit: excluded (9.5).
      return finish(Outcome::kSkipped, absl::StrCat("oracle: ", s.message()));
    }
    return finish(Outcome::kFail, absl::StrCat("oracle error: ", s.message()));
  }
  if (oracle->results.size() != participants) {
    return finish(Outcome::kFail,
                  absl::StrCat("oracle error: ", oracle->results.size(),
                               " results for ", participants, " participants"));
  }
  if (absl::Status s = backends::SupportsModule(backend, *c.module); !s.ok()) {
    return finish(OutcomeOf(s), absl::StrCat("supports: ", s.message()));
  }
  auto exe = backend.Compile(*c.module, options.compile_options);
  if (!exe.ok()) {
    return finish(OutcomeOf(exe.status()),
                  absl::StrCat("compile: ", exe.status().message()));
  }
  std::vector<std::vector<Literal>> got;
  backends::HostTransfers host;
  if (c.replicated()) {
    auto ran = (*exe)->RunReplicated(participant_args);
    if (!ran.ok()) {
      return finish(OutcomeOf(ran.status()),
                    absl::StrCat("run replicated: ", ran.status().message()));
    }
    got = *std::move(ran);
    if (got.size() != participants) {
      return finish(
          Outcome::kFail,
          absl::StrCat("run replicated: the backend returned ", got.size(),
                       " results for ", participants, " participants (",
                       c.replica_count, " replicas x ", c.partition_count,
                       " partitions)"));
    }
  } else if (c.uses_host) {
    host.infeed = c.host.infeed;
    host.recv = c.host.recv;
    auto ran = (*exe)->RunWithHost(c.args, host);
    if (!ran.ok()) {
      return finish(OutcomeOf(ran.status()),
                    absl::StrCat("run with host: ", ran.status().message()));
    }
    got.push_back(*std::move(ran));
  } else {
    auto ran = (*exe)->Run(c.args);
    if (!ran.ok()) {
      return finish(OutcomeOf(ran.status()),
                    absl::StrCat("run: ", ran.status().message()));
    }
    got.push_back(*std::move(ran));
  }
  CompareConfig config;
  config.profile = options.profile.value_or(Profile::kXla);
  config.deviations = options.deviations;
  // Under a declared flush-to-zero the oracle also runs on flushed inputs
  // (arguments and host inputs); an element passes if it matches either.
  std::optional<OracleRun> flushed;
  if (!options.deviations.ftz_types.empty()) {
    bool changed = false;
    std::vector<std::vector<Literal>> flushed_args;
    for (const std::vector<Literal>& a : participant_args) {
      bool one = false;
      flushed_args.push_back(
          FlushSubnormalArgs(a, options.deviations.ftz_types, &one));
      changed |= one;
    }
    backends::HostTransfers flushed_host;
    if (c.uses_host) {
      bool one = false;
      flushed_host.infeed =
          FlushSubnormalArgs(c.host.infeed, options.deviations.ftz_types, &one);
      changed |= one;
      for (const auto& [channel, values] : c.host.recv) {
        flushed_host.recv[channel] =
            FlushSubnormalArgs(values, options.deviations.ftz_types, &one);
        changed |= one;
      }
    }
    if (changed) {
      auto alt = RunOracle(c, eval_options, flushed_args, flushed_host);
      if (alt.ok() && alt->results.size() == participants) {
        flushed = *std::move(alt);
      }
    }
  }
  // Every participant is judged against the oracle's result for the same
  // participant; the record keeps the first failing one's explanation
  // (participant order, so the verdict does not depend on --jobs).
  int failing = 0;
  std::string first_failure;
  for (size_t i = 0; i < participants; ++i) {
    ComparisonResult cmp = CompareToOracle(
        *c.module, ArgsOf(c, i), oracle->results[i],
        flushed.has_value() ? &flushed->results[i] : nullptr, got[i], config);
    r.elements += cmp.elements;
    r.masked += cmp.masked;
    r.max_ulp_distance = std::max(r.max_ulp_distance, cmp.max_ulp_distance);
    r.worst_margin = std::max(r.worst_margin, cmp.worst_margin);
    if (cmp.ok) continue;
    ++failing;
    if (!first_failure.empty()) continue;
    if (c.replicated()) {
      const std::string label = ParticipantLabel(c, i);
      for (ElementFailure& f : cmp.failures) {
        f.why = absl::StrCat(label, ": ", f.why);
      }
      first_failure = absl::StrCat(label, ": ", cmp.Summary());
    } else {
      first_failure = cmp.Summary();
    }
    r.failures = cmp.failures;
  }
  if (failing > 0) {
    if (c.replicated()) {
      absl::StrAppend(&first_failure, " [", failing, " of ", participants,
                      " participants fail]");
    }
    return finish(Outcome::kFail, absl::StrCat(c.id, ": ", first_failure));
  }
  if (c.uses_host) {
    std::string why = CompareHostOutputs(
        *oracle, flushed.has_value() ? &*flushed : nullptr, host);
    if (!why.empty()) {
      return finish(Outcome::kFail, absl::StrCat(c.id, ": ", why));
    }
  }
  return finish(Outcome::kPass, "");
}

namespace {

// A golden op case as a generated one (module, arguments), for judging
// against the oracle; nullopt when it is not such a case.
std::optional<CaseRecord> RejudgeWithDeviations(const GoldenCase& c,
                                                backends::Backend& backend,
                                                const SuiteOptions& options) {
  if (c.kind != CaseKind::kOp || c.ops.empty()) return std::nullopt;
  auto opcode = ParseHloOpcode(c.ops[0]);
  auto module = ParseHloModule(c.module_text);
  if (!opcode.ok() || !module.ok() || !VerifyModule(**module).ok()) {
    return std::nullopt;
  }
  GeneratedCase g;
  g.id = c.Id();
  g.opcode = *opcode;
  g.module_text = c.module_text;
  g.module = std::shared_ptr<const HloModule>(std::move(*module));
  for (const std::string& text : c.args) {
    auto lit = ParseLiteral(text);
    if (!lit.ok()) return std::nullopt;
    g.args.push_back(*std::move(lit));
  }
  return RunGeneratedCase(g, backend, options);
}

}  // namespace

absl::StatusOr<GeneratedCase> CaseForReplay(const CaseRecord& record) {
  if (record.module_text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("case ", record.id,
                     " kept no module (only failing generated cases do)"));
  }
  auto opcode = ParseHloOpcode(record.op);
  if (!opcode.ok()) return opcode.status();
  GeneratedCase c;
  c.id = record.id;
  c.opcode = *opcode;
  // "gen/<op>/<seed>"
  const size_t slash = record.id.rfind('/');
  if (slash == std::string::npos ||
      !absl::SimpleAtoi(record.id.substr(slash + 1), &c.seed)) {
    c.seed = 0;
  }
  c.module_text = record.module_text;
  for (const Literal& a : record.args) c.args.push_back(a);
  c.participant_args = record.participant_args;
  c.replica_count = record.replica_count;
  c.partition_count = record.partition_count;
  c.host.infeed = record.host.infeed;
  c.host.recv = record.host.recv;
  c.uses_host =
      !c.host.infeed.empty() || !c.host.recv.empty() ||
      record.module_text.find("outfeed(") != std::string::npos ||
      record.module_text.find("is_host_transfer=true") != std::string::npos;
  return c;
}

absl::StatusOr<std::pair<int, int>> ShardFromEnvironment() {
  const char* total = std::getenv("GTEST_TOTAL_SHARDS");
  const char* index = std::getenv("GTEST_SHARD_INDEX");
  if (total == nullptr && index == nullptr) return std::make_pair(0, 1);
  int t = 0, i = 0;
  if (total == nullptr || index == nullptr || !absl::SimpleAtoi(total, &t) ||
      !absl::SimpleAtoi(index, &i) || t < 1 || i < 0 || i >= t) {
    return absl::InvalidArgumentError(
        absl::StrCat("GTEST_TOTAL_SHARDS='", total ? total : "(unset)",
                     "' and GTEST_SHARD_INDEX='", index ? index : "(unset)",
                     "' must both be set, with 0 <= index < total"));
  }
  return std::make_pair(i, t);
}

absl::StatusOr<SuiteResult> RunSuite(const SuiteOptions& options) {
  if (!options.backend_factory) {
    return absl::InvalidArgumentError("no backend factory");
  }
  if (options.jobs < 1 || options.total_shards < 1 || options.shard_index < 0 ||
      options.shard_index >= options.total_shards) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad jobs (", options.jobs, ") or shard (",
                     options.shard_index, " of ", options.total_shards, ")"));
  }
  const double start = Now();
  std::vector<GoldenCase> golden;
  std::vector<CaseRef> all;
  if (options.golden) {
    auto loaded = LoadGoldenSuite(
        options.golden_dir.empty() ? DefaultGoldenDir() : options.golden_dir);
    if (!loaded.ok()) return loaded.status();
    golden = *std::move(loaded);
    for (size_t i = 0; i < golden.size(); ++i) {
      const GoldenCase& c = golden[i];
      if (!options.ops.empty()) {
        bool wanted = false;
        for (const std::string& op : c.ops) wanted |= options.ops.count(op) > 0;
        if (!wanted) continue;
      }
      if (!options.types.empty() && !options.types.count(CaseTypeClass(c))) {
        continue;
      }
      CaseRef ref;
      ref.golden = true;
      ref.golden_index = i;
      all.push_back(ref);
    }
  }
  if (options.generated && options.count > 0) {
    const std::vector<HloOpcode> ops = SelectedGeneratedOps(options.ops);
    if (ops.empty()) {
      return absl::InvalidArgumentError(
          "no generated op matches --ops (see `hloref conformance "
          "--list-ops`)");
    }
    for (int64_t k = 0; k < options.count; ++k) {
      CaseRef ref;
      ref.opcode = ops[k % ops.size()];
      ref.seed = options.seed + static_cast<uint64_t>(k) / ops.size();
      all.push_back(ref);
    }
  }
  if (options.programs > 0 && options.ops.empty()) {
    for (bool bf16 : {false, true}) {
      if (!options.types.empty() &&
          !options.types.count(bf16 ? "bf16" : "f32")) {
        continue;
      }
      for (int64_t k = 0; k < options.programs; ++k) {
        CaseRef ref;
        ref.program = true;
        ref.bf16 = bf16;
        ref.seed = options.seed + static_cast<uint64_t>(k);
        all.push_back(ref);
      }
    }
  }
  std::vector<CaseRef> mine;
  for (size_t i = 0; i < all.size(); ++i) {
    if (static_cast<int>(i % options.total_shards) == options.shard_index) {
      mine.push_back(all[i]);
    }
  }
  SuiteResult result;
  std::vector<CaseRecord> records(mine.size());
  std::vector<char> keep(mine.size(), 1);
  std::atomic<size_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex progress_mu;
  absl::Status factory_error;
  std::mutex error_mu;
  auto worker = [&] {
    auto backend = options.backend_factory();
    if (!backend.ok()) {
      std::lock_guard<std::mutex> lock(error_mu);
      factory_error = backend.status();
    }
    for (size_t i; (i = next.fetch_add(1)) < mine.size();) {
      const CaseRef& ref = mine[i];
      CaseRecord& r = records[i];
      if (!backend.ok()) {
        r.id = ref.golden    ? golden[ref.golden_index].Id()
               : ref.program ? RandomProgramId(ref.seed, ref.bf16)
                             : absl::StrCat("gen/", HloOpcodeString(ref.opcode),
                                            "/", ref.seed);
        r.outcome = OutcomeOf(backend.status());
        r.message = absl::StrCat("backend: ", backend.status().message());
      } else if (ref.golden) {
        r = RunGolden(golden[ref.golden_index], **backend, options);
      } else if (ref.program) {
        r = RunRandomProgram(ref.seed, ref.bf16, **backend, options);
      } else {
        auto c = GenerateCase(ref.opcode, ref.seed);
        if (!c.ok()) {
          r.id =
              absl::StrCat("gen/", HloOpcodeString(ref.opcode), "/", ref.seed);
          r.suite = "generated";
          r.op = std::string(HloOpcodeString(ref.opcode));
          r.outcome = OutcomeOf(c.status());
          r.message = absl::StrCat("generator: ", c.status().message());
        } else if (!options.types.empty() && !options.types.count(std::string(
                                                 PrimitiveTypeName(c->type)))) {
          keep[i] = 0;
        } else {
          r = RunGeneratedCase(*c, **backend, options);
        }
      }
      const int64_t d = done.fetch_add(1) + 1;
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progress_mu);
        options.progress(d, static_cast<int64_t>(mine.size()));
      }
    }
  };
  std::vector<std::thread> threads;
  const int jobs =
      std::max(1, std::min<int>(options.jobs, static_cast<int>(mine.size())));
  for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  if (!factory_error.ok() && OutcomeOf(factory_error) == Outcome::kFail) {
    return factory_error;
  }
  for (size_t i = 0; i < records.size(); ++i) {
    if (!keep[i]) continue;
    if (!mine[i].golden && !mine[i].program) ++result.generated_drawn;
    result.summary.Add(records[i].outcome);
    result.records.push_back(std::move(records[i]));
  }
  result.seconds = Now() - start;
  return result;
}

}  // namespace hloref::conformance
