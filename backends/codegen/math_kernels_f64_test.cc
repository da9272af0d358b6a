// The f64 transcendental kernels of math_ir.h (and the kernels shared by
// every float type: acos, asin, atan2, cbrt) on the CPU backend, measured:
// the maximum ulp error over random doubles in every binade (both signs,
// subnormals included), a uniform grid over each function's interesting
// range, and special points (zeros, infinities, NaN, overflow and underflow
// thresholds, doubles near multiples of pi/2, arguments beyond the vector
// reduction of sin/cos/tan). The reference is libquadmath's __float128
// functions (113-bit significand, errors of a few units of 2^-113: an
// independent computation, never the code under test); ulps are
// numerics.md's (the binade of the exact value, the subnormal spacing
// below the normal range). The budgets of compare_policy.def are 2 ulp
// (4 for tan, tanh, logistic, cbrt); the kernels aim at 0.5 + 0.25: the
// tests assert 1 ulp, and 0.5 + 2^-8 for the f32 results of the kernels
// shared with f32.
#include <gtest/gtest.h>
#include <quadmath.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "spec/types/literal.h"

namespace hloref::cpu {
namespace {

using Q = __float128;
using Ref1 = std::function<Q(Q)>;
using Ref2 = std::function<Q(Q, Q)>;

constexpr double kBoundF64 = 1.0;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Format {
  int p;
  int emin;
  double max;
};
constexpr Format kF64 = {53, -1022, std::numeric_limits<double>::max()};
constexpr Format kF32 = {24, -126, 0x1.fffffep127};

// numerics.md: ulp_T(y) = 2^(max(floor(log2|y|), emin) - p + 1).
Q Ulp(const Format& f, Q y) {
  int e = f.emin;
  if (y != 0) e = std::max(static_cast<int>(ilogbq(y)), f.emin);
  return ldexpq(1, e - f.p + 1);
}

bool Overflows(const Format& f, Q y) {
  return fabsq(y) >= static_cast<Q>(f.max) +
                         ldexpq(1, static_cast<int>(std::log2(f.max)) - f.p);
}

struct Stats {
  double max_ulp = 0;
  double worst_x = 0, worst_y = 0;
  int64_t count = 0;
  int64_t special_mismatches = 0;
  std::string first_mismatch;
};

void Judge(const Format& f, double got, Q ref, double x, double y, Stats& s) {
  ++s.count;
  auto mismatch = [&](const char* why) {
    if (s.special_mismatches++ == 0) {
      s.first_mismatch =
          absl::StrCat(why, ": x=", absl::SixDigits(x), " (", x, ") y=", y,
                       " got=", got, " ref=", static_cast<double>(ref));
    }
  };
  if (isnanq(ref)) {
    if (!std::isnan(got)) mismatch("NaN expected");
    return;
  }
  if (std::isnan(got)) return mismatch("unexpected NaN");
  if (isinfq(ref) || Overflows(f, ref)) {
    if (!std::isinf(got) || std::signbit(got) != (signbitq(ref) != 0)) {
      mismatch("infinity expected");
    }
    return;
  }
  if (std::isinf(got)) return mismatch("unexpected infinity");
  if (ref == 0 && (got != 0 || std::signbit(got) != (signbitq(ref) != 0))) {
    return mismatch("signed zero expected");
  }
  const double ulps =
      static_cast<double>(fabsq(static_cast<Q>(got) - ref) / Ulp(f, ref));
  if (ulps > s.max_ulp) {
    s.max_ulp = ulps;
    s.worst_x = x;
    s.worst_y = y;
  }
}

double FromBits(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

// Random doubles in every binade (`per` each, both signs; the subnormal
// range as one binade per exponent of its leading bit), a uniform grid
// over [lo, hi], the special points and their neighbours.
std::vector<double> F64Sample(double lo, double hi, int per,
                              const std::vector<double>& extra) {
  std::mt19937_64 rng(12345);
  std::vector<double> v;
  for (int e = -1074; e <= 1023; ++e) {
    for (int i = 0; i < per; ++i) {
      double x;
      if (e >= -1022) {
        x = FromBits((static_cast<uint64_t>(e + 1023) << 52) |
                     (rng() & 0x000fffffffffffffULL));
      } else {
        const int bit = e + 1074;  // leading bit of the subnormal
        uint64_t m =
            (uint64_t{1} << bit) | (rng() & ((uint64_t{1} << bit) - 1));
        x = FromBits(m);
      }
      v.push_back(x);
      v.push_back(-x);
    }
  }
  const int kGrid = 60000;
  for (int i = 0; i <= kGrid; ++i) v.push_back(lo + (hi - lo) * i / kGrid);
  std::vector<double> sp = {
      0.0, 1.0, 2.0, 0.5, kInf, std::nan(""), 0x1p-1074, 0x1p-1022,
      std::numeric_limits<double>::max(), 0x1p-26, 0x1p-28, 0x1p28, 0x1p27,
      // exp / expm1 / sinh / cosh thresholds
      709.782712893384, 709.7827128933841, 710.4758600739439,
      -708.3964185322641, -745.1332191019411, -745.1332191019412,
      -744.44007192138122, 0.34657359027997264, 40.0, 22.0, 19.06,
      1.0 - 0x1p-53, 1.0 + 0x1p-52, 0.41421356237309503, -0.29289321881345248,
      5.9375, 6.0, 5.86, 0.5 - 0x1p-54,
      // pi/2 multiples (the reduction's hard cases)
      1.5707963267948966, 3.141592653589793, 4.71238898038469,
      6.283185307179586, 1e22, 6381956970095103.0 * 0x1p797, 1e300, 1e-300};
  for (double x : extra) sp.push_back(x);
  for (int k = 1; k <= 3000; ++k) sp.push_back(k * 1.5707963267948966);
  for (int k = 1; k <= 200; ++k)
    sp.push_back(static_cast<double>(k) * 104729.0 * 1.5707963267948966);
  for (double x : sp) {
    for (double s : {x, -x}) {
      v.push_back(s);
      v.push_back(std::nextafter(s, kInf));
      v.push_back(std::nextafter(s, -kInf));
    }
  }
  return v;
}

std::string UnaryModule(const char* op, const char* type, size_t n) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, "[", n,
                      "] parameter(0)\n  ROOT r = ", type, "[", n, "] ", op,
                      "(a)\n}\n");
}

std::string BinaryModule(const char* op, const char* type, size_t n) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, "[", n,
                      "] parameter(0)\n  b = ", type, "[", n,
                      "] parameter(1)\n  ROOT r = ", type, "[", n, "] ", op,
                      "(a, b)\n}\n");
}

