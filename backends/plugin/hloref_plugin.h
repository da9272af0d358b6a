/* hloref_plugin.h: the C ABI a vendor's shared library implements so that
 * hloref can certify it as the backend `plugin:<path.so>` without the
 * vendor forking hloref. Plain C (C99 and C++), no hloref headers needed.
 *
 * Version: HLOREF_PLUGIN_ABI_VERSION. hloref refuses (as "skipped", with
 * a message) a library whose hloref_plugin_abi_version() differs. Changes
 * that break the ABI bump it; additions are new optional symbols.
 *
 * Data. A buffer is one array: its element type spelled as in HLO text
 * ("f32", "bf16", "pred", "s4", "f8e4m3fn", "c64", ...; "token" for a
 * token, with rank 0 and no bytes), its dimensions (row-major, i.e. the
 * last dimension varies fastest, whatever layout the HLO shape names) and
 * its bytes, one element after another in this storage, little-endian:
 *   pred                    1 byte, 0 or 1
 *   s1/s2/s4, u1/u2/u4      1 byte each holding the value (signed ones
 *                           sign-extended: s4 -8..7)
 *   s8..s64, u8..u64        the matching intN_t / uintN_t
 *   f16, bf16               the 16-bit encoding
 *   f32, f64                IEEE binary32 / binary64
 *   every f8, f6, f4 type   1 byte: the encoding in the low bits, high
 *                           bits zero
 *   c64, c128               (real, imaginary) pairs of f32 / f64
 * size_bytes is exactly (product of dims) * (bytes per element).
 *
 * Calls. Entry parameters are arrays or tokens (a tuple-shaped parameter is
 * never passed; hloref reports such cases unsupported). A tuple root is
 * returned flattened: one buffer per leaf, in order. hloref calls a
 * library from one thread at a time, so plugins need no locking.
 *
 * Errors. Every fallible function returns an hloref_status; on anything
 * but HLOREF_OK it may set *error_message to a NUL-terminated string
 * allocated by the plugin, which hloref releases with
 * hloref_free_string. HLOREF_UNIMPLEMENTED means "this op / type /
 * feature is not supported": the case is reported *unsupported*, never
 * failed. A message should say what, where and why
 * ("%c = f32[2] cosine(...): cosine is not implemented").
 *
 * Required symbols:
 *   uint32_t      hloref_plugin_abi_version(void);
 *   const char*   hloref_plugin_name(void);     static string, for reports
 *   hloref_status hloref_compile(const char* hlo_text,
 *                                hloref_executable** executable,
 *                                char** error_message);
 *   hloref_status hloref_run(hloref_executable* executable,
 *                            const hloref_buffer* args, int64_t num_args,
 *                            hloref_buffer** results, int64_t* num_results,
 *                            char** error_message);
 *   void          hloref_free_results(hloref_buffer* results,
 *                                     int64_t num_results);
 *   void          hloref_free_executable(hloref_executable* executable);
 *   void          hloref_free_string(char* s);
 * Optional symbol:
 *   hloref_status hloref_supports(const char* opcode,
 *                                 const char* element_type,
 *                                 char** error_message);
 *     opcode as in HLO text ("add"), element_type of the instruction's
 *     result ("tuple" for tuples); HLOREF_UNIMPLEMENTED to refuse.
 *
 * hloref_compile receives a verified module printed in HLO text (the
 * long form of docs/hlo-text-format.md). Results returned by hloref_run
 * (the array and every buffer's dims and data) belong to the plugin until
 * hloref passes them to hloref_free_results.
 */
#ifndef HLOREF_BACKENDS_PLUGIN_HLOREF_PLUGIN_H_
#define HLOREF_BACKENDS_PLUGIN_HLOREF_PLUGIN_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HLOREF_PLUGIN_ABI_VERSION 1u

/* Values chosen to equal absl::StatusCode where one exists. A plugin may
 * return any other value; hloref reports it as an unknown status. In C++
 * the type is fixed to uint32_t (what C compilers give an enum with no
 * negative values, so the layout is the same), which makes every such
 * value a valid hloref_status there: without it, loading 255 into the
 * enum is undefined behaviour in C++ (found by plugin_results_fuzz). */
#ifdef __cplusplus
typedef enum hloref_status : uint32_t {
#else
typedef enum hloref_status {
#endif
  HLOREF_OK = 0,
  HLOREF_INVALID_ARGUMENT = 3,
  HLOREF_FAILED_PRECONDITION = 9,
  HLOREF_UNIMPLEMENTED = 12,
  HLOREF_INTERNAL = 13
} hloref_status;

typedef struct hloref_buffer {
  const char* element_type; /* "f32", "bf16", "token", ... */
  int64_t rank;
  const int64_t* dims; /* rank entries; may be NULL when rank == 0 */
  const void* data;    /* size_bytes bytes; may be NULL when 0 */
  uint64_t size_bytes;
} hloref_buffer;

/* Opaque to hloref. */
typedef struct hloref_executable hloref_executable;

typedef uint32_t (*hloref_plugin_abi_version_fn)(void);
typedef const char* (*hloref_plugin_name_fn)(void);
typedef hloref_status (*hloref_compile_fn)(const char* hlo_text,
                                           hloref_executable** executable,
                                           char** error_message);
typedef hloref_status (*hloref_run_fn)(
    hloref_executable* executable, const hloref_buffer* args, int64_t num_args,
    hloref_buffer** results, int64_t* num_results, char** error_message);
typedef void (*hloref_free_results_fn)(hloref_buffer* results,
                                       int64_t num_results);
typedef void (*hloref_free_executable_fn)(hloref_executable* executable);
typedef void (*hloref_free_string_fn)(char* s);
typedef hloref_status (*hloref_supports_fn)(const char* opcode,
                                            const char* element_type,
                                            char** error_message);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HLOREF_BACKENDS_PLUGIN_HLOREF_PLUGIN_H_
