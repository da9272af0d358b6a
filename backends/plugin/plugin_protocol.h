// The messages between hloref and hloref-plugin-host, the process that
// loads a `plugin:` library so that a plugin that crashes, hangs or scribbles
// over memory takes down only its host, never hloref (issue 17, "a crashing
// plugin"). Both ends are built from this repository at the same revision,
// so the protocol has no version of its own: a host of another build is
// refused by the hello exchange (kMagic).
//
// Transport: one AF_UNIX stream socket, file descriptor 3 in the host. A
// message is a frame: a uint64 byte count (in the machine's byte order: both
// ends run on one machine), then that many bytes. Inside a frame, fields are
// appended in order: u32 / u64 / i64 little-endian, strings and byte blocks as
// a u64 length and the bytes.
//
// Requests (first field: the Request code) and their replies:
//   kHello                          -> u32 magic, u32 abi version,
//                                      string plugin name, u32 has_supports
//   kSupports  opcode, type         -> status
//   kCompile   hlo text             -> status, u64 executable id
//   kRun       u64 id, u64 n, n x buffer -> status, u64 n, n x buffer
//   kFree      u64 id               -> (no reply)
// where status is u32 hloref_status and a string message, and buffer is
// string element_type, i64 rank, rank x i64 dims, bytes data. A host that
// cannot load the library answers kHello with status != OK and a message.
#ifndef HLOREF_BACKENDS_PLUGIN_PLUGIN_PROTOCOL_H_
#define HLOREF_BACKENDS_PLUGIN_PLUGIN_PROTOCOL_H_

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

namespace hloref::backends::plugin_protocol {

inline constexpr uint32_t kMagic = 0x68707231;  // "hpr1"
inline constexpr int kHostSocketFd = 3;

enum class Request : uint32_t {
  kHello = 1,
  kSupports = 2,
  kCompile = 3,
  kRun = 4,
  kFree = 5,
};

// Appends fields to a frame body.
class Writer {
 public:
  void U32(uint32_t v) { Fixed(v); }
  void U64(uint64_t v) { Fixed(v); }
  void I64(int64_t v) { Fixed(static_cast<uint64_t>(v)); }
  void Bytes(const void* data, uint64_t size) {
    U64(size);
    Raw(data, size);
  }
  // Any contiguous string type (std::string_view, absl::string_view ...).
  template <typename S>
  void String(const S& s) {
    Bytes(s.data(), s.size());
  }
  void String(const char* s) { Bytes(s, std::strlen(s)); }
  const std::string& body() const { return body_; }

 private:
  template <typename U>
  void Fixed(U v) {  // little-endian
    for (size_t i = 0; i < sizeof(U); ++i) {
      body_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    }
  }
  void Raw(const void* p, uint64_t n) {
    if (n > 0) body_.append(static_cast<const char*>(p), n);
  }
  std::string body_;
};

// Reads fields from a frame body; every read is bounds-checked, and after
// the first short read ok() is false and every value read is zero/empty.
class Reader {
 public:
  explicit Reader(std::string_view body) : body_(body) {}
  uint32_t U32() { return Fixed<uint32_t>(); }
  uint64_t U64() { return Fixed<uint64_t>(); }
  int64_t I64() { return Fixed<int64_t>(); }
  // A view into the body (valid while the body lives).
  std::string_view Bytes() {
    const uint64_t n = U64();
    if (!ok_ || n > body_.size() - pos_) {
      ok_ = false;
      return {};
    }
    std::string_view out = body_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  bool ok() const { return ok_; }
  bool done() const { return ok_ && pos_ == body_.size(); }

 private:
  template <typename T>
  T Fixed() {
    T v{};
    if (!ok_ || body_.size() - pos_ < sizeof(T)) {
      ok_ = false;
      return v;
    }
    // Little-endian, byte by byte (also keeps GCC 12's
    // -Wmaybe-uninitialized quiet about a memcpy out of a moved string).
    using U = std::make_unsigned_t<T>;
    U u = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      u |= static_cast<U>(static_cast<unsigned char>(body_[pos_ + i]))
           << (8 * i);
    }
    v = static_cast<T>(u);
    pos_ += sizeof(T);
    return v;
  }
  std::string_view body_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// Frames larger than this are refused as corrupt (a result of 2^40 bytes
// is beyond any machine hloref runs on).
inline constexpr uint64_t kMaxFrameBytes = uint64_t{1} << 40;

// Sends one frame; false when the peer is gone (no SIGPIPE: MSG_NOSIGNAL).
inline bool SendFrame(int fd, const std::string& body) {
  const uint64_t n = body.size();
  std::string header(reinterpret_cast<const char*>(&n), sizeof n);
  for (const std::string* part :
       std::initializer_list<const std::string*>{&header, &body}) {
    size_t done = 0;
    while (done < part->size()) {
      ssize_t k =
          ::send(fd, part->data() + done, part->size() - done, MSG_NOSIGNAL);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return false;
      done += static_cast<size_t>(k);
    }
  }
  return true;
}

enum class ReceiveResult { kOk, kClosed, kTimedOut, kCorrupt };

// Receives one frame into *body. `deadline` bounds the whole frame;
// time_point::max() (the default) waits without limit.
inline ReceiveResult ReceiveFrame(
    int fd, std::string* body,
    std::chrono::steady_clock::time_point deadline =
        std::chrono::steady_clock::time_point::max()) {
  auto read_exact = [&](char* dst, uint64_t size) -> ReceiveResult {
    uint64_t done = 0;
    while (done < size) {
      int wait_ms = -1;
      if (deadline != std::chrono::steady_clock::time_point::max()) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return ReceiveResult::kTimedOut;
        wait_ms = static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
      }
      pollfd p{fd, POLLIN, 0};
      int r = ::poll(&p, 1, wait_ms);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return ReceiveResult::kClosed;
      if (r == 0) return ReceiveResult::kTimedOut;
      ssize_t k = ::recv(fd, dst + done, size - done, 0);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return ReceiveResult::kClosed;
      done += static_cast<uint64_t>(k);
    }
    return ReceiveResult::kOk;
  };
  uint64_t n = 0;
  ReceiveResult r = read_exact(reinterpret_cast<char*>(&n), sizeof n);
  if (r != ReceiveResult::kOk) return r;
  if (n > kMaxFrameBytes) return ReceiveResult::kCorrupt;
  body->resize(n);
  return read_exact(body->data(), n);
}

}  // namespace hloref::backends::plugin_protocol

#endif  // HLOREF_BACKENDS_PLUGIN_PLUGIN_PROTOCOL_H_
