// The flatten pass's state and rules (FRONTEND.md §1): one Flattener vectorizes a program. Its
// members are defined by concern: flatten.cpp (functions, expressions, apply-to-each),
// statements.cpp (building statements, runtime checks), conditionals.cpp (`if`), values.cpp
// (moving lifted values: gather, pack, merge, copies), primitive.cpp (the primitives' dispatch)
// and one file per family of primitives (elementwise, reductions, permutes, shape, io).
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "flatten/environment.hpp"
#include "flatten/layout.hpp"
#include "nesl/core.hpp"
#include "nesl/flat.hpp"
#include "nesl/flatten.hpp"
#include "nesl/primitives.hpp"

namespace nesl::flattening {

using vcode::Op;

// Sets read[v] for every value the statements of block[from, end), their arms included, read.
void add_reads(const flat::Block& block, std::size_t from, std::vector<bool>& read);

// An apply-to-each's body being flattened: what an invariant subexpression needs to be computed
// once outside, in the enclosing context, and given to each element (FLATTENING.md "Hoisting").
struct HoistScope {
  Environment outer_env;  // the enclosing variables, with hoisted lets added while in scope
  Value outer_context;
  Value segdes;                     // the generator's: how many elements each outer instance has
  Value inner;                      // the body's context
  std::set<std::string> closed;     // names bound to closed expressions' values (hoisted lets)
  std::set<std::string> invariant;  // names whose values do not depend on the element: the
                                    // enclosing variables the body reads, and hoisted lets
};

// One part of a merge: a lifted value over part_context's instances, going to the positions
// (within the merged instances) that positions holds.
struct Part {
  Leaves leaves;
  Value positions;
  Value context;
};

// A primitive's argument tuple, split into its components' leaves and types.
struct Arguments {
  std::string name;  // the primitive's, for messages
  std::vector<Leaves> values;
  std::vector<Type> types;
  const Leaves& operator[](std::size_t i) const { return values[i]; }
  Value first() const { return values[0][0]; }
};

class Flattener {
 public:
  // `flat_anyway`: the segmented instances an earlier pass found making their flat context.
  Flattener(const core::Program& program, const FlattenOptions& options, std::set<std::string> flat_anyway);
  flat::Program run();
  // The segmented instances this pass made that read their flat context anyway.
  const std::set<std::string>& flat_read() const { return flat_read_; }

 private:
  // --- statements.cpp: building statements -----------------------------------------------------

  // Appends a statement to the block being built, at the expression being flattened.
  flat::Statement& emit(flat::Statement s) {
    s.where = where_;
    block_->push_back(std::move(s));
    return block_->back();
  }

  // The place of the expression being flattened while it is, when it has one.
  class Located {
   public:
    Located(Location& current, const Location& at) : current_(current), saved_(current) {
      if (at.file) current = at;
    }
    ~Located() { current_ = saved_; }
    Located(const Located&) = delete;
    Located& operator=(const Located&) = delete;

   private:
    Location& current_;
    Location saved_;
  };

  Value fresh(Leaf leaf) {
    current_->leaves.push_back(leaf);
    return static_cast<Value>(current_->leaves.size() - 1);
  }

  // An operation with the given type keyword (or none); its results are what ops.def gives.
  Leaves typed_op(Op opcode, std::optional<vcode::TypeKeyword> type, const Leaves& inputs);
  // An opcode that takes no type keyword.
  Leaves op(Op opcode, const Leaves& inputs) { return typed_op(opcode, std::nullopt, inputs); }
  // An opcode on the leaf's type: with its keyword when the opcode takes one.
  Leaves op(Op opcode, Leaf leaf, const Leaves& inputs);
  Leaves op(Op opcode, vcode::TypeKeyword type, const Leaves& inputs) { return typed_op(opcode, type, inputs); }
  Value op1(Op opcode, const Leaves& inputs) { return op(opcode, inputs)[0]; }
  Value op1(Op opcode, Leaf leaf, const Leaves& inputs) { return op(opcode, leaf, inputs)[0]; }

  Value constant(vcode::Constant value);
  Value int_constant(long value);
  // Whether v is a nonzero scalar constant of the function being built, or a DIST of one: a
  // division by it needs no check.
  bool known_nonzero(Value v) const { return nonzero_.count(v) != 0; }
  Value make_segdes(Value lengths) { return op1(Op::MakeSegdes, {lengths}); }
  Value lengths(Value segdes) { return op1(Op::Lengths, {segdes}); }
  Leaf leaf_of(Value v) const { return current_->leaves[v]; }

