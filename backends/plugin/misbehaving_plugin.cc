// A test plugin (hloref_plugin.h) that misbehaves as its module's name
// says, for the plugin backend's tests and the cli's bad-input table. Every
// module is run as `negate(parameter 0)` on f32; the name picks what goes
// wrong:
//   ok             the right answer
//   crash_compile  SIGSEGV in hloref_compile
//   crash_run      SIGSEGV in hloref_run
//   abort_run      abort() in hloref_run
//   exit_run       _exit(7) in hloref_run
//   hang_run       never returns from hloref_run
//   print_stdout   writes to stdout, then the right answer
//   wrong_shape    one element more than the parameter
//   wrong_type     "s32" instead of "f32"
//   bad_size       size_bytes one short of the dims
//   huge_size      size_bytes of 2^50 (data far shorter)
//   null_data      a null data pointer with size_bytes > 0
//   null_dims      rank 1 with a null dims pointer
//   negative_count num_results = -1
//   scalar_null_dims  a valid f32[] result (-parameter[0]) with the null
//                  dims pointer the ABI allows at rank 0
//   unknown_status status 255 (no hloref_status) with a message
// Only hloref_plugin.h is included: it is built like a vendor's library.
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/plugin/hloref_plugin.h"

struct hloref_executable {
  std::string mode;
};

namespace {

char* Dup(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

// Dies of SIGSEGV as a plugin with a wild pointer would, through the
// signal's default action: a handler the host process has (AddressSanitizer
// installs one in the sanitizer build, which reports the fault and exits
// 1) does not run, and there is no null store for UBSan to stop first.
void Segfault() {
  std::signal(SIGSEGV, SIG_DFL);
  std::raise(SIGSEGV);
  std::abort();  // not reached: SIGSEGV's default action ends the process
}

// A result and the storage it points to; the buffer comes first so that
// hloref_free_results can find its owner.
struct Owned {
  hloref_buffer buffer;
  std::vector<int64_t> dims;
  std::vector<float> data;
};
static_assert(std::is_standard_layout_v<Owned>);

}  // namespace

extern "C" {

uint32_t hloref_plugin_abi_version(void) { return HLOREF_PLUGIN_ABI_VERSION; }
const char* hloref_plugin_name(void) { return "misbehaving"; }

hloref_status hloref_compile(const char* hlo_text,
                             hloref_executable** executable,
                             char** error_message) {
  const char* p = std::strstr(hlo_text, "HloModule ");
  if (p == nullptr) {
    *error_message = Dup("no HloModule line");
    return HLOREF_INVALID_ARGUMENT;
  }
  p += std::strlen("HloModule ");
  std::string mode;
  while (*p != '\0' && *p != ',' && *p != ' ' && *p != '\n') mode += *p++;
  if (mode == "crash_compile") Segfault();
  *executable = new hloref_executable{mode};
  return HLOREF_OK;
}

hloref_status hloref_run(hloref_executable* exe, const hloref_buffer* args,
                         int64_t num_args, hloref_buffer** results,
                         int64_t* num_results, char** error_message) {
  const std::string& mode = exe->mode;
  if (num_args < 1 || std::strcmp(args[0].element_type, "f32") != 0) {
    *error_message = Dup("expects an f32 parameter 0");
    return HLOREF_UNIMPLEMENTED;
  }
  if (mode == "crash_run") Segfault();
  if (mode == "abort_run") std::abort();
  if (mode == "exit_run") _exit(7);
  if (mode == "hang_run") {
    for (;;) pause();
  }
  if (mode == "unknown_status") {
    *error_message = Dup("status 255 from the misbehaving plugin");
    return static_cast<hloref_status>(255);
  }
  if (mode == "print_stdout") {
    std::printf("the misbehaving plugin writes to stdout\n");
    std::fflush(stdout);
  }
  auto* r = new Owned;
  r->dims.assign(args[0].dims, args[0].dims + args[0].rank);
  const size_t n = args[0].size_bytes / sizeof(float);
  const float* in = static_cast<const float*>(args[0].data);
  for (size_t i = 0; i < n; ++i) r->data.push_back(-in[i]);
  if (mode == "wrong_shape") {
    r->data.push_back(0);
    r->dims.assign(1, static_cast<int64_t>(r->data.size()));
  }
  hloref_buffer& b = r->buffer;
  b = {"f32", static_cast<int64_t>(r->dims.size()), r->dims.data(),
       r->data.data(), r->data.size() * sizeof(float)};
  if (mode == "wrong_type") b.element_type = "s32";
  if (mode == "bad_size") b.size_bytes -= 1;
  if (mode == "huge_size") b.size_bytes = uint64_t{1} << 50;
  if (mode == "null_data") b.data = nullptr;
  if (mode == "null_dims") b.dims = nullptr;
  if (mode == "scalar_null_dims") {
    r->data.resize(1);
    b = {"f32", 0, nullptr, r->data.data(), sizeof(float)};
  }
  *results = &b;
  *num_results = mode == "negative_count" ? -1 : 1;
  return HLOREF_OK;
}

void hloref_free_results(hloref_buffer* results, int64_t) {
  delete reinterpret_cast<Owned*>(results);
}

void hloref_free_executable(hloref_executable* executable) {
  delete executable;
}

void hloref_free_string(char* s) { std::free(s); }

}  // extern "C"
