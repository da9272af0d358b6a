#include "backends/gpu/gpu_control_flow.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "spec/util/status_macros.h"

namespace hloref::gpu {

absl::StatusOr<int64_t> BranchIndex(PrimitiveType type,
                                    absl::Span<const uint8_t> bytes,
                                    int64_t branches) {
  if (branches < 1) {
    return absl::InvalidArgumentError("a branch with no targets");
  }
  const int storage = StorageBytes(type);
  if ((!IsPred(type) && !IsInteger(type)) || storage > 8 ||
      bytes.size() < static_cast<size_t>(storage)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a branch selector must be a pred or integer scalar, "
                     "not ",
                     PrimitiveTypeName(type), " (", bytes.size(), " bytes)"));
  }
  if (IsPred(type))
    return bytes[0] != 0 ? 0 : std::min<int64_t>(1, branches - 1);
  // The value's low BitWidth bits, sign-extended (LLVM's sext of the
  // loaded iN), then truncated to 32 bits.
  uint64_t raw = 0;
  std::memcpy(&raw, bytes.data(), storage);  // little-endian host
  const int bits = BitWidth(type);
  if (bits < 64) {
    raw &= (uint64_t{1} << bits) - 1;
    if ((raw >> (bits - 1)) & 1) raw |= ~uint64_t{0} << bits;
  }
  const int32_t i32 = static_cast<int32_t>(static_cast<uint32_t>(raw));
  return i32 >= 0 && i32 < branches ? i32 : branches - 1;
}

absl::Status WalkLaunches(const GpuProgram& program,
                          const LaunchWalker& walker) {
  const int64_t n = static_cast<int64_t>(program.launches.size());
  int64_t pc = 0;
  while (pc < n) {
    const KernelLaunch& k = program.launches[pc];
    if (k.kind != KernelKind::kBranch && k.kind != KernelKind::kJump) {
      HLOREF_RETURN_IF_ERROR(walker.run(pc));
      ++pc;
      continue;
    }
    int64_t target = 0;
    if (k.kind == KernelKind::kBranch) {
      if (k.selector < 0 ||
          k.selector >= static_cast<int64_t>(program.buffers.size())) {
        return absl::InternalError(
            absl::StrCat(k.kernel, " has no selector buffer"));
      }
      HLOREF_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                              walker.read(k.selector));
      HLOREF_ASSIGN_OR_RETURN(
          int64_t index,
          BranchIndex(program.buffers[k.selector].shape.element_type(), bytes,
                      static_cast<int64_t>(k.targets.size())));
      target = k.targets[index];
    } else {
      if (k.targets.size() != 1) {
        return absl::InternalError(absl::StrCat(k.kernel, " needs one target"));
      }
      target = k.targets[0];
    }
    if (target < 0 || target > n) {
      return absl::InternalError(
          absl::StrCat(k.kernel, " of ", k.instruction, " jumps to launch ",
                       target, " outside the program's ", n, " launches"));
    }
    pc = target;
  }
  return absl::OkStatus();
}

}  // namespace hloref::gpu
