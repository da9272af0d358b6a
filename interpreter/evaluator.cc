// The evaluator core: argument checks, post-order evaluation of
// computations, the opcode dispatch generated from spec/ops.def, limits and
// the propagation of don't-care (implementation-defined) marks.
#include "interpreter/evaluator.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "interpreter/buffer_cache.h"
#include "interpreter/dynamic_sizes.h"
#include "interpreter/host_queues.h"
#include "interpreter/ops/broadcast_view.h"
#include "interpreter/ops/eval_context.h"
#include "interpreter/ops/families.h"
#include "interpreter/ops/rng.h"
#include "interpreter/replicas.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

// Nested computations are evaluated by native recursion (a few KiB of stack
// per level), so a raised --max-call-depth could exhaust the thread's stack;
// each call first checks that this much is left.
constexpr int64_t kStackReserveBytes = int64_t{512} << 10;

// This thread's stack, [low, high) (cached per thread: pthread_getattr_np
// reads /proc/self/maps for the main thread); low is null when it cannot
// be told.
struct StackBounds {
  const char* low = nullptr;
  const char* high = nullptr;
};

const StackBounds& ThreadStackBounds() {
  thread_local const StackBounds bounds = []() {
    StackBounds b;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return b;
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
      b.low = static_cast<const char*>(addr);
      b.high = b.low + size;
    }
    pthread_attr_destroy(&attr);
    return b;
  }();
  return bounds;
}

// Bytes of stack left below the caller's frame (INT64_MAX when unknown).
// The frame address, not the address of a local: AddressSanitizer's
// use-after-return detection (on by default with clang 19) moves locals to
// a heap-allocated "fake stack", which made `&local - low` meaningless
// (negative) and every nested call fail in the sanitizer build.
int64_t StackBytesLeft() {
  const StackBounds& b = ThreadStackBounds();
  if (b.low == nullptr) return std::numeric_limits<int64_t>::max();
  const char* here = static_cast<const char*>(__builtin_frame_address(0));
  if (here < b.low || here >= b.high) {
    return std::numeric_limits<int64_t>::max();  // not on this stack
  }
  return here - b.low;
}

// ---- Opcode dispatch, generated from ops.def: one case per opcode, no
// default, so a new opcode without a family entry fails to compile
// (-Werror=switch).
#define HLOREF_FAMILY_FN_kElementwiseUnary EvalElementwiseUnary
#define HLOREF_FAMILY_FN_kElementwiseBinary EvalElementwiseBinary
#define HLOREF_FAMILY_FN_kCompareSelect EvalCompareSelect
#define HLOREF_FAMILY_FN_kConvert EvalConvert
#define HLOREF_FAMILY_FN_kShape EvalShape
#define HLOREF_FAMILY_FN_kSlicing EvalSlicing
#define HLOREF_FAMILY_FN_kConcatPad EvalConcatPad
#define HLOREF_FAMILY_FN_kDot EvalDot
#define HLOREF_FAMILY_FN_kConvolution EvalConvolution
#define HLOREF_FAMILY_FN_kReduce EvalReduce
#define HLOREF_FAMILY_FN_kGatherScatter EvalGatherScatter
#define HLOREF_FAMILY_FN_kSort EvalSort
#define HLOREF_FAMILY_FN_kControlFlow EvalControlFlow
#define HLOREF_FAMILY_FN_kTupleToken EvalTupleToken
#define HLOREF_FAMILY_FN_kCollectives EvalCollectives
#define HLOREF_FAMILY_FN_kRng EvalRng
#define HLOREF_FAMILY_FN_kFft EvalFft
#define HLOREF_FAMILY_FN_kLinalg EvalLinalg
#define HLOREF_FAMILY_FN_kBatchNorm EvalBatchNorm
#define HLOREF_FAMILY_FN_kHostIo EvalHostIo
#define HLOREF_FAMILY_FN_kCustomCall EvalCustomCall
#define HLOREF_FAMILY_FN_kAsync EvalAsync
#define HLOREF_FAMILY_FN(family) HLOREF_FAMILY_FN_##family

absl::StatusOr<Literal> DispatchOp(const HloInstruction& inst,
                                   absl::Span<const Literal* const> operands,
                                   EvalContext& ctx) {
  switch (inst.opcode()) {
#define HLOREF_OP(e, text, min_ops, max_ops, family, section, attrs) \
  case HloOpcode::e:                                                 \
    return HLOREF_FAMILY_FN(family)(inst, operands, ctx);
#include "spec/ops.def"
#undef HLOREF_OP
  }
  return absl::InternalError("opcode outside ops.def");
}

// The family of each opcode, from the same table.
constexpr OpFamily kFamilyOf[] = {
#define HLOREF_OP(e, text, min_ops, max_ops, family, section, attrs) \
  OpFamily::family,
#include "spec/ops.def"
#undef HLOREF_OP
};

OpFamily FamilyOf(HloOpcode op) { return kFamilyOf[static_cast<int>(op)]; }

bool IsElementwiseFamily(HloOpcode op) {
  switch (FamilyOf(op)) {
    case OpFamily::kElementwiseUnary:
    case OpFamily::kElementwiseBinary:
    case OpFamily::kCompareSelect:
      return true;
    case OpFamily::kConvert:
      // A width-changing bitcast-convert moves elements; the caller checks
      // that operand and result dimensions agree before going per element.
      return true;
    default:
      return false;
  }
}

// Whether `user` reads an operand of element type `t` given to it as a
// BroadcastView (EvalContext::OperandView): the real-float element-wise
// ops that EvalElementwiseBinary's fused loop evaluates, with a result of
// the operands' type (elementwise_binary.cc reads views there and
// materialises them on every other path), and select's on_true /
// on_false of any type of 1, 2, 4 or 8 bytes.
bool ReadsViews(const HloInstruction& user, PrimitiveType t) {
  const Shape& out = user.shape();
  if (user.opcode() == HloOpcode::kSelect) {
    // on_true / on_false (the operands of the result's type; the
    // predicate is pred, which this excludes): copied block by block
    // from the view (compare_select.cc, EvalSelectWithViews).
    const int bytes = out.IsArray() ? StorageBytes(t) : 0;
    return out.IsArray() && out.is_static() && t == out.element_type() &&
           t != PrimitiveType::kPred &&
           (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) &&
           user.operands().size() == 3 && user.operand(0)->shape().IsArray() &&
           user.operand(0)->shape().element_type() == PrimitiveType::kPred;
  }
  switch (user.opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      break;
    default:
      return false;
  }
  const Shape& s = user.shape();
  return KindOf(t) == TypeKind::kFloat && s.IsArray() && s.is_static() &&
         s.element_type() == t && user.operands().size() == 2;
}

// ---- Leaves of (possibly nested) tuple shapes.

void CollectLeafShapes(const Shape& shape, std::vector<const Shape*>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) CollectLeafShapes(s, out);
  } else {
    out->push_back(&shape);
  }
}
int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}
void CollectLeafLiterals(const Literal& lit, std::vector<const Literal*>* out) {
  if (lit.shape().IsTuple()) {
    for (const Literal& e : lit.tuple_elements()) CollectLeafLiterals(e, out);
  } else {
    out->push_back(&lit);
  }
}

void CollectMutableLeafLiterals(Literal& lit, std::vector<Literal*>* out) {
  if (lit.shape().IsTuple()) {
    for (int64_t i = 0; i < lit.shape().tuple_size(); ++i) {
      CollectMutableLeafLiterals(lit.mutable_tuple_element(i), out);
    }
  } else {
    out->push_back(&lit);
  }
}

