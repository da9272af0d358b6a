// Runs one golden case on the interpreter (see runner.h).
#include "conformance/harness/runner.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "conformance/compare/compare.h"
#include "conformance/compare/enclosure_model.h"
#include "interpreter/enclosure.h"
#include "interpreter/host_queues.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/opcode.h"
#include "spec/types/primitive_type.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

void Flatten(const Literal& lit, std::vector<const Literal*>* out) {
  if (lit.shape().IsTuple()) {
    for (const Literal& e : lit.tuple_elements()) Flatten(e, out);
  } else {
    out->push_back(&lit);
  }
}

std::string Where(const GoldenCase& c) {
  return absl::StrCat("golden/", c.file, ":", c.line, " case '", c.name, "'");
}

CaseResult Result(Outcome o, std::string message) {
  CaseResult r;
  r.outcome = o;
  r.message = std::move(message);
  return r;
}

// A failure of the case itself (bad literal, wrong count), never of the
// interpreter; still a failure so it gets fixed.
CaseResult CaseBug(const GoldenCase& c, absl::string_view what) {
  return Result(Outcome::kFail, absl::StrCat(Where(c), ": bad case: ", what));
}

// Runs the module on the interpreter. A module whose header asks for
// several replicas or partitions runs replicated (Evaluator::RunReplicated,
// the same arguments on every participant); golden/README.md: collective
// cases are written so that the root is the same on every replica and the
// expected value holds for every one, so the participants' results must
// agree bit for bit and participant 0's is judged.
absl::StatusOr<EvalResult> RunOracle(Evaluator& evaluator,
                                     const HloModule& module,
                                     const std::vector<Literal>& args) {
  if (evaluator.ReplicaCount(module) * evaluator.PartitionCount(module) == 1) {
    return evaluator.Run(module, args);
  }
  std::vector<std::vector<Literal>> all = {args};
  HLOREF_ASSIGN_OR_RETURN(std::vector<EvalResult> results,
                          evaluator.RunReplicated(module, all));
  for (size_t r = 1; r < results.size(); ++r) {
    if (!results[r].value.BitwiseEquals(results[0].value)) {
      return absl::InternalError(absl::StrCat(
          "participant ", r, " returns ", results[r].value.ToString(),
          ", participant 0 returns ", results[0].value.ToString(),
          "; a golden case's expected value must hold on every replica"));
    }
  }
  return std::move(results[0]);
}

// The case's host transfers as values (golden/README.md: infeed, recv,
// expect_outfeed, expect_sent).
struct HostValues {
  std::vector<Literal> infeed;
  std::map<int64_t, std::vector<Literal>> recv;
  std::vector<Literal> outfeed;
  std::map<int64_t, std::vector<Literal>> sent;
};

// Parses the host-transfer literals; the error names the field and value.
absl::StatusOr<HostValues> ParseHostValues(const GoldenCase& c) {
  HostValues h;
  auto parse = [](absl::string_view field, size_t i,
                  const std::string& text) -> absl::StatusOr<Literal> {
    auto lit = ParseLiteral(text);
    if (!lit.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, " ", i, " '", text, "': ", lit.status().message()));
    }
    return lit;
  };
  for (size_t i = 0; i < c.infeed.size(); ++i) {
    HLOREF_ASSIGN_OR_RETURN(Literal v, parse("infeed", i, c.infeed[i]));
    h.infeed.push_back(std::move(v));
  }
  for (size_t i = 0; i < c.recv.size(); ++i) {
    HLOREF_ASSIGN_OR_RETURN(Literal v, parse("recv", i, c.recv[i].second));
    h.recv[c.recv[i].first].push_back(std::move(v));
  }
  for (size_t i = 0; i < c.expect_outfeed.size(); ++i) {
    HLOREF_ASSIGN_OR_RETURN(Literal v,
                            parse("expect_outfeed", i, c.expect_outfeed[i]));
    h.outfeed.push_back(std::move(v));
  }
  for (size_t i = 0; i < c.expect_sent.size(); ++i) {
    HLOREF_ASSIGN_OR_RETURN(Literal v,
                            parse("expect_sent", i, c.expect_sent[i].second));
    h.sent[c.expect_sent[i].first].push_back(std::move(v));
  }
  return h;
}

// Fills `queues` with copies of the case's inputs (the oracle may run
// twice: once for values, once for don't-care masks).
void FillQueues(const HostValues& h, HostQueues& queues) {
  for (const Literal& v : h.infeed) queues.PushInfeed(v);
  for (const auto& [channel, values] : h.recv) {
    for (const Literal& v : values) queues.PushRecv(channel, v);
  }
}

