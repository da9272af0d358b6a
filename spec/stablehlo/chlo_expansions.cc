// chlo expansions (see chlo_expansions.h). Each function writes the
// formula of XLA's CHLO legalization in the same operation order; the
// comments give the formula, the constants are the published ones.
#include "spec/stablehlo/chlo_expansions.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hloref::stablehlo {
namespace {

constexpr double kPi = 3.14159265358979323846264338327950288;

// Builds expressions of one float type `t` through the sink.
class Builder {
 public:
  Builder(ExpansionSink& sink, PrimitiveType t) : sink_(sink), t_(t) {}
  PrimitiveType type() const { return t_; }

  // `v` rounded to the type (as XLA's getConstantLike does), printed so
  // that the HLO parser reads back the same value.
  std::string K(double v) {
    std::string text;
    if (std::isnan(v)) {
      text = "nan";
    } else if (std::isinf(v)) {
      text = v > 0 ? "inf" : "-inf";
    } else if (t_ == PrimitiveType::kF64) {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.17g", v);
      text = buf;
    } else {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.9g",
                    static_cast<double>(static_cast<float>(v)));
      text = buf;
    }
    return sink_.Constant(t_, text);
  }
  std::string Op(const char* opcode, const std::string& a) {
    return sink_.Emit(t_, opcode, {a}, "");
  }
  std::string Op(const char* opcode, const std::string& a,
                 const std::string& b) {
    return sink_.Emit(t_, opcode, {a, b}, "");
  }
  std::string Add(const std::string& a, const std::string& b) {
    return Op("add", a, b);
  }
  std::string Sub(const std::string& a, const std::string& b) {
    return Op("subtract", a, b);
  }
  std::string Mul(const std::string& a, const std::string& b) {
    return Op("multiply", a, b);
  }
  std::string Div(const std::string& a, const std::string& b) {
    return Op("divide", a, b);
  }
  std::string Neg(const std::string& a) { return Op("negate", a); }
  std::string Abs(const std::string& a) { return Op("abs", a); }
  std::string Floor(const std::string& a) { return Op("floor", a); }
  std::string Cmp(const std::string& a, const std::string& b,
                  const char* direction) {
    return sink_.Emit(PrimitiveType::kPred, "compare", {a, b},
                      absl::StrCat("direction=", direction));
  }
  std::string Select(const std::string& p, const std::string& a,
                     const std::string& b) {
    return sink_.Emit(t_, "select", {p, a, b}, "");
  }
  std::string And(const std::string& a, const std::string& b) {
    return sink_.Emit(PrimitiveType::kPred, "and", {a, b}, "");
  }
  std::string Or(const std::string& a, const std::string& b) {
    return sink_.Emit(PrimitiveType::kPred, "or", {a, b}, "");
  }
  std::string IsFinite(const std::string& a) {
    return sink_.Emit(PrimitiveType::kPred, "is-finite", {a}, "");
  }
  // chlo.is_inf: |x| == inf.
  std::string IsInf(const std::string& x) {
    return Cmp(Abs(x), K(std::numeric_limits<double>::infinity()), "EQ");
  }

 private:
  ExpansionSink& sink_;
  PrimitiveType t_;
};

// Lanczos' approximation with g = 7 and 9 terms (Godfrey's coefficients).
constexpr double kLanczosGamma = 7;
constexpr double kLanczosBase = 0.99999999999980993227684700473478;
constexpr double kLanczos[8] = {
    676.520368121885098567009190444019, -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,   -176.61502916214059906584551354,
    12.507343278686904814458936853,     -0.13857109526572011689554707,
    9.984369578019570859563e-6,         1.50563273514931155834e-7};

// z = -x for x < 1/2 (reflection), else x - 1; the argument of the series
// for lgamma(z + 1) / digamma(z + 1). Returns (reflect, z).
std::pair<std::string, std::string> LanczosArgument(Builder& b,
                                                    const std::string& x) {
  std::string reflect = b.Cmp(x, b.K(0.5), "LT");
  std::string z = b.Select(reflect, b.Neg(x), b.Sub(x, b.K(1)));
  return {reflect, z};
}

