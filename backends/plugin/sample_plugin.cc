// A sample vendor plugin for hloref_plugin.h, built as a shared library in
// the tests. It knows nothing of hloref beyond the C header: it reads the
// entry computation of the HLO text itself and runs element-wise add,
// subtract, multiply and negate on f32 arrays (plus parameter); anything
// else is HLOREF_UNIMPLEMENTED. Built with HLOREF_SAMPLE_PLUGIN_FTZ it is
// the deliberately broken variant "sample-ftz": it flushes subnormal
// inputs and results to zero (keeping the sign), as a flush-to-zero
// device would, so the conformance tests can check that such a backend is
// caught (and passes when the flush-to-zero deviation is declared).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "backends/plugin/hloref_plugin.h"

namespace {

#ifdef HLOREF_SAMPLE_PLUGIN_FTZ
constexpr bool kFlushToZero = true;
constexpr char kName[] = "sample-ftz";
#else
constexpr bool kFlushToZero = false;
constexpr char kName[] = "sample";
#endif

struct Value {
  std::vector<int64_t> dims;
  std::vector<float> data;
};

struct Instruction {
  std::string name;
  std::vector<int64_t> dims;
  std::string opcode;
  std::vector<std::string> operands;  // names; for parameter, its number
};

struct Program {
  std::vector<Instruction> instructions;
  std::string root;
  int64_t num_parameters = 0;
};

struct Result {
  std::vector<int64_t> dims;
  std::vector<float> data;
};

}  // namespace

struct hloref_executable {
  Program program;
};

