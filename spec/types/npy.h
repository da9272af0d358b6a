// .npy (NumPy format 1.0/2.0/3.0) reading and writing of array literals.
//
// Types NumPy names natively map to their dtype, written as NumPy writes
// them: pred '|b1', s8 '|i1', s16..s64 '<i2'..'<i8', u8 '|u1', u16..u64
// '<u2'..'<u8', f16 '<f2', f32 '<f4', f64 '<f8', c64 '<c8', c128 '<c16'.
// Every other type is written as a structured dtype
// with one field named after the hloref type holding the storage bits
// (e.g. bf16 -> descr [('bf16', '<u2')], f8e4m3fn -> [('f8e4m3fn', '|u1')],
// s4 -> [('s4', '|i1')] holding the value, token -> [('token', '|u1')] with
// shape ()). np.load reads these directly: a['bf16'] gives the raw bits;
// `a['bf16'].view(ml_dtypes.bfloat16)` gives the values.
//
// Writing uses format 1.0 (2.0 only for a header over 64 KiB), C order,
// and pads the header so the data starts at a multiple of 64 bytes.
// Reading accepts versions 1.0-3.0, any byte-order mark ('<', '>', '|',
// '='; '>' is byte-swapped), either integer kind for the structured field,
// and fortran_order True (transposed into row-major storage). Sub-byte
// values outside their type's range are errors; pred bytes other than 0
// are read as true, as NumPy does.
#ifndef HLOREF_SPEC_TYPES_NPY_H_
#define HLOREF_SPEC_TYPES_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "spec/types/literal.h"

namespace hloref {

// Serialises an array or token literal (tuples are an error).
absl::StatusOr<std::string> NpyBytesFromLiteral(const Literal& literal);
// Parses .npy bytes; errors say what is wrong with the header or size.
// Fortran-order arrays are transposed into row-major storage.
absl::StatusOr<Literal> LiteralFromNpyBytes(absl::string_view bytes);

absl::Status WriteNpyFile(const Literal& literal, const std::string& path);

// Reads a .npy file straight into the literal's storage: the header is
// read and checked against the file's size first (a truncated or
// oversized file is refused before anything is allocated), then the data
// is read with pread into the uninitialised storage, with no intermediate
// buffer, no zero fill and no per-element work when the file is C-ordered
// and little-endian (the form NumPy writes): disk or page-cache speed.
// Big-endian data is byte-swapped in place afterwards; Fortran-ordered
// data goes through one staging buffer of the array's size and is
// scattered into row-major order; pred and sub-byte types are checked
// element by element. Errors start with the path.
//
// With NpyReadOptions::map, a large C-ordered little-endian array whose
// data starts at a multiple of 64 bytes (as NumPy and WriteNpyFile write
// it) is mapped instead (mmap, MAP_PRIVATE): no copy and no fresh memory;
// pages are read from the page cache when first touched, and the
// literal's writes, if any, go to private copies of the pages, never to
// the file. The file must then not shrink while the literal lives: a
// SIGBUS handler (installed once, chaining to the previous one for any
// other fault) maps zeros over the part cut off, and CheckMappedNpyFiles
// reports the file. Anything else, or a failed mapping, is read.
struct NpyReadOptions {
  bool map = false;
  int64_t min_map_bytes = int64_t{1} << 20;  // smaller arrays are read
};
absl::StatusOr<Literal> ReadNpyFile(const std::string& path,
                                    const NpyReadOptions& options = {});
// OK unless a file mapped by ReadNpyFile shrank while mapped (DataLoss,
// naming the files; each shrinking is reported by one call): whoever
// evaluated on mapped arguments checks this before trusting the results.
absl::Status CheckMappedNpyFiles();

// What a .npy file's header says, read without its data (the file's size
// is checked against the header too), so that a caller can refuse a file
// of the wrong type or shape before reading gigabytes of it.
struct NpyArrayInfo {
  PrimitiveType type = PrimitiveType::kInvalid;  // kToken for a token
  std::vector<int64_t> dims;
  bool fortran_order = false;
  bool big_endian = false;
  std::string descr;  // the dtype as written: <f4, [('bf16', '<u2')]
};
absl::StatusOr<NpyArrayInfo> ReadNpyHeader(const std::string& path);

}  // namespace hloref

#endif  // HLOREF_SPEC_TYPES_NPY_H_
