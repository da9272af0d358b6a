// The rng runtime of the CPU backend:
//   rng-bit-generator  XLA's expansion bit for bit (docs/numerics.md 3.7):
//                      THREE_FRY = Threefry-2x32-20, key state[0], 64-bit
//                      counter state[1]; PHILOX (and DEFAULT) =
//                      Philox-4x32-10, key state[0], 128-bit counter
//                      (low, high) = (state[1], state[2]) for u64[3] states
//                      and (state[1], state[0]) for u64[2] states.
//   rng, rng-get-and-update-state
//                      the module's 128-bit state S and seed, drawn as
//                      PHILOX words (the generator spec/impl_defined.md
//                      impl.rng.1 documents for hloref): k words are
//                      PHILOX's u64 output on the counter S with key seed,
//                      then S += ceil(k / 2).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "backends/cpu/runtime/array_ops.h"
#include "backends/cpu/runtime/runtime_symbols.h"
#include "backends/cpu/runtime/strided.h"

namespace hloref::cpu {

void Threefry2x32Block(const uint32_t counter[2], const uint32_t key[2],
                       uint32_t out[2]) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]};
  uint32_t x0 = counter[0] + ks[0];
  uint32_t x1 = counter[1] + ks[1];
  for (int g = 1; g <= 5; ++g) {
    const int* r = (g % 2 == 1) ? kRotations : kRotations + 4;
    for (int round = 0; round < 4; ++round) {
      x0 += x1;
      x1 = ((x1 << r[round]) | (x1 >> (32 - r[round]))) ^ x0;
    }
    x0 += ks[g % 3];
    x1 += ks[(g + 1) % 3] + static_cast<uint32_t>(g);
  }
  out[0] = x0;
  out[1] = x1;
}

void Philox4x32Block(const uint32_t counter[4], const uint32_t key[2],
                     uint32_t out[4]) {
  constexpr uint64_t kM0 = 0xD2511F53;
  constexpr uint64_t kM1 = 0xCD9E8D57;
  uint32_t x[4] = {counter[0], counter[1], counter[2], counter[3]};
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = kM0 * x[0];
    const uint64_t p1 = kM1 * x[2];
    const uint32_t y0 = static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ k0;
    const uint32_t y1 = static_cast<uint32_t>(p1);
    const uint32_t y2 = static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ k1;
    const uint32_t y3 = static_cast<uint32_t>(p0);
    x[0] = y0;
    x[1] = y1;
    x[2] = y2;
    x[3] = y3;
    k0 += 0x9E3779B9;
    k1 += 0xBB67AE85;
  }
  std::memcpy(out, x, sizeof(x));
}

namespace {

using U128 = unsigned __int128;

uint64_t Join32(uint32_t lo, uint32_t hi) {
  return uint64_t{lo} | (uint64_t{hi} << 32);
}

void PhiloxAt(uint64_t key, U128 counter, uint32_t out[4]) {
  const uint64_t lo = static_cast<uint64_t>(counter);
  const uint64_t hi = static_cast<uint64_t>(counter >> 64);
  const uint32_t c[4] = {
      static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32),
      static_cast<uint32_t>(hi), static_cast<uint32_t>(hi >> 32)};
  const uint32_t k[2] = {static_cast<uint32_t>(key),
                         static_cast<uint32_t>(key >> 32)};
  Philox4x32Block(c, k, out);
}

// k 64-bit PHILOX words: block j (counter + j) gives words 2j and 2j+1.
std::vector<uint64_t> PhiloxWords64(uint64_t key, U128 counter, int64_t k) {
  std::vector<uint64_t> words(static_cast<size_t>(k));
  for (int64_t j = 0; 2 * j < k; ++j) {
    uint32_t w[4];
    PhiloxAt(key, counter + static_cast<uint64_t>(j), w);
    words[2 * j] = Join32(w[0], w[1]);
    if (2 * j + 1 < k) words[2 * j + 1] = Join32(w[2], w[3]);
  }
  return words;
}

// Physical positions of the elements of a strided array in logical
// row-major order.
std::vector<int64_t> RowMajorOffsets(int64_t rank, const int64_t* dims,
                                     const int64_t* strides) {
  std::vector<int64_t> offsets;
  if (rt::Product(dims, 0, rank) == 0) return offsets;
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  do {
    offsets.push_back(rt::Offset(idx, strides, rank));
  } while (rt::NextIndex(idx, dims, rank));
  return offsets;
}

