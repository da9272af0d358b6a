// Storage of values the evaluator freed, kept for later results of the
// same size (issue 16: a value written into fresh memory costs a page fault
// per 4 KiB, and glibc hands multi-MiB blocks back to the kernel when they
// are freed, so a chain of element-wise ops over a large value faulted in
// every one of its results).
//
// The cache holds whole literals (their storage) in the order they were
// freed, at most `capacity` bytes of them, dropping the oldest first. Take
// hands one out as a literal of the requested shape over the same storage
// (Literal::ReinterpretAs: equal storage sizes, no sub-byte types, no pred
// made from another type) with its old bytes in it: the caller writes every
// element before anything reads one (EvalContext::NewUninitialized), or
// zero-fills it (EvalContext::NewZeroed). Not thread-safe: one per
// evaluation (each participant of a replicated run has its own).
#ifndef HLOREF_INTERPRETER_BUFFER_CACHE_H_
#define HLOREF_INTERPRETER_BUFFER_CACHE_H_

#include <cstdint>
#include <deque>
#include <optional>

#include "spec/types/literal.h"

namespace hloref {

class BufferCache {
 public:
  // Storage below this size is left to malloc, whose bins reuse it without
  // touching the kernel.
  static constexpr int64_t kMinBytes = int64_t{64} << 10;

  explicit BufferCache(int64_t capacity) : capacity_(capacity) {}
  BufferCache(const BufferCache&) = delete;
  BufferCache& operator=(const BufferCache&) = delete;

  // Keeps the storage of `value`'s array leaves (a tuple is taken apart)
  // of at least kMinBytes without padding, dropping the oldest entries
  // while more than the capacity is held; everything else is freed, and so
  // is adopted storage (a mapped file: its first write to a page copies
  // the page, no cheaper than new memory).
  void Put(Literal value);
  // An array literal of `shape` over a cached storage of exactly its size,
  // holding stale bytes; nullopt when no entry fits (tuples, tokens, sizes
  // below kMinBytes, no entry of that size that can take the type).
  std::optional<Literal> Take(const Shape& shape);
  // Frees entries, oldest first, until at most `bytes` are held.
  void TrimTo(int64_t bytes);

  int64_t bytes() const { return bytes_; }
  int64_t capacity() const { return capacity_; }
  // Takes that found an entry (for tests and reports).
  int64_t hits() const { return hits_; }

 private:
  int64_t capacity_;
  int64_t bytes_ = 0;
  int64_t hits_ = 0;
  std::deque<Literal> entries_;  // oldest first
};

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_BUFFER_CACHE_H_