Literal F64Literal(const std::vector<double>& xs) {
  Literal in(
      Shape::Array(PrimitiveType::kF64, {static_cast<int64_t>(xs.size())}));
  for (size_t i = 0; i < xs.size(); ++i) in.SetFromDouble(i, xs[i]);
  return in;
}

struct UnaryCase {
  const char* op;
  Ref1 ref;
  double lo, hi;  // the uniform grid
  std::vector<double> extra = {};
};

std::vector<UnaryCase> F64Cases() {
  return {
      {"exponential", [](Q x) { return expq(x); }, -750, 712},
      {"exponential-minus-one", [](Q x) { return expm1q(x); }, -50, 712},
      {"log", [](Q x) { return logq(x); }, 0, 4},
      {"log-plus-one", [](Q x) { return log1pq(x); }, -1, 3},
      {"logistic", [](Q x) { return 1 / (1 + expq(-x)); }, -750, 50},
      {"tanh", [](Q x) { return tanhq(x); }, -25, 25},
      {"sine", [](Q x) { return sinq(x); }, -1e4, 1e4},
      {"cosine", [](Q x) { return cosq(x); }, -1e4, 1e4},
      {"tan", [](Q x) { return tanq(x); }, -1e4, 1e4},
      {"erf", [](Q x) { return erfq(x); }, -7, 7},
      {"sinh", [](Q x) { return sinhq(x); }, -715, 715},
      {"cosh", [](Q x) { return coshq(x); }, -715, 715},
      {"asinh", [](Q x) { return asinhq(x); }, -1e3, 1e3},
      {"acosh", [](Q x) { return acoshq(x); }, 0.9, 1e3},
      {"atanh", [](Q x) { return atanhq(x); }, -1, 1},
      {"acos", [](Q x) { return acosq(x); }, -1.01, 1.01},
      {"asin", [](Q x) { return asinq(x); }, -1.01, 1.01},
      {"cbrt", [](Q x) { return cbrtq(x); }, -30, 30},
  };
}

