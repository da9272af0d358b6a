// Tests of the kFft family (interpreter/ops/fft.cc): hand-derived
// transforms, then FFT, IFFT, RFFT and IRFFT over 1 to 3 axes in c64 and
// c128 (f32 and f64 for the real sides) against a direct DFT written here
// in long double (O(n^2) per axis, independent of the oracle's
// mixed-radix double-double code), prime, composite and power-of-two
// lengths, zero-size shapes, the impl.fft.* marks and the refusal of
// transforms too long for the direct prime-length stage.
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using testing_dm::Lit;
using testing_dm::RunHlo;

using LD = long double;
using CL = std::complex<LD>;

int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

std::string FftModule(const std::string& in_type,
                      const std::vector<int64_t>& in_dims,
                      const std::string& out_type,
                      const std::vector<int64_t>& out_dims,
                      const std::string& fft_type,
                      const std::vector<int64_t>& len) {
  return absl::StrCat(
      "HloModule m\nENTRY e {\n  x = ", in_type, "[",
      absl::StrJoin(in_dims, ","), "] parameter(0)\n  ROOT f = ", out_type, "[",
      absl::StrJoin(out_dims, ","), "] fft(x), fft_type=", fft_type,
      ", fft_length={", absl::StrJoin(len, ","), "}\n}\n");
}

// Direct DFT along `axis` of a row-major box, sign -1 forward, +1 inverse
// (unscaled), in long double with twiddles cos/sin(2 pi (jk mod n)/n).
void DirectDftAxis(std::vector<CL>& data, const std::vector<int64_t>& dims,
                   size_t axis, int sign) {
  const int64_t n = dims[axis];
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= dims[d];
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  const LD two_pi = 2 * std::acos(-1.0L);
  std::vector<CL> line(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      for (int64_t k = 0; k < n; ++k) {
        CL acc = 0;
        for (int64_t j = 0; j < n; ++j) {
          const LD angle = two_pi * static_cast<LD>((j * k) % n) / n;
          acc += data[base + j * inner] *
                 CL(std::cos(angle), sign * std::sin(angle));
        }
        line[k] = acc;
      }
      for (int64_t k = 0; k < n; ++k) data[base + k * inner] = line[k];
    }
  }
}

// Checks |got - want| <= half an ulp of the component type at want plus
// slack for the reference's own error (about n 2^-62 ||x||_1).
void ExpectNear(std::complex<double> got, CL want, bool f32, LD slack,
                const std::string& what) {
  for (int part = 0; part < 2; ++part) {
    const LD w = part ? want.imag() : want.real();
    const double g = part ? got.imag() : got.real();
    const int p = f32 ? 24 : 53;
    const int emin = f32 ? -126 : -1022;
    int e = w == 0 ? emin : std::ilogb(static_cast<double>(w));
    if (e < emin) e = emin;
    const LD half_ulp = std::ldexp(1.0L, e - p);
    EXPECT_LE(std::fabs(static_cast<LD>(g) - w), half_ulp * 1.0001L + slack)
        << what << (part ? " imag" : " real") << ": got " << g << " want "
        << static_cast<double>(w);
  }
}

std::vector<std::complex<double>> RandomComplex(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-4, 4);
  std::vector<std::complex<double>> v(n);
  // (Rounding to the element type happens in the literal; RunCase reads
  // the stored values back for the reference.)
  for (auto& c : v) {
    const double re = u(gen);
    c = {re, u(gen)};
  }
  return v;
}

Literal ComplexLiteral(PrimitiveType t, const std::vector<int64_t>& dims,
                       const std::vector<std::complex<double>>& v) {
  Literal lit(Shape::Array(t, dims));
  for (size_t i = 0; i < v.size(); ++i) {
    lit.SetFromComplex(static_cast<int64_t>(i), v[i]);
  }
  return lit;
}
Literal RealLiteral(PrimitiveType t, const std::vector<int64_t>& dims,
                    const std::vector<std::complex<double>>& v) {
  Literal lit(Shape::Array(t, dims));
  for (size_t i = 0; i < v.size(); ++i) {
    lit.SetFromDouble(static_cast<int64_t>(i), v[i].real());
  }
  return lit;
}

