// Generators of the host I/O family (seed 001 "Infeed", "Send", "Recv";
// outfeed from docs/hlo-text-format.md 6.12): chains of transfers ordered
// by tokens, so the order of the values on each queue is part of what is
// checked.
//  - infeed: 1..3 infeeds of arrays, tuples of arrays or the empty tuple
//    (which reads nothing); the values pushed are Draw::infeed.
//  - outfeed: 1..3 outfeeds of values computed from the parameters
//    (the parameter itself, a reversal, a tuple, the empty tuple); the
//    harness compares the outfeed queue with the oracle's.
//  - send / send-done, recv / recv-done: host transfers
//    (is_host_transfer=true, one channel id per transfer, as XLA requires
//    of host channels), or a device-to-device send/recv pair on one
//    channel inside the module, whose received value is the root.
// Instruction names never spell an element type (s1, u2, ...): XLA's lexer
// reserves those words.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {
namespace {

// Transfer data: an array (mostly), a tuple of 1..3 arrays, or (when
// allowed) the empty tuple.
Shape DataShape(Rng& rng, bool allow_empty) {
  const uint64_t r = rng.Below(20);
  if (r < 13) return Shape(DrawType(rng), DrawDims(rng, 0, 3));
  if (r < 18 || !allow_empty) {
    std::vector<Shape> elements;
    const int64_t n = rng.Range(1, 3);
    for (int64_t i = 0; i < n; ++i) {
      elements.push_back(Shape(DrawType(rng), DrawDims(rng, 0, 3)));
    }
    return Shape::Tuple(std::move(elements));
  }
  return Shape::Tuple({});
}

// The first array element type of `s` (kTuple for the empty tuple).
PrimitiveType LeafType(const Shape& s) {
  const Shape* x = &s;
  while (x->IsTuple() && x->tuple_size() > 0) x = &x->tuple_shapes(0);
  return x->IsTuple() ? PrimitiveType::kTuple : x->element_type();
}

std::string Text(const Shape& s) { return s.ToString(/*print_layout=*/false); }

// Distinct channel ids in [1, 99].
int64_t FreshChannel(Rng& rng, std::set<int64_t>& used) {
  for (;;) {
    const int64_t c = rng.Range(1, 99);
    if (used.insert(c).second) return c;
  }
}

// Adds instructions computing a transfer value from new parameters and
// returns its name: a parameter, its reversal along some dimensions, a
// tuple of parameters, or the empty tuple.
std::string ComputedValue(Draw& d, Rng& rng, const std::string& name,
                          Shape* shape) {
  const uint64_t r = rng.Below(10);
  if (r < 7) {
    const Shape s(DrawType(rng), DrawDims(rng, 0, 3));
    const std::string p = absl::StrCat("p", d.params.size());
    d.params.push_back({s, Fill::kGeneral});
    *shape = s;
    if (r < 4) return p;
    std::vector<int64_t> which;
    for (int64_t i = 0; i < s.rank(); ++i) {
      if (rng.Chance(0.5)) which.push_back(i);
    }
    absl::StrAppend(&d.prelude, "  ", name, " = ", Text(s), " reverse(", p,
                    "), dimensions=", ListText(which), "\n");
    return name;
  }
  std::vector<Shape> elements;
  std::vector<std::string> names;
  const int64_t n = r < 9 ? rng.Range(1, 3) : 0;
  for (int64_t i = 0; i < n; ++i) {
    elements.push_back(Shape(DrawType(rng), DrawDims(rng, 0, 3)));
    names.push_back(absl::StrCat("p", d.params.size()));
    d.params.push_back({elements.back(), Fill::kGeneral});
  }
  *shape = Shape::Tuple(std::move(elements));
  absl::StrAppend(&d.prelude, "  ", name, " = ", Text(*shape), " tuple(",
                  absl::StrJoin(names, ", "), ")\n");
  return name;
}

absl::StatusOr<Draw> GenerateInfeed(Rng& rng) {
  Draw d;
  d.prelude = "  tok0 = token[] after-all()\n";
  const int64_t n = rng.Range(1, 3);
  std::vector<std::string> values;
  for (int64_t i = 0; i < n; ++i) {
    const Shape data = DataShape(rng, /*allow_empty=*/true);
    if (d.type == PrimitiveType::kInvalid) d.type = LeafType(data);
    // The empty tuple reads nothing (seed 001), so nothing is queued.
    if (!(data.IsTuple() && data.tuple_size() == 0)) {
      d.infeed.push_back({data, Fill::kGeneral});
    }
    const std::string config =
        rng.Chance(0.3) ? absl::StrCat(", infeed_config=\"cfg", i, "\"") : "";
    const std::string op = absl::StrCat("infeed(tok", i, ")", config);
    if (n == 1 && rng.Chance(0.5)) {
      d.op_text = op;  // the infeed itself is the root
      return d;
    }
    absl::StrAppend(&d.prelude, "  in", i, " = (", Text(data), ", token[]) ",
                    op, "\n  v", i, " = ", Text(data), " get-tuple-element(in",
                    i, "), index=0\n  tok", i + 1,
                    " = token[] get-tuple-element(in", i, "), index=1\n");
    values.push_back(absl::StrCat("v", i));
  }
  values.push_back(absl::StrCat("tok", n));
  d.op_text = absl::StrCat("tuple(", absl::StrJoin(values, ", "), ")");
  return d;
}

absl::StatusOr<Draw> GenerateOutfeed(Rng& rng) {
  Draw d;
  d.prelude = "  tok0 = token[] after-all()\n";
  const int64_t n = rng.Range(1, 3);
  for (int64_t i = 0; i < n; ++i) {
    Shape shape;
    const std::string value =
        ComputedValue(d, rng, absl::StrCat("x", i), &shape);
    if (d.type == PrimitiveType::kInvalid) d.type = LeafType(shape);
    const std::string config =
        rng.Chance(0.3) ? absl::StrCat(", outfeed_config=\"cfg", i, "\"") : "";
    const std::string op =
        absl::StrCat("outfeed(", value, ", tok", i,
                     "), outfeed_shape=", Text(shape), config);
    if (i + 1 == n) {
      d.op_text = op;
    } else {
      absl::StrAppend(&d.prelude, "  tok", i + 1, " = token[] ", op, "\n");
    }
  }
  return d;
}

// send then recv on one channel inside the module; the recv waits on the
// send-done's token, so every schedule runs the send first.
absl::StatusOr<Draw> GenerateDevicePair(Rng& rng) {
  Draw d;
  Shape shape;
  d.prelude = "  tok = token[] after-all()\n";
  const std::string value = ComputedValue(d, rng, "x", &shape);
  d.type = LeafType(shape);
  const std::string s = Text(shape);
  const int64_t c = rng.Range(1, 99);
  absl::StrAppend(&d.prelude, "  snd = (", s, ", u32[], token[]) send(", value,
                  ", tok), channel_id=", c,
                  "\n  sndd = token[] send-done(snd), channel_id=", c,
                  "\n  rcv = (", s,
                  ", u32[], token[]) recv(sndd), channel_id=", c, "\n");
  if (rng.Chance(0.5)) {
    d.op_text = absl::StrCat("recv-done(rcv), channel_id=", c);
  } else {
    absl::StrAppend(&d.prelude, "  rcvd = (", s,
                    ", token[]) recv-done(rcv), channel_id=", c, "\n");
    d.op_text = "get-tuple-element(rcvd), index=0";
  }
  return d;
}

absl::StatusOr<Draw> GenerateHostSend(Rng& rng) {
  Draw d;
  d.prelude = "  tok0 = token[] after-all()\n";
  std::set<int64_t> used;
  const int64_t n = rng.Range(1, 3);
  for (int64_t i = 0; i < n; ++i) {
    Shape shape;
    const std::string value =
        ComputedValue(d, rng, absl::StrCat("x", i), &shape);
    if (d.type == PrimitiveType::kInvalid) d.type = LeafType(shape);
    const int64_t c = FreshChannel(rng, used);
    absl::StrAppend(&d.prelude, "  snd", i, " = (", Text(shape),
                    ", u32[], token[]) send(", value, ", tok", i,
                    "), channel_id=", c, ", is_host_transfer=true\n");
    const std::string done = absl::StrCat(
        "send-done(snd", i, "), channel_id=", c, ", is_host_transfer=true");
    if (i + 1 == n) {
      d.op_text = done;
    } else {
      absl::StrAppend(&d.prelude, "  tok", i + 1, " = token[] ", done, "\n");
    }
  }
  return d;
}

absl::StatusOr<Draw> GenerateHostRecv(Rng& rng) {
  Draw d;
  d.prelude = "  tok0 = token[] after-all()\n";
  std::set<int64_t> used;
  const int64_t n = rng.Range(1, 3);
  std::vector<std::string> values;
  for (int64_t i = 0; i < n; ++i) {
    const Shape data = DataShape(rng, /*allow_empty=*/false);
    if (d.type == PrimitiveType::kInvalid) d.type = LeafType(data);
    const int64_t c = FreshChannel(rng, used);
    d.recv[c].push_back({data, Fill::kGeneral});
    const std::string s = Text(data);
    absl::StrAppend(&d.prelude, "  r", i, " = (", s,
                    ", u32[], token[]) recv(tok", i, "), channel_id=", c,
                    ", is_host_transfer=true\n");
    const std::string done = absl::StrCat("recv-done(r", i, "), channel_id=", c,
                                          ", is_host_transfer=true");
    if (n == 1 && rng.Chance(0.5)) {
      d.op_text = done;  // (data, token[]) is the root
      return d;
    }
    absl::StrAppend(&d.prelude, "  rd", i, " = (", s, ", token[]) ", done,
                    "\n  v", i, " = ", s, " get-tuple-element(rd", i,
                    "), index=0\n  tok", i + 1,
                    " = token[] get-tuple-element(rd", i, "), index=1\n");
    values.push_back(absl::StrCat("v", i));
  }
  values.push_back(absl::StrCat("tok", n));
  d.op_text = absl::StrCat("tuple(", absl::StrJoin(values, ", "), ")");
  return d;
}

}  // namespace

absl::StatusOr<Draw> GenerateHostIo(HloOpcode op, Rng& rng) {
  switch (op) {
    case HloOpcode::kInfeed:
      return GenerateInfeed(rng);
    case HloOpcode::kOutfeed:
      return GenerateOutfeed(rng);
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
      return rng.Chance(0.7) ? GenerateHostSend(rng) : GenerateDevicePair(rng);
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
      return rng.Chance(0.7) ? GenerateHostRecv(rng) : GenerateDevicePair(rng);
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
