// Reading a module's arguments from the command line (see arguments.h).
#include "tools/hloref/arguments.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/npy.h"
#include "spec/util/status_macros.h"

namespace hloref::tools {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

// A .npy file fits an array parameter when the element types agree and
// the dimensions equal the parameter's (a dynamic parameter dimension
// takes any size up to its bound: the evaluator converts the value).
absl::Status CheckNpyAgainstParameter(const std::string& path,
                                      const NpyArrayInfo& info,
                                      const HloInstruction& param) {
  const Shape& shape = param.shape();
  bool fits = info.type == shape.element_type() &&
              static_cast<int64_t>(info.dims.size()) == shape.rank();
  for (int64_t d = 0; fits && d < shape.rank(); ++d) {
    fits = shape.is_dynamic_dimension(d) ? info.dims[d] <= shape.dimensions(d)
                                         : info.dims[d] == shape.dimensions(d);
  }
  if (fits) return absl::OkStatus();
  const std::string held =
      info.type == PrimitiveType::kToken
          ? std::string("a token")
          : Shape::Array(info.type, info.dims).ToString(false);
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": holds ", held, " (dtype ", info.descr,
                   "), but the parameter is ", shape.ToString(false),
                   "; the file's data was not read"));
}

}  // namespace

absl::StatusOr<Literal> ReadArgument(const std::string& arg,
                                     const HloInstruction* param,
                                     bool map_npy) {
  std::error_code ec;
  bool is_file = std::filesystem::is_regular_file(arg, ec);
  if (absl::EndsWith(arg, ".npy")) {
    if (!is_file) {
      return absl::NotFoundError(absl::StrCat("no such .npy file '", arg, "'"));
    }
    if (param != nullptr && param->shape().IsArray()) {
      // Refuse a file of the wrong type or shape from its header, before
      // reading (possibly gigabytes of) its data.
      HLOREF_ASSIGN_OR_RETURN(NpyArrayInfo info, ReadNpyHeader(arg));
      HLOREF_RETURN_IF_ERROR(CheckNpyAgainstParameter(arg, info, *param));
    }
    NpyReadOptions options;
    options.map = map_npy;
    return ReadNpyFile(arg, options);
  }
  std::string text = arg;
  if (is_file) {
    HLOREF_ASSIGN_OR_RETURN(text, ReadFile(arg));
  }
  auto with_shape = ParseLiteral(text);
  if (with_shape.ok() || param == nullptr) return with_shape;
  // Without a shape prefix, read the value with the parameter's shape.
  auto without_shape = ParseLiteralWithShape(param->shape(), text);
  if (without_shape.ok()) return without_shape;
  return absl::InvalidArgumentError(absl::StrCat(
      "cannot read '", text, "' as a literal: ", with_shape.status().message(),
      "; as a value of the parameter's shape ", param->shape().ToString(), ": ",
      without_shape.status().message()));
}

absl::StatusOr<std::vector<std::vector<Literal>>> ReadParticipantArgs(
    const std::string& dir, const HloComputation& entry, int64_t participants) {
  std::vector<std::vector<Literal>> all;
  for (int64_t i = 0; i < participants; ++i) {
    std::vector<Literal> own;
    for (int64_t k = 0; k < entry.num_parameters(); ++k) {
      const std::string path = absl::StrCat(dir, "/p", i, "/arg_", k, ".npy");
      auto lit = ReadArgument(path, entry.parameter(k));
      if (!lit.ok()) {
        return absl::Status(
            lit.status().code(),
            absl::StrCat("participant ", i, ": ", lit.status().message()));
      }
      own.push_back(*std::move(lit));
    }
    all.push_back(std::move(own));
  }
  return all;
}

}  // namespace hloref::tools