// ---- Hand-derived.

// DFT of [1, 2, 3, 4]: X[k] = sum_j x_j (-i)^(jk): X0 = 10,
// X1 = 1 - 2i - 3 + 4i = -2 + 2i, X2 = 1 - 2 + 3 - 4 = -2, X3 = -2 - 2i.
TEST(Fft, HandDerived1D) {
  const std::string x = "  x = c64[4] constant({(1,0), (2,0), (3,0), (4,0)})\n";
  testing_dm::ExpectRootEquals(
      absl::StrCat(
          "HloModule m\nENTRY e {\n", x,
          "  ROOT f = c64[4] fft(x), fft_type=FFT, fft_length={4}\n}\n"),
      "c64[4] {(10, 0), (-2, 2), (-2, 0), (-2, -2)}");
  // IFFT undoes it (with the 1/N factor).
  testing_dm::ExpectRootEquals(
      "HloModule m\nENTRY e {\n"
      "  x = c128[4] constant({(10,0), (-2,2), (-2,0), (-2,-2)})\n"
      "  ROOT f = c128[4] fft(x), fft_type=IFFT, fft_length={4}\n}\n",
      "c128[4] {(1, 0), (2, 0), (3, 0), (4, 0)}");
  // RFFT keeps 4/2 + 1 = 3 entries; IRFFT restores the 4 reals.
  testing_dm::ExpectRootEquals(
      "HloModule m\nENTRY e {\n  x = f32[4] constant({1, 2, 3, 4})\n"
      "  ROOT f = c64[3] fft(x), fft_type=RFFT, fft_length={4}\n}\n",
      "c64[3] {(10, 0), (-2, 2), (-2, 0)}");
  testing_dm::ExpectRootEquals(
      "HloModule m\nENTRY e {\n"
      "  x = c128[3] constant({(10,0), (-2,2), (-2,0)})\n"
      "  ROOT f = f64[4] fft(x), fft_type=IRFFT, fft_length={4}\n}\n",
      "f64[4] {1, 2, 3, 4}");
  // Odd length: RFFT of [1, 1, 1] is [3, 0] (3 // 2 + 1 = 2 entries).
  absl::StatusOr<EvalResult> r = RunHlo(
      "HloModule m\nENTRY e {\n  x = f64[3] constant({1, 1, 1})\n"
      "  ROOT f = c128[2] fft(x), fft_type=RFFT, fft_length={3}\n}\n");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.GetAsComplex(0), std::complex<double>(3, 0));
  EXPECT_LT(std::abs(r->value.GetAsComplex(1)), 1e-30);
}

// 2-D: [[1, 2], [3, 4]] -> rows then columns: [[10, -2], [-4, 0]].
TEST(Fft, HandDerived2D) {
  absl::StatusOr<EvalResult> r = RunHlo(
      "HloModule m\nENTRY e {\n"
      "  x = c64[2,2] constant({{(1,0), (2,0)}, {(3,0), (4,0)}})\n"
      "  ROOT f = c64[2,2] fft(x), fft_type=FFT, fft_length={2,2}\n}\n");
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<std::complex<double>> want = {10, -2, -4, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r->value.GetAsComplex(i).real(), want[i].real());
    EXPECT_EQ(std::abs(r->value.GetAsComplex(i).imag()), 0);
  }
}

// ---- Against the direct DFT.

struct Case {
  std::string fft_type;
  std::vector<int64_t> batch;
  std::vector<int64_t> len;
};