// Don't-care marks of one value: per leaf either empty (nothing marked) or
// one flag per element (row-major).
struct Marks {
  std::vector<std::vector<bool>> leaves;
  std::set<std::string> ids;
  // Error data of accumulating ops (EvaluatorOptions::compute_error_data),
  // per leaf either empty or one entry per element. Not propagated through
  // arithmetic: only the producing instruction, tuple and get-tuple-element
  // carry it, since a bound for a composed value needs the comparator's
  // own propagation (numerics.md decision 7).
  std::vector<std::vector<double>> abs_sum;
  std::vector<std::vector<int64_t>> term_count;
  bool has_error_data() const {
    for (const auto& l : abs_sum) {
      if (!l.empty()) return true;
    }
    return false;
  }
  bool any() const {
    for (const auto& l : leaves) {
      if (std::find(l.begin(), l.end(), true) != l.end()) return true;
    }
    return false;
  }
};

int64_t ElementsOf(const Shape& s) {
  return s.IsArray() ? s.num_elements() : 0;
}

// Element types and dimensions agree, recursively (layouts and dynamic
// markers ignored).
bool SameValueShape(const Shape& a, const Shape& b) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() || a.tuple_size() != b.tuple_size()) {
      return false;
    }
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!SameValueShape(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (a.element_type() != b.element_type()) return false;
  if (!a.IsArray()) return true;
  return std::equal(a.dimensions().begin(), a.dimensions().end(),
                    b.dimensions().begin(), b.dimensions().end());
}

std::string DimsString(const Shape& s) { return s.ToString(false); }

// Sink for the marks of the instruction being evaluated.
struct MarkSink {
  const HloInstruction* inst = nullptr;
  std::vector<int64_t> leaf_sizes;
  std::vector<std::vector<bool>> leaves;
  std::set<std::string> ids;
  bool callee_marked = false;
  std::set<std::string> callee_ids;
  std::vector<std::vector<double>> abs_sum;  // see Marks
  std::vector<std::vector<int64_t>> term_count;
  std::string internal_error;  // a family marked outside the result
};

class EvaluatorImpl final : public EvalContext {
 public:
  explicit EvaluatorImpl(const EvaluatorOptions& options)
      : options_(options),
        deadline_(absl::Now() + options.max_wall_time),
        start_(absl::Now()),
        last_progress_(start_),
        max_bytes_(options.max_bytes > 0 ? options.max_bytes
                                         : DefaultMaxBytes()),
        cache_(std::max<int64_t>(0, options.buffer_cache_bytes)) {}

  const EvaluatorOptions& options() const override { return options_; }

  // `owned_args`, when given, holds the arguments by value (CallConsuming):
  // the parameters own them and may give them away.
  absl::StatusOr<std::pair<Literal, Marks>> EvalComputation(
      const HloComputation& comp, absl::Span<const Literal* const> args,
      const HloInstruction* caller, std::vector<Literal>* owned_args = nullptr);

  absl::StatusOr<Literal> CallConsuming(const HloComputation& computation,
                                        std::vector<Literal> args) override {
    const HloInstruction* caller =
        sinks_.empty() ? nullptr : sinks_.back()->inst;
    HLOREF_ASSIGN_OR_RETURN(auto result,
                            EvalComputation(computation, {}, caller, &args));
    if (!sinks_.empty() && result.second.any()) {
      sinks_.back()->callee_marked = true;
      sinks_.back()->callee_ids.insert(result.second.ids.begin(),
                                       result.second.ids.end());
    }
    return std::move(result.first);
  }

  std::optional<Literal> TakeOperand(int64_t k) override;
  std::optional<Literal> TakeOperandToOverwrite(int64_t k) override;
  const BroadcastView* OperandView(int64_t k) const override;

  Literal NewUninitialized(const Shape& shape) override {
    std::optional<Literal> reused = cache_.Take(shape);
    if (reused.has_value()) return *std::move(reused);
    return Literal::Uninitialized(shape);
  }
  Literal NewZeroed(const Shape& shape) override {
    std::optional<Literal> reused = cache_.Take(shape);
    if (!reused.has_value()) return Literal(shape);
    absl::Span<uint8_t> bytes = reused->mutable_raw();
    if (!bytes.empty()) std::memset(bytes.data(), 0, bytes.size());
    return *std::move(reused);
  }
  // Takes that reused a freed value's storage (tests).
  int64_t cache_hits() const { return cache_.hits(); }

  int64_t peak_bytes() const { return peak_bytes_; }
  int64_t limit_bytes() const { return limit_bytes_; }
  int64_t evaluated() const { return evaluated_; }
  // Progress reports come from participant 0 only.
  int64_t participant_index_ = 0;

  absl::StatusOr<Literal> Call(const HloComputation& computation,
                               absl::Span<const Literal* const> args) override {
    const HloInstruction* caller =
        sinks_.empty() ? nullptr : sinks_.back()->inst;
    HLOREF_ASSIGN_OR_RETURN(auto result,
                            EvalComputation(computation, args, caller));
    if (!sinks_.empty() && result.second.any()) {
      sinks_.back()->callee_marked = true;
      sinks_.back()->callee_ids.insert(result.second.ids.begin(),
                                       result.second.ids.end());
    }
    return std::move(result.first);
  }

  void MarkImplDefined(int64_t leaf, int64_t linear,
                       absl::string_view impl_id) override {
    if (sinks_.empty()) return;
    MarkSink& sink = *sinks_.back();
    if (leaf < 0 || leaf >= static_cast<int64_t>(sink.leaves.size()) ||
        linear < 0 || linear >= sink.leaf_sizes[leaf]) {
      sink.internal_error =
          absl::StrCat("element ", linear, " of leaf ", leaf, " marked as ",
                       impl_id, " lies outside the result");
      return;
    }
    std::vector<bool>& l = sink.leaves[leaf];
    if (l.empty()) l.assign(static_cast<size_t>(sink.leaf_sizes[leaf]), false);
    l[static_cast<size_t>(linear)] = true;
    if (sink.ids.empty() || *sink.ids.rbegin() != impl_id) {
      sink.ids.insert(std::string(impl_id));
    }
  }

  void MarkAllImplDefined(int64_t leaf, absl::string_view impl_id) override {
    if (sinks_.empty()) return;
    MarkSink& sink = *sinks_.back();
    if (leaf < 0 || leaf >= static_cast<int64_t>(sink.leaves.size())) {
      sink.internal_error = absl::StrCat("leaf ", leaf, " marked as ", impl_id,
                                         " lies outside the result");
      return;
    }
    sink.leaves[leaf].assign(static_cast<size_t>(sink.leaf_sizes[leaf]), true);
    sink.ids.insert(std::string(impl_id));
  }

  void SetErrorData(int64_t leaf, int64_t linear, double abs_sum,
                    int64_t term_count) override {
    if (!options_.compute_error_data || sinks_.empty()) return;
    MarkSink& sink = *sinks_.back();
    if (leaf < 0 || leaf >= static_cast<int64_t>(sink.leaf_sizes.size()) ||
        linear < 0 || linear >= sink.leaf_sizes[leaf]) {
      sink.internal_error =
          absl::StrCat("error data for element ", linear, " of leaf ", leaf,
                       " lies outside the result");
      return;
    }
    if (sink.abs_sum.empty()) {
      sink.abs_sum.resize(sink.leaf_sizes.size());
      sink.term_count.resize(sink.leaf_sizes.size());
    }
    if (sink.abs_sum[leaf].empty()) {
      const size_t n = static_cast<size_t>(sink.leaf_sizes[leaf]);
      // NaN / -1: "no bound known" until the family sets the element.
      sink.abs_sum[leaf].assign(n, std::numeric_limits<double>::quiet_NaN());
      sink.term_count[leaf].assign(n, -1);
    }
    sink.abs_sum[leaf][static_cast<size_t>(linear)] = abs_sum;
    sink.term_count[leaf][static_cast<size_t>(linear)] = term_count;
  }