  // The flat context: one segment counting the active instances (one when not lifted). The
  // context itself (context_) may have more segments: a nested level's is its generator's
  // descriptor, a lifted function's the one its caller gives; the flat one is made for the uses
  // that need the instances' positions, and dropped where none does.
  Value context() { return context_ < 0 ? make_segdes(int_constant(1)) : flat_of(context_); }
  Value flat_of(Value context) const;
  // Registers `context` as one of more segments, `units` (one segment) counting them, and makes
  // its flat context (to be dropped by drop_unread when nothing reads it).
  void segmented_context(Value context, Value units);
  // A value per segment of the context's units copied to each instance of `context`.
  Value spread(Leaf leaf, Value value, Value context);
  // Ends a segmented context's scope, whose statements are block[from, end) and whose values
  // leave it as `results`: when its flat context is read there anyway (the instances' positions
  // are needed, so they are fewer than 2^31), its spreads and checks take one step over the flat
  // context instead of two through the units. Returns whether the flat context is read.
  bool settle(Value context, flat::Block& block, std::size_t from, const Leaves& results);
  // A scalar constant in every active instance.
  Value everywhere(vcode::Constant value);
  Value distribute(vcode::Constant value, Value over);
  // A one-segment segdes over the elements a segdes describes; over counts its segments.
  Value total_context(Value segdes, Value over);
  // Stops the program with the classic's runtime error message when any flag is set.
  void check(Value flags, const std::string& message);
  // The same for flags over the instances of `over` (a flat or segmented context).
  void any_in(Value flags, Value over, const std::string& message);
  void raise_if(Value any, const std::string& message);
  std::string error_function(const std::string& message);

  // --- flatten.cpp: functions, variables, expressions ------------------------------------------

  // The flat name of a function's instance, made on demand. `sharing` has a letter for each
  // variable of its parameter pattern, in order: `l` lifted, `u` shared by all instances, `g`
  // shared by groups of instances (the groups follow its leaves). A lifted instance is
  // `segmented` when its caller's context may have more than one segment (a nested level's);
  // one given a flat context spreads and checks in one step over it.
  std::string request(const std::string& name, bool lifted, const std::string& sharing = {}, bool segmented = false);
  // A lifted call's inputs: the argument's leaves, a shared sequence given as it is shared.
  void call_arguments(const core::Pattern& parameter, const core::Expr& argument, Leaves& inputs,
                      std::string& sharing);
  // Binds the parameter pattern to new parameters of the function being made, as `sharing` says.
  void bind_parameters(const core::Pattern& pattern, const std::string& sharing, std::size_t& next,
                       flat::Function& function);
  flat::Function main_function();
  flat::Function function(const core::Function& source, bool lifted, const std::string& sharing, bool segmented);
  void bind(const core::Pattern& pattern, const Leaves& leaves);
  const Variable& find(const std::string& name) const;
  // A variable's value in the current context: a shared one copied to each instance here.
  Leaves value_of(const Variable& v);
  // The variable as the elements of `segdes` see it in `body`: a sequence
  // the body reads only in place shared, anything else copied to each element.
  Variable entered(const Variable& v, Value segdes, const core::Expr& body);
  // Whether `e`, in the innermost apply-to-each's body, is computed once outside it (FLATTENING.md
  // "Hoisting"): closed (the classic's rule), invariant and deterministic (ours), or not.
  enum class Hoist { No, Closed, Invariant };
  Hoist hoisting(const core::Expr& e) const;
  // Whether an invariant `e` (bound to `name` in `body`, when a let binds it) is still made per
  // element: scalar arithmetic that can fail, or a range or dist the elements would copy.
  bool made_per_element(const core::Expr& e, const core::Pattern* name, const core::Expr* body) const;
  bool hoistable(const core::Expr& e) const;
  // The hoistable `e` computed in the enclosing context of the innermost apply-to-each.
  Leaves hoisted(const core::Expr& e);
  // A value of the enclosing context given to each element of the innermost apply-to-each: as
  // a variable `name` of `body`, shared when the body reads it only in place, else copied.
  Variable hoisted_variable(const std::string& name, const Type& type, const Leaves& outer, const core::Expr& body);
  Leaves hoisted_copies(const Type& type, const Leaves& outer);
  Leaves let(const core::Expr& e);
  Leaves expr(const core::Expr& e);
  Leaves over(const core::Expr& e);
  Leaves sequence(const core::Expr& e);

  // --- conditionals.cpp ------------------------------------------------------------------------

  Leaves serial_if(const core::Expr& e);
  // Runs an expression in its own block and returns the statement that chooses between them.
  template <typename ThenFn, typename ElseFn>
  Leaves choose(Value condition, const Type& type, ThenFn then_fn, ElseFn else_fn) {
    flat::Statement s;
    s.kind = flat::Statement::Kind::If;
    s.inputs = {condition};
    flat::Block* saved = block_;
    block_ = &s.then_block;
    s.then_results = then_fn();
    block_ = &s.else_block;
    s.else_results = else_fn();
    block_ = saved;
    for (Leaf leaf : leaves_of(type)) s.outputs.push_back(fresh(leaf));
    return emit(std::move(s)).outputs;
  }
  Leaves lifted_if(const core::Expr& e);
  Leaves branch_everywhere(const core::Expr& branch);
  Leaves mixed_if(const core::Expr& e, Value flags, Value trues, Value count);
  // `e` run on the current instances whose flag is set (`flagged` counts them), its free
  // variables packed to them.
  Leaves on_flagged(const core::Expr& e, Value flags, Value flagged);
  // A shared variable's groups over the current instances whose flag is set.
  Value kept_groups(Value groups, Value flags);
  Leaves where_elements(const core::Expr& e, Value segdes);
  Leaves updated_if(const core::Expr& changed, const core::Expr& kept, Value flags);