// log(t), t = z + g + 1/2, as log(g + 1/2) + log1p(z / (g + 1/2)).
std::string LogT(Builder& b, const std::string& z) {
  const double gh = kLanczosGamma + 0.5;
  return b.Add(b.K(std::log(gh)), b.Op("log-plus-one", b.Div(z, b.K(gh))));
}

// lgamma(z + 1) = (log 2 + log pi) / 2 + (z + 1/2 - t / log t) log t
//                 - ... + log a(z), a(z) = base + sum c_k / (z + k);
// for x < 1/2: log(pi) - log(sin(pi |frac x|)) - lgamma(1 - x), with
// |frac x| folded into [0, 1/2]; +-inf gives +inf.
std::string Lgamma(Builder& b, const std::string& x) {
  auto [reflect, z] = LanczosArgument(b, x);
  std::string a = b.K(kLanczosBase);
  for (int k = 0; k < 8; ++k) {
    a = b.Add(a, b.Div(b.K(kLanczos[k]), b.Add(z, b.K(k + 1))));
  }
  std::string t = b.Add(b.K(kLanczosGamma + 0.5), z);
  std::string log_t = LogT(b, z);
  std::string r = b.Mul(b.Sub(b.Add(z, b.K(0.5)), b.Div(t, log_t)), log_t);
  std::string lgamma =
      b.Add(b.Add(b.K((std::log(2.0) + std::log(kPi)) / 2), r), b.Op("log", a));
  std::string abs_x = b.Abs(x);
  std::string frac = b.Sub(abs_x, b.Floor(abs_x));
  std::string fold = b.Cmp(b.K(0.5), frac, "LT");
  frac = b.Select(fold, b.Sub(b.K(1), frac), frac);
  std::string denom = b.Op("log", b.Op("sine", b.Mul(b.K(kPi), frac)));
  std::string reflected = b.Sub(b.Sub(b.K(std::log(kPi)), denom), lgamma);
  reflected = b.Select(b.IsFinite(denom), reflected, b.Neg(denom));
  lgamma = b.Select(reflect, reflected, lgamma);
  return b.Select(b.IsInf(x), b.K(std::numeric_limits<double>::infinity()),
                  lgamma);
}

// digamma(z + 1) = log t + a'(z) / a(z) - g / t, a'(z) = -sum c_k / (z+k)^2;
// for x < 1/2: digamma(1 - x) - pi cos(pi r) / sin(pi r), r = x +
// |floor(x + 1/2)|; NaN at the poles (integers <= 0).
std::string Digamma(Builder& b, const std::string& x) {
  auto [reflect, z] = LanczosArgument(b, x);
  std::string zero = b.K(0);
  std::string a = b.K(kLanczosBase);
  std::string a_prime = zero;
  for (int k = 0; k < 8; ++k) {
    std::string c = b.K(kLanczos[k]);
    std::string zk = b.Add(z, b.K(k + 1));
    a_prime = b.Sub(a_prime, b.Div(c, b.Mul(zk, zk)));
    a = b.Add(a, b.Div(c, zk));
  }
  std::string t = b.Add(b.K(kLanczosGamma + 0.5), z);
  std::string log_t = LogT(b, z);
  std::string digamma =
      b.Sub(b.Add(log_t, b.Div(a_prime, a)), b.Div(b.K(kLanczosGamma), t));
  std::string reduced = b.Add(x, b.Abs(b.Floor(b.Add(x, b.K(0.5)))));
  std::string pi = b.K(kPi);
  std::string pi_r = b.Mul(pi, reduced);
  std::string reflected = b.Sub(
      digamma, b.Div(b.Mul(pi, b.Op("cosine", pi_r)), b.Op("sine", pi_r)));
  digamma = b.Select(reflect, reflected, digamma);
  std::string pole = b.And(b.Cmp(x, zero, "LE"), b.Cmp(x, b.Floor(x), "EQ"));
  return b.Select(pole, b.K(std::numeric_limits<double>::quiet_NaN()), digamma);
}