Stats RunF64Unary(const UnaryCase& c, CpuBackendOptions options = {}) {
  const std::vector<double> xs = F64Sample(c.lo, c.hi, 16, c.extra);
  auto out = CompileAndRun(UnaryModule(c.op, "f64", xs.size()),
                           {F64Literal(xs)}, options);
  Stats s;
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return s;
  for (size_t i = 0; i < xs.size(); ++i) {
    Judge(kF64, (*out)[0].GetAsDouble(i), c.ref(xs[i]), xs[i], 0, s);
  }
  return s;
}

TEST(MathKernelsF64, UnaryWithinOneUlp) {
  for (const UnaryCase& c : F64Cases()) {
    const Stats s = RunF64Unary(c);
    EXPECT_EQ(s.special_mismatches, 0) << c.op << ": " << s.first_mismatch;
    EXPECT_LE(s.max_ulp, kBoundF64) << c.op << " worst at x = " << s.worst_x;
    std::printf("f64 %-22s max %.4f ulp (x = %.17g), %lld points\n", c.op,
                s.max_ulp, s.worst_x, static_cast<long long>(s.count));
  }
}

// Without LLVM's optimisation (no vectorisation: the fallback of sin, cos
// and tan is a plain branch) the results are the same kernels'.
TEST(MathKernelsF64, UnaryAtOptLevel0) {
  CpuBackendOptions options;
  options.opt_level = 0;
  for (const UnaryCase& c : F64Cases()) {
    const std::string op = c.op;
    if (op != "sine" && op != "tan" && op != "exponential" && op != "log") {
      continue;
    }
    const Stats s = RunF64Unary(c, options);
    EXPECT_EQ(s.special_mismatches, 0) << c.op << ": " << s.first_mismatch;
    EXPECT_LE(s.max_ulp, kBoundF64) << c.op << " worst at x = " << s.worst_x;
  }
}

// The hot path stays vector: the optimised IR of an f64 sine loop calls
// the masked vector variant of the scalar fallback (so the loop was
// vectorised with the call predicated per lane), and the results of
// vectors mixing huge and ordinary arguments are right lane by lane.
TEST(MathKernelsF64, SineLoopIsVectorisedWithMaskedFallback) {
  const std::string dir = ::testing::TempDir() + "/hloref_math_f64_dump";
  std::filesystem::remove_all(dir);
  CpuBackendOptions options;
  options.dump_dir = dir;
  options.compile_cache = false;
  std::vector<double> xs;
  for (int i = 0; i < 4096; ++i) {
    xs.push_back(i % 5 == 3 ? 1e200 * (i + 1) : 0.37 * i);
  }
  auto out = CompileAndRun(
      "HloModule vecsin\nENTRY e {\n  a = f64[4096] parameter(0)\n"
      "  ROOT r = f64[4096] sine(a)\n}\n",
      {F64Literal(xs)}, options);
  ASSERT_TRUE(out.ok()) << out.status();
  Stats s;
  for (size_t i = 0; i < xs.size(); ++i) {
    Judge(kF64, (*out)[0].GetAsDouble(i), sinq(xs[i]), xs[i], 0, s);
  }
  EXPECT_EQ(s.special_mismatches, 0) << s.first_mismatch;
  EXPECT_LE(s.max_ulp, kBoundF64) << "worst at " << s.worst_x;
  std::string ir;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (absl::StartsWith(name, "vecsin.") && absl::EndsWith(name, ".opt.ll")) {
      std::ifstream f(entry.path());
      ir.assign(std::istreambuf_iterator<char>(f),
                std::istreambuf_iterator<char>());
    }
  }
  ASSERT_FALSE(ir.empty()) << "no optimised IR dumped in " << dir;
  EXPECT_TRUE(std::regex_search(
      ir,
      std::regex(R"(call <[0-9]+ x double> @hloref_cpu_sin_f64\.masked\.v)")))
      << "the f64 sine loop was not vectorised";
}

