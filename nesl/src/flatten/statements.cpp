#include "flatten/flattener.hpp"

#include <algorithm>

#include "flatten/constants.hpp"

namespace nesl::flattening {

Leaves Flattener::op(Op opcode, Leaf leaf, const Leaves& inputs) {
  const bool takes_type = vcode::info(opcode).syntax == vcode::Syntax::Type;
  return typed_op(opcode, takes_type ? std::optional(flat::keyword_of(leaf)) : std::nullopt, inputs);
}

Leaves Flattener::typed_op(Op opcode, std::optional<vcode::TypeKeyword> type, const Leaves& inputs) {
  flat::Statement s;
  s.kind = flat::Statement::Kind::Op;
  s.op = opcode;
  s.type = type;
  s.inputs = inputs;
  for (Leaf leaf : flat::result_leaves(opcode, type)) s.outputs.push_back(fresh(leaf));
  if (opcode == Op::Dist && known_nonzero(inputs[0])) nonzero_.insert(s.outputs[0]);
  return emit(std::move(s)).outputs;
}

Value Flattener::constant(vcode::Constant value) {
  flat::Statement s;
  s.kind = flat::Statement::Kind::Const;
  s.outputs = {fresh(flat::leaf_of(value.type))};
  const bool nonzero = !value.vector_form && !value.stream_name &&
                       ((value.ints.size() == 1 && value.ints[0] != 0) || (value.floats.size() == 1 && value.floats[0] != 0));
  s.constant = std::move(value);
  const Value result = emit(std::move(s)).outputs[0];
  if (nonzero) nonzero_.insert(result);
  return result;
}

Value Flattener::int_constant(long value) { return constant(scalar(Leaf::Int, static_cast<double>(value))); }

Value Flattener::flat_of(Value context) const {
  const auto found = segmented_.find(context);
  return found == segmented_.end() ? context : found->second.flat;
}

void Flattener::segmented_context(Value context, Value units) {
  segmented_[context] = {units, total_context(context, units), {}};
}

// Through the units, one segment each: no total is counted, so a context past 2^31 - 1 instances
// gets its copies (and checks) without a vector that holds them.
Value Flattener::spread(Leaf leaf, Value value, Value context) {
  const auto found = segmented_.find(context);
  if (found == segmented_.end()) return op1(Op::Dist, leaf, {value, context});
  const Value per_unit = op1(Op::Dist, leaf, {value, found->second.units});
  const Value result = op1(Op::Dist, leaf, {per_unit, context});
  found->second.through_units.push_back({per_unit, result, value});
  return result;
}

namespace {

// Each statement whose one output `second` names reads its source over `flat` instead; those
// that made the first steps, which nothing else reads, go.
void rewrite(flat::Block& block, std::size_t from, const std::map<Value, Value>& second,
             const std::set<Value>& first, Value flat) {
  std::size_t kept = from;
  for (std::size_t i = from; i < block.size(); ++i) {
    flat::Statement& s = block[i];
    rewrite(s.then_block, 0, second, first, flat);
    rewrite(s.else_block, 0, second, first, flat);
    if (s.kind == flat::Statement::Kind::Op && s.outputs.size() == 1) {
      if (first.count(s.outputs[0])) continue;
      const auto found = second.find(s.outputs[0]);
      if (found != second.end()) s.inputs = {found->second, flat};
    }
    if (kept != i) block[kept] = std::move(s);
    ++kept;
  }
  block.resize(kept);
}

}  // namespace

bool Flattener::settle(Value context, flat::Block& block, std::size_t from, const Leaves& results) {
  const auto found = segmented_.find(context);
  if (found == segmented_.end()) return false;
  const SegmentedContext& c = found->second;
  std::vector<bool> read(current_->leaves.size(), false);
  add_reads(block, from, read);
  const bool flat_read = read[c.flat] || std::find(results.begin(), results.end(), c.flat) != results.end();
  if (!flat_read || c.through_units.empty()) return flat_read;
  std::map<Value, Value> second;
  std::set<Value> first;
  for (const SegmentedContext::TwoSteps& steps : c.through_units) {
    second[steps.second] = steps.source;
    first.insert(steps.first);
  }
  rewrite(block, from, second, first, c.flat);
  return true;
}

Value Flattener::everywhere(vcode::Constant value) {
  const Leaf leaf = flat::leaf_of(value.type);
  Value scalar = constant(std::move(value));
  if (context_ < 0) return scalar;
  return spread(leaf, scalar, context_);
}

Value Flattener::distribute(vcode::Constant value, Value over) {
  const Leaf leaf = flat::leaf_of(value.type);
  return op1(Op::Dist, leaf, {constant(std::move(value)), over});
}

Value Flattener::total_context(Value segdes, Value over) {
  Value total = op1(Op::PlusReduce, Leaf::Int, {lengths(segdes), over});
  return make_segdes(total);
}

void Flattener::check(Value flags, const std::string& message) {
  if (context_ < 0) return raise_if(flags, message);
  any_in(flags, context_, message);
}

void Flattener::any_in(Value flags, Value over, const std::string& message) {
  Value any = op1(Op::OrReduce, Leaf::Bool, {flags, over});
  const auto found = segmented_.find(over);
  if (found != segmented_.end()) {
    const Value per_instance = any;
    any = op1(Op::OrReduce, Leaf::Bool, {per_instance, found->second.units});
    found->second.through_units.push_back({per_instance, any, flags});
  }
  raise_if(any, message);
}

void Flattener::raise_if(Value any, const std::string& message) {
  flat::Statement s;
  s.kind = flat::Statement::Kind::If;
  s.inputs = {any};
  flat::Statement call;
  call.kind = flat::Statement::Kind::Call;
  call.callee = error_function(message);
  call.where = where_;  // the call a runtime error is reported at: the check's own place
  s.then_block.push_back(std::move(call));
  emit(std::move(s));
}

std::string Flattener::error_function(const std::string& message) {
  auto found = error_functions_.find(message);
  if (found != error_functions_.end()) return found->second.name;
  flat::Function function;
  function.name = "RUNTIME_ERROR_" + std::to_string(error_functions_.size() + 1);
  flat::Function* saved_function = current_;
  flat::Block* saved_block = block_;
  std::set<Value> saved_nonzero;
  saved_nonzero.swap(nonzero_);
  const Location saved_where = where_;
  current_ = &function;
  block_ = &function.body;
  where_ = {};  // shared by every check with this message: each call says where it was
  const std::string opening = options_.blank_line_before_errors ? "\n" : "";
  Value text = constant(characters(opening + "RUNTIME ERROR: " + message + "\n"));
  op(Op::Write, vcode::TypeKeyword::Char, {text});
  op(Op::Exit, {});
  current_ = saved_function;
  block_ = saved_block;
  nonzero_.swap(saved_nonzero);
  where_ = saved_where;
  std::string name = function.name;
  error_functions_.emplace(message, std::move(function));
  return name;
}

}  // namespace nesl::flattening