// THREE_FRY bits into `out`; returns the new counter.
uint64_t ThreeFryFill(uint64_t key, uint64_t counter, PrimitiveType type,
                      uint8_t* out, int64_t rank, const int64_t* dims,
                      const int64_t* strides) {
  const uint32_t key32[2] = {static_cast<uint32_t>(key),
                             static_cast<uint32_t>(key >> 32)};
  auto block = [&](uint64_t c, uint32_t w[2]) {
    const uint32_t c32[2] = {static_cast<uint32_t>(c),
                             static_cast<uint32_t>(c >> 32)};
    Threefry2x32Block(c32, key32, w);
  };
  const int bytes = StorageBytes(type);
  const int64_t n = rt::Product(dims, 0, rank);
  if (BitWidth(type) == 64) {
    // One counter per element in row-major order: word0 | word1 << 32.
    const std::vector<int64_t> offsets = RowMajorOffsets(rank, dims, strides);
    for (int64_t i = 0; i < n; ++i) {
      uint32_t w[2];
      block(counter + static_cast<uint64_t>(i), w);
      rt::StoreIntBits(type, out + offsets[i] * bytes, Join32(w[0], w[1]));
    }
    return counter + static_cast<uint64_t>(n);
  }
  if (rank == 0) {
    uint32_t w[2];
    block(counter, w);
    rt::StoreIntBits(type, out, w[0]);
    return counter + 1;
  }
  // XLA's split: the first even dimension, else the first largest one; the
  // half shape halves it (rounding up); its row-major element i uses
  // counter + i and writes words 0 and 1 to positions 2h and 2h+1 of the
  // split dimension (dropping 2h+1 past an odd end).
  int64_t split = -1;
  for (int64_t d = 0; d < rank && split < 0; ++d) {
    if (dims[d] % 2 == 0) split = d;
  }
  if (split < 0) {
    split = 0;
    for (int64_t d = 1; d < rank; ++d) {
      if (dims[d] > dims[split]) split = d;
    }
  }
  std::vector<int64_t> half(dims, dims + rank);
  half[split] = (dims[split] + 1) / 2;
  const int64_t half_count = rt::Product(half.data(), 0, rank);
  if (half_count == 0) return counter;
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  std::vector<int64_t> target(static_cast<size_t>(rank), 0);
  int64_t i = 0;
  do {
    uint32_t w[2];
    block(counter + static_cast<uint64_t>(i), w);
    target = index;
    for (int word = 0; word < 2; ++word) {
      target[split] = 2 * index[split] + word;
      if (target[split] >= dims[split]) break;
      rt::StoreIntBits(type, out + rt::Offset(target, strides, rank) * bytes,
                       w[word]);
    }
    ++i;
  } while (rt::NextIndex(index, half.data(), rank));
  return counter + static_cast<uint64_t>(half_count);
}

// PHILOX bits into `out`; returns the new counter.
U128 PhiloxFill(uint64_t key, U128 counter, PrimitiveType type, uint8_t* out,
                int64_t rank, const int64_t* dims, const int64_t* strides) {
  const int bytes = StorageBytes(type);
  const std::vector<int64_t> offsets = RowMajorOffsets(rank, dims, strides);
  const int64_t n = static_cast<int64_t>(offsets.size());
  if (BitWidth(type) == 64) {
    const std::vector<uint64_t> words = PhiloxWords64(key, counter, n);
    for (int64_t i = 0; i < n; ++i) {
      rt::StoreIntBits(type, out + offsets[i] * bytes, words[i]);
    }
    return counter + static_cast<uint64_t>((n + 1) / 2);
  }
  // Element 4j + w is word w of block j.
  const int64_t blocks = (n + 3) / 4;
  for (int64_t j = 0; j < blocks; ++j) {
    uint32_t w[4];
    PhiloxAt(key, counter + static_cast<uint64_t>(j), w);
    for (int64_t word = 0; word < 4 && 4 * j + word < n; ++word) {
      rt::StoreIntBits(type, out + offsets[4 * j + word] * bytes, w[word]);
    }
  }
  return counter + static_cast<uint64_t>(blocks);
}

std::mutex& StateMutex() {
  static std::mutex mu;
  return mu;
}

// The state rng and rng-get-and-update-state use: u64[3] {seed, S.low,
// S.high}.
uint64_t* StateOf(RunContext* ctx, uint64_t* module_state) {
  return ctx->rng_state != nullptr ? ctx->rng_state : module_state;
}