  absl::Status CheckDeadline(const HloInstruction& inst) override {
    if (rendezvous_ != nullptr && rendezvous_->cancelled()) {
      // Another participant failed: the run is abandoned.
      return absl::AbortedError(
          absl::StrCat("%", inst.name(), ": ", rendezvous_->cancel_reason()));
    }
    if (absl::Now() > deadline_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "%", inst.name(), ": evaluation exceeded the wall-time limit of ",
          absl::FormatDuration(options_.max_wall_time),
          " (limit EvaluatorOptions::max_wall_time)"));
    }
    return absl::OkStatus();
  }

  absl::Status CountWhileIteration(const HloInstruction& inst,
                                   int64_t iterations) override {
    if (iterations > options_.max_while_iterations) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "%", inst.name(), ": while loop ran more than ",
          options_.max_while_iterations,
          " iterations (limit EvaluatorOptions::max_while_iterations)"));
    }
    return CheckDeadline(inst);
  }

  RngState* rng_state() override { return rng_state_; }
  DeviceChannels* device_channels() override { return &device_channels_; }
  // The Evaluator's state (rng.h); set by Evaluator::Run.
  RngState* rng_state_ = nullptr;

  int64_t replica_id() const override { return replica_id_; }
  // replica * partitions + partition.
  int64_t Participant() const {
    return replica_id_ * partition_count_ + partition_id_;
  }
  int64_t partition_id() const override { return partition_id_; }
  Rendezvous* rendezvous() override { return rendezvous_; }
  int64_t CountExecution(const HloInstruction& inst) override {
    return ++executions_[&inst];
  }
  // This participant of a replicated run; set by Evaluator::RunParticipant.
  Rendezvous* rendezvous_ = nullptr;
  int64_t replica_id_ = 0;
  int64_t partition_id_ = 0;
  int64_t partition_count_ = 1;

 private:
  absl::Status CheckElementLimit(const HloInstruction& inst) const;
  static void ForwardErrorData(const HloInstruction& inst,
                               const std::vector<const Marks*>& operand_marks,
                               Marks* out);
  static void PropagateMarks(const HloInstruction& inst,
                             const std::vector<const Marks*>& operand_marks,
                             MarkSink& sink, Marks* out);

  // What evaluating one computation needs besides its values, computed
  // once per computation: operand positions in the schedule, the last
  // reader of every value and what dies after each instruction.
  struct Plan {
    std::unordered_map<const HloInstruction*, int32_t> index;
    std::vector<std::vector<int32_t>> operands;  // -1: not in the schedule
    std::vector<int32_t> last_use;               // -1: never read
    std::vector<std::vector<int32_t>> free_after;
    // get-tuple-element whose tuple is read by get-tuple-elements only,
    // and by no other one of the same index: it may take the element.
    std::vector<bool> exclusive_gte;
    // broadcast whose every reader reads a BroadcastView (ReadsViews):
    // it is not materialised when its operand fits (EvalComputation).
    std::vector<bool> view_broadcast;
    int32_t root = -1;
  };
  struct Slot {
    std::shared_ptr<const Literal> value;
    bool owned = false;        // value owns a whole literal made here
    int64_t* bytes = nullptr;  // owned: the bytes counted for it
    // A broadcast read in place: `value` is the broadcast's operand (the
    // slot shares its ownership, so the source lives as long as the view)
    // and `view` says how to read it. Never owned: never taken.
    std::shared_ptr<const BroadcastView> view;
  };
  // The instruction being dispatched, for TakeOperand.
  struct Frame {
    const Plan* plan;
    std::vector<Slot>* slots;
    int32_t index;  // -1: its operands may not be taken
    int32_t inst;   // the instruction (for OperandView)
  };
  const Plan& PlanOf(const HloComputation& comp);
  // Whether operand k of instruction i may be moved out of its slot: i is
  // its last reader and reads it once, it is not the root, and the slot
  // owns the only reference to it.
  static bool CanTake(const Plan& plan, const std::vector<Slot>& slots,
                      int32_t i, int64_t k);
  // reshape / bitcast of a value read for the last time: the operand's
  // literal given the result's shape over its own storage (no allocation,
  // no copy), or nullopt when the op has to compute a new value.
  std::optional<Literal> RelabelInPlace(const HloInstruction& inst,
                                        const Plan& plan,
                                        std::vector<Slot>& slots, int32_t i);
  Slot Own(Literal lit);
  void MaybeReportProgress();

  EvaluatorOptions options_;
  absl::Time deadline_;
  absl::Time start_;
  absl::Time last_progress_;
  int64_t max_bytes_;
  int64_t live_bytes_ = 0;
  int64_t peak_bytes_ = 0;
  // The most bytes the limit check counted (held + the next result).
  int64_t limit_bytes_ = 0;
  int64_t evaluated_ = 0;
  int64_t entry_done_ = 0;
  int64_t entry_total_ = 0;
  std::unordered_map<const HloComputation*, std::unique_ptr<Plan>> plans_;
  std::vector<Frame> frames_;
  int depth_ = 0;
  std::vector<MarkSink*> sinks_;
  std::unordered_map<const HloInstruction*, int64_t> executions_;
  DeviceChannels device_channels_;  // per run
  // Storage of freed values for later results (Own's deleter puts, the
  // New* allocators take). Declared last: destroyed first, after every
  // slot of the run is gone.
  BufferCache cache_;
};

absl::Status EvaluatorImpl::CheckElementLimit(
    const HloInstruction& inst) const {
  std::vector<const Shape*> leaves;
  CollectLeafShapes(inst.shape(), &leaves);
  for (const Shape* s : leaves) {
    if (!s->IsArray()) continue;
    int64_t n = 1;
    for (int64_t i = 0; i < s->rank(); ++i) {
      const int64_t d = s->dimensions(i);
      if (d == Shape::kUnboundedSize) {
        return absl::UnimplementedError(
            absl::StrCat("%", inst.name(),
                         ": the interpreter does not evaluate unbounded "
                         "dynamic shapes (",
                         DimsString(inst.shape()), ")"));
      }
      if (d < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("%", inst.name(), ": negative dimension in ",
                         DimsString(inst.shape())));
      }
      if (d != 0 && n > options_.max_elements_per_value / d) {
        n = options_.max_elements_per_value + 1;
        break;
      }
      n *= d;
    }
    if (n > options_.max_elements_per_value) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "%", inst.name(), ": value of shape ", DimsString(inst.shape()),
          " has more than ", options_.max_elements_per_value,
          " elements (limit EvaluatorOptions::max_elements_per_value)"));
    }
  }
  return absl::OkStatus();
}