void RunCase(const Case& c, bool f32, uint32_t seed) {
  SCOPED_TRACE(absl::StrCat(c.fft_type, " len {", absl::StrJoin(c.len, ","),
                            "} ", f32 ? "c64" : "c128"));
  const bool rfft = c.fft_type == "RFFT";
  const bool irfft = c.fft_type == "IRFFT";
  const bool inverse = c.fft_type == "IFFT" || irfft;
  const size_t k = c.len.size();
  const int64_t n_last = c.len.back();
  const int64_t half = n_last / 2 + 1;
  std::vector<int64_t> in_box(c.len), out_box(c.len);
  if (rfft) out_box.back() = half;
  if (irfft) in_box.back() = half;
  std::vector<int64_t> in_dims(c.batch), out_dims(c.batch);
  in_dims.insert(in_dims.end(), in_box.begin(), in_box.end());
  out_dims.insert(out_dims.end(), out_box.begin(), out_box.end());
  const int64_t batch = Count(c.batch);
  const int64_t in_size = Count(in_box), out_size = Count(out_box);
  std::vector<std::complex<double>> x = RandomComplex(batch * in_size, seed);
  if (irfft) {
    // Make the self-conjugate planes Hermitian so nothing is marked: for
    // one axis, real bins 0 and n/2.
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t l = 0; l < in_size / half; ++l) {
        x[b * in_size + l * half] = x[b * in_size + l * half].real();
        if (n_last % 2 == 0) {
          x[b * in_size + l * half + half - 1] =
              x[b * in_size + l * half + half - 1].real();
        }
      }
    }
    ASSERT_EQ(k, 1u) << "the Hermitian fix-up above covers one axis";
  }
  const std::string ct = f32 ? "c64" : "c128";
  const std::string rt = f32 ? "f32" : "f64";
  const PrimitiveType cpt = f32 ? PrimitiveType::kC64 : PrimitiveType::kC128;
  const PrimitiveType rpt = f32 ? PrimitiveType::kF32 : PrimitiveType::kF64;
  std::vector<Literal> args;
  args.push_back(rfft ? RealLiteral(rpt, in_dims, x)
                      : ComplexLiteral(cpt, in_dims, x));
  // The reference uses the values as stored (rounded to the type).
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = rfft ? std::complex<double>(args[0].GetAsDouble(i), 0)
                : args[0].GetAsComplex(i);
  }
  const std::string text = FftModule(rfft ? rt : ct, in_dims, irfft ? rt : ct,
                                     out_dims, c.fft_type, c.len);
  absl::StatusOr<EvalResult> r = RunHlo(text, std::move(args));
  ASSERT_TRUE(r.ok()) << r.status() << "\n" << text;
  EXPECT_FALSE(r->outputs[0].dont_care.has_value());
  LD total = 1;
  for (int64_t l : c.len) total *= l;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<CL> data;
    LD norm1 = 0;
    for (int64_t i = 0; i < in_size; ++i) {
      const std::complex<double> v = x[b * in_size + i];
      data.push_back(rfft ? CL(v.real(), 0) : CL(v.real(), v.imag()));
      norm1 += std::abs(data.back());
    }
    std::vector<CL> want(out_size);
    if (!irfft) {
      for (size_t a = 0; a < k; ++a) {
        DirectDftAxis(data, c.len, a, inverse ? 1 : -1);
      }
      // Output box: the leading entries of the full box.
      for (int64_t o = 0; o < out_size; ++o) {
        const int64_t row = o / out_box.back(), col = o % out_box.back();
        want[o] = data[row * n_last + col] / (inverse ? total : 1.0L);
      }
    } else {
      // Hermitian extension then the inverse DFT; keep the real part.
      std::vector<CL> full(n_last);
      for (int64_t j = 0; j < n_last; ++j) {
        full[j] = j < half ? data[j] : std::conj(data[n_last - j]);
      }
      DirectDftAxis(full, {n_last}, 0, 1);
      for (int64_t j = 0; j < n_last; ++j) want[j] = full[j].real() / total;
    }
    const LD slack = (Count(c.len) + 8) * std::ldexp(1.0L, -60) * norm1;
    for (int64_t o = 0; o < out_size; ++o) {
      const std::complex<double> got =
          irfft
              ? std::complex<double>(r->value.GetAsDouble(b * out_size + o), 0)
              : r->value.GetAsComplex(b * out_size + o);
      ExpectNear(got, want[o], f32, slack, absl::StrCat("b ", b, " o ", o));
    }
  }
}