// Compares one list of host values (outfeed, or one channel's sends)
// with the expected list: same length, then each value flattened and
// compared element by element with `spec`. nullopt when they match.
std::optional<CaseResult> CompareHostList(const GoldenCase& c,
                                          absl::string_view what,
                                          const std::vector<Literal>& want,
                                          const std::vector<Literal>& got,
                                          const CompareSpec& spec) {
  auto list_text = [](const std::vector<Literal>& values) {
    std::string text;
    for (const Literal& v : values) {
      absl::StrAppend(&text, text.empty() ? "" : "; ", v.ToString());
    }
    return text.empty() ? std::string("nothing") : text;
  };
  if (want.size() != got.size()) {
    return Result(
        Outcome::kFail,
        absl::StrCat(Where(c), ": ", what, ": expected ", want.size(),
                     " value(s) (", list_text(want), "), the run ", "wrote ",
                     got.size(), " (", list_text(got), ")"));
  }
  for (size_t v = 0; v < want.size(); ++v) {
    std::vector<const Literal*> w, g;
    Flatten(want[v], &w);
    Flatten(got[v], &g);
    if (w.size() != g.size() ||
        !want[v].shape().SameDimensions(got[v].shape())) {
      return Result(
          Outcome::kFail,
          absl::StrCat(Where(c), ": ", what, " value ", v, ": expected shape ",
                       want[v].shape().ToString(false), ", got ",
                       got[v].shape().ToString(false)));
    }
    for (size_t i = 0; i < w.size(); ++i) {
      CompareOutcome co = CompareArrays(*w[i], *g[i], spec);
      if (co.ok) continue;
      if (co.index < 0) {
        return Result(
            Outcome::kFail,
            absl::StrCat(Where(c), ": ", what, " value ", v, ", leaf ", i,
                         ": expected shape ", co.expected, ", got ", co.got,
                         " [", co.rule, "]"));
      }
      return Result(Outcome::kFail,
                    absl::StrCat(Where(c), ": ", what, " value ", v, ", leaf ",
                                 i, ", element ", co.index, " ", co.multi_index,
                                 ": expected ", co.expected, ", got ", co.got,
                                 " [", co.rule, "]"));
    }
  }
  return std::nullopt;
}

// Judges what the run wrote to the host: the whole outfeed list and, per
// channel, the whole list of values sent; a channel the case does not
// name must have received nothing.
std::optional<CaseResult> CompareHostOutputs(
    const GoldenCase& c, const HostValues& want,
    const std::vector<Literal>& outfeed,
    const std::map<int64_t, std::vector<Literal>>& sent) {
  // One rule for all outputs applies to host values too; per-output rules
  // do not say which one would, so host values then compare exactly.
  const CompareSpec spec = c.compare.size() == 1 ? c.compare[0] : CompareSpec{};
  if (auto r = CompareHostList(c, "outfeed", want.outfeed, outfeed, spec)) {
    return r;
  }
  std::map<int64_t, bool> channels;
  for (const auto& entry : want.sent) channels[entry.first] = true;
  for (const auto& entry : sent) channels[entry.first] = true;
  static const std::vector<Literal> kNone;
  for (const auto& entry : channels) {
    const int64_t channel = entry.first;
    auto w = want.sent.find(channel);
    auto g = sent.find(channel);
    if (auto r = CompareHostList(
            c, absl::StrCat("values sent to the host on channel ", channel),
            w == want.sent.end() ? kNone : w->second,
            g == sent.end() ? kNone : g->second, spec)) {
      return r;
    }
  }
  return std::nullopt;
}