// Hurwitz zeta(x, q) = sum_{k>=0} (q + k)^-x: the first 10 terms, then the
// Euler-Maclaurin tail at a = q + 10 with 12 Bernoulli terms evaluated by
// Horner's rule (the coefficients are (2j)! / B_2j); the tail is dropped
// when |a^-x| < |sum| * (the smallest subnormal), as XLA does. Domain:
// NaN for x < 1, for q <= 0 with x not an integer, at the poles (integer
// q <= 0) +inf for even x else NaN; +inf at x = 1.
std::string Zeta(Builder& b, const std::string& x, const std::string& q) {
  static constexpr double kCoeffs[12] = {-7.1661652561756670113e18,
                                         1.8152105401943546773e17,
                                         -4.5979787224074726105e15,
                                         1.1646782814350067249e14,
                                         -2.950130727918164224e12,
                                         7.47242496e10,
                                         -1.8924375803183791606e9,
                                         47900160.0,
                                         -1209600.0,
                                         30240.0,
                                         -720.0,
                                         12.0};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::string zero = b.K(0);
  std::string one = b.K(1);
  std::string neg_x = b.Neg(x);
  std::string a = q;
  std::string sum = b.Op("power", q, neg_x);
  std::string neg_power;
  for (int i = 0; i < 9; ++i) {
    a = b.Add(a, one);
    neg_power = b.Op("power", a, neg_x);
    sum = b.Add(sum, neg_power);
  }
  a = b.Add(a, one);
  neg_power = b.Op("power", a, neg_x);
  std::string s = b.Add(sum, b.Div(b.Mul(neg_power, a), b.Sub(x, b.K(1))));
  std::string a_inv_sq = b.Div(one, b.Mul(a, a));
  std::string horner = zero;
  for (int i = 0; i < 11; ++i) {
    std::string factor =
        b.Mul(b.Add(x, b.K(22 - 2 * i)), b.Add(x, b.K(21 - 2 * i)));
    horner =
        b.Mul(factor, b.Mul(a_inv_sq, b.Add(horner, b.K(1.0 / kCoeffs[i]))));
  }
  s = b.Add(
      s, b.Mul(neg_power,
               b.Add(b.K(0.5), b.Mul(b.Div(x, a),
                                     b.Add(b.K(1.0 / kCoeffs[11]), horner)))));
  const double smallest = b.type() == PrimitiveType::kF64
                              ? std::numeric_limits<double>::denorm_min()
                              : std::numeric_limits<float>::denorm_min();
  std::string out = b.Select(
      b.Cmp(b.Abs(neg_power), b.Mul(b.Abs(sum), b.K(smallest)), "LT"), sum, s);
  out = b.Select(b.Cmp(x, b.K(1), "LT"), b.K(nan), out);
  std::string q_le_zero = b.Cmp(q, zero, "LE");
  std::string x_not_int = b.Cmp(x, b.Floor(x), "NE");
  out = b.Select(b.And(q_le_zero, x_not_int), b.K(nan), out);
  std::string at_pole = b.And(q_le_zero, b.Cmp(q, b.Floor(q), "EQ"));
  std::string x_even_int =
      b.And(b.Cmp(x, b.Floor(x), "EQ"),
            b.Cmp(b.Op("remainder", x, b.K(2)), zero, "EQ"));
  out = b.Select(at_pole, b.Select(x_even_int, b.K(inf), b.K(nan)), out);
  return b.Select(b.Cmp(x, one, "EQ"), b.K(inf), out);
}

// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for natural n > 0 (n! as
// exp(lgamma(n + 1)), the sign as 2 (n rem 2) - 1), digamma(x) for n = 0,
// NaN for n not a natural number.
std::string Polygamma(Builder& b, const std::string& n, const std::string& x) {
  std::string one = b.K(1);
  std::string two = b.K(2);
  std::string sign = b.Sub(b.Mul(two, b.Op("remainder", n, two)), one);
  std::string n1 = b.Add(n, one);
  std::string factorial = b.Op("exponential", Lgamma(b, n1));
  std::string zeta = Zeta(b, n1, x);
  std::string result = b.Mul(b.Mul(sign, factorial), zeta);
  std::string zero = b.K(0);
  result = b.Select(b.Cmp(n, zero, "EQ"), Digamma(b, x), result);
  std::string not_natural =
      b.Or(b.Cmp(n, b.Floor(n), "NE"), b.Cmp(n, zero, "LT"));
  return b.Select(not_natural, b.K(std::numeric_limits<double>::quiet_NaN()),
                  result);
}