// tuple and get-tuple-element move their operands' error data leaf by
// leaf, so a root tuple of dots reports S and m for each element;
// all-reduce-done passes on what all-reduce-start reported.
void EvaluatorImpl::ForwardErrorData(
    const HloInstruction& inst, const std::vector<const Marks*>& operand_marks,
    Marks* out) {
  const int64_t leaves = LeafCount(inst.shape());
  auto ensure = [&] {
    if (out->abs_sum.empty()) {
      out->abs_sum.resize(static_cast<size_t>(leaves));
      out->term_count.resize(static_cast<size_t>(leaves));
    }
  };
  if (inst.opcode() == HloOpcode::kAllReduceDone) {
    // The value all-reduce-start computed, leaf for leaf.
    const Marks* m = operand_marks.empty() ? nullptr : operand_marks[0];
    if (m == nullptr || !m->has_error_data() ||
        static_cast<int64_t>(m->abs_sum.size()) != leaves) {
      return;
    }
    ensure();
    out->abs_sum = m->abs_sum;
    out->term_count = m->term_count;
    return;
  }
  if (inst.opcode() == HloOpcode::kTuple) {
    int64_t offset = 0;
    for (size_t k = 0; k < operand_marks.size(); ++k) {
      const Marks* m = operand_marks[k];
      const int64_t n =
          LeafCount(inst.operand(static_cast<int64_t>(k))->shape());
      if (m != nullptr && m->has_error_data()) {
        ensure();
        for (int64_t j = 0;
             j < n && j < static_cast<int64_t>(m->abs_sum.size()); ++j) {
          out->abs_sum[offset + j] = m->abs_sum[j];
          out->term_count[offset + j] = m->term_count[j];
        }
      }
      offset += n;
    }
    return;
  }
  // get-tuple-element: the leaves of element `index`.
  const Marks* m = operand_marks.empty() ? nullptr : operand_marks[0];
  if (m == nullptr || !m->has_error_data()) return;
  const Shape& tuple = inst.operand(0)->shape();
  int64_t offset = 0;
  for (int64_t j = 0; j < inst.attrs().index; ++j) {
    offset += LeafCount(tuple.tuple_shapes(j));
  }
  ensure();
  for (int64_t j = 0; j < leaves; ++j) {
    if (offset + j < static_cast<int64_t>(m->abs_sum.size())) {
      out->abs_sum[j] = m->abs_sum[offset + j];
      out->term_count[j] = m->term_count[offset + j];
    }
  }
}

void EvaluatorImpl::PropagateMarks(
    const HloInstruction& inst, const std::vector<const Marks*>& operand_marks,
    MarkSink& sink, Marks* out) {
  out->leaves = std::move(sink.leaves);
  out->ids = std::move(sink.ids);
  out->abs_sum = std::move(sink.abs_sum);
  out->term_count = std::move(sink.term_count);
  auto mark_all = [&](const std::set<std::string>& ids) {
    for (size_t i = 0; i < out->leaves.size(); ++i) {
      out->leaves[i].assign(static_cast<size_t>(sink.leaf_sizes[i]), true);
    }
    out->ids.insert(ids.begin(), ids.end());
  };
  if (sink.callee_marked) mark_all(sink.callee_ids);

  const HloOpcode op = inst.opcode();
  for (size_t k = 0; k < operand_marks.size(); ++k) {
    const Marks* m = operand_marks[k];
    if (m == nullptr || !m->any()) continue;
    const Shape& operand_shape = inst.operand(static_cast<int64_t>(k))->shape();
    if (op == HloOpcode::kTuple) {
      // Operand k's leaves land at the leaf offset of tuple element k.
      int64_t offset = 0;
      for (size_t j = 0; j < k; ++j) {
        offset += LeafCount(inst.operand(static_cast<int64_t>(j))->shape());
      }
      for (size_t j = 0; j < m->leaves.size(); ++j) {
        if (!m->leaves[j].empty()) out->leaves[offset + j] = m->leaves[j];
      }
      out->ids.insert(m->ids.begin(), m->ids.end());
      continue;
    }
    if (op == HloOpcode::kGetTupleElement && operand_shape.IsTuple()) {
      int64_t offset = 0;
      for (int64_t j = 0; j < inst.attrs().index; ++j) {
        offset += LeafCount(operand_shape.tuple_shapes(j));
      }
      bool any = false;
      for (size_t j = 0; j < out->leaves.size(); ++j) {
        const auto& src = m->leaves[offset + j];
        if (!src.empty()) {
          out->leaves[j] = src;
          any = true;
        }
      }
      if (any) out->ids.insert(m->ids.begin(), m->ids.end());
      continue;
    }
    if (IsElementwiseFamily(op) && !inst.shape().IsTuple() &&
        !operand_shape.IsTuple() && operand_shape.IsArray() &&
        out->leaves.size() == 1 &&
        std::equal(operand_shape.dimensions().begin(),
                   operand_shape.dimensions().end(),
                   inst.shape().dimensions().begin(),
                   inst.shape().dimensions().end()) &&
        !m->leaves[0].empty()) {
      std::vector<bool>& dst = out->leaves[0];
      if (dst.empty())
        dst.assign(static_cast<size_t>(sink.leaf_sizes[0]), false);
      for (size_t i = 0; i < dst.size() && i < m->leaves[0].size(); ++i) {
        if (m->leaves[0][i]) dst[i] = true;
      }
      out->ids.insert(m->ids.begin(), m->ids.end());
      continue;
    }
    // Anything else (and scalar operands broadcast by clamp/select):
    // conservatively the whole output.
    mark_all(m->ids);
  }
}

const EvaluatorImpl::Plan& EvaluatorImpl::PlanOf(const HloComputation& comp) {
  auto it = plans_.find(&comp);
  if (it != plans_.end()) return *it->second;
  auto plan = std::make_unique<Plan>();
  const auto& insts = comp.instructions();
  const int32_t n = static_cast<int32_t>(insts.size());
  plan->index.reserve(insts.size());
  for (int32_t i = 0; i < n; ++i) plan->index.emplace(insts[i].get(), i);
  plan->operands.resize(n);
  plan->last_use.assign(n, -1);
  plan->root = -1;
  if (comp.root() != nullptr) {
    auto r = plan->index.find(comp.root());
    if (r != plan->index.end()) plan->root = r->second;
  }
  // Users of each value: whether all are get-tuple-element, and how many
  // read each tuple index.
  std::vector<bool> only_gte_users(n, true);
  std::vector<std::unordered_map<int64_t, int>> gte_reads(n);
  // Whether every reader of each value reads views.
  std::vector<bool> only_view_readers(n, true);
  for (int32_t i = 0; i < n; ++i) {
    const HloInstruction& inst = *insts[i];
    for (const HloInstruction* o : inst.operands()) {
      auto f = plan->index.find(o);
      const int32_t j = f == plan->index.end() ? -1 : f->second;
      plan->operands[i].push_back(j);
      if (j < 0) continue;
      plan->last_use[j] = std::max(plan->last_use[j], i);
      if (!ReadsViews(inst, o->shape().IsArray() ? o->shape().element_type()
                                                 : PrimitiveType::kInvalid)) {
        only_view_readers[j] = false;
      }
      if (inst.opcode() == HloOpcode::kGetTupleElement) {
        ++gte_reads[j][inst.attrs().index];
      } else {
        only_gte_users[j] = false;
      }
    }
  }
  plan->free_after.resize(n);
  plan->exclusive_gte.assign(n, false);
  plan->view_broadcast.assign(n, false);
  for (int32_t i = 0; i < n; ++i) {
    const HloInstruction& inst = *insts[i];
    plan->view_broadcast[i] =
        inst.opcode() == HloOpcode::kBroadcast && i != plan->root &&
        plan->last_use[i] >= 0 && only_view_readers[i] &&
        inst.operands().size() == 1 && plan->operands[i][0] >= 0 &&
        inst.shape().IsArray() && inst.shape().is_static();
  }
  for (int32_t i = 0; i < n; ++i) {
    if (i == plan->root) continue;
    // A value nobody reads dies at once; others after their last reader.
    const int32_t at = plan->last_use[i] < 0 ? i : plan->last_use[i];
    plan->free_after[at].push_back(i);
  }
  for (int32_t i = 0; i < n; ++i) {
    const HloInstruction& inst = *insts[i];
    if (inst.opcode() != HloOpcode::kGetTupleElement) continue;
    const int32_t j = plan->operands[i].empty() ? -1 : plan->operands[i][0];
    if (j < 0 || j == plan->root || !only_gte_users[j]) continue;
    plan->exclusive_gte[i] = gte_reads[j][inst.attrs().index] == 1;
  }
  const Plan& ref = *plan;
  plans_.emplace(&comp, std::move(plan));
  return ref;
}

