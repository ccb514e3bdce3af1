#include "flatten/flattener.hpp"

#include <algorithm>

#include "flatten/constants.hpp"
#include "flatten/free_variables.hpp"

namespace nesl::flattening {

Leaves Flattener::serial_if(const core::Expr& e) {
  Value condition = expr(*e.children[0])[0];
  flat::Statement s;
  s.kind = flat::Statement::Kind::If;
  s.inputs = {condition};
  flat::Block* saved = block_;
  std::size_t mark = env_.size();
  block_ = &s.then_block;
  s.then_results = expr(*e.children[1]);
  env_.resize(mark);
  block_ = &s.else_block;
  s.else_results = expr(*e.children[2]);
  env_.resize(mark);
  block_ = saved;
  for (Leaf leaf : leaves_of(e.type)) s.outputs.push_back(fresh(leaf));
  return emit(std::move(s)).outputs;
}

Leaves Flattener::lifted_if(const core::Expr& e) {
  Value flags = expr(*e.children[0])[0];
  const core::Expr& then_branch = *e.children[1];
  const core::Expr& else_branch = *e.children[2];
  std::vector<Leaf> kinds = leaves_of(e.type);
  bool scalar_leaves = std::find(kinds.begin(), kinds.end(), Leaf::Segdes) == kinds.end();
  if (scalar_leaves && is_simple(then_branch) && is_simple(else_branch)) {
    Leaves a = expr(then_branch);
    Leaves b = expr(else_branch);
    Leaves result;
    for (std::size_t i = 0; i < a.size(); ++i) {
      result.push_back(op1(Op::Select, kinds[i], {flags, a[i], b[i]}));
    }
    return result;
  }
  Value count = lengths(context());
  Value none = op1(Op::Equal, Leaf::Int, {count, int_constant(0)});
  return choose(
      none, e.type, [&] { return empty_lifted(e.type); },
      [&] {
        Value trues = op1(Op::PlusReduce, Leaf::Int, {op1(Op::BoolToInt, {flags}), context()});
        Value all_true = op1(Op::Equal, Leaf::Int, {trues, count});
        return choose(
            all_true, e.type, [&] { return branch_everywhere(then_branch); },
            [&] {
              Value all_false = op1(Op::Equal, Leaf::Int, {trues, int_constant(0)});
              return choose(
                  all_false, e.type, [&] { return branch_everywhere(else_branch); },
                  [&] { return mixed_if(e, flags, trues, count); });
            });
      });
}

Leaves Flattener::branch_everywhere(const core::Expr& branch) {
  std::size_t mark = env_.size();
  Leaves result = expr(branch);
  env_.resize(mark);
  return result;
}

// Both arms, each on the instances that take it, then before else, merged by position.
Leaves Flattener::mixed_if(const core::Expr& e, Value flags, Value trues, Value count) {
  std::vector<Leaf> kinds = leaves_of(e.type);
  if (std::find(kinds.begin(), kinds.end(), Leaf::Segdes) == kinds.end()) {
    if (is_simple(*e.children[2])) return updated_if(*e.children[1], *e.children[2], flags);
    if (is_simple(*e.children[1])) {
      return updated_if(*e.children[2], *e.children[1], op1(Op::Not, Leaf::Bool, {flags}));
    }
  }
  Value outer = context();
  Value not_flags = op1(Op::Not, Leaf::Bool, {flags});
  Value falses = op1(Op::Sub, Leaf::Int, {count, trues});
  Value positions = op1(Op::Index, {int_constant(0), int_constant(1), outer});
  std::vector<Part> parts;
  for (auto [branch, branch_flags, branch_count] :
       {std::tuple{e.children[1].get(), flags, trues}, std::tuple{e.children[2].get(), not_flags, falses}}) {
    Value branch_context = make_segdes(branch_count);
    Value branch_positions = op(Op::Pack, Leaf::Int, {positions, branch_flags, outer})[0];
    parts.push_back({on_flagged(*branch, branch_flags, branch_context), branch_positions, branch_context});
  }
  return merge(e.type, parts, outer);
}

Value Flattener::kept_groups(Value groups, Value flags) {
  return make_segdes(op1(Op::PlusReduce, Leaf::Int, {op1(Op::BoolToInt, {flags}), groups}));
}

Leaves Flattener::on_flagged(const core::Expr& e, Value flags, Value flagged) {
  const Value saved_context = context_;
  const Value outer = context();
  auto saved_env = env_;
  std::vector<Variable> packed;
  for (const std::string& name : free_variables(e)) {
    Variable v = find(name);
    if (!v.shared) {
      v.leaves = pack_value(v.type, v.leaves, flags, outer);
    } else if (v.groups >= 0) {  // still shared: each group keeps its flagged instances
      v.groups = kept_groups(v.groups, flags);
    }
    packed.push_back(std::move(v));
  }
  env_ = packed;
  context_ = flagged;
  // It runs on a subset of the instances, so nothing in it is copied to all of them.
  hoist_.push_back(nullptr);
  Leaves result = expr(e);
  hoist_.pop_back();
  context_ = saved_context;
  env_ = saved_env;
  return result;
}

// A hoisted expression that can stop the program, lifted: computed for the instances that have
// elements in `segdes` only (at least one has: the caller's guard), the zero value elsewhere.
Leaves Flattener::where_elements(const core::Expr& e, Value segdes) {
  const Value saved_context = context_;
  const Value outer = context();
  const Value flags = op1(Op::NotEqual, Leaf::Int, {lengths(segdes), everywhere(zero_of(Leaf::Int))});
  const Value count = lengths(outer);
  const Value trues = op1(Op::PlusReduce, Leaf::Int, {op1(Op::BoolToInt, {flags}), outer});
  return choose(
      op1(Op::Equal, Leaf::Int, {trues, count}), e.type, [&] { return expr(e); },
      [&] {
        const Value positions = op1(Op::Index, {int_constant(0), int_constant(1), outer});
        const Value not_flags = op1(Op::Not, Leaf::Bool, {flags});
        const Value with_context = make_segdes(trues);
        const Value without_context = make_segdes(op1(Op::Sub, Leaf::Int, {count, trues}));
        const Value with_positions = op(Op::Pack, Leaf::Int, {positions, flags, outer})[0];
        const Value without_positions = op(Op::Pack, Leaf::Int, {positions, not_flags, outer})[0];
        const Leaves computed = on_flagged(e, flags, with_context);
        context_ = without_context;
        const Leaves zeros = zero_value(e.type);
        context_ = saved_context;
        return merge(e.type, {{computed, with_positions, with_context}, {zeros, without_positions, without_context}},
                     outer);
      });
}

// An `if` of scalars whose one arm is a variable or constant (as the classic compiles it): that
// arm everywhere, the other on the flagged instances only, written over it at their positions.
// Free scalars of the computed arm are gathered by position, so that fcode-opt's selects pass
// can turn an elementwise arm into one SELECT over the whole vector, which then fuses.
Leaves Flattener::updated_if(const core::Expr& changed, const core::Expr& kept, Value flags) {
  const Value saved_context = context_;
  Value outer = context();
  Leaves base = expr(kept);
  Value positions = op1(Op::Index, {int_constant(0), int_constant(1), outer});
  Leaves packed = op(Op::Pack, Leaf::Int, {positions, flags, outer});
  Value branch_positions = packed[0];
  Value branch_context = packed[1];
  auto saved_env = env_;
  std::vector<Variable> gathered;
  for (const std::string& name : free_variables(changed)) {
    Variable v = find(name);
    if (!v.shared) {
      v.leaves = gather_value(v.type, v.leaves, flags, branch_positions, branch_context);
    } else if (v.groups >= 0) {
      v.groups = kept_groups(v.groups, flags);
    }
    gathered.push_back(std::move(v));
  }
  env_ = gathered;
  context_ = branch_context;
  hoist_.push_back(nullptr);
  Leaves result = expr(changed);
  hoist_.pop_back();
  context_ = saved_context;
  env_ = saved_env;
  Leaves merged;
  for (std::size_t i = 0; i < result.size(); ++i) {
    Leaf leaf = leaf_of(base[i]);
    merged.push_back(op1(Op::DPermute, leaf, {result[i], branch_positions, base[i], branch_context, outer}));
  }
  return merged;
}

}  // namespace nesl::flattening