// Clenshaw's recurrence for sum' c_k T_k(x/2) as Cephes' chbevl:
// b0 = x b1 - b2 + c, result (b0 - b2) / 2.
std::string Chebyshev(Builder& b, const std::string& x, const double* coeffs,
                      int n) {
  std::string b0 = b.K(0), b1 = b.K(0), b2 = b.K(0);
  for (int i = 0; i < n; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = b.Add(b.Sub(b.Mul(x, b1), b2), b.K(coeffs[i]));
  }
  return b.Mul(b.Sub(b0, b2), b.K(0.5));
}

// i1e(x) = exp(-|x|) I1(x), Cephes: |x| <= 8: |x| chbevl(|x|/2 - 2, A);
// else chbevl(32/|x| - 2, B) / sqrt(|x|); times sign(x). f32 uses the
// last 17 (A) and 7 (B) coefficients of the f64 series.
std::string BesselI1e(Builder& b, const std::string& x) {
  static constexpr double kA[29] = {
      2.77791411276104639959E-18, -2.11142121435816608115E-17,
      1.55363195773620046921E-16, -1.10559694773538630805E-15,
      7.60068429473540693410E-15, -5.04218550472791168711E-14,
      3.22379336594557470981E-13, -1.98397439776494371520E-12,
      1.17361862988909016308E-11, -6.66348972350202774223E-11,
      3.62559028155211703701E-10, -1.88724975172282928790E-9,
      9.38153738649577178388E-9,  -4.44505912879632808065E-8,
      2.00329475355213526229E-7,  -8.56872026469545474066E-7,
      3.47025130813767847674E-6,  -1.32731636560394358279E-5,
      4.78156510755005422638E-5,  -1.61760815825896745588E-4,
      5.12285956168575772895E-4,  -1.51357245063125314899E-3,
      4.15642294431288815669E-3,  -1.05640848946261981558E-2,
      2.47264490306265168283E-2,  -5.29459812080949914269E-2,
      1.02643658689847095384E-1,  -1.76416518357834055153E-1,
      2.52587186443633654823E-1};
  static constexpr double kB[25] = {
      7.51729631084210481353E-18,  4.41434832307170791151E-18,
      -4.65030536848935832153E-17, -3.20952592199342395980E-17,
      2.96262899764595013876E-16,  3.30820231092092828324E-16,
      -1.88035477551078244854E-15, -3.81440307243700780478E-15,
      1.04202769841288027642E-14,  4.27244001671195135429E-14,
      -2.10154184277266431302E-14, -4.08355111109219731823E-13,
      -7.19855177624590851209E-13, 2.03562854414708950722E-12,
      1.41258074366137813316E-11,  3.25260358301548823856E-11,
      -1.89749581235054123450E-11, -5.58974346219658380687E-10,
      -3.83538038596423702205E-9,  -2.63146884688951950684E-8,
      -2.51223623787020892529E-7,  -3.88256480887769039346E-6,
      -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
      7.78576235018280120474E-1};
  const bool f64 = b.type() == PrimitiveType::kF64;
  const int na = f64 ? 29 : 17, nb = f64 ? 25 : 7;
  std::string z = b.Abs(x);
  std::string small = b.Mul(
      z, Chebyshev(b, b.Sub(b.Mul(b.K(0.5), z), b.K(2)), kA + 29 - na, na));
  std::string large =
      b.Div(Chebyshev(b, b.Sub(b.Div(b.K(32), z), b.K(2)), kB + 25 - nb, nb),
            b.Op("sqrt", z));
  std::string le8 = b.Cmp(z, b.K(8), "LE");
  return b.Mul(b.Op("sign", x), b.Select(le8, small, large));
}