namespace {

int64_t LiteralBytes(const Literal& lit) {
  if (lit.shape().IsTuple()) {
    int64_t n = 0;
    for (const Literal& e : lit.tuple_elements()) n += LiteralBytes(e);
    return n;
  }
  return static_cast<int64_t>(lit.raw().size());
}

// Bytes a value of `shape` takes (bounded dimensions at their bound).
int64_t ShapeBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t n = 0;
    for (const Shape& s : shape.tuple_shapes()) n += ShapeBytes(s);
    return n;
  }
  if (!shape.IsArray()) return 0;
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) {
    if (d <= 0) return 0;
    if (n > (int64_t{1} << 62) / d) return int64_t{1} << 62;
    n *= d;
  }
  return n * std::max(1, StorageBytes(shape.element_type()));
}

// A literal nobody owns here (an argument, a constant): a view.
std::shared_ptr<const Literal> Borrow(const Literal* lit) {
  return std::shared_ptr<const Literal>(std::shared_ptr<const Literal>(), lit);
}

}  // namespace

EvaluatorImpl::Slot EvaluatorImpl::Own(Literal lit) {
  // The byte count lives next to the literal, so that taking a tuple
  // element out (get-tuple-element) moves its bytes to the new owner.
  struct Owned {
    Literal lit;
    int64_t bytes;
  };
  const int64_t bytes = LiteralBytes(lit);
  live_bytes_ += bytes;
  peak_bytes_ = std::max(peak_bytes_, live_bytes_);
  auto* owned = new Owned{std::move(lit), bytes};
  std::shared_ptr<Owned> holder(owned, [this](Owned* p) {
    live_bytes_ -= p->bytes;
    // What is left of the value (a tuple may have given elements away:
    // they were moved out) keeps its storage for a later result.
    cache_.Put(std::move(p->lit));
    delete p;
  });
  Slot slot;
  slot.value = std::shared_ptr<const Literal>(holder, &owned->lit);
  slot.owned = true;
  slot.bytes = &owned->bytes;
  return slot;
}

bool EvaluatorImpl::CanTake(const Plan& plan, const std::vector<Slot>& slots,
                            int32_t i, int64_t k) {
  const std::vector<int32_t>& ops = plan.operands[i];
  if (k < 0 || k >= static_cast<int64_t>(ops.size())) return false;
  const int32_t j = ops[k];
  if (j < 0 || j == plan.root || plan.last_use[j] != i) return false;
  if (std::count(ops.begin(), ops.end(), j) != 1) return false;
  const Slot& slot = slots[j];
  return slot.owned && slot.value.use_count() == 1;
}

std::optional<Literal> EvaluatorImpl::TakeOperand(int64_t k) {
  if (frames_.empty()) return std::nullopt;
  Frame& f = frames_.back();
  if (f.index < 0 || !CanTake(*f.plan, *f.slots, f.index, k)) {
    return std::nullopt;
  }
  Slot& slot = (*f.slots)[f.plan->operands[f.index][k]];
  Literal out = std::move(const_cast<Literal&>(*slot.value));
  slot = Slot();
  return out;
}

std::optional<Literal> EvaluatorImpl::TakeOperandToOverwrite(int64_t k) {
  if (frames_.empty()) return std::nullopt;
  const Frame& f = frames_.back();
  if (f.index < 0) return std::nullopt;
  const std::vector<int32_t>& ops = f.plan->operands[f.index];
  // Not adopted storage (a mapped argument): written over, each page would
  // be copied on its first write, no cheaper than new or cached storage.
  if (k >= 0 && k < static_cast<int64_t>(ops.size()) && ops[k] >= 0) {
    const Slot& slot = (*f.slots)[ops[k]];
    if (slot.value != nullptr && slot.value->storage_adopted()) {
      return std::nullopt;
    }
  }
  return TakeOperand(k);
}

const BroadcastView* EvaluatorImpl::OperandView(int64_t k) const {
  if (frames_.empty()) return nullptr;
  const Frame& f = frames_.back();
  const std::vector<int32_t>& ops = f.plan->operands[f.inst];
  if (k < 0 || k >= static_cast<int64_t>(ops.size()) || ops[k] < 0) {
    return nullptr;
  }
  return (*f.slots)[ops[k]].view.get();
}

namespace {

// Whether an array's physical order (its layout's minor-to-major order)
// is its row-major order: the dimensions longer than 1, read from minor to
// major, are in decreasing order. Tiled layouts and explicit element sizes
// are not.
bool PhysicalOrderIsRowMajor(const Shape& shape) {
  const Layout layout = shape.LayoutOrDefault();
  if (!layout.tiles.empty() || layout.element_size_in_bits != 0 ||
      static_cast<int64_t>(layout.minor_to_major.size()) != shape.rank()) {
    return false;
  }
  std::vector<bool> seen(static_cast<size_t>(shape.rank()), false);
  int64_t previous = shape.rank();
  for (int64_t d : layout.minor_to_major) {
    if (d < 0 || d >= shape.rank() || seen[d]) return false;
    seen[d] = true;
    if (shape.dimensions(d) == 1) continue;
    if (d > previous) return false;
    previous = d;
  }
  return true;
}

}  // namespace

std::optional<Literal> EvaluatorImpl::RelabelInPlace(const HloInstruction& inst,
                                                     const Plan& plan,
                                                     std::vector<Slot>& slots,
                                                     int32_t i) {
  const HloOpcode op = inst.opcode();
  if ((op != HloOpcode::kReshape && op != HloOpcode::kBitcast) ||
      inst.operands().size() != 1 || !CanTake(plan, slots, i, 0)) {
    return std::nullopt;
  }
  Slot& slot = slots[plan.operands[i][0]];
  const Literal& operand = *slot.value;
  const Shape& shape = inst.shape();
  if (!operand.shape().IsArray() || !shape.IsArray()) return std::nullopt;
  if (op == HloOpcode::kReshape) {
    // A row-major reshape keeps the row-major element sequence.
    if (operand.element_type() != shape.element_type()) return std::nullopt;
  } else {
    // bitcast reinterprets the physical buffer: the same bytes in the same
    // order when both sides are laid out row-major (the ops path, which
    // also marks impl.bitcast.1, evaluates everything else).
    if (!operand.shape().is_static() || !shape.is_static() ||
        !PhysicalOrderIsRowMajor(inst.operand(0)->shape()) ||
        !PhysicalOrderIsRowMajor(shape)) {
      return std::nullopt;
    }
  }
  if (!operand.CheckReinterpretAs(shape).ok()) return std::nullopt;
  Literal out = std::move(const_cast<Literal&>(operand));
  slot = Slot();
  HLOREF_CHECK(out.ReinterpretAs(shape).ok());
  return out;
}