// Returns S and adds delta (mod 2^128).
U128 GetAndUpdate(uint64_t* state, U128 delta) {
  std::lock_guard<std::mutex> lock(StateMutex());
  const U128 old = (U128{state[2]} << 64) | state[1];
  const U128 next = old + delta;
  state[1] = static_cast<uint64_t>(next);
  state[2] = static_cast<uint64_t>(next >> 64);
  return old;
}

std::vector<uint64_t> DrawWords(uint64_t* state, int64_t k) {
  const uint64_t seed = state[0];
  const U128 counter = GetAndUpdate(state, static_cast<U128>((k + 1) / 2));
  return PhiloxWords64(seed, counter, k);
}

// 2^-53 times the top 53 bits of a word.
long double UnitInterval(uint64_t word) {
  return std::ldexp(static_cast<long double>(word >> 11), -53);
}

double DecodeBits(PrimitiveType type, uint64_t bits) {
  uint8_t buf[8];
  std::memcpy(buf, &bits, 8);
  return rt::LoadFloat(type, buf);
}

// The encoding one step below the float `b` (the oracle's FloatBelow).
bool FloatBelow(PrimitiveType type, const uint8_t* b, uint64_t* below) {
  const double bv = rt::LoadFloat(type, b);
  if (!std::isfinite(bv)) return false;
  const uint64_t bits =
      rt::LoadBits(b, StorageBytes(type)) & rt::LowMask(BitWidth(type));
  const uint64_t sign = uint64_t{1} << (BitWidth(type) - 1);
  uint64_t v;
  if (bv > 0) {
    v = bits - 1;
  } else if (bv == 0) {
    v = sign | 1;
  } else {
    v = bits + 1;
  }
  if (!(DecodeBits(type, v) < bv)) return false;
  *below = v;
  return true;
}

void StoreBitsRaw(PrimitiveType type, uint8_t* p, uint64_t bits) {
  std::memcpy(p, &bits, static_cast<size_t>(StorageBytes(type)));
}

}  // namespace

void AddRngRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back({"hloref_cpu_rng_bit_generator",
                  reinterpret_cast<void*>(&hloref_cpu_rng_bit_generator)});
  list.push_back({"hloref_cpu_rng", reinterpret_cast<void*>(&hloref_cpu_rng)});
  list.push_back(
      {"hloref_cpu_rng_get_and_update_state",
       reinterpret_cast<void*>(&hloref_cpu_rng_get_and_update_state)});
}

}  // namespace hloref::cpu