// erfinv(x) = x p(w'), w = -log1p(-x^2) (Giles). f32: w < 5: p of degree
// 8 in w - 2.5, else in sqrt(w) - 3. f64: w < 6.25: degree 22 in
// w - 3.125; w < 16: degree 18 in sqrt(w) - 3.25; else degree 16 in
// sqrt(w) - 5 (the coefficients selected per element, the longer
// polynomials finishing their Horner steps under the range's predicate).
// erfinv(+-1) = +-inf.
std::string ErfInv(Builder& b, const std::string& x) {
  std::string w = b.Neg(b.Op("log-plus-one", b.Mul(x, b.Neg(x))));
  std::string p;
  if (b.type() == PrimitiveType::kF64) {
    static constexpr double kLt625[23] = {
        -3.6444120640178196996e-21, -1.685059138182016589e-19,
        1.2858480715256400167e-18,  1.115787767802518096e-17,
        -1.333171662854620906e-16,  2.0972767875968561637e-17,
        6.6376381343583238325e-15,  -4.0545662729752068639e-14,
        -8.1519341976054721522e-14, 2.6335093153082322977e-12,
        -1.2975133253453532498e-11, -5.4154120542946279317e-11,
        1.051212273321532285e-09,   -4.1126339803469836976e-09,
        -2.9070369957882005086e-08, 4.2347877827932403518e-07,
        -1.3654692000834678645e-06, -1.3882523362786468719e-05,
        0.0001867342080340571352,   -0.00074070253416626697512,
        -0.0060336708714301490533,  0.24015818242558961693,
        1.6536545626831027356};
    static constexpr double kLt16[19] = {
        2.2137376921775787049e-09,  9.0756561938885390979e-08,
        -2.7517406297064545428e-07, 1.8239629214389227755e-08,
        1.5027403968909827627e-06,  -4.013867526981545969e-06,
        2.9234449089955446044e-06,  1.2475304481671778723e-05,
        -4.7318229009055733981e-05, 6.8284851459573175448e-05,
        2.4031110387097893999e-05,  -0.0003550375203628474796,
        0.00095328937973738049703,  -0.0016882755560235047313,
        0.0024914420961078508066,   -0.0037512085075692412107,
        0.005370914553590063617,    1.0052589676941592334,
        3.0838856104922207635};
    static constexpr double kGe16[17] = {
        -2.7109920616438573243e-11, -2.5556418169965252055e-10,
        1.5076572693500548083e-09,  -3.7894654401267369937e-09,
        7.6157012080783393804e-09,  -1.4960026627149240478e-08,
        2.9147953450901080826e-08,  -6.7711997758452339498e-08,
        2.2900482228026654717e-07,  -9.9298272942317002539e-07,
        4.5260625972231537039e-06,  -1.9681778105531670567e-05,
        7.5995277030017761139e-05,  -0.00021503011930044477347,
        -0.00013871931833623122026, 1.0103004648645343977,
        4.8499064014085844221};
    std::string lt625 = b.Cmp(w, b.K(6.25), "LT");
    std::string lt16 = b.Cmp(w, b.K(16), "LT");
    auto coeff = [&](int i) {
      std::string c = b.K(kLt625[i]);
      if (i < 19) c = b.Select(lt625, c, b.K(kLt16[i]));
      if (i < 17) c = b.Select(lt16, c, b.K(kGe16[i]));
      return c;
    };
    std::string sqrt_w = b.Op("sqrt", w);
    std::string shifted =
        b.Select(lt625, b.Sub(w, b.K(3.125)),
                 b.Sub(sqrt_w, b.Select(lt16, b.K(3.25), b.K(5.0))));
    p = coeff(0);
    for (int i = 1; i < 17; ++i) p = b.Add(coeff(i), b.Mul(p, shifted));
    for (int i = 17; i < 19; ++i) {
      p = b.Select(lt16, b.Add(coeff(i), b.Mul(p, shifted)), p);
    }
    for (int i = 19; i < 23; ++i) {
      p = b.Select(lt625, b.Add(coeff(i), b.Mul(p, shifted)), p);
    }
  } else {
    static constexpr double kLt5[9] = {
        2.81022636e-08,  3.43273939e-07, -3.5233877e-06,
        -4.39150654e-06, 0.00021858087,  -0.00125372503,
        -0.00417768164,  0.246640727,    1.50140941};
    static constexpr double kGe5[9] = {
        -0.000200214257, 0.000100950558, 0.00134934322,
        -0.00367342844,  0.00573950773,  -0.0076224613,
        0.00943887047,   1.00167406,     2.83297682};
    std::string lt = b.Cmp(w, b.K(5), "LT");
    auto coeff = [&](int i) {
      return b.Select(lt, b.K(kLt5[i]), b.K(kGe5[i]));
    };
    std::string shifted =
        b.Select(lt, b.Sub(w, b.K(2.5)), b.Sub(b.Op("sqrt", w), b.K(3)));
    p = coeff(0);
    for (int i = 1; i < 9; ++i) p = b.Add(coeff(i), b.Mul(p, shifted));
  }
  std::string result = b.Mul(p, x);
  return b.Select(b.Cmp(b.Abs(x), b.K(1), "EQ"),
                  b.Mul(x, b.K(std::numeric_limits<double>::infinity())),
                  result);
}