// Pairs for pow and atan2: random operands over all binades and signs,
// exponents scaled so that |y log2|x|| spans the finite range, and C
// Annex F's table of special values against each other.
struct Pairs {
  std::vector<double> a, b;
};

std::vector<double> SpecialOperands() {
  std::vector<double> sp = {0.0,  1.0,  2.0,           3.0,          0.5,
                            2.5,  kInf, 0x1p-1074,     1e300,        0x1p-1022,
                            64.0, 1e-5, 1.0 + 0x1p-52, 1.0 - 0x1p-53};
  std::vector<double> v;
  for (double x : sp) {
    v.push_back(x);
    v.push_back(-x);
  }
  v.push_back(std::nan(""));
  return v;
}

double RandomDouble(std::mt19937_64& rng) {
  const int e = static_cast<int>(rng() % 2046) - 1022;
  double x = FromBits((static_cast<uint64_t>(e + 1023) << 52) |
                      (rng() & 0x000fffffffffffffULL));
  return rng() % 2 ? -x : x;
}

Pairs PowPairs() {
  Pairs p;
  const std::vector<double> sp = SpecialOperands();
  for (double a : sp) {
    for (double b : sp) {
      p.a.push_back(a);
      p.b.push_back(b);
    }
  }
  std::mt19937_64 rng(777);
  std::uniform_real_distribution<double> t(-1100, 1100);
  for (int i = 0; i < 150000; ++i) {
    const double x = std::fabs(RandomDouble(rng));
    const double lg = std::log2(x);
    double y = lg == 0 ? t(rng) : t(rng) / lg;
    if (i % 4 == 0) y = std::nearbyint(y);  // integer exponents
    if (i % 8 == 0) {
      p.a.push_back(-x);  // negative bases with integer exponents
    } else {
      p.a.push_back(x);
    }
    p.b.push_back(y);
  }
  // Bases near 1 with large exponents (log's relative accuracy matters).
  for (int i = 0; i < 20000; ++i) {
    const double x =
        1 + std::ldexp(static_cast<double>(rng() % 2000000) - 1000000.0, -50);
    p.a.push_back(x);
    p.b.push_back(std::uniform_real_distribution<double>(-1e15, 1e15)(rng));
  }
  return p;
}

Pairs Atan2Pairs() {
  Pairs p;
  const std::vector<double> sp = SpecialOperands();
  for (double a : sp) {
    for (double b : sp) {
      p.a.push_back(a);
      p.b.push_back(b);
    }
  }
  std::mt19937_64 rng(999);
  for (int i = 0; i < 100000; ++i) {
    p.a.push_back(RandomDouble(rng));
    p.b.push_back(RandomDouble(rng));
  }
  // Similar magnitudes (results away from 0 and pi/2).
  std::uniform_real_distribution<double> u(-4, 4);
  for (int i = 0; i < 100000; ++i) {
    const double s = std::ldexp(1.0, static_cast<int>(rng() % 200) - 100);
    p.a.push_back(u(rng) * s);
    p.b.push_back(u(rng) * s);
  }
  return p;
}

Stats RunF64Binary(const char* op, const Pairs& p, const Ref2& ref) {
  auto out = CompileAndRun(BinaryModule(op, "f64", p.a.size()),
                           {F64Literal(p.a), F64Literal(p.b)});
  Stats s;
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return s;
  for (size_t i = 0; i < p.a.size(); ++i) {
    Judge(kF64, (*out)[0].GetAsDouble(i), ref(p.a[i], p.b[i]), p.a[i], p.b[i],
          s);
  }
  return s;
}

TEST(MathKernelsF64, PowerWithinOneUlpAndAnnexF) {
  const Stats s =
      RunF64Binary("power", PowPairs(), [](Q a, Q b) { return powq(a, b); });
  EXPECT_EQ(s.special_mismatches, 0) << s.first_mismatch;
  EXPECT_LE(s.max_ulp, kBoundF64)
      << "worst at " << s.worst_x << " ^ " << s.worst_y;
  std::printf("f64 power max %.4f ulp (%.17g ^ %.17g), %lld pairs\n", s.max_ulp,
              s.worst_x, s.worst_y, static_cast<long long>(s.count));
}