// Runs the case ignoring known_failure.
CaseResult RunRaw(const GoldenCase& c, const RunOptions& options) {
  ParseOptions parse_options;
  parse_options.file_name = absl::StrCat("golden/", c.file);
  auto module = ParseHloModule(c.module_text, parse_options);
  if (c.kind == CaseKind::kError && options.backend != nullptr) {
    // Error cases check hloref's own parser and verifier; a backend only
    // ever receives verified modules.
    return Result(Outcome::kSkipped,
                  absl::StrCat(Where(c),
                               ": error cases check hloref's "
                               "verifier, not backend ",
                               options.backend->name()));
  }
  if (c.kind == CaseKind::kError) {
    if (!module.ok()) {
      if (module.status().code() == absl::StatusCode::kUnimplemented) {
        return Result(
            Outcome::kUnsupported,
            absl::StrCat(Where(c), ": parser: ", module.status().message()));
      }
      if (c.expect_error == "parse") return Result(Outcome::kPass, "");
      return Result(
          Outcome::kFail,
          absl::StrCat(
              Where(c), ": expected verifier rule [", c.expect_error,
              "] but the module does not parse: ", module.status().message()));
    }
    if (c.expect_error == "parse") {
      return Result(Outcome::kFail,
                    absl::StrCat(Where(c),
                                 ": expected a parse error, but the module "
                                 "parsed"));
    }
    absl::Status verified = VerifyModule(**module);
    if (verified.ok()) {
      return Result(Outcome::kFail,
                    absl::StrCat(Where(c), ": expected rule [", c.expect_error,
                                 "], but the verifier accepted the module"));
    }
    std::string rule = RuleOf(verified);
    if (rule == c.expect_error) return Result(Outcome::kPass, "");
    if (verified.code() == absl::StatusCode::kUnimplemented) {
      return Result(Outcome::kUnsupported,
                    absl::StrCat(Where(c), ": verifier: ", verified.message()));
    }
    return Result(Outcome::kFail,
                  absl::StrCat(Where(c), ": expected rule [", c.expect_error,
                               "], got [", rule.empty() ? "no rule" : rule,
                               "]: ", verified.message()));
  }

  // Profile: a case pinned to one profile is skipped under the other.
  const CaseProfile run_profile = options.profile == Profile::kXla
                                      ? CaseProfile::kXla
                                      : CaseProfile::kPortable;
  if (c.profile != CaseProfile::kAny && c.profile != run_profile) {
    return Result(
        Outcome::kSkipped,
        absl::StrCat(Where(c), ": needs profile ", CaseProfileName(c.profile),
                     ", run uses ", CaseProfileName(run_profile)));
  }
  if (!module.ok()) {
    Outcome o = module.status().code() == absl::StatusCode::kUnimplemented
                    ? Outcome::kUnsupported
                    : Outcome::kFail;
    return Result(
        o, absl::StrCat(Where(c), ": parse: ", module.status().message()));
  }
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) {
    Outcome o = verified.code() == absl::StatusCode::kUnimplemented
                    ? Outcome::kUnsupported
                    : Outcome::kFail;
    return Result(o, absl::StrCat(Where(c), ": verify: ", verified.message()));
  }
  std::vector<Literal> args;
  for (size_t i = 0; i < c.args.size(); ++i) {
    auto lit = ParseLiteral(c.args[i]);
    if (!lit.ok()) {
      return CaseBug(c, absl::StrCat("arg ", i, " '", c.args[i],
                                     "': ", lit.status().message()));
    }
    args.push_back(*std::move(lit));
  }
  std::vector<Literal> expects;
  for (size_t i = 0; i < c.expects.size(); ++i) {
    auto lit = ParseLiteral(c.expects[i]);
    if (!lit.ok()) {
      return CaseBug(c, absl::StrCat("expect ", i, " '", c.expects[i],
                                     "': ", lit.status().message()));
    }
    expects.push_back(*std::move(lit));
  }
  auto host = ParseHostValues(c);
  if (!host.ok()) return CaseBug(c, host.status().message());
  const bool host_transfers = c.HasHostTransfers();
  std::string library;
  if (!c.custom_call_library.empty()) {
    auto path = CustomCallTestLibraryPath(c.custom_call_library);
    if (!path.ok()) {
      return Result(Outcome::kUnsupported,
                    absl::StrCat(Where(c), ": ", path.status().message()));
    }
    library = *std::move(path);
  }

  // The values to judge, flattened, and the oracle's don't-care masks for
  // the portable profile (null where none).
  std::vector<const Literal*> got;
  std::vector<const Literal*> dont_cares;
  std::optional<EvalResult> oracle;
  std::vector<std::vector<Literal>> other_participants;  // replicated
  std::vector<Literal> backend_values;
  std::string shape_text;
  const bool want_masks = options.profile == Profile::kPortable;
  // What the run wrote to the host (outfeed, sends per channel).
  std::vector<Literal> outfeed;
  std::map<int64_t, std::vector<Literal>> sent;
  if (options.backend == nullptr || want_masks) {
    // The oracle always gets queues: a case without host fields must then
    // write nothing to the host (an unexpected outfeed is a failure).
    HostQueues queues;
    FillQueues(*host, queues);
    EvaluatorOptions eval_options;
    eval_options.profile = options.profile;
    eval_options.host_queues = &queues;
    if (!library.empty()) eval_options.custom_call_libraries = {library};
    Evaluator evaluator(eval_options);
    if (host_transfers &&
        evaluator.ReplicaCount(**module) * evaluator.PartitionCount(**module) >
            1) {
      return CaseBug(c,
                     "host transfers need a module with one replica and one "
                     "partition (the participants would share the queues)");
    }
    auto result = RunOracle(evaluator, **module, args);
    if (result.ok() && options.backend == nullptr) {
      // Values given but never read are a case bug or an infeed/recv the
      // oracle skipped; either way the case does not hold as written.
      std::string unread;
      if (queues.infeed_size() > 0) {
        absl::StrAppend(&unread, queues.infeed_size(), " infeed value(s)");
      }
      for (const auto& entry : host->recv) {
        if (int64_t n = queues.recv_size(entry.first); n > 0) {
          absl::StrAppend(&unread, unread.empty() ? "" : ", ", n,
                          " recv value(s) on channel ", entry.first);
        }
      }
      if (!unread.empty()) {
        return Result(Outcome::kFail, absl::StrCat(Where(c), ": the run left ",
                                                   unread, " unread"));
      }
      outfeed = queues.TakeOutfeed();
      for (int64_t channel : queues.SentChannels()) {
        sent[channel] = queues.TakeSent(channel);
      }
    }
    if (result.ok()) {
      oracle = *std::move(result);
    } else if (options.backend == nullptr) {
      Outcome o = result.status().code() == absl::StatusCode::kUnimplemented
                      ? Outcome::kUnsupported
                      : Outcome::kFail;
      return Result(
          o, absl::StrCat(Where(c), ": evaluate: ", result.status().message()));
    }
  }
  if (options.backend == nullptr) {
    Flatten(oracle->value, &got);
    shape_text = oracle->value.shape().ToString(false);
  } else {
    // A backend's refusal is *unsupported*, a missing environment
    // *skipped*, anything else a failure (backends/backend.h).
    backends::Backend& backend = *options.backend;
    auto verdict = [&](absl::string_view step, const absl::Status& status) {
      Outcome o = status.code() == absl::StatusCode::kUnimplemented
                      ? Outcome::kUnsupported
                  : status.code() == absl::StatusCode::kFailedPrecondition
                      ? Outcome::kSkipped
                      : Outcome::kFail;
      return Result(o, absl::StrCat(Where(c), ": backend ", backend.name(),
                                    ": ", step, ": ", status.message()));
    };
    // Custom-call cases call targets of hloref's own test libraries, which
    // a backend cannot be expected to have: any refusal or error is
    // *unsupported*, never a failure (wrong values still fail).
    auto backend_error = [&](absl::string_view step,
                             const absl::Status& status) {
      if (library.empty()) return verdict(step, status);
      return Result(
          Outcome::kUnsupported,
          absl::StrCat(Where(c), ": backend ", backend.name(), ": ", step, ": ",
                       status.message(),
                       " (the case calls a target of hloref's test library ",
                       c.custom_call_library, ")"));
    };
    absl::Status supported = backends::SupportsModule(backend, **module);
    if (!supported.ok()) return backend_error("supports", supported);
    backends::CompileOptions compile_options = options.compile_options;
    if (!library.empty()) compile_options.custom_call_libraries = {library};
    auto executable = backend.Compile(**module, compile_options);
    if (!executable.ok()) return backend_error("compile", executable.status());
    absl::StatusOr<std::vector<Literal>> values;
    if (host_transfers) {
      // Unimplemented (a backend without host transfers) is unsupported.
      backends::HostTransfers transfers;
      transfers.infeed = host->infeed;
      transfers.recv = host->recv;
      values = (*executable)->RunWithHost(args, transfers);
      outfeed = std::move(transfers.outfeed);
      sent = std::move(transfers.sent);
    } else if ((*module)->config().replica_count *
                   (*module)->config().num_partitions >
               1) {
      // Replicated: every participant runs (Unimplemented: unsupported);
      // participant 0's results are judged below, the others after them.
      std::vector<std::vector<Literal>> one_list;
      one_list.push_back(args);
      auto all = (*executable)->RunReplicated(one_list);
      if (!all.ok()) {
        values = all.status();
      } else if (all->empty()) {
        values = absl::InternalError("the backend returned no participant");
      } else {
        values = std::move(all->front());
        for (size_t p = 1; p < all->size(); ++p) {
          other_participants.push_back(std::move((*all)[p]));
        }
      }
    } else {
      values = (*executable)->Run(args);
    }
    if (!values.ok()) return backend_error("run", values.status());
    backend_values = *std::move(values);
    for (const Literal& v : backend_values) {
      got.push_back(&v);
      absl::StrAppend(&shape_text, shape_text.empty() ? "" : ", ",
                      v.shape().ToString(false));
    }
  }
  if (want_masks && oracle.has_value()) {
    for (const EvaluatedOutput& out : oracle->outputs) {
      dont_cares.push_back(out.dont_care.has_value() ? &*out.dont_care
                                                     : nullptr);
    }
  }

  std::vector<const Literal*> want;
  for (const Literal& e : expects) Flatten(e, &want);
  if (want.size() != got.size()) {
    return Result(Outcome::kFail,
                  absl::StrCat(Where(c), ": expected ", want.size(),
                               " output(s), the module produced ", got.size(),
                               " (", shape_text, ")"));
  }
  if (c.compare.size() != 1 && c.compare.size() != want.size()) {
    return CaseBug(
        c, absl::StrCat(c.compare.size(), " comparisons for ", want.size(),
                        " outputs (give one, or one per output)"));
  }
  // Host outputs: always on the interpreter; on a backend when the case
  // gives host transfers (a plain Run reports none).
  if (options.backend == nullptr || host_transfers) {
    if (auto r = CompareHostOutputs(c, *host, outfeed, sent)) return *r;
  }
  // Program cases: the whole-program enclosures judge the values first
  // (issue 20, docs/enclosures.md). A value outside its enclosure is a
  // departure whatever the hand budget says; an output inside its
  // enclosures everywhere (no element unjudged) passes even where the
  // case's `compare:` budget, kept as the cross-check, is tighter than
  // what fusion, FMA contraction or excess precision may give; outputs
  // with unjudged elements are judged by the budget as before.
  std::vector<bool> enclosed(want.size(), false);
  std::string enclosure_note;
  if (c.kind == CaseKind::kProgram && other_participants.empty() &&
      !host_transfers) {
    EvaluatorOptions enclosure_oracle;
    enclosure_oracle.profile = options.profile;
    absl::StatusOr<ModuleEnclosure> enc = ComputeEnclosure(
        **module, args,
        PolicyEnclosureOptions(enclosure_oracle, options.deviations));
    absl::StatusOr<EnclosureVerdict> verdict =
        absl::InternalError("not computed");
    if (enc.ok()) {
      std::vector<Literal> values;
      for (const Literal* g : got) values.push_back(*g);
      verdict = JudgeWithEnclosure(*enc, values);
    } else {
      verdict = enc.status();
    }
    if (!verdict.ok()) {
      enclosure_note = absl::StrCat("whole-program enclosures not judged: ",
                                    verdict.status().message());
    } else {
      std::string summary = verdict->Summary();
      while (!summary.empty() && summary.back() == '\n') summary.pop_back();
      if (verdict->TotalFail() > 0) {
        return Result(
            Outcome::kFail,
            absl::StrCat(Where(c),
                         ": outside its whole-program enclosures: ", summary));
      }
      for (size_t i = 0; i < want.size() && i < verdict->outputs.size(); ++i) {
        enclosed[i] = verdict->outputs[i].unjudged == 0;
      }
      enclosure_note = absl::StrCat("whole-program enclosures: ", summary);
    }
  }
  CaseResult r = Result(Outcome::kPass, "");
  for (size_t i = 0; i < want.size(); ++i) {
    const CompareSpec& spec =
        c.compare.size() == 1 ? c.compare[0] : c.compare[i];
    const Literal* dont_care = i < dont_cares.size() ? dont_cares[i] : nullptr;
    CompareOutcome co = CompareArrays(*want[i], *got[i], spec, dont_care);
    r.masked += co.masked;
    if (co.ok) continue;
    if (co.index >= 0 && enclosed[i]) {
      absl::StrAppend(&enclosure_note, "; output ", i,
                      " passes inside its enclosures but not the case's "
                      "hand budget: element ",
                      co.index, " ", co.multi_index, ": expected ", co.expected,
                      ", got ", co.got, " [", co.rule, "]");
      continue;
    }
    if (co.index < 0) {
      return Result(
          Outcome::kFail,
          absl::StrCat(Where(c), ": output ", i, ": expected shape ",
                       co.expected, ", got ", co.got, " [", co.rule, "]"));
    }
    return Result(
        Outcome::kFail,
        absl::StrCat(Where(c), ": output ", i, ", element ", co.index, " ",
                     co.multi_index, ": expected ", co.expected, ", got ",
                     co.got, " [", co.rule, "]",
                     co.mismatches > 1 ? absl::StrCat(" (", co.mismatches,
                                                      " mismatching elements)")
                                       : std::string()));
  }
  // Replicated runs on a backend: the expected value holds on every
  // participant (golden/README.md "Collective cases").
  for (size_t p = 0; p < other_participants.size(); ++p) {
    const std::vector<Literal>& values = other_participants[p];
    if (values.size() != want.size()) {
      return Result(
          Outcome::kFail,
          absl::StrCat(Where(c), ": participant ", p + 1, " produced ",
                       values.size(), " output(s), expected ", want.size()));
    }
    for (size_t i = 0; i < want.size(); ++i) {
      const CompareSpec& spec =
          c.compare.size() == 1 ? c.compare[0] : c.compare[i];
      const Literal* dont_care =
          i < dont_cares.size() ? dont_cares[i] : nullptr;
      CompareOutcome co = CompareArrays(*want[i], values[i], spec, dont_care);
      if (co.ok) continue;
      return Result(Outcome::kFail,
                    absl::StrCat(Where(c), ": participant ", p + 1, ": output ",
                                 i, ", element ", co.index, " ", co.multi_index,
                                 ": expected ", co.expected, ", got ", co.got,
                                 " [", co.rule, "]"));
    }
  }
  r.message = enclosure_note;
  return r;
}

}  // namespace