// Horner's rule from the first coefficient: ((c0 x + c1) x + ...) + cn,
// starting from 0 * x + c0 as XLA's materializePolynomialApproximation.
std::string Poly(Builder& b, const std::string& x, const double* c, int n) {
  std::string p = b.K(0);
  for (int i = 0; i < n; ++i) p = b.Add(b.Mul(p, x), b.K(c[i]));
  return p;
}

// erfc, Cephes' approximations. |x| < 1: 1 - erf(x) with erf(x) = x T(x^2)
// (f32) or x T(x^2) / U(x^2) (f64). |x| >= 1, f32: exp(-x^2) / |x| times
// P(1/x^2) (|x| < 2) or R(1/x^2); f64: exp(-x^2) P(|x|) / Q(|x|) (|x| < 8)
// or exp(-x^2) R(|x|) / S(|x|). 0 where -x^2 < -maxlog; for x < 0,
// 2 - erfc(-x).
std::string Erfc(Builder& b, const std::string& x) {
  const bool f64 = b.type() == PrimitiveType::kF64;
  std::string one = b.K(1);
  std::string zero = b.K(0);
  std::string x2 = b.Mul(x, x);
  std::string z = b.Neg(x2);
  std::string abs_x = b.Abs(x);
  std::string exp_z = b.Op("exponential", z);
  std::string large;  // |x| >= 1
  std::string erf_small;
  if (f64) {
    static constexpr double kP[9] = {
        2.46196981473530512524E-10, 5.64189564831068821977E-1,
        7.46321056442269912687E0,   4.86371970985681366614E1,
        1.96520832956077098242E2,   5.26445194995477358631E2,
        9.34528527171957607540E2,   1.02755188689515710272E3,
        5.57535335369399327526E2};
    static constexpr double kQ[9] = {
        1.00000000000000000000E0, 1.32281951154744992508E1,
        8.67072140885989742329E1, 3.54937778887819891062E2,
        9.75708501743205489753E2, 1.82390916687909736289E3,
        2.24633760818710981792E3, 1.65666309194161350182E3,
        5.57535340817727675546E2};
    static constexpr double kR[6] = {
        5.64189583547755073984E-1, 1.27536670759978104416E0,
        5.01905042251180477414E0,  6.16021097993053585195E0,
        7.40974269950448939160E0,  2.97886665372100240670E0};
    static constexpr double kS[7] = {
        1.00000000000000000000E0, 2.26052863220117276590E0,
        9.39603524938001434673E0, 1.20489539808096656605E1,
        1.70814450747565897222E1, 9.60896809063285878198E0,
        3.36907645100081516050E0};
    static constexpr double kT[5] = {
        9.60497373987051638749E0, 9.00260197203842689217E1,
        2.23200534594684319226E3, 7.00332514112805075473E3,
        5.55923013010394962768E4};
    static constexpr double kU[6] = {
        1.00000000000000000000E0, 3.35617141647503099647E1,
        5.21357949780152679795E2, 4.59432382970980127987E3,
        2.26290000613890934246E4, 4.92673942608635921086E4};
    std::string to8 =
        b.Div(b.Mul(exp_z, Poly(b, abs_x, kP, 9)), Poly(b, abs_x, kQ, 9));
    std::string beyond =
        b.Div(b.Mul(exp_z, Poly(b, abs_x, kR, 6)), Poly(b, abs_x, kS, 7));
    large = b.Select(b.Cmp(abs_x, b.K(8), "LT"), to8, beyond);
    large =
        b.Select(b.Cmp(z, b.K(-7.09782712893383996843E2), "LT"), zero, large);
    erf_small = b.Div(b.Mul(x, Poly(b, x2, kT, 5)), Poly(b, x2, kU, 6));
  } else {
    static constexpr double kP[9] = {
        +2.326819970068386E-2, -1.387039388740657E-1, +3.687424674597105E-1,
        -5.824733027278666E-1, +6.210004621745983E-1, -4.944515323274145E-1,
        +3.404879937665872E-1, -2.741127028184656E-1, +5.638259427386472E-1};
    static constexpr double kR[8] = {
        -1.047766399936249E+1, +1.297719955372516E+1, -7.495518717768503E+0,
        +2.921019019210786E+0, -1.015265279202700E+0, +4.218463358204948E-1,
        -2.820767439740514E-1, +5.641895067754075E-1};
    static constexpr double kT[7] = {
        +7.853861353153693E-5, -8.010193625184903E-4, +5.188327685732524E-3,
        -2.685381193529856E-2, +1.128358514861418E-1, -3.761262582423300E-1,
        +1.128379165726710E+0};
    std::string r2 = b.Div(one, x2);
    std::string scale = b.Mul(exp_z, b.Div(one, abs_x));
    std::string poly = b.Select(b.Cmp(abs_x, b.K(2), "LT"), Poly(b, r2, kP, 9),
                                Poly(b, r2, kR, 8));
    large = b.Mul(scale, poly);
    large = b.Select(b.Cmp(z, b.K(-88.72283905206835), "LT"), zero, large);
    erf_small = b.Mul(x, Poly(b, x2, kT, 7));
  }
  large = b.Select(b.Cmp(x, zero, "LT"), b.Sub(b.K(2), large), large);
  return b.Select(b.Cmp(abs_x, one, "LT"), b.Sub(one, erf_small), large);
}