TEST(Fft, AgainstDirectDft) {
  const std::vector<Case> cases = {
      {"FFT", {2}, {1}},       {"FFT", {3}, {7}},    {"FFT", {2}, {12}},
      {"FFT", {}, {16}},       {"FFT", {2}, {3, 5}}, {"FFT", {}, {4, 3, 2}},
      {"IFFT", {2}, {9}},      {"IFFT", {}, {6, 4}}, {"IFFT", {}, {2, 3, 5}},
      {"RFFT", {2}, {8}},      {"RFFT", {3}, {7}},   {"RFFT", {}, {3, 6}},
      {"RFFT", {}, {2, 2, 5}}, {"IRFFT", {2}, {8}},  {"IRFFT", {3}, {7}},
      {"IRFFT", {}, {1}},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (bool f32 : {true, false}) RunCase(c, f32, seed++);
  }
}

// Two-axis IRFFT by hand, fft_length {2, 4}: X = [[1, 2+i, 3], [4, 2i, 5]].
// Inverse over axis 0 (unscaled): Y0 = X0 + X1 = [5, 2+3i, 8], Y1 = X0 - X1
// = [-3, 2-i, -2]. Per row, x_j = Y0 + 2 Re(Y1 i^j) + Y2 (-1)^j:
// row 0 = [17, -9, 9, 3], row 1 = [-1, 1, -9, -3]; then / N = 8.
// The self-conjugate planes (columns 0 and 2) are real: nothing marked. An
// imaginary part at X[1, 0] breaks X[k, 0] = conj(X[-k, 0]): marked, and
// the values do not change (the c2r step ignores Y[:, 0]'s imaginary part).
TEST(Fft, TwoAxisIrfftByHand) {
  for (bool hermitian : {true, false}) {
    SCOPED_TRACE(hermitian);
    absl::StatusOr<EvalResult> r = RunHlo(absl::StrCat(
        "HloModule m\nENTRY e {\n  x = c64[2,3] constant({{(1,0), (2,1), "
        "(3,0)}, {(4,",
        hermitian ? "0" : "1",
        "), (0,2), (5,0)}})\n"
        "  ROOT f = f32[2,4] fft(x), fft_type=IRFFT, fft_length={2,4}\n}\n"));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->value, Lit("f32[2,4] {{2.125, -1.125, 1.125, 0.375}, "
                            "{-0.125, 0.125, -1.125, -0.375}}"))
        << r->value.ToString();
    EXPECT_EQ(r->outputs[0].dont_care.has_value(), !hermitian);
  }
}

