// Random well-conditioned multi-op programs (see random_programs.h).
#include "conformance/generators/random_programs.h"

#include <random>

#include "absl/strings/str_cat.h"

namespace hloref::conformance {

RandomProgram MakeRandomProgram(uint64_t seed, bool bf16) {
  std::mt19937_64 rng(seed);
  auto draw = [&](int n) { return static_cast<int>(rng() % n); };
  const std::string t = bf16 ? "bf16" : "f32";
  const int rows = 2 + draw(5);
  // bf16 accumulations of more than 8 terms have gamma_m(2^-8) above the
  // unjudged threshold: keep them short there.
  const int cols = bf16 ? 4 + draw(5) : 8 + draw(25);
  const int k = 2 + draw(7);
  RandomProgram p;
  std::string body;
  int n = 0;
  auto name = [&]() { return absl::StrCat("v", n++); };
  std::string cur = "x";
  int cur_cols = cols;
  bool dotted = false;
  auto shape = [&](int c) { return absl::StrCat(t, "[", rows, ",", c, "]"); };
  auto constant = [&](double v) {
    const std::string c = name(), b = name();
    absl::StrAppend(&body, "  ", c, " = ", t, "[] constant(", v, ")\n  ", b,
                    " = ", shape(cur_cols), " broadcast(", c,
                    "), dimensions={}\n");
    return b;
  };
  auto unary = [&](const std::string& op, const std::string& a) {
    const std::string r = name();
    absl::StrAppend(&body, "  ", r, " = ", shape(cur_cols), " ", op, "(", a,
                    ")\n");
    ++p.ops;
    return r;
  };
  auto binary = [&](const std::string& op, const std::string& a,
                    const std::string& b) {
    const std::string r = name();
    absl::StrAppend(&body, "  ", r, " = ", shape(cur_cols), " ", op, "(", a,
                    ", ", b, ")\n");
    ++p.ops;
    return r;
  };
  auto row_reduce = [&](const std::string& reducer, const std::string& init) {
    const std::string z = name(), s = name(), sb = name();
    absl::StrAppend(&body, "  ", z, " = ", t, "[] constant(", init, ")\n  ", s,
                    " = ", t, "[", rows, "] reduce(", cur, ", ", z,
                    "), dimensions={1}, to_apply=", reducer, "\n  ", sb, " = ",
                    shape(cur_cols), " broadcast(", s, "), dimensions={0}\n");
    p.ops += 2;
    return sb;
  };
  // bf16 programs are shorter and never square: each bf16 op may add
  // 2^-9 of relative error and squaring doubles it, so long bf16 chains
  // honestly exceed the 1/16 threshold (they are unjudged, not failed).
  const int steps = bf16 ? 2 + draw(3) : 4 + draw(5);
  std::string comps;  // while bodies and conditions
  for (int i = 0; i < steps; ++i) {
    switch (draw(12)) {
      case 0:
        cur = binary("add", cur, constant(0.5 + draw(48) / 32.0));
        break;
      case 1:
        cur = binary("multiply", cur, constant(0.5 + draw(48) / 32.0));
        break;
      case 2:
        cur = unary("logistic", cur);
        break;
      case 3:
        cur = unary("tanh", cur);
        break;
      case 4:
        cur = unary("sqrt", cur);
        break;
      case 5:
        cur = unary("log-plus-one", cur);
        break;
      case 6:  // row normalisation
        cur = binary("divide", cur, row_reduce("add", "0"));
        break;
      case 7:
        if (!dotted) {
          const std::string r = name();
          absl::StrAppend(&body, "  ", r, " = ", t, "[", rows, ",", k, "] dot(",
                          cur,
                          ", w), lhs_contracting_dims={1}, "
                          "rhs_contracting_dims={0}\n");
          ++p.ops;
          cur = r;
          cur_cols = k;
          dotted = true;
          break;
        }
        [[fallthrough]];
      case 8: {  // softmax row: exp(x - max) / sum
        const std::string mb = row_reduce("max", "-inf");
        const std::string e = unary("exponential", binary("subtract", cur, mb));
        cur = e;
        cur = binary("divide", e, row_reduce("add", "0"));
        break;
      }
      case 10: {  // a while loop carrying (counter, value): v * c + d
        const std::string st = absl::StrCat("(s32[], ", shape(cur_cols), ")");
        const std::string vs = shape(cur_cols);
        const int iters = 2 + draw(3);
        const double c = 0.5 + draw(24) / 32.0, d = draw(16) / 32.0;
        absl::StrAppend(
            &comps, "body_", i, " {\n  s = ", st, " parameter(0)\n",
            "  i = s32[] get-tuple-element(s), index=0\n", "  v = ", vs,
            " get-tuple-element(s), index=1\n", "  one = s32[] constant(1)\n",
            "  i2 = s32[] add(i, one)\n", "  c = ", t, "[] constant(", c, ")\n",
            "  cb = ", vs, " broadcast(c), dimensions={}\n", "  m = ", vs,
            " multiply(v, cb)\n", "  d = ", t, "[] constant(", d, ")\n",
            "  db = ", vs, " broadcast(d), dimensions={}\n", "  a = ", vs,
            " add(m, db)\n", "  ROOT t = ", st, " tuple(i2, a)\n}\n\n");
        absl::StrAppend(
            &comps, "cond_", i, " {\n  s = ", st, " parameter(0)\n",
            "  i = s32[] get-tuple-element(s), index=0\n",
            "  n = s32[] constant(", iters, ")\n",
            "  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\n");
        const std::string z = name(), t0 = name(), wl = name(), r = name();
        absl::StrAppend(&body, "  ", z, " = s32[] constant(0)\n  ", t0, " = ",
                        st, " tuple(", z, ", ", cur, ")\n  ", wl, " = ", st,
                        " while(", t0, "), condition=cond_", i, ", body=body_",
                        i, "\n  ", r, " = ", vs, " get-tuple-element(", wl,
                        "), index=1\n");
        p.ops += 2 * iters + 1;
        ++p.whiles;
        cur = r;
        break;
      }
      case 11: {  // attention: softmax(q q^T * c) v, q = rows normalised
        const std::string v = cur;
        const std::string q = binary("divide", cur, row_reduce("add", "0"));
        const std::string sc = name();
        absl::StrAppend(&body, "  ", sc, " = ", t, "[", rows, ",", rows,
                        "] dot(", q, ", ", q,
                        "), lhs_contracting_dims={1}, "
                        "rhs_contracting_dims={1}\n");
        ++p.ops;
        const int v_cols = cur_cols;
        cur_cols = rows;
        cur = binary("multiply", sc, constant(1 + draw(32) / 8.0));
        const std::string mb = row_reduce("max", "-inf");
        const std::string e = unary("exponential", binary("subtract", cur, mb));
        cur = e;
        const std::string pr = binary("divide", e, row_reduce("add", "0"));
        const std::string out = name();
        absl::StrAppend(&body, "  ", out, " = ", t, "[", rows, ",", v_cols,
                        "] dot(", pr, ", ", v,
                        "), lhs_contracting_dims={1}, "
                        "rhs_contracting_dims={0}\n");
        ++p.ops;
        cur_cols = v_cols;
        cur = out;
        ++p.attentions;
        break;
      }
      default:
        cur = bf16 ? binary("add", cur, constant(0.5 + draw(48) / 32.0))
                   : binary("multiply", cur, cur);
        break;
    }
  }
  p.text = absl::StrCat(
      "HloModule random_", seed, "\n\nadd {\n  a = ", t,
      "[] parameter(0)\n  b = ", t, "[] parameter(1)\n  ROOT s = ", t,
      "[] add(a, b)\n}\n\nmax {\n  a = ", t, "[] parameter(0)\n  b = ", t,
      "[] parameter(1)\n  ROOT m = ", t, "[] maximum(a, b)\n}\n\n", comps,
      "ENTRY main {\n", "  x = ", shape(cols), " parameter(0)\n  w = ", t, "[",
      cols, ",", k, "] parameter(1)\n", body, "  ROOT r = ", shape(cur_cols),
      " copy(", cur, ")\n}\n");
  const PrimitiveType type = bf16 ? PrimitiveType::kBF16 : PrimitiveType::kF32;
  for (const auto& dims :
       {std::vector<int64_t>{rows, cols}, std::vector<int64_t>{cols, k}}) {
    Literal lit(Shape(type, dims));
    for (int64_t i = 0; i < lit.element_count(); ++i) {
      lit.SetFromDouble(i, 0.5 + draw(48) / 32.0);  // exact in bf16
    }
    p.args.push_back(std::move(lit));
  }
  return p;
}

}  // namespace hloref::conformance
