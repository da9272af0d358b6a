#include "spec/fuzz/fuzz_entries.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/hlo_printer.h"
#include "spec/types/npy.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

// An error status must say something; an empty message is itself a finding.
FuzzOutcome Refused(const absl::Status& status) {
  FuzzOutcome out;
  out.status = status;
  if (status.message().empty()) {
    out.violation =
        absl::StrCat("error without a message: ", status.ToString());
  }
  return out;
}

}  // namespace

FuzzOutcome FuzzHloModuleText(absl::string_view bytes) {
  ParseOptions parse_options;
  parse_options.max_literal_bytes = kFuzzMaxBytes;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(bytes, parse_options);
  if (!module.ok()) return Refused(module.status());

  FuzzOutcome out;
  const std::string first = PrintModule(**module);
  absl::StatusOr<std::unique_ptr<HloModule>> again =
      ParseHloModule(first, parse_options);
  if (!again.ok()) {
    out.violation = absl::StrCat(
        "the printed module does not parse: ", again.status().ToString(),
        "\n--- printed:\n", first);
    return out;
  }
  const std::string second = PrintModule(**again);
  if (second != first) {
    out.violation =
        absl::StrCat("parse(print(m)) prints differently\n--- print(m):\n",
                     first, "\n--- print(parse(print(m))):\n", second);
    return out;
  }

  VerifyOptions verify_options;
  verify_options.max_elements = kFuzzMaxElements;
  absl::Status verified = VerifyModule(**module, verify_options);
  if (!verified.ok()) return Refused(verified);
  return out;
}

FuzzOutcome FuzzLiteralText(absl::string_view bytes) {
  ParseOptions parse_options;
  parse_options.max_literal_bytes = kFuzzMaxBytes;
  absl::StatusOr<Literal> literal = ParseLiteral(bytes, parse_options);
  if (!literal.ok()) return Refused(literal.status());
  FuzzOutcome out;
  const std::string printed = literal->ToString();
  absl::StatusOr<Literal> again = ParseLiteral(printed, parse_options);
  if (!again.ok()) {
    out.violation = absl::StrCat(
        "the printed literal does not parse: ", again.status().ToString(),
        "\n--- printed:\n", printed);
  } else if (!again->BitwiseEquals(*literal)) {
    out.violation =
        absl::StrCat("parse(print(l)) differs from l\n--- print(l):\n", printed,
                     "\n--- print(parse(print(l))):\n", again->ToString());
  }
  return out;
}

namespace {

// A temporary file holding `bytes`, removed when this goes out of scope.
class TempFile {
 public:
  explicit TempFile(absl::string_view bytes) {
    const char* dir = getenv("TMPDIR");
    path_ = absl::StrCat(dir != nullptr && *dir != '\0' ? dir : "/tmp",
                         "/hloref_npy_fuzz_XXXXXX");
    int fd = mkstemp(path_.data());
    if (fd < 0) {
      path_.clear();
      return;
    }
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ok_ = done == bytes.size();
    close(fd);
  }
  ~TempFile() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool ok_ = false;
};

}  // namespace

FuzzOutcome FuzzNpyBytes(absl::string_view bytes) {
  FuzzOutcome out;
  absl::StatusOr<Literal> from_bytes = LiteralFromNpyBytes(bytes);

  TempFile file(bytes);
  if (!file.ok()) {
    out.status = absl::InternalError("could not write the temporary file");
    out.violation = "no temporary file (TMPDIR full or unwritable?)";
    return out;
  }
  absl::StatusOr<NpyArrayInfo> header = ReadNpyHeader(file.path());
  absl::StatusOr<Literal> from_file = ReadNpyFile(file.path());

  if (from_bytes.ok() != from_file.ok()) {
    out.violation =
        absl::StrCat("LiteralFromNpyBytes and ReadNpyFile disagree: bytes: ",
                     from_bytes.ok() ? from_bytes->ShapeString()
                                     : from_bytes.status().ToString(),
                     "; file: ",
                     from_file.ok() ? from_file->ShapeString()
                                    : from_file.status().ToString());
    return out;
  }
  if (from_file.ok() && !header.ok()) {
    out.violation = absl::StrCat(
        "ReadNpyFile accepts what ReadNpyHeader "
        "refuses: ",
        header.status().ToString());
    return out;
  }
  if (!from_bytes.ok()) {
    if (from_bytes.status().message().empty() ||
        from_file.status().message().empty()) {
      out.violation = "an .npy error without a message";
    }
    out.status = from_bytes.status();
    return out;
  }
  if (!from_bytes->BitwiseEquals(*from_file)) {
    out.violation = absl::StrCat(
        "LiteralFromNpyBytes and ReadNpyFile read different values: ",
        from_bytes->ToString(), " vs ", from_file->ToString());
    return out;
  }
  absl::StatusOr<std::string> written = NpyBytesFromLiteral(*from_bytes);
  if (!written.ok()) {
    out.violation = absl::StrCat("an array read from .npy cannot be written: ",
                                 written.status().ToString());
    return out;
  }
  absl::StatusOr<Literal> reread = LiteralFromNpyBytes(*written);
  if (!reread.ok()) {
    out.violation = absl::StrCat("a written .npy does not read back: ",
                                 reread.status().ToString());
  } else if (!reread->BitwiseEquals(*from_bytes)) {
    out.violation = absl::StrCat(
        "a written .npy reads back differently: ", from_bytes->ToString(),
        " vs ", reread->ToString());
  }
  return out;
}

}  // namespace hloref
