// The host runtime of the CPU backend (see host.h).
#include "backends/cpu/runtime/host.h"

#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/runtime/runtime_symbols.h"
#include "spec/types/literal.h"
#include "spec/util/status_macros.h"

namespace hloref::cpu {

void EncodeShape(const Shape& shape, std::vector<int64_t>* out) {
  if (shape.IsTuple()) {
    out->push_back(1);
    out->push_back(shape.tuple_size());
    for (const Shape& e : shape.tuple_shapes()) EncodeShape(e, out);
  } else if (shape.IsArray()) {
    out->push_back(0);
    out->push_back(static_cast<int64_t>(shape.element_type()));
    out->push_back(shape.rank());
    for (int64_t d : shape.dimensions()) out->push_back(d);
  } else {
    out->push_back(2);
  }
}

Shape DecodeShape(const int64_t** p) {
  const int64_t tag = *(*p)++;
  if (tag == 1) {
    const int64_t n = *(*p)++;
    std::vector<Shape> elements;
    for (int64_t i = 0; i < n; ++i) elements.push_back(DecodeShape(p));
    return Shape::Tuple(std::move(elements));
  }
  if (tag == 0) {
    const auto type = static_cast<PrimitiveType>(*(*p)++);
    const int64_t rank = *(*p)++;
    std::vector<int64_t> dims(*p, *p + rank);
    *p += rank;
    return Shape::Array(type, dims);
  }
  return Shape::Token();
}

namespace {

// Device-to-device channels, per run context.
std::mutex channels_mu;
std::map<RunContext*, std::map<int64_t, std::deque<Literal>>>& Channels() {
  static auto* channels =
      new std::map<RunContext*, std::map<int64_t, std::deque<Literal>>>();
  return *channels;
}

int64_t ArrayBytesOf(const Shape& s) {
  return s.num_elements() * StorageBytes(s.element_type());
}

// The value of `shape` whose array leaves are the row-major buffers
// `leaves` (consumed in order from *next).
Literal FromLeaves(const Shape& shape, void** leaves, size_t* next) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& e : shape.tuple_shapes()) {
      elements.push_back(FromLeaves(e, leaves, next));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (!shape.IsArray()) return Literal::Token();
  Literal lit(shape);
  const void* src = leaves[(*next)++];
  // A zero-element leaf may be a null pointer: memcpy must not see it.
  const size_t bytes = static_cast<size_t>(ArrayBytesOf(shape));
  if (bytes != 0) std::memcpy(lit.mutable_raw().data(), src, bytes);
  return lit;
}

// Writes `value`'s array leaves (row-major) into `leaves`.
void ToLeaves(const Literal& value, void** leaves, size_t* next) {
  if (value.shape().IsTuple()) {
    for (const Literal& e : value.tuple_elements()) ToLeaves(e, leaves, next);
    return;
  }
  if (!value.shape().IsArray()) return;
  void* dst = leaves[(*next)++];
  // Zero-element values have no storage (a null data pointer).
  if (!value.raw().empty()) {
    std::memcpy(dst, value.raw().data(), value.raw().size());
  }
}

absl::Status CheckShape(const std::string& name, const Literal& value,
                        const Shape& expected, absl::string_view what) {
  if (!value.shape().SameDimensions(expected)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", name, ": ", what, " has shape ", value.shape().ToString(false),
        ", the instruction reads ", expected.ToString(false)));
  }
  std::function<bool(const Literal&)> padded = [&](const Literal& l) {
    if (l.shape().IsTuple()) {
      for (const Literal& e : l.tuple_elements()) {
        if (padded(e)) return true;
      }
      return false;
    }
    return l.shape().IsArray() && l.HasPadding();
  };
  if (padded(value)) {
    return absl::UnimplementedError(absl::StrCat(
        "%", name, ": ", what, " is a dynamic value with padding"));
  }
  return absl::OkStatus();
}

absl::Status NoHost(const std::string& name, absl::string_view op) {
  return absl::FailedPreconditionError(
      absl::StrCat("%", name, ": ", op,
                   " needs host transfers, and this run has none (Executable::"
                   "RunWithHost)"));
}