  // --- values.cpp: moving lifted values --------------------------------------------------------

  Leaves gather_value(const Type& type, const Leaves& leaves, Value flags, Value positions, Value packed);
  Leaves permute_elements(const Type& element, const Leaves& leaves, Value indices, Value segdes);
  // pack_value's `counts`: the descriptor to pack the first part by, and the segdes it gives.
  struct PackCounts {
    Value descriptor;
    Value kept = -1;
  };
  Leaves pack_value(const Type& type, const Leaves& leaves, Value flags, Value over, PackCounts* counts = nullptr);
  Leaves merge(const Type& type, const std::vector<Part>& parts, Value over, bool one_to_one = false);
  Leaves merge_component(const Type& t, const std::vector<Part>& parts, Value over, bool one_to_one);
  Leaves gather(const Type& type, const Leaves& leaves, Value positions, Value source, Value destination,
                bool grouped = false);
  // A one-segment segdes counting the elements of `per_element`.
  Value counting(Value per_element);
  Leaves copies_by_group(const Type& type, const Leaves& leaves, Value groups);
  Leaves replicate(const Type& type, const Leaves& leaves, Value segdes);
  Leaves empty_lifted(const Type& type);
  Leaves zero_value(const Type& type);
  Leaves empty_sequence(const Type& type);

  // --- primitive.cpp and the families ----------------------------------------------------------

  Leaves primitive(const core::Expr& e);
  // The shared sequence a primitive that reads its first argument in place (`v[i]`, `#v`,
  // `v -> is`) is given, or null.
  std::optional<Variable> shared_operand(const Primitive& p, const core::Expr& e) const;
  Leaves shared_primitive(const Primitive& p, const core::Expr& e, const Variable& v);  // shared.cpp
  // The length of the sequence each current instance reads.
  Value shared_lengths(const Variable& v);
  Leaves scalar_primitive(const Primitive& p, const Arguments& args);     // elementwise.cpp
  Leaves reduction_primitive(const Primitive& p, const Arguments& args);  // reductions.cpp
  Leaves permute_primitive(const Primitive& p, const Arguments& args);    // permutes.cpp
  Leaves shape_primitive(const Primitive& p, const Arguments& args);      // shape.cpp
  Leaves io_primitive(const Primitive& p, const Arguments& args);         // io.cpp
  Value checked_positions(Value sequences, Value wanted, Value indices, Value outer, const std::string& message);
  void check_each_index(Value indices, Value sizes, const std::string& message);
  void check_indices(Value indices, Value indices_context, Value sizes, const std::string& message);
  std::pair<Value, Value> write_leaves(const Leaves& leaves, Value stream);
  Leaves read_leaves(const Leaves& like, Value stream);
  Value sized(Value codes);
  static void require_scalar_leaves(const Type& sequence, const std::string& name);
  static void require_flat(const Type& sequence, const std::string& name);

  const core::Program& program_;
  FlattenOptions options_;
  std::map<std::string, const core::Function*> functions_;
  std::set<std::string> varying_;  // the functions that draw, time or do I/O (deterministic)
  std::set<std::string> requested_;
  std::set<std::string> flat_anyway_;
  std::set<std::string> flat_read_;
  struct Instance {
    std::string name;
    bool lifted;
    std::string sharing;
    bool segmented;
  };
  std::deque<Instance> pending_;
  std::map<std::string, flat::Function> error_functions_;
  flat::Function* current_ = nullptr;
  std::set<Value> nonzero_;  // of the function being built (known_nonzero)
  flat::Block* block_ = nullptr;
  Location where_;  // where the statements being made come from
  Value context_ = -1;
  // The function being built's contexts of more than one segment: what counts their segments
  // (one segment) and their flat context.
  struct SegmentedContext {
    Value units;
    Value flat;
    // The spreads and checks made through the units: a step over `context`, then one over the
    // units (a check), or the reverse (a spread). `source` is the value they start from.
    struct TwoSteps {
      Value first;
      Value second;
      Value source;
    };
    std::vector<TwoSteps> through_units;
  };
  std::map<Value, SegmentedContext> segmented_;
  Environment env_;
  std::vector<HoistScope*> hoist_;  // innermost last; null where hoisting must stop
};

}  // namespace nesl::flattening
