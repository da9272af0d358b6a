#include "tools/hloref/run_backend.h"

#include <cstdio>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "backends/registry.h"
#include "spec/types/npy.h"

namespace hloref::tools {

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "hloref run: %s\n", message.c_str());
  return 1;
}

// Checks the leaves a backend returned against the module's root shape,
// before anything is printed or written: their count, and each leaf's
// element type and dimensions (the layout may differ; a dynamic dimension
// at most its bound). A backend's wrong answer is never printed as if it
// were right.
absl::Status CheckLeaves(const Shape& root,
                         const std::vector<Literal>& leaves) {
  std::vector<const Shape*> want;
  std::vector<const Shape*> stack = {&root};
  while (!stack.empty()) {
    const Shape* s = stack.back();
    stack.pop_back();
    if (!s->IsTuple()) {
      want.push_back(s);
      continue;
    }
    for (auto it = s->tuple_shapes().rbegin(); it != s->tuple_shapes().rend();
         ++it) {
      stack.push_back(&*it);
    }
  }
  if (want.size() != leaves.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the backend returned ", leaves.size(),
                     " result(s); the module's result ", root.ToString(),
                     " has ", want.size(), " leaves"));
  }
  for (size_t i = 0; i < want.size(); ++i) {
    const Shape& w = *want[i];
    const Shape& g = leaves[i].shape();
    bool ok = w.IsToken() == g.IsToken();
    if (ok && !w.IsToken()) {
      ok = g.element_type() == w.element_type() &&
           g.dimensions().size() == w.dimensions().size();
      for (size_t d = 0; ok && d < w.dimensions().size(); ++d) {
        ok = w.is_dynamic_dimension(static_cast<int64_t>(d))
                 ? g.dimensions()[d] <= w.dimensions()[d]
                 : g.dimensions()[d] == w.dimensions()[d];
      }
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the backend returned result ", i, " of shape ", g.ToString(),
          "; the module's result ", i, " is ", w.ToString()));
    }
  }
  return absl::OkStatus();
}

// Rebuilds the root's (possibly tuple) value from the flattened leaves a
// backend returns (checked by CheckLeaves).
Literal Unflatten(const Shape& shape, std::vector<Literal>& leaves,
                  size_t* next) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& e : shape.tuple_shapes()) {
      elements.push_back(Unflatten(e, leaves, next));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  return std::move(leaves[(*next)++]);
}

absl::Status WriteLeaves(const std::vector<Literal>& leaves,
                         const std::string& dir, const std::string& prefix) {
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].shape().IsArray()) continue;
    absl::Status s =
        WriteNpyFile(leaves[i], absl::StrCat(dir, "/", prefix, i, ".npy"));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

bool ModuleUsesHost(const HloModule& module) {
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      switch (inst->opcode()) {
        case HloOpcode::kInfeed:
        case HloOpcode::kOutfeed:
          return true;
        case HloOpcode::kSend:
        case HloOpcode::kRecv:
          if (inst->attrs().is_host_transfer) return true;
          break;
        default:
          break;
      }
    }
  }
  return false;
}

int RunOnBackend(BackendRunRequest request) {
  auto backend = backends::CreateBackend(request.backend_name);
  if (!backend.ok()) return Fail(std::string(backend.status().message()));
  backends::CompileOptions compile_options;
  compile_options.custom_call_libraries = request.custom_call_libraries;
  if (request.timeout.has_value()) compile_options.timeout = *request.timeout;
  auto exe = (*backend)->Compile(*request.module, compile_options);
  if (!exe.ok()) {
    return Fail(
        absl::StrCat("backend '", request.backend_name,
                     "' cannot compile the module: ", exe.status().message()));
  }
  // --out's directory is made only once there are results to write, so a
  // failed run leaves nothing behind.
  auto make_out_dir = [&]() -> absl::Status {
    std::error_code ec;
    std::filesystem::create_directories(*request.out_dir, ec);
    if (ec) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot create directory '", *request.out_dir, "': ", ec.message()));
    }
    return absl::OkStatus();
  };
  const Shape& root = request.module->entry()->root()->shape();
  if (request.participants > 1) {
    std::vector<std::vector<Literal>> all = std::move(request.participant_args);
    if (all.empty()) all.push_back(std::move(request.args));
    auto results = (*exe)->RunReplicated(all);
    if (!results.ok()) return Fail(std::string(results.status().message()));
    for (size_t id = 0; id < results->size(); ++id) {
      absl::Status s = CheckLeaves(root, (*results)[id]);
      if (!s.ok()) {
        return Fail(absl::StrCat("participant ", id, ": ", s.message()));
      }
    }
    for (size_t id = 0; id < results->size(); ++id) {
      const int64_t r = static_cast<int64_t>(id) / request.partitions;
      const int64_t p = static_cast<int64_t>(id) % request.partitions;
      const std::string label =
          request.partitions == 1
              ? absl::StrCat("replica ", r)
              : absl::StrCat("replica ", r, " partition ", p);
      std::vector<Literal>& leaves = (*results)[id];
      if (request.out_dir.has_value()) {
        absl::Status s = make_out_dir();
        if (s.ok())
          s = WriteLeaves(leaves, *request.out_dir,
                          request.partitions == 1
                              ? absl::StrCat("result_", r, "_")
                              : absl::StrCat("result_", r, "_", p, "_"));
        if (!s.ok()) return Fail(std::string(s.message()));
      }
      size_t next = 0;
      Literal value = Unflatten(root, leaves, &next);
      if (request.print_mode == PrintMode::kFull) {
        std::printf("%s: %s\n", label.c_str(), value.ToString().c_str());
      } else if (request.print_mode == PrintMode::kSummary) {
        std::fputs(SummarizeResult(value, absl::StrCat(label, ": ")).c_str(),
                   stdout);
      }
    }
    return 0;
  }
  absl::StatusOr<std::vector<Literal>> result =
      request.uses_host ? (*exe)->RunWithHost(request.args, request.host)
                        : (*exe)->Run(request.args);
  if (!result.ok()) return Fail(std::string(result.status().message()));
  if (absl::Status s = CheckLeaves(root, *result); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  if (request.out_dir.has_value()) {
    absl::Status s = make_out_dir();
    if (s.ok()) s = WriteLeaves(*result, *request.out_dir, "result_");
    if (s.ok())
      s = WriteLeaves(request.host.outfeed, *request.out_dir, "outfeed_");
    for (const auto& [channel, values] : request.host.sent) {
      if (s.ok()) {
        s = WriteLeaves(values, *request.out_dir,
                        absl::StrCat("send_", channel, "_"));
      }
    }
    if (!s.ok()) return Fail(std::string(s.message()));
  }
  size_t next = 0;
  Literal value = Unflatten(root, *result, &next);
  if (request.print_mode == PrintMode::kFull) {
    std::fputs(value.ToString().c_str(), stdout);
    std::fputs("\n", stdout);
  } else if (request.print_mode == PrintMode::kSummary) {
    std::fputs(SummarizeResult(value, "").c_str(), stdout);
  }
  for (size_t i = 0; i < request.host.outfeed.size(); ++i) {
    std::printf("outfeed %zu: %s\n", i,
                request.host.outfeed[i].ToString().c_str());
  }
  for (const auto& [channel, values] : request.host.sent) {
    for (size_t i = 0; i < values.size(); ++i) {
      std::printf("send %lld %zu: %s\n", static_cast<long long>(channel), i,
                  values[i].ToString().c_str());
    }
  }
  return 0;
}

}  // namespace hloref::tools
