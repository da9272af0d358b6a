// The collectives runtime of the CPU backend: the rendezvous of replicated
// runs, the participant driver and hloref_cpu_collective. Semantics follow
// the oracle's documented rules (interpreter/ops/collectives.cc, read, not
// linked): group modes of text-format 6.11, left-fold reductions in group
// order, all-gather / all-to-all / reduce-scatter blocks in group order,
// collective-permute zeros for participants that receive nothing,
// collective-broadcast from the group's first participant, and
// ragged-all-to-all's rows and its OutOfRange preconditions.
#include "backends/cpu/runtime/collectives.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/runtime/host.h"
#include "backends/cpu/runtime/runtime_symbols.h"
#include "spec/ir/collective_groups.h"
#include "spec/types/primitive_type.h"
#include "spec/util/status_macros.h"

namespace hloref::cpu {

// ---------------------------------------------------------------------------
// CollectiveGroup

CollectiveGroup::CollectiveGroup(int64_t replicas, int64_t partitions,
                                 absl::Duration timeout)
    : CollectiveRendezvous<Contribution>(replicas, partitions, timeout),
      executions_(static_cast<size_t>(replicas * partitions)) {}

int64_t CollectiveGroup::CountExecution(int64_t me, const void* key) {
  return ++executions_[static_cast<size_t>(me)][key];
}

absl::StatusOr<std::shared_ptr<const std::vector<Contribution>>>
CollectiveGroup::Exchange(const void* key, const std::string& name,
                          int64_t execution, absl::Span<const int64_t> group,
                          int64_t me, Contribution mine) {
  CollectiveSite site;
  site.id = key;
  site.prefix = absl::StrCat("%", name, ": ");
  site.name = name;
  site.noun = "this";
  return Meet(site, execution, group, me, std::move(mine));
}

// ---------------------------------------------------------------------------
// RunReplicatedParticipants

absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicatedParticipants(
    int64_t replicas, int64_t partitions,
    absl::Span<const std::vector<Literal>> args, const ParticipantRun& run) {
  HLOREF_RETURN_IF_ERROR(
      CheckParticipants(replicas, partitions, args.size()).status());
  CollectiveGroup group(replicas, partitions, absl::Seconds(10));
  return RunParticipantThreads<std::vector<Literal>>(group, [&](int64_t id) {
    RunContext ctx;
    ctx.replica_id = id / partitions;
    ctx.partition_id = id % partitions;
    ctx.num_replicas = replicas;
    ctx.num_partitions = partitions;
    ctx.collectives = &group;
    const auto& mine = args.size() == 1 ? args[0] : args[id];
    absl::StatusOr<std::vector<Literal>> result = run(mine, ctx);
    ReleaseDeviceChannels(&ctx);
    return result;
  });
}

// ---------------------------------------------------------------------------
// hloref_cpu_collective

namespace {

struct ArrayDesc {
  PrimitiveType type;
  std::vector<int64_t> dims;
  int64_t elements() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  int64_t element_bytes() const { return StorageBytes(type); }
  int64_t bytes() const { return elements() * element_bytes(); }
};

struct Desc {
  CollectiveKind kind;
  CollectiveGroupMode mode;
  int64_t channel_id;
  int64_t dim;
  std::vector<std::vector<int64_t>> groups;
  std::vector<ArrayDesc> in, out;
  std::vector<std::pair<int64_t, int64_t>> pairs;
};

Desc Parse(const int64_t* p) {
  Desc d;
  d.kind = static_cast<CollectiveKind>(*p++);
  d.mode = static_cast<CollectiveGroupMode>(*p++);
  d.channel_id = *p++;
  d.dim = *p++;
  const int64_t g = *p++;
  for (int64_t i = 0; i < g; ++i) {
    const int64_t size = *p++;
    d.groups.emplace_back(p, p + size);
    p += size;
  }
  for (std::vector<ArrayDesc>* arrays : {&d.in, &d.out}) {
    const int64_t count = *p++;
    for (int64_t i = 0; i < count; ++i) {
      ArrayDesc a;
      a.type = static_cast<PrimitiveType>(*p++);
      const int64_t rank = *p++;
      a.dims.assign(p, p + rank);
      p += rank;
      arrays->push_back(std::move(a));
    }
  }
  const int64_t pairs = *p++;
  for (int64_t i = 0; i < pairs; ++i) {
    d.pairs.emplace_back(p[0], p[1]);
    p += 2;
  }
  return d;
}

using Topology = DeviceTopology;

absl::StatusOr<std::vector<int64_t>> GroupOf(const Desc& d, const Topology& t,
                                             const std::string& name) {
  return ResolveCollectiveGroup(d.mode, d.groups, t,
                                absl::StrCat("%", name, ": "));
}

struct Exchanged {
  std::vector<int64_t> group;
  int64_t index = 0;
  std::shared_ptr<const std::vector<Contribution>> values;
};

Contribution Copy(const std::vector<ArrayDesc>& arrays, void** in,
                  absl::Span<const int64_t> which = {}) {
  Contribution c;
  auto add = [&](size_t i) {
    const uint8_t* p = static_cast<const uint8_t*>(in[i]);
    c.emplace_back(p, p + arrays[i].bytes());
  };
  if (which.empty()) {
    for (size_t i = 0; i < arrays.size(); ++i) add(i);
  } else {
    for (int64_t i : which) add(static_cast<size_t>(i));
  }
  return c;
}

absl::StatusOr<Exchanged> Meet(RunContext* ctx, const void* key,
                               const std::string& name,
                               std::vector<int64_t> group, Contribution mine,
                               const Topology& t) {
  Exchanged ex;
  ex.group = std::move(group);
  auto pos = std::find(ex.group.begin(), ex.group.end(), t.me());
  if (pos == ex.group.end()) {
    return absl::InternalError(absl::StrCat("%", name, ": participant ", t.me(),
                                            " is not in its own group {",
                                            absl::StrJoin(ex.group, ","), "}"));
  }
  ex.index = pos - ex.group.begin();
  CollectiveGroup* cg = ctx->collectives;
  if (cg == nullptr || ex.group.size() == 1) {
    if (ex.group.size() != 1) {
      return absl::InternalError(
          absl::StrCat("%", name, ": a group of ", ex.group.size(),
                       " participants in a run without other participants"));
    }
    auto v = std::make_shared<std::vector<Contribution>>();
    v->push_back(std::move(mine));
    ex.values = std::move(v);
    return ex;
  }
  const int64_t execution = cg->CountExecution(t.me(), key);
  HLOREF_ASSIGN_OR_RETURN(
      ex.values,
      cg->Exchange(key, name, execution, ex.group, t.me(), std::move(mine)));
  return ex;
}

using ReducerFn = void (*)(RunContext*, void**, void**);

// memcpy / memset of `n` bytes that accept n == 0 with null pointers (a
// zero-element value's storage may be null, and memcpy may not take null
// even for 0 bytes: fuzz findings 14-16 and 19, docs/fuzzing.md).
void CopyBytes(void* dst, const void* src, size_t n) {
  if (n > 0) std::memcpy(dst, src, n);
}
void ZeroBytes(void* dst, size_t n) {
  if (n > 0) std::memset(dst, 0, n);
}

// The left fold f(...f(f(x_0, x_1), x_2)..., x_{n-1}) per element.
void Reduce(RunContext* ctx, ReducerFn fn, const ArrayDesc& a,
            const std::vector<const uint8_t*>& xs, uint8_t* out) {
  const int64_t bytes = a.element_bytes();
  const int64_t count = a.elements();
  if (count == 0) return;  // an empty operand: its pointers may be null
  if (xs.size() == 1 || fn == nullptr) {
    std::memcpy(out, xs[0], static_cast<size_t>(count * bytes));
    return;
  }
  alignas(16) uint8_t acc[16];
  alignas(16) uint8_t tmp[16];
  for (int64_t e = 0; e < count; ++e) {
    std::memcpy(acc, xs[0] + e * bytes, static_cast<size_t>(bytes));
    for (size_t k = 1; k < xs.size(); ++k) {
      void* params[2] = {acc, const_cast<uint8_t*>(xs[k] + e * bytes)};
      void* results[1] = {tmp};
      fn(ctx, params, results);
      std::memcpy(acc, tmp, static_cast<size_t>(bytes));
    }
    std::memcpy(out + e * bytes, acc, static_cast<size_t>(bytes));
  }
}

// Row-major geometry around dimension `dim`: outer rows, the dimension,
// and the bytes below it.
struct Around {
  int64_t outer = 1, extent = 1, inner_bytes = 1;
};
Around AroundDim(const ArrayDesc& a, int64_t dim) {
  Around g;
  for (int64_t i = 0; i < dim; ++i) g.outer *= a.dims[i];
  g.extent = a.dims[dim];
  g.inner_bytes = a.element_bytes();
  for (size_t i = static_cast<size_t>(dim) + 1; i < a.dims.size(); ++i) {
    g.inner_bytes *= a.dims[i];
  }
  return g;
}

// Copies block `from_block` (of `block` rows along the dimension) of
// `src` into block `to_block` of `dst`.
void CopyBlock(const uint8_t* src, const Around& s, int64_t from_block,
               uint8_t* dst, const Around& d, int64_t to_block, int64_t block) {
  const size_t len = static_cast<size_t>(block * s.inner_bytes);
  if (len == 0) return;  // an empty block: src may be null
  for (int64_t o = 0; o < s.outer; ++o) {
    std::memcpy(dst + (o * d.extent + to_block * block) * d.inner_bytes,
                src + (o * s.extent + from_block * block) * s.inner_bytes, len);
  }
}

std::vector<std::vector<int64_t>> DimsOf(const std::vector<ArrayDesc>& a) {
  std::vector<std::vector<int64_t>> dims;
  for (const ArrayDesc& x : a) dims.push_back(x.dims);
  return dims;
}

absl::StatusOr<std::vector<int64_t>> LoadInts(const ArrayDesc& a,
                                              const uint8_t* p) {
  std::vector<int64_t> v(static_cast<size_t>(a.elements()));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (a.type) {
      case PrimitiveType::kS32: {
        int32_t x;
        std::memcpy(&x, p + i * 4, 4);
        v[i] = x;
        break;
      }
      case PrimitiveType::kS64:
        std::memcpy(&v[i], p + i * 8, 8);
        break;
      case PrimitiveType::kU32: {
        uint32_t x;
        std::memcpy(&x, p + i * 4, 4);
        v[i] = x;
        break;
      }
      case PrimitiveType::kU64:
        std::memcpy(&v[i], p + i * 8, 8);
        break;
      default:
        return absl::UnimplementedError(absl::StrCat(
            "ragged-all-to-all offsets of type ", PrimitiveTypeName(a.type)));
    }
  }
  return v;
}

absl::Status RunCollective(RunContext* ctx, const int64_t* raw,
                           const std::string& name, void** in, void** out,
                           void* reducer) {
  const Desc d = Parse(raw);
  Topology t;
  t.replicas = ctx->num_replicas;
  t.partitions = ctx->num_partitions;
  t.replica = ctx->replica_id;
  t.partition = ctx->partition_id;
  if (ctx->collectives == nullptr) {
    // A run of one participant (Executable::Run).
    t.replicas = t.partitions = 1;
    t.replica = t.partition = 0;
  }
  auto out_ptr = [&](size_t i) { return static_cast<uint8_t*>(out[i]); };
  switch (d.kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kReduceScatter: {
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(d, t, name));
      const int64_t n = static_cast<int64_t>(group.size());
      const bool scatter = d.kind == CollectiveKind::kReduceScatter;
      if (scatter) {
        HLOREF_RETURN_IF_ERROR(CheckCollectiveGroupShapes(
            CollectiveShapeRule::kReduceScatter, n, d.dim, DimsOf(d.in),
            DimsOf(d.out), name));
      }
      HLOREF_ASSIGN_OR_RETURN(
          Exchanged ex,
          Meet(ctx, raw, name, std::move(group), Copy(d.in, in), t));
      for (size_t i = 0; i < d.in.size(); ++i) {
        std::vector<const uint8_t*> xs;
        for (const Contribution& c : *ex.values) xs.push_back(c[i].data());
        if (!scatter) {
          Reduce(ctx, reinterpret_cast<ReducerFn>(reducer), d.in[i], xs,
                 out_ptr(i));
          continue;
        }
        std::vector<uint8_t> full(static_cast<size_t>(d.in[i].bytes()));
        Reduce(ctx, reinterpret_cast<ReducerFn>(reducer), d.in[i], xs,
               full.data());
        const Around s = AroundDim(d.in[i], d.dim);
        const Around o = AroundDim(d.out[i], d.dim);
        CopyBlock(full.data(), s, ex.index, out_ptr(i), o, 0, o.extent);
      }
      return absl::OkStatus();
    }
    case CollectiveKind::kAllGather: {
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(d, t, name));
      const int64_t n = static_cast<int64_t>(group.size());
      HLOREF_RETURN_IF_ERROR(
          CheckCollectiveGroupShapes(CollectiveShapeRule::kAllGather, n, d.dim,
                                     DimsOf(d.in), DimsOf(d.out), name));
      HLOREF_ASSIGN_OR_RETURN(
          Exchanged ex,
          Meet(ctx, raw, name, std::move(group), Copy(d.in, in), t));
      for (size_t i = 0; i < d.in.size(); ++i) {
        const Around s = AroundDim(d.in[i], d.dim);
        const Around o = AroundDim(d.out[i], d.dim);
        for (int64_t k = 0; k < n; ++k) {
          CopyBlock((*ex.values)[k][i].data(), s, 0, out_ptr(i), o, k,
                    s.extent);
        }
      }
      return absl::OkStatus();
    }
    case CollectiveKind::kAllToAllArray: {
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(d, t, name));
      const int64_t n = static_cast<int64_t>(group.size());
      HLOREF_RETURN_IF_ERROR(
          CheckCollectiveGroupShapes(CollectiveShapeRule::kAllToAll, n, d.dim,
                                     DimsOf(d.in), DimsOf(d.out), name));
      HLOREF_ASSIGN_OR_RETURN(
          Exchanged ex,
          Meet(ctx, raw, name, std::move(group), Copy(d.in, in), t));
      const Around s = AroundDim(d.in[0], d.dim);
      const int64_t block = s.extent / n;
      for (int64_t k = 0; k < n; ++k) {
        CopyBlock((*ex.values)[k][0].data(), s, ex.index, out_ptr(0), s, k,
                  block);
      }
      return absl::OkStatus();
    }
    case CollectiveKind::kAllToAllTuple: {
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(d, t, name));
      const int64_t n = static_cast<int64_t>(group.size());
      if (static_cast<int64_t>(d.in.size()) != n) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", name, ": the tuple form has ", d.in.size(),
            " operands, expected one per participant of the group (", n, ")"));
      }
      HLOREF_ASSIGN_OR_RETURN(
          Exchanged ex,
          Meet(ctx, raw, name, std::move(group), Copy(d.in, in), t));
      for (int64_t k = 0; k < n; ++k) {
        const std::vector<uint8_t>& v = (*ex.values)[k][ex.index];
        if (static_cast<int64_t>(v.size()) != d.out[k].bytes()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "%", name, ": all-to-all operands of different shapes"));
        }
        CopyBytes(out_ptr(k), v.data(), v.size());
      }
      return absl::OkStatus();
    }
    case CollectiveKind::kCollectivePermute: {
      HLOREF_ASSIGN_OR_RETURN(
          CollectivePermutePeers peers,
          ResolveCollectivePermute(d.pairs, d.channel_id > 0, t,
                                   absl::StrCat("%", name, ": ")));
      for (size_t i = 0; i < d.out.size(); ++i) {
        ZeroBytes(out_ptr(i), static_cast<size_t>(d.out[i].bytes()));
      }
      const std::vector<int64_t>& group = peers.group;
      if (std::find(group.begin(), group.end(), t.me()) == group.end()) {
        return absl::OkStatus();
      }
      HLOREF_ASSIGN_OR_RETURN(Exchanged ex,
                              Meet(ctx, raw, name, group, Copy(d.in, in), t));
      if (peers.source >= 0) {
        const auto it = std::find(group.begin(), group.end(), peers.source);
        const Contribution& c = (*ex.values)[it - group.begin()];
        for (size_t i = 0; i < d.out.size(); ++i) {
          CopyBytes(out_ptr(i), c[i].data(), c[i].size());
        }
      }
      return absl::OkStatus();
    }
    case CollectiveKind::kCollectiveBroadcast: {
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(d, t, name));
      HLOREF_ASSIGN_OR_RETURN(
          Exchanged ex,
          Meet(ctx, raw, name, std::move(group), Copy(d.in, in), t));
      const Contribution& c = (*ex.values)[0];
      for (size_t i = 0; i < d.out.size(); ++i) {
        CopyBytes(out_ptr(i), c[i].data(), c[i].size());
      }
      return absl::OkStatus();
    }
    case CollectiveKind::kRaggedAllToAll: {
      if (d.in.size() != 6 || d.out.size() != 1) {
        return absl::InternalError(
            absl::StrCat("%", name, ": ragged-all-to-all descriptor"));
      }
      const ArrayDesc& input = d.in[0];
      const ArrayDesc& output = d.in[1];
      const int64_t entries = d.in[2].elements();
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(d, t, name));
      const int64_t n = static_cast<int64_t>(group.size());
      if (entries % n != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", name, ": the offset and size arrays have ", entries,
            " entries, not a multiple of the group size ", n));
      }
      const int64_t per_peer = entries / n;
      const int64_t mine_idx[] = {0, 2, 3, 4};
      HLOREF_ASSIGN_OR_RETURN(
          Exchanged ex,
          Meet(ctx, raw, name, std::move(group), Copy(d.in, in, mine_idx), t));
      HLOREF_ASSIGN_OR_RETURN(
          std::vector<int64_t> recv_sizes,
          LoadInts(d.in[5], static_cast<const uint8_t*>(in[5])));
      const int64_t in_rows = input.dims[0];
      const int64_t out_rows = output.dims[0];
      const int64_t row_bytes =
          output.dims[0] == 0 ? 0 : output.bytes() / output.dims[0];
      const int64_t in_row_bytes =
          input.dims[0] == 0 ? 0 : input.bytes() / input.dims[0];
      if (in_rows > 0 && out_rows > 0 && row_bytes != in_row_bytes) {
        return absl::InvalidArgumentError(
            absl::StrCat("%", name, ": input and output rows differ"));
      }
      uint8_t* result = out_ptr(0);
      CopyBytes(result, in[1], static_cast<size_t>(output.bytes()));
      std::vector<int64_t> writer(static_cast<size_t>(out_rows), -1);
      CollectiveGroup* cg = ctx->collectives;
      for (int64_t s = 0; s < n; ++s) {
        const Contribution& c = (*ex.values)[s];
        HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> in_off,
                                LoadInts(d.in[2], c[1].data()));
        HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> send,
                                LoadInts(d.in[3], c[2].data()));
        HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> out_off,
                                LoadInts(d.in[4], c[3].data()));
        const std::string from = cg != nullptr ? cg->DeviceName(ex.group[s])
                                               : std::string("participant 0");
        for (int64_t k = 0; k < per_peer; ++k) {
          const int64_t e = ex.index * per_peer + k;
          const int64_t r = s * per_peer + k;
          const int64_t off = in_off[e], size = send[e], to = out_off[e];
          if (off < 0 || size < 0 || to < 0 || off > in_rows - size ||
              to > out_rows - size) {
            return absl::OutOfRangeError(absl::StrCat(
                "%", name, ": ", from, " sends rows [", off, ", ", off + size,
                ") of its input (", in_rows, " rows) to rows [", to, ", ",
                to + size, ") of the output (", out_rows,
                " rows): out of range (impl.ragged-all-to-all.1, entry ", e,
                ")"));
          }
          if (recv_sizes[r] != size) {
            return absl::OutOfRangeError(absl::StrCat(
                "%", name, ": recv_sizes[", r, "] is ", recv_sizes[r], ", but ",
                from, " sends ", size, " rows (send_sizes[", e,
                "]) (impl.ragged-all-to-all.2)"));
          }
          for (int64_t row = to; row < to + size; ++row) {
            if (writer[row] >= 0) {
              return absl::OutOfRangeError(absl::StrCat(
                  "%", name, ": row ", row,
                  " of the output is written by two slices (entries ",
                  writer[row], " and ", s * entries + e,
                  "): the write order is unspecified "
                  "(impl.ragged-all-to-all.3)"));
            }
            writer[row] = s * entries + e;
          }
          CopyBytes(result + to * row_bytes, c[0].data() + off * row_bytes,
                    static_cast<size_t>(size * row_bytes));
        }
      }
      return absl::OkStatus();
    }
  }
  return absl::InternalError(absl::StrCat("%", name, ": collective kind"));
}

}  // namespace

void AddCollectiveRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back({"hloref_cpu_collective",
                  reinterpret_cast<void*>(&hloref_cpu_collective)});
  list.push_back({"hloref_cpu_replica_id",
                  reinterpret_cast<void*>(&hloref_cpu_replica_id)});
  list.push_back({"hloref_cpu_partition_id",
                  reinterpret_cast<void*>(&hloref_cpu_partition_id)});
}

}  // namespace hloref::cpu

extern "C" {

void hloref_cpu_collective(hloref::cpu::RunContext* ctx, const int64_t* desc,
                           const char* name, void** in, void** out,
                           void* reducer) {
  // A participant that already failed takes no part (its run returns the
  // first error; the others learn of it when it finishes).
  if (ctx->failed()) return;
  absl::Status s =
      hloref::cpu::RunCollective(ctx, desc, name, in, out, reducer);
  if (!s.ok()) {
    if (ctx->collectives != nullptr) {
      const int64_t me =
          ctx->replica_id * ctx->num_partitions + ctx->partition_id;
      if (s.code() != absl::StatusCode::kAborted) {
        ctx->collectives->Abort(me, s);
      }
    }
    ctx->SetError(std::move(s));
  }
}

uint32_t hloref_cpu_replica_id(hloref::cpu::RunContext* ctx) {
  return static_cast<uint32_t>(ctx->replica_id);
}

uint32_t hloref_cpu_partition_id(hloref::cpu::RunContext* ctx) {
  return static_cast<uint32_t>(ctx->partition_id);
}

}  // extern "C"
