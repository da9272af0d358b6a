#include "interpreter/buffer_cache.h"

#include <utility>
#include <vector>

namespace hloref {

void BufferCache::Put(Literal value) {
  if (capacity_ <= 0) return;
  if (value.shape().IsTuple()) {
    for (Literal& e : value.DecomposeTuple()) Put(std::move(e));
    return;
  }
  const int64_t size = static_cast<int64_t>(value.raw().size());
  if (!value.shape().IsArray() || size < kMinBytes || size > capacity_ ||
      value.HasPadding() || value.storage_adopted()) {
    return;
  }
  bytes_ += size;
  entries_.push_back(std::move(value));
  TrimTo(capacity_);
}

std::optional<Literal> BufferCache::Take(const Shape& shape) {
  if (entries_.empty() || !shape.IsArray()) return std::nullopt;
  // Most recently freed first: its pages are the likeliest still in cache.
  for (auto it = entries_.end(); it != entries_.begin();) {
    --it;
    if (it->CheckReinterpretAs(shape).ok()) {
      Literal out = std::move(*it);
      entries_.erase(it);
      bytes_ -= static_cast<int64_t>(out.raw().size());
      HLOREF_CHECK(out.ReinterpretAs(shape).ok());
      ++hits_;
      return out;
    }
  }
  return std::nullopt;
}

void BufferCache::TrimTo(int64_t bytes) {
  while (bytes_ > bytes && !entries_.empty()) {
    bytes_ -= static_cast<int64_t>(entries_.front().raw().size());
    entries_.pop_front();
  }
}

}  // namespace hloref