absl::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kFail:
      return "fail";
    case Outcome::kUnsupported:
      return "unsupported";
    case Outcome::kSkipped:
      return "skipped";
    case Outcome::kKnownFailure:
      return "known failure";
  }
  return "?";
}

CaseResult RunGoldenCase(const GoldenCase& c, const RunOptions& options) {
  CaseResult r = RunRaw(c, options);
  if (c.known_failure.empty()) return r;
  switch (r.outcome) {
    case Outcome::kFail:
      r.outcome = Outcome::kKnownFailure;
      r.message =
          absl::StrCat(r.message, " (known failure: ", c.known_failure, ")");
      return r;
    case Outcome::kPass:
      return Result(Outcome::kFail,
                    absl::StrCat(Where(c),
                                 ": marked known_failure but now passes; "
                                 "remove the mark (reason was: ",
                                 c.known_failure, ")"));
    default:
      return r;
  }
}

std::string ModuleTypeClass(const HloModule& module, absl::string_view op) {
  auto opcode = ParseHloOpcode(op);
  if (!opcode.ok()) return "";
  auto class_of = [](const Shape& s) -> std::string {
    if (!s.IsArray()) return "";
    return std::string(TypeClassName(s.element_type()));
  };
  std::vector<const HloComputation*> order;
  if (module.entry() != nullptr) order.push_back(module.entry());
  for (const auto& comp : module.computations()) {
    if (comp.get() != module.entry()) order.push_back(comp.get());
  }
  for (const HloComputation* comp : order) {
    for (const auto& inst : comp->instructions()) {
      if (inst->opcode() != *opcode) continue;
      for (const HloInstruction* operand : inst->operands()) {
        std::string k = class_of(operand->shape());
        if (!k.empty()) return k;
      }
      const Shape& s = inst->shape();
      if (s.IsTuple() && s.tuple_size() > 0) return class_of(s.tuple_shapes(0));
      return class_of(s);
    }
  }
  return "";
}

std::string CaseTypeClass(const GoldenCase& c) {
  if (!c.type_class.empty()) return c.type_class;
  auto module = ParseHloModule(c.module_text);
  if (!module.ok()) return "";
  return ModuleTypeClass(**module, c.op());
}

int64_t Summary::total() const {
  int64_t t = 0;
  for (int64_t n : counts) t += n;
  return t;
}

std::string Summary::ToString() const {
  return absl::StrCat(
      "pass ", counts[static_cast<int>(Outcome::kPass)], ", fail ",
      counts[static_cast<int>(Outcome::kFail)], ", unsupported ",
      counts[static_cast<int>(Outcome::kUnsupported)], ", skipped ",
      counts[static_cast<int>(Outcome::kSkipped)], ", known failure ",
      counts[static_cast<int>(Outcome::kKnownFailure)], " (", total(),
      " cases)");
}

}  // namespace hloref::conformance