namespace {

char* Message(const std::string& text) {
  char* s = static_cast<char*>(std::malloc(text.size() + 1));
  if (s != nullptr) std::memcpy(s, text.c_str(), text.size() + 1);
  return s;
}

hloref_status Fail(hloref_status code, const std::string& text,
                   char** error_message) {
  if (error_message != nullptr) *error_message = Message(text);
  return code;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string StripPercent(const std::string& s) {
  return !s.empty() && s[0] == '%' ? s.substr(1) : s;
}

bool IsSupportedOp(const std::string& op) {
  return op == "parameter" || op == "add" || op == "subtract" ||
         op == "multiply" || op == "negate";
}

// Parses `f32[2,3]{1,0}` into dims; false for any other shape.
bool ParseF32Shape(const std::string& text, std::vector<int64_t>* dims) {
  if (text.rfind("f32[", 0) != 0) return false;
  size_t close = text.find(']');
  if (close == std::string::npos) return false;
  std::string inside = text.substr(4, close - 4);
  dims->clear();
  size_t pos = 0;
  while (pos < inside.size()) {
    size_t comma = inside.find(',', pos);
    std::string d = Trim(inside.substr(
        pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos ||
        d.size() > 12) {
      return false;  // dynamic (`<=4`, `?`) or malformed
    }
    dims->push_back(std::stoll(d));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return true;
}

// Reads one instruction line of the entry computation.
hloref_status ParseInstruction(const std::string& line, int line_no,
                               Instruction* inst, bool* is_root,
                               char** error_message) {
  const std::string where = "line " + std::to_string(line_no) + ": ";
  std::string s = line;
  *is_root = false;
  if (s.rfind("ROOT ", 0) == 0) {
    *is_root = true;
    s = Trim(s.substr(5));
  }
  size_t eq = s.find(" = ");
  if (eq == std::string::npos) {
    return Fail(HLOREF_INVALID_ARGUMENT, where + "expected `name = ...`",
                error_message);
  }
  inst->name = StripPercent(Trim(s.substr(0, eq)));
  std::string rest = Trim(s.substr(eq + 3));
  size_t space = rest.find(' ');
  if (space == std::string::npos) {
    return Fail(HLOREF_INVALID_ARGUMENT, where + "expected `shape opcode(...)`",
                error_message);
  }
  std::string shape = rest.substr(0, space);
  size_t paren = rest.find('(', space);
  if (paren == std::string::npos) {
    return Fail(HLOREF_INVALID_ARGUMENT, where + "expected `opcode(`",
                error_message);
  }
  inst->opcode = Trim(rest.substr(space + 1, paren - space - 1));
  if (!IsSupportedOp(inst->opcode)) {
    return Fail(HLOREF_UNIMPLEMENTED,
                where + "%" + inst->name + " = " + inst->opcode +
                    "(...): the sample plugin implements only parameter, "
                    "add, subtract, multiply and negate",
                error_message);
  }
  if (!ParseF32Shape(shape, &inst->dims)) {
    return Fail(HLOREF_UNIMPLEMENTED,
                where + "%" + inst->name + ": shape " + shape +
                    ": the sample plugin supports static f32 arrays only",
                error_message);
  }
  // The operand list: up to the matching ')'.
  int depth = 0;
  size_t end = std::string::npos;
  for (size_t i = paren; i < rest.size(); ++i) {
    if (rest[i] == '(' || rest[i] == '{' || rest[i] == '[') ++depth;
    if (rest[i] == ')' || rest[i] == '}' || rest[i] == ']') {
      if (--depth == 0) {
        end = i;
        break;
      }
    }
  }
  if (end == std::string::npos) {
    return Fail(HLOREF_INVALID_ARGUMENT, where + "unbalanced parentheses",
                error_message);
  }
  std::string list = rest.substr(paren + 1, end - paren - 1);
  inst->operands.clear();
  size_t pos = 0;
  while (!Trim(list).empty() && pos <= list.size()) {
    size_t comma = list.find(',', pos);
    std::string op = Trim(list.substr(
        pos, comma == std::string::npos ? std::string::npos : comma - pos));
    // `f32[2]{0} %x` (operand shapes printed) or `%x`: the last word.
    size_t last = op.find_last_of(' ');
    if (last != std::string::npos) op = op.substr(last + 1);
    inst->operands.push_back(StripPercent(op));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  const size_t want =
      inst->opcode == "negate" || inst->opcode == "parameter" ? 1 : 2;
  if (inst->operands.size() != want) {
    return Fail(HLOREF_INVALID_ARGUMENT,
                where + inst->opcode + " takes " + std::to_string(want) +
                    " operand(s), got " + std::to_string(inst->operands.size()),
                error_message);
  }
  return HLOREF_OK;
}

float Flush(float x) {
  if (kFlushToZero && std::fpclassify(x) == FP_SUBNORMAL) {
    return std::signbit(x) ? -0.0f : 0.0f;
  }
  return x;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

}  // namespace

extern "C" {

uint32_t hloref_plugin_abi_version(void) { return HLOREF_PLUGIN_ABI_VERSION; }

const char* hloref_plugin_name(void) { return kName; }

hloref_status hloref_supports(const char* opcode, const char* element_type,
                              char** error_message) {
  if (IsSupportedOp(opcode) && std::strcmp(element_type, "f32") == 0) {
    return HLOREF_OK;
  }
  return Fail(HLOREF_UNIMPLEMENTED,
              std::string(opcode) + " on " + element_type +
                  ": the sample plugin implements only parameter, add, "
                  "subtract, multiply and negate on f32",
              error_message);
}

hloref_status hloref_compile(const char* hlo_text,
                             hloref_executable** executable,
                             char** error_message) {
  if (hlo_text == nullptr || executable == nullptr) {
    return Fail(HLOREF_INVALID_ARGUMENT, "null argument", error_message);
  }
  Program program;
  std::string text(hlo_text);
  size_t pos = 0;
  int line_no = 0;
  bool in_entry = false, seen_entry = false;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = Trim(text.substr(
        pos, nl == std::string::npos ? std::string::npos : nl - pos));
    pos = nl == std::string::npos ? text.size() : nl + 1;
    ++line_no;
    if (line.empty() || line.rfind("//", 0) == 0) continue;
    if (!in_entry) {
      if (line.rfind("ENTRY", 0) == 0) {
        in_entry = seen_entry = true;
      }
      continue;
    }
    if (line == "}") {
      in_entry = false;
      continue;
    }
    Instruction inst;
    bool is_root = false;
    hloref_status st =
        ParseInstruction(line, line_no, &inst, &is_root, error_message);
    if (st != HLOREF_OK) return st;
    if (inst.opcode == "parameter") {
      program.num_parameters = std::max<int64_t>(
          program.num_parameters, std::atoll(inst.operands[0].c_str()) + 1);
    }
    if (is_root) program.root = inst.name;
    program.instructions.push_back(std::move(inst));
  }
  if (!seen_entry || program.root.empty()) {
    return Fail(HLOREF_INVALID_ARGUMENT,
                "no ENTRY computation with a ROOT instruction", error_message);
  }
  *executable = new hloref_executable{std::move(program)};
  return HLOREF_OK;
}

hloref_status hloref_run(hloref_executable* executable,
                         const hloref_buffer* args, int64_t num_args,
                         hloref_buffer** results, int64_t* num_results,
                         char** error_message) {
  const Program& program = executable->program;
  if (num_args != program.num_parameters) {
    return Fail(HLOREF_INVALID_ARGUMENT,
                "expected " + std::to_string(program.num_parameters) +
                    " arguments, got " + std::to_string(num_args),
                error_message);
  }
  std::map<std::string, Value> values;
  for (const Instruction& inst : program.instructions) {
    Value v;
    v.dims = inst.dims;
    const int64_t n = Count(inst.dims);
    if (inst.opcode == "parameter") {
      const int64_t k = std::atoll(inst.operands[0].c_str());
      const hloref_buffer& b = args[k];
      if (std::strcmp(b.element_type, "f32") != 0 ||
          b.rank != (int64_t)v.dims.size() ||
          b.size_bytes != static_cast<uint64_t>(n) * 4) {
        return Fail(HLOREF_INVALID_ARGUMENT,
                    "argument " + std::to_string(k) +
                        " does not match parameter %" + inst.name,
                    error_message);
      }
      v.data.resize(n);
      if (n > 0) std::memcpy(v.data.data(), b.data, n * 4);
      for (float& x : v.data) x = Flush(x);
    } else {
      std::vector<const Value*> ops;
      for (const std::string& name : inst.operands) {
        auto it = values.find(name);
        if (it == values.end() || Count(it->second.dims) != n) {
          return Fail(HLOREF_INVALID_ARGUMENT,
                      "%" + inst.name + ": operand %" + name +
                          " is undefined or of another size",
                      error_message);
        }
        ops.push_back(&it->second);
      }
      v.data.resize(n);
      for (int64_t i = 0; i < n; ++i) {
        const float a = ops[0]->data[i];
        float r;
        if (inst.opcode == "negate") {
          r = -a;
        } else if (inst.opcode == "add") {
          r = a + ops[1]->data[i];
        } else if (inst.opcode == "subtract") {
          r = a - ops[1]->data[i];
        } else {
          r = a * ops[1]->data[i];
        }
        v.data[i] = Flush(r);
      }
    }
    values[inst.name] = std::move(v);
  }
  const Value& root = values[program.root];
  hloref_buffer* out = new hloref_buffer[1];
  int64_t* dims = new int64_t[root.dims.size() + 1];
  float* data = new float[root.data.size() + 1];
  std::copy(root.dims.begin(), root.dims.end(), dims);
  std::copy(root.data.begin(), root.data.end(), data);
  out[0] = {"f32", static_cast<int64_t>(root.dims.size()), dims, data,
            root.data.size() * 4};
  *results = out;
  *num_results = 1;
  return HLOREF_OK;
}

void hloref_free_results(hloref_buffer* results, int64_t num_results) {
  for (int64_t i = 0; i < num_results; ++i) {
    delete[] results[i].dims;
    delete[] static_cast<const float*>(results[i].data);
  }
  delete[] results;
}

void hloref_free_executable(hloref_executable* executable) {
  delete executable;
}

void hloref_free_string(char* s) { std::free(s); }

}  // extern "C"