void EvaluatorImpl::MaybeReportProgress() {
  if (!options_.progress || participant_index_ != 0) return;
  const absl::Time now = absl::Now();
  if (now - start_ < options_.progress_interval ||
      now - last_progress_ < options_.progress_interval) {
    return;
  }
  last_progress_ = now;
  EvaluatorOptions::Progress p;
  p.entry_done = entry_done_;
  p.entry_total = entry_total_;
  p.evaluated = evaluated_;
  p.elapsed = now - start_;
  p.live_bytes = live_bytes_;
  p.peak_bytes = peak_bytes_;
  p.limit_bytes = limit_bytes_;
  options_.progress(p);
}

absl::StatusOr<std::pair<Literal, Marks>> EvaluatorImpl::EvalComputation(
    const HloComputation& comp, absl::Span<const Literal* const> args,
    const HloInstruction* caller, std::vector<Literal>* owned_args) {
  if (depth_ >= options_.max_call_depth) {
    return absl::ResourceExhaustedError(absl::StrCat(
        caller ? absl::StrCat("%", caller->name(), ": ") : "",
        "calling computation ", comp.name(),
        " exceeds the call depth limit of ", options_.max_call_depth,
        " (limit EvaluatorOptions::max_call_depth)"));
  }
  if (const int64_t left = StackBytesLeft(); left < kStackReserveBytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        caller ? absl::StrCat("%", caller->name(), ": ") : "",
        "calling computation ", comp.name(), " at call depth ", depth_,
        ": the evaluator's stack is nearly exhausted (", left / 1024,
        " KiB left; nested computations are evaluated recursively): give "
        "the process a larger stack (ulimit -s) or lower "
        "EvaluatorOptions::max_call_depth"));
  }
  const size_t arg_count = owned_args ? owned_args->size() : args.size();
  if (static_cast<int64_t>(arg_count) != comp.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computation ", comp.name(), " takes ", comp.num_parameters(),
        " parameters, called with ", arg_count));
  }
  if (comp.root() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("computation ", comp.name(), " has no root"));
  }
  ++depth_;
  struct DepthGuard {
    int* d;
    ~DepthGuard() { --*d; }
  } guard{&depth_};

  const Plan& plan = PlanOf(comp);
  // One slot per instruction, in schedule order: the value (owned, or a
  // view of an argument, a constant or a tuple element), released after
  // its last reader.
  std::vector<Slot> slots(comp.instructions().size());
  std::unordered_map<const HloInstruction*, Marks> marks;
  // depth_ is 1 while the entry computation itself runs.
  const bool entry = depth_ == 1 && comp.parent() != nullptr &&
                     comp.parent()->entry() == &comp;
  const bool observe = entry && options_.entry_value_observer;
  if (entry) entry_total_ = static_cast<int64_t>(slots.size());
  auto release = [&](int32_t i) {
    for (int32_t j : plan.free_after[i]) {
      slots[j] = Slot();
      if (!marks.empty()) marks.erase(comp.instructions()[j].get());
    }
  };

  const auto& insts = comp.instructions();
  for (int32_t i = 0; i < static_cast<int32_t>(insts.size()); ++i) {
    const HloInstruction& inst = *insts[i];
    ++evaluated_;
    HLOREF_RETURN_IF_ERROR(CheckDeadline(inst));
    HLOREF_RETURN_IF_ERROR(CheckElementLimit(inst));

    if (inst.opcode() == HloOpcode::kParameter) {
      const int64_t n = inst.parameter_number();
      if (n < 0 || n >= static_cast<int64_t>(arg_count) ||
          (owned_args == nullptr && args[n] == nullptr)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", inst.name(), ": parameter number ", n, " has no argument"));
      }
      if (owned_args != nullptr) {
        // Each parameter number appears once (verified modules).
        slots[i] = Own(std::move((*owned_args)[n]));
      } else {
        slots[i].value = Borrow(args[n]);
      }
      if (observe) {
        options_.entry_value_observer(Participant(), inst, *slots[i].value);
      }
      if (entry) ++entry_done_;
      release(i);
      continue;
    }
    if (inst.opcode() == HloOpcode::kConstant) {
      if (inst.literal().is_elided()) {
        return absl::InvalidArgumentError(
            absl::StrCat("constant %", inst.name(),
                         " was elided in the dump; re-dump with "
                         "--xla_dump_large_constants"));
      }
      slots[i].value = Borrow(&inst.literal());
      if (observe) {
        options_.entry_value_observer(Participant(), inst, inst.literal());
      }
      if (entry) ++entry_done_;
      release(i);
      continue;
    }

    std::vector<const Literal*> operands;
    std::vector<const Marks*> operand_marks;
    operands.reserve(inst.operands().size());
    for (size_t k = 0; k < inst.operands().size(); ++k) {
      const int32_t j = plan.operands[i][k];
      if (j < 0 || j >= i || slots[j].value == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", inst.name(), ": operand %", inst.operands()[k]->name(),
            " is not evaluated before its use (not in this computation or "
            "out of order)"));
      }
      operands.push_back(slots[j].value.get());
      if (marks.empty()) {
        operand_marks.push_back(nullptr);
      } else {
        auto mit = marks.find(inst.operands()[k]);
        operand_marks.push_back(mit == marks.end() ? nullptr : &mit->second);
      }
    }

    // A broadcast every reader reads in place (Plan::view_broadcast): its
    // slot shares the operand's value (no copy, no bytes; the operand
    // lives while the view does) with the strides to read it by. Not for
    // an operand with marks (the broadcast's marks would be all of its
    // result) or an observed run (the observer sees every value).
    if (plan.view_broadcast[i] && options_.broadcast_views && !observe &&
        operands.size() == 1 &&
        (operand_marks.empty() || operand_marks[0] == nullptr)) {
      const Slot& src = slots[plan.operands[i][0]];
      std::optional<BroadcastView> view =
          src.view == nullptr ? BroadcastView::Make(*operands[0], inst.shape(),
                                                    inst.attrs().dimensions)
                              : std::nullopt;
      if (view.has_value()) {
        slots[i].value = src.value;
        slots[i].view = std::make_shared<const BroadcastView>(*std::move(view));
        if (entry) ++entry_done_;
        release(i);
        MaybeReportProgress();
        continue;
      }
    }

    // get-tuple-element is a view of the element (no copy), or takes the
    // element out of a tuple only this instruction reads it from.
    if (inst.opcode() == HloOpcode::kGetTupleElement && operands.size() == 1 &&
        operands[0]->shape().IsTuple() && inst.attrs().index >= 0 &&
        inst.attrs().index < operands[0]->tuple_size() &&
        inst.shape().is_static() &&
        SameValueShape(operands[0]->tuple_element(inst.attrs().index).shape(),
                       inst.shape())) {
      const int32_t j = plan.operands[i][0];
      Slot& src = slots[j];
      const int64_t index = inst.attrs().index;
      if (plan.exclusive_gte[i] && src.owned && src.value.use_count() == 1) {
        Literal& tuple = const_cast<Literal&>(*src.value);
        Literal element = std::move(tuple.mutable_tuple_element(index));
        const int64_t moved = LiteralBytes(element);
        *src.bytes -= moved;
        live_bytes_ -= moved;
        slots[i] = Own(std::move(element));
      } else {
        slots[i].value = std::shared_ptr<const Literal>(
            src.value, &src.value->tuple_element(index));
      }
      if (!operand_marks.empty() && operand_marks[0] != nullptr) {
        MarkSink sink;
        sink.inst = &inst;
        std::vector<const Shape*> leaf_shapes;
        CollectLeafShapes(inst.shape(), &leaf_shapes);
        for (const Shape* s : leaf_shapes) {
          sink.leaf_sizes.push_back(ElementsOf(*s));
        }
        sink.leaves.resize(leaf_shapes.size());
        Marks out;
        PropagateMarks(inst, operand_marks, sink, &out);
        ForwardErrorData(inst, operand_marks, &out);
        if (out.any() || out.has_error_data()) {
          marks.emplace(&inst, std::move(out));
        }
      }
      if (observe) {
        options_.entry_value_observer(Participant(), inst, *slots[i].value);
      }
      if (entry) ++entry_done_;
      release(i);
      MaybeReportProgress();
      continue;
    }

    // Element-wise ops give runtime sizes of dynamic operands to their
    // result (PropagateElementwiseSizes reads the operands after the op
    // ran): only those with static operands may give an operand away (an
    // element-wise result written over an operand read for the last
    // time). Read here, before RelabelInPlace may free operands[0].
    const bool elementwise = IsElementwiseForSizes(inst.opcode());
    bool dynamic_operand = false;
    for (const Literal* o : operands) {
      dynamic_operand |= o->shape().IsArray() && !o->shape().is_static();
    }
    // reshape / bitcast of a value read for the last time keep its storage
    // (operands[0] must not be read after this).
    std::optional<Literal> relabelled = RelabelInPlace(inst, plan, slots, i);
    // The result's bytes, before anything is allocated.
    const int64_t need = relabelled.has_value() ? 0 : ShapeBytes(inst.shape());
    // The cached storage counts against the limit with the values: it is
    // given up first.
    if (cache_.bytes() > 0 &&
        need + cache_.bytes() > max_bytes_ - live_bytes_) {
      cache_.TrimTo(std::max<int64_t>(0, max_bytes_ - live_bytes_ - need));
    }
    limit_bytes_ = std::max(limit_bytes_, live_bytes_ + need);
    if (need > max_bytes_ - live_bytes_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "%", inst.name(), ": its result (", inst.shape().ToString(false),
          ") needs ", need, " bytes with ", live_bytes_,
          " bytes of values held, more than the limit of ", max_bytes_,
          " bytes (limit EvaluatorOptions::max_bytes)"));
    }

    MarkSink sink;
    sink.inst = &inst;
    {
      std::vector<const Shape*> leaf_shapes;
      CollectLeafShapes(inst.shape(), &leaf_shapes);
      for (const Shape* s : leaf_shapes) {
        sink.leaf_sizes.push_back(ElementsOf(*s));
      }
      sink.leaves.resize(leaf_shapes.size());
    }
    absl::StatusOr<Literal> result = absl::InternalError("not evaluated");
    sinks_.push_back(&sink);
    if (relabelled.has_value()) {
      result = *std::move(relabelled);
    } else {
      // Bounded dynamic dimensions (interpreter/dynamic_sizes.h): ops that
      // do not honour runtime sizes refuse padded operands; element-wise
      // results take their operands' runtime sizes.
      absl::Status padded = CheckPaddedOperands(inst, operands);
      if (!padded.ok()) {
        sinks_.pop_back();
        return padded;
      }
      const bool may_take = !elementwise || !dynamic_operand;
      frames_.push_back(Frame{&plan, &slots, may_take ? i : -1, i});
      result = DispatchOp(inst, operands, *this);
      frames_.pop_back();
    }
    if (result.ok()) AdoptDynamicDimensions(inst.shape(), *result);
    if (result.ok() && elementwise && dynamic_operand) {
      absl::Status sized =
          PropagateElementwiseSizes(inst, operands, *result, *this);
      if (!sized.ok()) result = sized;
    }
    sinks_.pop_back();
    if (!result.ok()) return result.status();
    if (!sink.internal_error.empty()) {
      return absl::InternalError(
          absl::StrCat("%", inst.name(), ": ", sink.internal_error));
    }
    if (!SameValueShape(result->shape(), inst.shape())) {
      return absl::InternalError(absl::StrCat(
          "%", inst.name(), ": the ", HloOpcodeString(inst.opcode()),
          " evaluator produced ", result->shape().ToString(false),
          ", the instruction's shape is ", inst.shape().ToString(false)));
    }
    Marks out;
    PropagateMarks(inst, operand_marks, sink, &out);
    if (inst.opcode() == HloOpcode::kTuple ||
        inst.opcode() == HloOpcode::kGetTupleElement ||
        inst.opcode() == HloOpcode::kAllReduceDone) {
      ForwardErrorData(inst, operand_marks, &out);
    }
    if (out.any() || out.has_error_data()) marks.emplace(&inst, std::move(out));
    if (observe) options_.entry_value_observer(Participant(), inst, *result);
    slots[i] = Own(*std::move(result));
    if (entry) ++entry_done_;
    release(i);
    MaybeReportProgress();
  }

  if (plan.root < 0 || slots[plan.root].value == nullptr) {
    return absl::InternalError(
        absl::StrCat("root of ", comp.name(), " was not evaluated"));
  }
  Slot& root = slots[plan.root];
  Literal root_value = root.owned && root.value.use_count() == 1
                           ? std::move(const_cast<Literal&>(*root.value))
                           : Literal(*root.value);
  Marks root_marks;
  auto mit = marks.find(comp.root());
  if (mit != marks.end()) root_marks = std::move(mit->second);
  return std::make_pair(std::move(root_value), std::move(root_marks));
}