extern "C" {

void hloref_cpu_rng_bit_generator(hloref::cpu::RunContext* ctx,
                                  int32_t algorithm, const uint64_t* state,
                                  int64_t words, uint64_t* new_state,
                                  int32_t type_id, void* out, int64_t rank,
                                  const int64_t* dims, const int64_t* strides) {
  using hloref::cpu::U128;
  const auto type = static_cast<hloref::PrimitiveType>(type_id);
  const bool philox = algorithm != 1;
  if (words < 2) {
    hloref_cpu_error(ctx, "rng-bit-generator: state of fewer than 2 words");
    return;
  }
  // Read the words the algorithm uses first: new_state never aliases the
  // state, but be safe.
  uint64_t s[3] = {state[0], state[1], words >= 3 ? state[2] : 0};
  // Words past those the algorithm reads (three_fry: 2, philox: 3) come
  // back unchanged (impl.rng-bit-generator.3); each is read before its own
  // position is written.
  for (int64_t i = philox ? 3 : 2; i < words; ++i) new_state[i] = state[i];
  const uint64_t key = s[0];
  uint8_t* o = static_cast<uint8_t*>(out);
  if (philox) {
    const U128 counter = (U128{words >= 3 ? s[2] : s[0]} << 64) | U128{s[1]};
    const U128 next =
        hloref::cpu::PhiloxFill(key, counter, type, o, rank, dims, strides);
    new_state[0] = key;
    new_state[1] = static_cast<uint64_t>(next);
    if (words >= 3) new_state[2] = static_cast<uint64_t>(next >> 64);
  } else {
    const uint64_t next =
        hloref::cpu::ThreeFryFill(key, s[1], type, o, rank, dims, strides);
    new_state[0] = key;
    new_state[1] = next;
  }
}

void hloref_cpu_rng(hloref::cpu::RunContext* ctx, uint64_t* module_state,
                    int32_t distribution, int32_t type_id, const void* a_data,
                    const void* b_data, void* out_data, int64_t rank,
                    const int64_t* dims, const int64_t* strides) {
  namespace rt = hloref::cpu::rt;
  using hloref::PrimitiveType;
  const auto type = static_cast<PrimitiveType>(type_id);
  uint64_t* state = hloref::cpu::StateOf(ctx, module_state);
  const uint8_t* a = static_cast<const uint8_t*>(a_data);
  const uint8_t* b = static_cast<const uint8_t*>(b_data);
  uint8_t* out = static_cast<uint8_t*>(out_data);
  const int bytes = hloref::StorageBytes(type);
  const std::vector<int64_t> offsets =
      hloref::cpu::RowMajorOffsets(rank, dims, strides);
  const int64_t n = static_cast<int64_t>(offsets.size());
  if (distribution == 1) {
    // Normal by Box-Muller on words 2i, 2i+1.
    const long double mu = rt::LoadFloat(type, a);
    const long double sigma = rt::LoadFloat(type, b);
    const std::vector<uint64_t> words = hloref::cpu::DrawWords(state, 2 * n);
    const long double two_pi = 2 * std::acos(-1.0L);
    for (int64_t i = 0; i < n; ++i) {
      const long double u1 =
          std::ldexp(static_cast<long double>((words[2 * i] >> 11) + 1), -53);
      const long double u2 = hloref::cpu::UnitInterval(words[2 * i + 1]);
      const long double z =
          std::sqrt(-2 * std::log(u1)) * std::cos(two_pi * u2);
      rt::StoreFloatFromDouble(type, out + offsets[i] * bytes,
                               static_cast<double>(mu + sigma * z));
    }
    return;
  }
  const std::vector<uint64_t> words = hloref::cpu::DrawWords(state, n);
  if (hloref::IsFloat(type)) {
    const double av = rt::LoadFloat(type, a);
    const double bv = rt::LoadFloat(type, b);
    const bool degenerate =
        !(av < bv) || !std::isfinite(av) || !std::isfinite(bv);
    const long double lo = av;
    const long double width = static_cast<long double>(bv) - lo;
    uint64_t below = 0;
    bool has_below = !degenerate && hloref::cpu::FloatBelow(type, b, &below);
    if (has_below && hloref::cpu::DecodeBits(type, below) < av) {
      has_below = false;
    }
    const uint64_t a_bits = rt::LoadBits(a, bytes);
    for (int64_t i = 0; i < n; ++i) {
      uint8_t* p = out + offsets[i] * bytes;
      const long double x = lo + hloref::cpu::UnitInterval(words[i]) * width;
      rt::StoreFloatFromDouble(type, p, static_cast<double>(x));
      if (!degenerate && rt::LoadFloat(type, p) >= bv) {
        hloref::cpu::StoreBitsRaw(type, p, has_below ? below : a_bits);
      }
    }
    return;
  }
  // Integers and pred: a + floor(W (b - a) / 2^64).
  const bool is_signed = hloref::IsSignedInt(type);
  const uint64_t av = static_cast<uint64_t>(rt::LoadInt(type, a));
  const uint64_t bv = static_cast<uint64_t>(rt::LoadInt(type, b));
  const bool degenerate =
      is_signed ? static_cast<int64_t>(bv) <= static_cast<int64_t>(av)
                : bv <= av;
  const uint64_t range = degenerate ? 0 : bv - av;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t offset = static_cast<uint64_t>(
        (static_cast<hloref::cpu::U128>(words[i]) * range) >> 64);
    const uint64_t value = av + offset;
    uint8_t* p = out + offsets[i] * bytes;
    if (hloref::IsPred(type)) {
      *p = value != 0 ? 1 : 0;
    } else {
      rt::StoreIntBits(type, p, value);
    }
  }
}

void hloref_cpu_rng_get_and_update_state(hloref::cpu::RunContext* ctx,
                                         uint64_t* module_state, int64_t delta,
                                         uint64_t* out) {
  using hloref::cpu::U128;
  uint64_t* state = hloref::cpu::StateOf(ctx, module_state);
  // A negative delta steps back (mod 2^128).
  const U128 d = static_cast<U128>(static_cast<__int128>(delta));
  const U128 old = hloref::cpu::GetAndUpdate(state, d);
  out[0] = static_cast<uint64_t>(old);
  out[1] = static_cast<uint64_t>(old >> 64);
}

}  // extern "C"