TEST(Fft, MultiAxisIrfftAgainstForward) {
  // IRFFT over two axes inverts RFFT over two axes (real data x, exact
  // up to the error bound): the round trip reproduces x.
  std::vector<double> x = {1, -2, 0.5, 3, 4, -1, 2, 0, 7, 1.25, -3, 2};
  std::vector<Literal> args;
  Literal lit(Shape::Array(PrimitiveType::kF64, {3, 4}));
  for (int i = 0; i < 12; ++i) lit.SetFromDouble(i, x[i]);
  args.push_back(std::move(lit));
  absl::StatusOr<EvalResult> r = RunHlo(
      "HloModule m\nENTRY e {\n  x = f64[3,4] parameter(0)\n"
      "  s = c128[3,3] fft(x), fft_type=RFFT, fft_length={3,4}\n"
      "  ROOT f = f64[3,4] fft(s), fft_type=IRFFT, fft_length={3,4}\n}\n",
      std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  for (int i = 0; i < 12; ++i) {
    EXPECT_NEAR(r->value.GetAsDouble(i), x[i], 1e-15) << i;
  }
  // The RFFT of a real signal is Hermitian on the self-conjugate planes
  // only up to the oracle's rounding, so the IRFFT may be marked; the
  // values are what matter here.
}

TEST(Fft, ZeroSizeAndMarks) {
  // Zero batch.
  std::vector<Literal> args;
  args.push_back(Literal(Shape::Array(PrimitiveType::kC64, {0, 4})));
  absl::StatusOr<EvalResult> r = RunHlo(
      FftModule("c64", {0, 4}, "c64", {0, 4}, "FFT", {4}), std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.element_count(), 0);
  // impl.fft.2: IRFFT with fft_length 0 keeps the operand's innermost size.
  r = RunHlo(
      "HloModule m\nENTRY e {\n  x = c64[2,1] constant({{(1,2)}, {(3,4)}})\n"
      "  ROOT f = f32[2,1] fft(x), fft_type=IRFFT, fft_length={0}\n}\n");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[2,1] {{0}, {0}}"));
  ASSERT_TRUE(r->outputs[0].dont_care.has_value());
  EXPECT_EQ(r->outputs[0].impl_ids, std::vector<std::string>{"impl.fft.2"});
  // impl.fft.1: non-zero imaginary part at frequency 0 in batch item 1.
  r = RunHlo(
      "HloModule m\nENTRY e {\n"
      "  x = c128[2,3] constant({{(1,0), (2,1), (3,0)}, {(1,5), (2,1), "
      "(3,0)}})\n"
      "  ROOT f = f64[2,4] fft(x), fft_type=IRFFT, fft_length={4}\n}\n");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->outputs[0].dont_care.has_value());
  const auto mask = r->outputs[0].dont_care->data<bool>();
  EXPECT_EQ(
      std::vector<bool>(mask.begin(), mask.end()),
      (std::vector<bool>{false, false, false, false, true, true, true, true}));
  // Batch item 0 ignores nothing and equals batch item 1 (the imaginary
  // part at frequency 0 does not enter the real result).
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(r->value.GetAsDouble(j), r->value.GetAsDouble(4 + j));
  }
  // x = IRFFT([1, 2+i, 3]) by hand: x_j = (1 + 2 Re((2+i) i^j) + 3 (-1)^j)/4
  // = {(1+4+3)/4, (1-2-3)/4, (1-4+3)/4, (1+2-3)/4} = {2, -1, 0, 0}.
  EXPECT_EQ(r->value.GetAsDouble(0), 2);
  EXPECT_EQ(r->value.GetAsDouble(1), -1);
  EXPECT_EQ(std::fabs(r->value.GetAsDouble(2)), 0);
  EXPECT_EQ(std::fabs(r->value.GetAsDouble(3)), 0);
  // impl.fft.3: an infinite input.
  r = RunHlo(
      "HloModule m\nENTRY e {\n  x = c64[2] constant({(inf,0), (1,0)})\n"
      "  ROOT f = c64[2] fft(x), fft_type=FFT, fft_length={2}\n}\n");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->outputs[0].dont_care.has_value());
  EXPECT_EQ(r->outputs[0].impl_ids, std::vector<std::string>{"impl.fft.3"});
}

// A huge prime length would take hours by the direct DFT: a clear
// ResourceExhausted error instead of a hang.
TEST(Fft, HugePrimeLengthIsRefused) {
  std::vector<Literal> args;
  args.push_back(Literal(Shape::Array(PrimitiveType::kC64, {1000003})));
  absl::StatusOr<EvalResult> r =
      RunHlo(FftModule("c64", {1000003}, "c64", {1000003}, "FFT", {1000003}),
             std::move(args));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted)
      << r.status();
}

}  // namespace
}  // namespace hloref
