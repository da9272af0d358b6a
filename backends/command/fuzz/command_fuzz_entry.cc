#include "backends/command/fuzz/command_fuzz_entry.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/command/command_backend.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/npy.h"

namespace hloref {
namespace {

namespace fs = std::filesystem;

constexpr absl::string_view kModule = R"(HloModule command_fuzz

ENTRY main {
  p0 = f32[2] parameter(0)
  c = s32[] constant(1)
  ROOT t = (f32[2], s32[]) tuple(p0, c)
}
)";

// Copies the staged files into the exchange directory ($1), writes the
// staged stderr and ends as the staged mode says.
constexpr absl::string_view kScript = R"(S="$HLOREF_COMMAND_FUZZ_STAGE"
for f in "$S"/result_*.npy; do
  if [ -f "$f" ]; then cp "$f" "$1"/ || exit 9; fi
done
if [ -f "$S/stderr" ]; then cat "$S/stderr" >&2; fi
mode=$(cat "$S/mode")
if [ "$mode" = signal ]; then kill -SEGV $$; fi
exit "$mode"
)";

// The process-wide fixture: a stage directory (what the fake program
// hands back), a work directory (where the backend makes its exchange
// directories; must be empty after each run), the script and the compiled
// executable.
struct Fixture {
  std::string root;
  std::string stage;
  std::string work;
  std::unique_ptr<backends::Backend> backend;
  std::unique_ptr<backends::Executable> executable;
  std::string error;
};

bool WriteBytes(const std::string& path, absl::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

Fixture* MakeFixture() {
  auto* f = new Fixture;
  const char* tmp = getenv("TMPDIR");
  f->root = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                         "/hloref_command_fuzz_XXXXXX");
  if (mkdtemp(f->root.data()) == nullptr) {
    f->error = "cannot create the fixture directory";
    return f;
  }
  f->stage = f->root + "/stage";
  f->work = f->root + "/work";
  std::error_code ec;
  fs::create_directory(f->stage, ec);
  fs::create_directory(f->work, ec);
  const std::string script = f->root + "/program.sh";
  if (ec || !WriteBytes(script, kScript)) {
    f->error = "cannot write the fixture";
    return f;
  }
  setenv("HLOREF_COMMAND_FUZZ_STAGE", f->stage.c_str(), 1);
  // The program text is split on spaces: the fixture path has none.
  absl::StatusOr<std::unique_ptr<backends::Backend>> backend =
      backends::CreateCommandBackend(absl::StrCat("/bin/sh ", script));
  if (!backend.ok()) {
    f->error = backend.status().ToString();
    return f;
  }
  f->backend = *std::move(backend);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  if (!module.ok()) {
    f->error = module.status().ToString();
    return f;
  }
  backends::CompileOptions options;
  options.work_dir = f->work;
  options.timeout = absl::Seconds(10);
  absl::StatusOr<std::unique_ptr<backends::Executable>> executable =
      f->backend->Compile(**module, options);
  if (!executable.ok()) {
    f->error = executable.status().ToString();
    return f;
  }
  f->executable = *std::move(executable);
  return f;
}

Fixture& GetFixture() {
  static Fixture* fixture = MakeFixture();  // lives as long as the process
  return *fixture;
}

}  // namespace

FuzzOutcome FuzzCommandResults(absl::string_view bytes) {
  FuzzOutcome out;
  Fixture& f = GetFixture();
  if (!f.error.empty()) {
    out.status = absl::InternalError(f.error);
    out.violation = absl::StrCat("no fixture: ", f.error);
    return out;
  }
  if (bytes.empty()) return out;

  const int selector = static_cast<unsigned char>(bytes[0]) % 8;
  std::string mode = "0";
  if (selector == 1) mode = "3";
  if (selector == 2) mode = "4";
  if (selector == 3) mode = "1";
  if (selector == 4) mode = "signal";
  std::vector<absl::string_view> chunks =
      absl::StrSplit(bytes.substr(1), kCommandFuzzSeparator);

  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(f.stage, ec)) {
    fs::remove(entry.path(), ec);
  }
  bool staged = WriteBytes(f.stage + "/mode", mode);
  bool present[3] = {false, false, false};
  for (size_t i = 0; i < 3 && i < chunks.size(); ++i) {
    if (chunks[i].empty()) continue;
    present[i] = true;
    staged &=
        WriteBytes(absl::StrCat(f.stage, "/result_", i, ".npy"), chunks[i]);
  }
  if (chunks.size() > 3) staged &= WriteBytes(f.stage + "/stderr", chunks[3]);
  if (!staged) {
    out.status = absl::InternalError("cannot stage the program's files");
    out.violation = "cannot stage the program's files (TMPDIR full?)";
    return out;
  }

  std::vector<Literal> args;
  args.emplace_back(Shape::Array(PrimitiveType::kF32, {2}));
  absl::StatusOr<std::vector<Literal>> results = f.executable->Run(args);

  size_t left = 0;
  for (auto it = fs::directory_iterator(f.work, ec);
       !ec && it != fs::directory_iterator(); ++it) {
    ++left;
  }
  if (left != 0) {
    out.violation = absl::StrCat("the run left ", left, " entries in ", f.work);
    for (const auto& entry : fs::directory_iterator(f.work, ec)) {
      fs::remove_all(entry.path(), ec);
    }
    return out;
  }

  if (!results.ok()) {
    out.status = results.status();
    const absl::string_view message = results.status().message();
    const absl::StatusCode code = results.status().code();
    if (message.empty() || !absl::StrContains(message, "command '")) {
      out.violation = absl::StrCat("an error that does not name the command: ",
                                   results.status().ToString());
    } else if (mode == "3" && code != absl::StatusCode::kUnimplemented) {
      out.violation = absl::StrCat("exit 3 should be Unimplemented: ",
                                   results.status().ToString());
    } else if (mode == "4" && code != absl::StatusCode::kFailedPrecondition) {
      out.violation = absl::StrCat("exit 4 should be FailedPrecondition: ",
                                   results.status().ToString());
    } else if (mode == "0" && present[0] && present[1] && !present[2] &&
               LiteralFromNpyBytes(chunks[0]).ok() &&
               LiteralFromNpyBytes(chunks[1]).ok()) {
      out.violation =
          absl::StrCat("exit 0 with two readable results was refused: ",
                       results.status().ToString());
    }
    return out;
  }
  if (mode != "0" || !present[0] || !present[1] || present[2]) {
    out.violation =
        absl::StrCat("accepted a run with mode ", mode, " and result files ",
                     present[0], present[1], present[2]);
    return out;
  }
  if (results->size() != 2) {
    out.violation = absl::StrCat("accepted ", results->size(),
                                 " results for a root of 2 leaves");
    return out;
  }
  for (size_t i = 0; i < 2; ++i) {
    absl::StatusOr<Literal> direct = LiteralFromNpyBytes(chunks[i]);
    if (!direct.ok() || !direct->BitwiseEquals((*results)[i])) {
      out.violation = absl::StrCat(
          "result ", i, " read through the backend differs from the bytes: ",
          direct.ok() ? direct->ToString() : direct.status().ToString(), " vs ",
          (*results)[i].ToString());
      return out;
    }
  }
  return out;
}

}  // namespace hloref