// A parameter with dynamic dimensions takes a literal of its shape (with
// runtime sizes) or of a static shape within its bounds, converted into
// `*converted` (Literal::ToBoundedDynamic; interpreter/dynamic_sizes.h).
absl::Status CheckArgument(const HloInstruction& param, const Literal& arg,
                           std::optional<Literal>* converted) {
  if (!param.shape().is_static()) {
    absl::StatusOr<Literal> bounded =
        Literal::ToBoundedDynamic(arg, param.shape());
    if (!bounded.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument for parameter ", param.parameter_number(), " (%",
          param.name(), ") has shape ", arg.shape().ToString(false),
          ", the parameter is ", param.shape().ToString(false), ": ",
          bounded.status().message()));
    }
    *converted = *std::move(bounded);
    return absl::OkStatus();
  }
  if (!SameValueShape(param.shape(), arg.shape())) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument for parameter ", param.parameter_number(), " (%",
                     param.name(), ") has shape ", arg.shape().ToString(false),
                     ", the parameter is ", param.shape().ToString(false)));
  }
  return absl::OkStatus();
}

}  // namespace

int64_t DefaultMaxBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:" && kib > 0) return kib * 1024;
  }
  return int64_t{16} << 30;
}

Evaluator::Evaluator(EvaluatorOptions options)
    : options_(options),
      rng_state_(std::make_shared<RngState>(options_.rng_seed)) {}
Evaluator::~Evaluator() = default;

absl::StatusOr<EvalResult> Evaluator::Run(const HloModule& module,
                                          absl::Span<const Literal> args) {
  const int64_t replicas = ReplicaCount(module);
  const int64_t partitions = PartitionCount(module);
  if (replicas != 1 || partitions != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("module ", module.name(), " runs on ", replicas,
                     " replica(s) x ", partitions,
                     " partition(s); use Evaluator::RunReplicated (hloref run "
                     "--replicas=N) to get one result per participant"));
  }
  return RunParticipant(module, args, nullptr, 0, 0);
}