absl::Status Transfer(RunContext* ctx, int64_t kind, const Shape& shape,
                      const std::string& name, int64_t channel, bool is_host,
                      void** leaves) {
  backends::HostTransfers* host = ctx->host;
  size_t next = 0;
  switch (kind) {
    case kInfeed: {  // infeed
      if (host == nullptr) return NoHost(name, "infeed");
      if (host->infeed.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("%", name,
                         ": the infeed queue is empty: no value left for this "
                         "infeed of ",
                         shape.ToString(false)));
      }
      Literal value = std::move(host->infeed.front());
      host->infeed.erase(host->infeed.begin());
      HLOREF_RETURN_IF_ERROR(
          CheckShape(name, value, shape, "the queued infeed value"));
      ToLeaves(value, leaves, &next);
      return absl::OkStatus();
    }
    case kOutfeed: {  // outfeed
      if (host == nullptr) return NoHost(name, "outfeed");
      host->outfeed.push_back(FromLeaves(shape, leaves, &next));
      return absl::OkStatus();
    }
    case kSend: {  // send
      Literal value = FromLeaves(shape, leaves, &next);
      if (is_host) {
        if (host == nullptr) return NoHost(name, "send");
        host->sent[channel].push_back(std::move(value));
      } else {
        std::lock_guard<std::mutex> lock(channels_mu);
        Channels()[ctx][channel].push_back(std::move(value));
      }
      return absl::OkStatus();
    }
    case kRecvHost: {  // recv from the host
      if (host == nullptr) return NoHost(name, "recv");
      auto it = host->recv.find(channel);
      if (it == host->recv.end() || it->second.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("%", name,
                         ": no value queued for host-to-device "
                         "channel ",
                         channel));
      }
      Literal value = std::move(it->second.front());
      it->second.erase(it->second.begin());
      HLOREF_RETURN_IF_ERROR(
          CheckShape(name, value, shape, "the queued recv value"));
      ToLeaves(value, leaves, &next);
      return absl::OkStatus();
    }
    case kRecvDoneDevice: {  // recv-done of a device channel
      std::optional<Literal> value;
      {
        std::lock_guard<std::mutex> lock(channels_mu);
        auto run = Channels().find(ctx);
        if (run != Channels().end()) {
          auto it = run->second.find(channel);
          if (it != run->second.end() && !it->second.empty()) {
            value = std::move(it->second.front());
            it->second.pop_front();
          }
        }
      }
      if (!value.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", name, ": no send on channel ", channel,
            " happened before this recv-done (seed 001: Send happens before "
            "RecvDone); on a device this would deadlock"));
      }
      HLOREF_RETURN_IF_ERROR(
          CheckShape(name, *value, shape,
                     absl::StrCat("the value sent on channel ", channel)));
      ToLeaves(*value, leaves, &next);
      return absl::OkStatus();
    }
    default:
      return absl::InternalError(
          absl::StrCat("%", name, ": host transfer kind ", kind));
  }
}

}  // namespace

void ReleaseDeviceChannels(RunContext* ctx) {
  std::lock_guard<std::mutex> lock(channels_mu);
  Channels().erase(ctx);
}

void AddHostRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back({"hloref_cpu_host_transfer",
                  reinterpret_cast<void*>(&hloref_cpu_host_transfer)});
}

}  // namespace hloref::cpu

extern "C" {

void hloref_cpu_host_transfer(hloref::cpu::RunContext* ctx, int64_t kind,
                              const int64_t* shape, const char* name,
                              int64_t channel, int64_t is_host, void** leaves) {
  if (ctx->failed()) return;
  const int64_t* p = shape;
  const hloref::Shape s = hloref::cpu::DecodeShape(&p);
  absl::Status status =
      hloref::cpu::Transfer(ctx, kind, s, name, channel, is_host != 0, leaves);
  if (!status.ok()) ctx->SetError(std::move(status));
}

}  // extern "C"