// next_after(x, y) on the bit patterns as integers of the same width:
// +-1 toward y (-1 when |x| > |y| or the signs differ), the smallest
// subnormal signed like y from +-0, y when x == y (or both are zero), NaN
// when either is NaN.
std::string NextAfter(ExpansionSink& sink, PrimitiveType t,
                      const std::string& x, const std::string& y) {
  const int width = BitWidth(t);
  const PrimitiveType it = width == 64   ? PrimitiveType::kS64
                           : width == 32 ? PrimitiveType::kS32
                                         : PrimitiveType::kS16;
  Builder f(sink, t);
  auto ik = [&](int64_t v) { return sink.Constant(it, absl::StrCat(v)); };
  auto iop = [&](const char* opcode, const std::string& a,
                 const std::string& b) {
    return sink.Emit(it, opcode, {a, b}, "");
  };
  auto icmp = [&](const std::string& a, const std::string& b,
                  const char* direction) {
    return sink.Emit(PrimitiveType::kPred, "compare", {a, b},
                     absl::StrCat("direction=", direction));
  };
  auto isel = [&](const std::string& p, const std::string& a,
                  const std::string& b) {
    return sink.Emit(it, "select", {p, a, b}, "");
  };
  std::string xi = sink.Emit(it, "bitcast-convert", {x}, "");
  std::string yi = sink.Emit(it, "bitcast-convert", {y}, "");
  std::string nan_in = f.Or(f.Cmp(x, x, "NE"), f.Cmp(y, y, "NE"));
  std::string nan_bits =
      sink.Emit(it, "bitcast-convert",
                {f.K(std::numeric_limits<double>::quiet_NaN())}, "");
  // The sign bit as a value of the signed type: -2^(width - 1).
  const int64_t sign_bit = width == 64 ? std::numeric_limits<int64_t>::min()
                                       : -(int64_t{1} << (width - 1));
  std::string sign_mask = ik(sign_bit);
  std::string magnitude_mask = ik(~sign_bit);
  std::string x_abs = iop("and", xi, magnitude_mask);
  std::string y_abs = iop("and", yi, magnitude_mask);
  std::string equal = f.Cmp(x, y, "EQ");
  std::string zero = ik(0);
  std::string x_zero = icmp(x_abs, zero, "EQ");
  std::string y_zero = icmp(y_abs, zero, "EQ");
  std::string x_sign = iop("and", xi, sign_mask);
  std::string y_sign = iop("and", yi, sign_mask);
  std::string one = ik(1);
  std::string from_zero = iop("or", y_sign, one);
  std::string toward_zero =
      f.Or(icmp(x_abs, y_abs, "GT"), icmp(x_sign, y_sign, "NE"));
  std::string result = iop("add", xi, isel(toward_zero, ik(-1), one));
  result = isel(x_zero, isel(y_zero, yi, from_zero), result);
  result = isel(equal, yi, result);
  result = isel(nan_in, nan_bits, result);
  return sink.Emit(t, "bitcast-convert", {result}, "");
}

}  // namespace