int64_t Evaluator::ReplicaCount(const HloModule& module) const {
  return options_.replica_count > 0 ? options_.replica_count
                                    : module.config().replica_count;
}
int64_t Evaluator::PartitionCount(const HloModule& module) const {
  return options_.partition_count > 0 ? options_.partition_count
                                      : module.config().num_partitions;
}

absl::StatusOr<std::vector<EvalResult>> Evaluator::RunReplicated(
    const HloModule& module, absl::Span<const std::vector<Literal>> args) {
  const int64_t replicas = ReplicaCount(module);
  const int64_t partitions = PartitionCount(module);
  HLOREF_RETURN_IF_ERROR(
      CheckParticipants(replicas, partitions, args.size()).status());
  Rendezvous rendezvous(replicas, partitions, options_.collective_timeout);
  return RunParticipantThreads<EvalResult>(rendezvous, [&](int64_t id) {
    const auto& my_args = args.size() == 1 ? args[0] : args[id];
    return RunParticipant(module, my_args, &rendezvous, id / partitions,
                          id % partitions);
  });
}

absl::StatusOr<EvalResult> Evaluator::RunConsuming(const HloModule& module,
                                                   std::vector<Literal> args) {
  const int64_t replicas = ReplicaCount(module);
  const int64_t partitions = PartitionCount(module);
  if (replicas != 1 || partitions != 1) {
    return Run(module, args);  // the same refusal
  }
  return RunParticipant(module, args, nullptr, 0, 0, &args);
}

absl::StatusOr<EvalResult> Evaluator::RunParticipant(
    const HloModule& module, absl::Span<const Literal> args,
    Rendezvous* rendezvous, int64_t replica, int64_t partition,
    std::vector<Literal>* owned) {
  const HloComputation* entry = module.entry();
  if (entry == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module ", module.name(), " has no entry computation"));
  }
  if (static_cast<int64_t>(args.size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(
        absl::StrCat("entry computation ", entry->name(), " takes ",
                     entry->num_parameters(), " arguments, got ", args.size()));
  }
  std::vector<const Literal*> arg_ptrs;
  std::vector<std::optional<Literal>> converted(args.size());
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction* param = entry->parameter(i);
    if (param == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "entry computation ", entry->name(), " has no parameter ", i));
    }
    HLOREF_RETURN_IF_ERROR(CheckArgument(*param, args[i], &converted[i]));
    arg_ptrs.push_back(converted[i].has_value() ? &*converted[i] : &args[i]);
  }

  EvaluatorImpl impl(options_);
  impl.rendezvous_ = rendezvous;
  impl.replica_id_ = replica;
  impl.partition_id_ = partition;
  impl.partition_count_ = PartitionCount(module);
  impl.rng_state_ = rng_state_.get();
  // In a replicated run every participant draws from its own state (the
  // shared one's value, offset by the participant in the high 64 bits), so
  // results do not depend on thread timing; the shared state is not
  // advanced by replicated runs.
  std::optional<RngState> participant_rng;
  if (rendezvous != nullptr) {
    participant_rng.emplace(rng_state_->seed());
    participant_rng->set_value(
        rng_state_->value() +
        absl::MakeUint128((static_cast<uint64_t>(replica) << 32) |
                              static_cast<uint64_t>(partition),
                          0));
    impl.rng_state_ = &*participant_rng;
  }
  impl.participant_index_ = replica * PartitionCount(module) + partition;
  std::vector<Literal> owned_args;
  if (owned != nullptr) {
    // The checked arguments (converted where they had to be) moved in; the
    // caller's vector is left moved-from.
    for (size_t i = 0; i < arg_ptrs.size(); ++i) {
      owned_args.push_back(converted[i].has_value() ? *std::move(converted[i])
                                                    : std::move((*owned)[i]));
    }
  }
  HLOREF_ASSIGN_OR_RETURN(
      auto root,
      impl.EvalComputation(*entry, arg_ptrs, nullptr,
                           owned != nullptr ? &owned_args : nullptr));
  EvalResult result;
  result.value = std::move(root.first);
  result.peak_bytes = impl.peak_bytes();
  result.limit_bytes = impl.limit_bytes();
  result.instructions_evaluated = impl.evaluated();
  result.reused_buffers = impl.cache_hits();
  const Marks& marks = root.second;

  std::vector<const Literal*> leaves;
  CollectLeafLiterals(result.value, &leaves);
  for (size_t i = 0; i < leaves.size(); ++i) {
    EvaluatedOutput out;
    // A consuming run holds the leaves once, in result.value; with
    // outputs_take_the_result the outputs take them below.
    if (owned == nullptr && !options_.outputs_take_the_result) {
      out.value = *leaves[i];
    }
    // Padding beyond runtime sizes is don't-care (impl.dynamic.1), added
    // here only: it is not part of the value, so it never propagates.
    std::vector<bool> padding = PaddingFlags(*leaves[i]);
    std::vector<bool> merged;
    if (i < marks.leaves.size()) merged = marks.leaves[i];
    std::set<std::string> ids = marks.ids;
    if (!padding.empty()) {
      if (merged.empty()) merged.assign(padding.size(), false);
      for (size_t j = 0; j < merged.size() && j < padding.size(); ++j) {
        if (padding[j]) merged[j] = true;
      }
      ids.insert(std::string(kPaddingImplId));
    }
    if (!merged.empty() && leaves[i]->shape().IsArray()) {
      const std::vector<bool>& m = merged;
      if (std::find(m.begin(), m.end(), true) != m.end()) {
        Shape mask_shape = leaves[i]->shape();
        mask_shape.set_element_type(PrimitiveType::kPred);
        Literal mask(mask_shape);
        auto data = mask.mutable_data<bool>();
        for (size_t j = 0; j < data.size() && j < m.size(); ++j) data[j] = m[j];
        out.dont_care = std::move(mask);
        out.impl_ids.assign(ids.begin(), ids.end());
      }
    }
    if (i < marks.abs_sum.size() && !marks.abs_sum[i].empty() &&
        leaves[i]->shape().IsArray()) {
      Shape f64_shape = leaves[i]->shape();
      f64_shape.set_element_type(PrimitiveType::kF64);
      Shape s64_shape = leaves[i]->shape();
      s64_shape.set_element_type(PrimitiveType::kS64);
      Literal abs_sum(f64_shape);
      Literal term_count(s64_shape);
      std::copy(marks.abs_sum[i].begin(), marks.abs_sum[i].end(),
                abs_sum.mutable_data<double>().begin());
      std::copy(marks.term_count[i].begin(), marks.term_count[i].end(),
                term_count.mutable_data<int64_t>().begin());
      out.abs_sum = std::move(abs_sum);
      out.term_count = std::move(term_count);
    }
    result.outputs.push_back(std::move(out));
  }
  if (owned == nullptr && options_.outputs_take_the_result) {
    std::vector<Literal*> mutable_leaves;
    CollectMutableLeafLiterals(result.value, &mutable_leaves);
    for (size_t i = 0; i < mutable_leaves.size(); ++i) {
      result.outputs[i].value = std::move(*mutable_leaves[i]);
    }
  }
  return result;
}

absl::StatusOr<Literal> Evaluator::Evaluate(const HloModule& module,
                                            absl::Span<const Literal> args) {
  HLOREF_ASSIGN_OR_RETURN(EvalResult r, Run(module, args));
  return std::move(r.value);
}

}  // namespace hloref