TEST(MathKernelsF64, Atan2WithinOneUlpAndAnnexF) {
  const Stats s = RunF64Binary("atan2", Atan2Pairs(),
                               [](Q a, Q b) { return atan2q(a, b); });
  EXPECT_EQ(s.special_mismatches, 0) << s.first_mismatch;
  EXPECT_LE(s.max_ulp, kBoundF64)
      << "worst at atan2(" << s.worst_x << ", " << s.worst_y << ")";
  std::printf("f64 atan2 max %.4f ulp (%.17g, %.17g), %lld pairs\n", s.max_ulp,
              s.worst_x, s.worst_y, static_cast<long long>(s.count));
}

// The kernels shared with f32 (acos, asin, atan2, cbrt): every 65537th
// f32 bit pattern, a grid and special points; f32 results within
// 0.5 + 2^-8 ulp.
TEST(MathKernelsF64, SharedKernelsOnF32) {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits <= 0xffffffffULL; bits += 65537) {
    const uint32_t u = static_cast<uint32_t>(bits);
    float x;
    std::memcpy(&x, &u, 4);
    xs.push_back(x);
  }
  for (int i = -40000; i <= 40000; ++i) xs.push_back(i / 39999.0f);
  for (float x : {0.0f, 1.0f, 0.99999994f, 1.00000012f, 0x1p-149f, 8.0f,
                  std::numeric_limits<float>::infinity(), std::nanf("")}) {
    xs.push_back(x);
    xs.push_back(-x);
  }
  Literal in(
      Shape::Array(PrimitiveType::kF32, {static_cast<int64_t>(xs.size())}));
  for (size_t i = 0; i < xs.size(); ++i) in.SetFromDouble(i, xs[i]);
  struct Case {
    const char* op;
    Ref1 ref;
  };
  for (const Case& c : std::vector<Case>{
           {"acos", [](Q x) { return acosq(x); }},
           {"asin", [](Q x) { return asinq(x); }},
           {"cbrt", [](Q x) { return cbrtq(x); }},
       }) {
    auto out = CompileAndRun(UnaryModule(c.op, "f32", xs.size()), {in});
    ASSERT_TRUE(out.ok()) << out.status();
    Stats s;
    for (size_t i = 0; i < xs.size(); ++i) {
      Judge(kF32, (*out)[0].GetAsDouble(i), c.ref(xs[i]), xs[i], 0, s);
    }
    EXPECT_EQ(s.special_mismatches, 0) << c.op << ": " << s.first_mismatch;
    EXPECT_LE(s.max_ulp, 0.5 + 0x1p-8) << c.op << " worst at " << s.worst_x;
    std::printf("f32 %-6s max %.6f ulp (x = %.9g)\n", c.op, s.max_ulp,
                s.worst_x);
  }
  // atan2 on f32 pairs of the same sample (shifted against each other).
  const size_t n = xs.size();
  Literal lb(Shape::Array(PrimitiveType::kF32, {static_cast<int64_t>(n)}));
  for (size_t i = 0; i < n; ++i) lb.SetFromDouble(i, xs[(i * 7919) % n]);
  auto out = CompileAndRun(BinaryModule("atan2", "f32", n), {in, lb});
  ASSERT_TRUE(out.ok()) << out.status();
  Stats s;
  for (size_t i = 0; i < n; ++i) {
    const double y = xs[i], x = xs[(i * 7919) % n];
    Judge(kF32, (*out)[0].GetAsDouble(i), atan2q(y, x), y, x, s);
  }
  EXPECT_EQ(s.special_mismatches, 0) << s.first_mismatch;
  EXPECT_LE(s.max_ulp, 0.5 + 0x1p-8);
  std::printf("f32 atan2  max %.6f ulp (%.9g, %.9g)\n", s.max_ulp, s.worst_x,
              s.worst_y);
}

}  // namespace
}  // namespace hloref::cpu