bool IsExpandedChloOp(absl::string_view op) {
  return op == "lgamma" || op == "digamma" || op == "erf_inv" || op == "erfc" ||
         op == "polygamma" || op == "zeta" || op == "bessel_i1e" ||
         op == "next_after";
}

absl::StatusOr<std::string> ExpandChlo(absl::string_view op, PrimitiveType type,
                                       const std::vector<std::string>& operands,
                                       ExpansionSink& sink) {
  const size_t arity =
      op == "polygamma" || op == "zeta" || op == "next_after" ? 2 : 1;
  if (!IsExpandedChloOp(op)) {
    return absl::NotFoundError(absl::StrCat("chlo.", op, " is not expanded"));
  }
  if (operands.size() != arity) {
    return absl::InvalidArgumentError(absl::StrCat(
        "chlo.", op, " takes ", arity, " operand(s), got ", operands.size()));
  }
  if (type != PrimitiveType::kF16 && type != PrimitiveType::kBF16 &&
      type != PrimitiveType::kF32 && type != PrimitiveType::kF64) {
    return absl::UnimplementedError(
        absl::StrCat("chlo.", op, " of ", PrimitiveTypeName(type),
                     " (XLA's legalization takes f16, bf16, f32 and f64)"));
  }
  if (op == "next_after")
    return NextAfter(sink, type, operands[0], operands[1]);
  // f16 and bf16 are computed in f32 and rounded back, as XLA does.
  const bool upcast =
      type == PrimitiveType::kF16 || type == PrimitiveType::kBF16;
  const PrimitiveType t = upcast ? PrimitiveType::kF32 : type;
  std::vector<std::string> in = operands;
  if (upcast) {
    for (std::string& v : in) v = sink.Emit(t, "convert", {v}, "");
  }
  Builder b(sink, t);
  std::string r;
  if (op == "lgamma") {
    r = Lgamma(b, in[0]);
  } else if (op == "digamma") {
    r = Digamma(b, in[0]);
  } else if (op == "erf_inv") {
    r = ErfInv(b, in[0]);
  } else if (op == "erfc") {
    r = Erfc(b, in[0]);
  } else if (op == "polygamma") {
    r = Polygamma(b, in[0], in[1]);
  } else if (op == "zeta") {
    r = Zeta(b, in[0], in[1]);
  } else {
    r = BesselI1e(b, in[0]);
  }
  if (upcast) r = sink.Emit(type, "convert", {r}, "");
  return r;
}

}  // namespace hloref::stablehlo
