#include "nesl/flatten.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <map>
#include <set>

#include "nesl/diagnostics.hpp"
#include "nesl/primitives.hpp"

namespace nesl {
namespace {

using flat::Leaf;
using flat::Value;
using vcode::Op;
using Leaves = std::vector<Value>;

// --- value layout ------------------------------------------------------------------------------

Leaf base_leaf(BaseType base) {
  switch (base) {
    case BaseType::Float: return Leaf::Float;
    case BaseType::Bool: return Leaf::Bool;
    default: return Leaf::Int;  // int, and char as its code
  }
}

void collect_leaves(const Type& type, std::vector<Leaf>& out) {
  Type t = resolve(type);
  switch (t->kind) {
    case TypeNode::Kind::Base: out.push_back(base_leaf(t->base)); return;
    case TypeNode::Kind::Sequence:
      out.push_back(Leaf::Segdes);
      collect_leaves(t->children[0], out);
      return;
    case TypeNode::Kind::Pair:
      collect_leaves(t->children[0], out);
      collect_leaves(t->children[1], out);
      return;
    default: throw CompileError({}, "not supported yet: a value of type " + print_type(t));
  }
}

std::vector<Leaf> leaves_of(const Type& type) {
  std::vector<Leaf> out;
  collect_leaves(type, out);
  return out;
}

std::size_t slots(const Type& type) { return leaves_of(type).size(); }

Leaves slice(const Leaves& leaves, std::size_t from, std::size_t count) {
  return Leaves(leaves.begin() + static_cast<long>(from), leaves.begin() + static_cast<long>(from + count));
}

// The components of a right-nested tuple type, as many as the primitive takes.
std::vector<Type> components(const Type& type, int count) {
  std::vector<Type> parts;
  Type t = resolve(type);
  for (int i = 1; i < count; ++i) {
    parts.push_back(resolve(t)->children[0]);
    t = resolve(t)->children[1];
  }
  parts.push_back(t);
  return parts;
}

Type element_type(const Type& sequence) { return resolve(sequence)->children[0]; }

// --- constants ---------------------------------------------------------------------------------

vcode::Constant scalar(Leaf leaf, double value) {
  vcode::Constant c;
  c.type = flat::keyword_of(leaf);
  if (leaf == Leaf::Float) {
    c.floats.push_back(value);
  } else {
    c.ints.push_back(static_cast<std::int32_t>(value));
  }
  return c;
}

vcode::Constant zero_of(Leaf leaf) { return scalar(leaf, 0); }

// An empty vector of the leaf's kind: `INT ()`.
vcode::Constant empty_vector(Leaf leaf) {
  vcode::Constant c;
  c.type = flat::keyword_of(leaf);
  c.vector_form = true;
  return c;
}

// A literal of the core language (ints and character codes in decimal, floats as written, T or
// F) as a constant; an integer VCODE's 32-bit INT cannot hold is a located error.
vcode::Constant literal(Leaf leaf, const std::string& text, const Location& where) {
  vcode::Constant c;
  c.type = flat::keyword_of(leaf);
  switch (leaf) {
    case Leaf::Float: c.floats.push_back(std::strtod(text.c_str(), nullptr)); break;
    case Leaf::Bool: c.ints.push_back(text == "T"); break;
    default: {
      errno = 0;
      const long long value = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == ERANGE || value < INT32_MIN || value > INT32_MAX) {
        throw CompileError(where, "the integer " + text + " does not fit NESL's 32-bit int (" +
                                      std::to_string(INT32_MIN) + " to " + std::to_string(INT32_MAX) + ")");
      }
      c.ints.push_back(static_cast<std::int32_t>(value));
    }
  }
  return c;
}

// The operand whose type an opcode's type keyword names: its first G (SELECT's second).
std::size_t typed_operand(Op opcode) {
  const std::size_t at = vcode::info(opcode).args.find('G');
  return at == std::string_view::npos ? 0 : at;
}

// READ_LINE's one delimiter, as a vector: `INT (10)`.
vcode::Constant newline_delimiter() {
  vcode::Constant c = empty_vector(Leaf::Int);
  c.ints.push_back('\n');
  return c;
}

// A CHAR constant: the codes of the text, written as a string.
vcode::Constant characters(const std::string& text) {
  vcode::Constant c;
  c.type = vcode::TypeKeyword::Char;
  c.vector_form = true;
  for (char ch : text) c.ints.push_back(static_cast<signed char>(ch));
  return c;
}

// --- free variables ----------------------------------------------------------------------------

void pattern_names(const core::Pattern& pattern, std::set<std::string>& out) {
  if (pattern.kind == core::Pattern::Kind::Variable) {
    out.insert(pattern.name);
    return;
  }
  for (const auto& child : pattern.children) pattern_names(*child, out);
}

void free_variables(const core::Expr& e, std::set<std::string> bound, std::set<std::string>& out) {
  switch (e.kind) {
    case core::Kind::Variable:
      if (!bound.count(e.name)) out.insert(e.name);
      return;
    case core::Kind::Let:
      free_variables(*e.children[0], bound, out);
      pattern_names(*e.pattern, bound);
      free_variables(*e.children[1], bound, out);
      return;
    case core::Kind::Over:
      for (const core::Generator& g : e.generators) free_variables(*g.sequence, bound, out);
      for (const core::Generator& g : e.generators) pattern_names(*g.pattern, bound);
      free_variables(*e.children[0], bound, out);
      return;
    default:
      for (const core::ExprPtr& child : e.children) free_variables(*child, bound, out);
  }
}

std::set<std::string> free_variables(const core::Expr& e) {
  std::set<std::string> out;
  free_variables(e, {}, out);
  return out;
}

// Variables, constants and tuples of them: both arms of an `if` made of these can be computed
// everywhere and combined with SELECT.
bool is_simple(const core::Expr& e) {
  if (e.kind == core::Kind::Pair) return is_simple(*e.children[0]) && is_simple(*e.children[1]);
  return e.kind == core::Kind::Variable || e.kind == core::Kind::Constant;
}

// A variable in scope: its leaves in the current context, and its type to lift it further.
struct Variable {
  std::string name;
  Leaves leaves;
  Type type;
};

// An apply-to-each's body being flattened: what a closed subexpression needs to be computed once
// outside, in the enclosing context, and copied to each element.
struct HoistScope {
  std::vector<Variable> outer_env;  // the enclosing variables, with closed lets added as found
  Value outer_context;
  Value segdes;                     // the generator's: how many elements each outer instance has
  Value inner;                      // the body's context
  std::set<std::string> closed;     // names whose values do not depend on the element
};

// One part of a merge: a lifted value over part_context's instances, going to the positions
// (within the merged instances) that positions holds.
struct Part {
  Leaves leaves;
  Value positions;
  Value context;
};

class Flattener {
 public:
  Flattener(const core::Program& program, const FlattenOptions& options) : program_(program), options_(options) {
    for (const core::Function& function : program.functions) functions_[function.name] = &function;
  }

  flat::Program run() {
    flat::Program result;
    result.functions.push_back(main_function());
    while (!pending_.empty()) {
      auto [name, lifted] = pending_.front();
      pending_.pop_front();
      result.functions.push_back(function(*functions_.at(name), lifted));
    }
    for (auto& [message, error_function] : error_functions_) result.functions.push_back(std::move(error_function));
    return result;
  }

 private:
  // --- building statements -------------------------------------------------------------------

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
  Leaves typed_op(Op opcode, std::optional<vcode::TypeKeyword> type, const Leaves& inputs) {
    flat::Statement s;
    s.kind = flat::Statement::Kind::Op;
    s.op = opcode;
    s.type = type;
    s.inputs = inputs;
    for (Leaf leaf : flat::result_leaves(opcode, type)) s.outputs.push_back(fresh(leaf));
    return emit(std::move(s)).outputs;
  }

  // An opcode that takes no type keyword.
  Leaves op(Op opcode, const Leaves& inputs) { return typed_op(opcode, std::nullopt, inputs); }
  // An opcode on the leaf's type: with its keyword when the opcode takes one.
  Leaves op(Op opcode, Leaf leaf, const Leaves& inputs) {
    const bool takes_type = vcode::info(opcode).syntax == vcode::Syntax::Type;
    return typed_op(opcode, takes_type ? std::optional(flat::keyword_of(leaf)) : std::nullopt, inputs);
  }
  Leaves op(Op opcode, vcode::TypeKeyword type, const Leaves& inputs) { return typed_op(opcode, type, inputs); }
  Value op1(Op opcode, const Leaves& inputs) { return op(opcode, inputs)[0]; }
  Value op1(Op opcode, Leaf leaf, const Leaves& inputs) { return op(opcode, leaf, inputs)[0]; }

  Value constant(vcode::Constant value) {
    flat::Statement s;
    s.kind = flat::Statement::Kind::Const;
    s.outputs = {fresh(flat::leaf_of(value.type))};
    s.constant = std::move(value);
    return emit(std::move(s)).outputs[0];
  }

  Value int_constant(long value) { return constant(scalar(Leaf::Int, static_cast<double>(value))); }

  Value make_segdes(Value lengths) { return op1(Op::MakeSegdes, {lengths}); }

  Value lengths(Value segdes) { return op1(Op::Lengths, {segdes}); }

  Leaf leaf_of(Value v) const { return current_->leaves[v]; }

  // The context segdes: one segment counting the active instances (one when not lifted).
  Value context() {
    if (context_ >= 0) return context_;
    return make_segdes(int_constant(1));
  }

  // A scalar constant in every active instance.
  Value everywhere(vcode::Constant value) {
    const Leaf leaf = flat::leaf_of(value.type);
    Value scalar = constant(std::move(value));
    if (context_ < 0) return scalar;
    return op1(Op::Dist, leaf, {scalar, context_});
  }

  Value distribute(vcode::Constant value, Value over) {
    const Leaf leaf = flat::leaf_of(value.type);
    return op1(Op::Dist, leaf, {constant(std::move(value)), over});
  }

  // A one-segment segdes over the elements a segdes describes; over counts its segments.
  Value total_context(Value segdes, Value over) {
    Value total = op1(Op::PlusReduce, Leaf::Int, {lengths(segdes), over});
    return make_segdes(total);
  }

  // Stops the program with the classic's runtime error message when any flag is set.
  void check(Value flags, const std::string& message) {
    if (context_ < 0) return raise_if(flags, message);
    any_in(flags, context_, message);
  }

  // The same for flags over the elements that `over` (one segment) counts.
  void any_in(Value flags, Value over, const std::string& message) {
    raise_if(op1(Op::OrReduce, Leaf::Bool, {flags, over}), message);
  }

  void raise_if(Value any, const std::string& message) {
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

  std::string error_function(const std::string& message) {
    auto found = error_functions_.find(message);
    if (found != error_functions_.end()) return found->second.name;
    flat::Function function;
    function.name = "RUNTIME_ERROR_" + std::to_string(error_functions_.size() + 1);
    flat::Function* saved_function = current_;
    flat::Block* saved_block = block_;
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
    where_ = saved_where;
    std::string name = function.name;
    error_functions_.emplace(message, std::move(function));
    return name;
  }

  // --- functions -----------------------------------------------------------------------------

  std::string request(const std::string& name, bool lifted) {
    std::string flat_name = lifted ? "L" + name : name;
    if (requested_.insert(flat_name).second) pending_.emplace_back(name, lifted);
    return flat_name;
  }

  flat::Function main_function() {
    flat::Function function;
    function.name = "MAIN_0";
    where_ = {};
    current_ = &function;
    block_ = &function.body;
    context_ = -1;
    env_.clear();
    hoist_.clear();
    function.results = expr(*program_.main);
    return function;
  }

  flat::Function function(const core::Function& source, bool lifted) {
    flat::Function function;
    function.name = lifted ? "L" + source.name : source.name;
    where_ = {};
    current_ = &function;
    block_ = &function.body;
    env_.clear();
    hoist_.clear();
    for (Leaf leaf : leaves_of(source.parameter->type)) function.parameters.push_back(fresh(leaf));
    context_ = -1;
    if (lifted) {
      context_ = fresh(Leaf::Segdes);
      function.parameters.push_back(context_);
    }
    bind(*source.parameter, slice(function.parameters, 0, slots(source.parameter->type)));
    function.results = expr(*source.body);
    return function;
  }

  void bind(const core::Pattern& pattern, const Leaves& leaves) {
    if (pattern.kind == core::Pattern::Kind::Variable) {
      env_.push_back({pattern.name, leaves, pattern.type});
      return;
    }
    std::size_t left = slots(pattern.children[0]->type);
    bind(*pattern.children[0], slice(leaves, 0, left));
    bind(*pattern.children[1], slice(leaves, left, leaves.size() - left));
  }

  const Variable& find(const std::string& name) const {
    for (auto it = env_.rbegin(); it != env_.rend(); ++it) {
      if (it->name == name) return *it;
    }
    throw CompileError({}, "internal error: flatten found the unbound variable " + name);
  }

  const Leaves& lookup(const std::string& name) const { return find(name).leaves; }

  // --- expressions ---------------------------------------------------------------------------

  bool hoistable(const core::Expr& e) const {
    if (hoist_.empty() || !hoist_.back()) return false;
    switch (e.kind) {
      case core::Kind::Call:
      case core::Kind::Primitive:
      case core::Kind::Over:
      case core::Kind::Sequence:
      case core::Kind::If: break;
      default: return false;
    }
    for (const std::string& name : free_variables(e)) {
      if (!hoist_.back()->closed.count(name)) return false;
    }
    return true;
  }

  // A closed subexpression of an apply-to-each's body is computed once, in the enclosing
  // context, then copied to each element: `{rand(10) : i in s}` draws once. Returns the value in
  // the enclosing context and copied.
  std::pair<Leaves, Leaves> hoisted(const core::Expr& e) {
    HoistScope* scope = hoist_.back();
    auto saved_env = env_;
    Value saved_context = context_;
    hoist_.pop_back();
    env_ = scope->outer_env;
    context_ = scope->outer_context;
    Leaves outer_value = expr(e);
    Leaves copies = replicate(e.type, outer_value, scope->segdes, scope->inner);
    hoist_.push_back(scope);
    env_ = saved_env;
    context_ = saved_context;
    return {outer_value, copies};
  }

  Leaves expr(const core::Expr& e) {
    const Located located(where_, e.where);
    const auto& c = e.children;
    if (e.kind != core::Kind::Let && hoistable(e)) return hoisted(e).second;
    switch (e.kind) {
      case core::Kind::Constant: {
        Leaf leaf = base_leaf(resolve(e.type)->base);
        return {everywhere(literal(leaf, e.text, e.where))};
      }
      case core::Kind::Variable: return lookup(e.name);
      case core::Kind::Pair: {
        Leaves left = expr(*c[0]);
        Leaves right = expr(*c[1]);
        left.insert(left.end(), right.begin(), right.end());
        return left;
      }
      case core::Kind::Let: {
        Leaves value;
        if (hoistable(*c[0])) {
          auto [outer_value, copies] = hoisted(*c[0]);
          HoistScope* scope = hoist_.back();
          std::swap(env_, scope->outer_env);
          bind(*e.pattern, outer_value);
          std::swap(env_, scope->outer_env);
          pattern_names(*e.pattern, scope->closed);
          value = copies;
        } else {
          value = expr(*c[0]);
        }
        std::size_t mark = env_.size();
        bind(*e.pattern, value);
        Leaves body = expr(*c[1]);
        env_.resize(mark);
        return body;
      }
      case core::Kind::If: return context_ < 0 ? serial_if(e) : lifted_if(e);
      case core::Kind::Call: {
        flat::Statement s;
        s.kind = flat::Statement::Kind::Call;
        s.callee = request(e.name, context_ >= 0);
        s.inputs = expr(*c[0]);
        if (context_ >= 0) s.inputs.push_back(context_);
        for (Leaf leaf : leaves_of(e.type)) s.outputs.push_back(fresh(leaf));
        return emit(std::move(s)).outputs;
      }
      case core::Kind::Primitive: return primitive(e);
      case core::Kind::Over: return over(e);
      case core::Kind::Sequence: return sequence(e);
      case core::Kind::Empty: return empty_sequence(e.type);
    }
    throw CompileError({}, "internal error: flatten met an unknown expression");
  }

  Leaves serial_if(const core::Expr& e) {
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

  Leaves lifted_if(const core::Expr& e) {
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
    Value count = lengths(context_);
    Value none = op1(Op::Equal, Leaf::Int, {count, int_constant(0)});
    return choose(
        none, e.type, [&] { return empty_lifted(e.type); },
        [&] {
          Value trues = op1(Op::PlusReduce, Leaf::Int, {op1(Op::BoolToInt, {flags}), context_});
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

  Leaves branch_everywhere(const core::Expr& branch) {
    std::size_t mark = env_.size();
    Leaves result = expr(branch);
    env_.resize(mark);
    return result;
  }

  // Both arms, each on the instances that take it, then before else, merged by position.
  Leaves mixed_if(const core::Expr& e, Value flags, Value trues, Value count) {
    std::vector<Leaf> kinds = leaves_of(e.type);
    if (std::find(kinds.begin(), kinds.end(), Leaf::Segdes) == kinds.end()) {
      if (is_simple(*e.children[2])) return updated_if(*e.children[1], *e.children[2], flags);
      if (is_simple(*e.children[1])) {
        return updated_if(*e.children[2], *e.children[1], op1(Op::Not, Leaf::Bool, {flags}));
      }
    }
    Value outer = context_;
    Value not_flags = op1(Op::Not, Leaf::Bool, {flags});
    Value falses = op1(Op::Sub, Leaf::Int, {count, trues});
    Value positions = op1(Op::Index, {int_constant(0), int_constant(1), outer});
    std::vector<Part> parts;
    for (auto [branch, branch_flags, branch_count] :
         {std::tuple{e.children[1].get(), flags, trues}, std::tuple{e.children[2].get(), not_flags, falses}}) {
      Value branch_context = make_segdes(branch_count);
      Value branch_positions = op(Op::Pack, Leaf::Int, {positions, branch_flags, outer})[0];
      auto saved_env = env_;
      std::vector<Variable> packed;
      for (const std::string& name : free_variables(*branch)) {
        const Variable& v = find(name);
        packed.push_back({name, pack_value(v.type, v.leaves, branch_flags, outer), v.type});
      }
      env_ = packed;
      context_ = branch_context;
      // The branch runs on a subset of the elements, so nothing in it is copied to all of them.
      hoist_.push_back(nullptr);
      Leaves result = expr(*branch);
      hoist_.pop_back();
      context_ = outer;
      env_ = saved_env;
      parts.push_back({result, branch_positions, branch_context});
    }
    return merge(e.type, parts, outer);
  }

  // An `if` of scalars whose one arm is a variable or constant (as the classic compiles it): that
  // arm everywhere, the other on the flagged instances only, written over it at their positions.
  // Free scalars of the computed arm are gathered by position, so that fcode-opt's selects pass
  // can turn an elementwise arm into one SELECT over the whole vector, which then fuses.
  Leaves updated_if(const core::Expr& changed, const core::Expr& kept, Value flags) {
    Value outer = context_;
    Leaves base = expr(kept);
    Value positions = op1(Op::Index, {int_constant(0), int_constant(1), outer});
    Leaves packed = op(Op::Pack, Leaf::Int, {positions, flags, outer});
    Value branch_positions = packed[0];
    Value branch_context = packed[1];
    auto saved_env = env_;
    std::vector<Variable> gathered;
    for (const std::string& name : free_variables(changed)) {
      const Variable& v = find(name);
      gathered.push_back({name, gather_value(v.type, v.leaves, flags, branch_positions, branch_context), v.type});
    }
    env_ = gathered;
    context_ = branch_context;
    hoist_.push_back(nullptr);
    Leaves result = expr(changed);
    hoist_.pop_back();
    context_ = outer;
    env_ = saved_env;
    Leaves merged;
    for (std::size_t i = 0; i < result.size(); ++i) {
      Leaf leaf = leaf_of(base[i]);
      merged.push_back(op1(Op::DPermute, leaf, {result[i], branch_positions, base[i], branch_context, outer}));
    }
    return merged;
  }

  // pack_value for updated_if: scalars gathered from the positions of the flagged instances.
  Leaves gather_value(const Type& type, const Leaves& leaves, Value flags, Value positions, Value packed) {
    Type t = resolve(type);
    if (t->kind == TypeNode::Kind::Base) {
      Leaf leaf = leaf_of(leaves[0]);
      return {op1(Op::BPermute, leaf, {leaves[0], positions, context_, packed})};
    }
    if (t->kind == TypeNode::Kind::Pair) {
      std::size_t left = slots(t->children[0]);
      Leaves result = gather_value(t->children[0], slice(leaves, 0, left), flags, positions, packed);
      Leaves right = gather_value(t->children[1], slice(leaves, left, leaves.size() - left), flags, positions, packed);
      result.insert(result.end(), right.begin(), right.end());
      return result;
    }
    return pack_value(type, leaves, flags, context_);
  }

  // The leaves of the elements of sequences (segmented by `segdes`) each moved to its index within
  // its own sequence: scalars, in tuples too, by one PERMUTE each; sequences by merge at their
  // positions in the concatenated elements.
  Leaves permute_elements(const Type& element, const Leaves& leaves, Value indices, Value segdes) {
    Type t = resolve(element);
    if (t->kind == TypeNode::Kind::Base) {
      Leaf leaf = leaf_of(leaves[0]);
      return {op1(Op::Permute, leaf, {leaves[0], indices, segdes})};
    }
    if (t->kind == TypeNode::Kind::Pair) {
      std::size_t left = slots(t->children[0]);
      Leaves result = permute_elements(t->children[0], slice(leaves, 0, left), indices, segdes);
      Leaves right = permute_elements(t->children[1], slice(leaves, left, leaves.size() - left), indices, segdes);
      result.insert(result.end(), right.begin(), right.end());
      return result;
    }
    Value outer = context();
    Value starts = op1(Op::Dist, Leaf::Int, {op1(Op::PlusScan, Leaf::Int, {lengths(segdes), outer}), segdes});
    Value positions = op1(Op::Add, Leaf::Int, {indices, starts});
    Value inner = total_context(segdes, outer);
    return merge(element, {{leaves, positions, inner}}, inner, true);
  }

  // The lifted value over `over`'s instances restricted to those whose flag is set.
  Leaves pack_value(const Type& type, const Leaves& leaves, Value flags, Value over) {
    Type t = resolve(type);
    if (t->kind == TypeNode::Kind::Base) {
      Leaf leaf = leaf_of(leaves[0]);
      return {op(Op::Pack, leaf, {leaves[0], flags, over})[0]};
    }
    if (t->kind == TypeNode::Kind::Pair) {
      std::size_t left = slots(t->children[0]);
      Leaves result = pack_value(t->children[0], slice(leaves, 0, left), flags, over);
      Leaves right = pack_value(t->children[1], slice(leaves, left, leaves.size() - left), flags, over);
      result.insert(result.end(), right.begin(), right.end());
      return result;
    }
    Value segment_lengths = lengths(leaves[0]);
    Value kept = op(Op::Pack, Leaf::Int, {segment_lengths, flags, over})[0];
    Leaves result = {make_segdes(kept)};
    Value inner_flags = op1(Op::Dist, Leaf::Bool, {flags, leaves[0]});
    Value inner = total_context(leaves[0], over);
    Leaves rest = pack_value(t->children[0], slice(leaves, 1, leaves.size() - 1), inner_flags, inner);
    result.insert(result.end(), rest.begin(), rest.end());
    return result;
  }

  // One lifted value over `over`'s instances from parts that each fill some positions. With
  // `one_to_one` the only part fills every position once (a permutation within each instance of
  // `over`): each scalar then moves by one PERMUTE, with no default vector to write into.
  Leaves merge(const Type& type, const std::vector<Part>& parts, Value over, bool one_to_one = false) {
    Type t = resolve(type);
    one_to_one = one_to_one && parts.size() == 1;
    if (t->kind == TypeNode::Kind::Base) {
      Leaf leaf = base_leaf(t->base);
      if (one_to_one) return {op1(Op::Permute, leaf, {parts[0].leaves[0], parts[0].positions, over})};
      Value merged = distribute(zero_of(leaf), over);
      for (const Part& part : parts) {
        merged = op1(Op::DPermute, leaf, {part.leaves[0], part.positions, merged, part.context, over});
      }
      return {merged};
    }
    if (t->kind == TypeNode::Kind::Pair) {
      std::size_t left = slots(t->children[0]);
      std::vector<Part> lefts, rights;
      for (const Part& part : parts) {
        lefts.push_back({slice(part.leaves, 0, left), part.positions, part.context});
        rights.push_back({slice(part.leaves, left, part.leaves.size() - left), part.positions, part.context});
      }
      Leaves result = merge(t->children[0], lefts, over, one_to_one);
      Leaves right = merge(t->children[1], rights, over, one_to_one);
      result.insert(result.end(), right.begin(), right.end());
      return result;
    }
    std::vector<Part> length_parts;
    for (const Part& part : parts) length_parts.push_back({{lengths(part.leaves[0])}, part.positions, part.context});
    Value merged_lengths = merge(make_base(BaseType::Int), length_parts, over, one_to_one)[0];
    Value segdes = make_segdes(merged_lengths);
    Value starts = op1(Op::PlusScan, Leaf::Int, {merged_lengths, over});
    Value inner = make_segdes(op1(Op::PlusReduce, Leaf::Int, {merged_lengths, over}));
    std::vector<Part> inner_parts;
    for (const Part& part : parts) {
      Value part_starts = op1(Op::BPermute, Leaf::Int, {starts, part.positions, over, part.context});
      Value ones = distribute(scalar(Leaf::Int, 1), part.context);
      Value inner_positions = op1(Op::Index, {part_starts, ones, part.leaves[0]});
      inner_parts.push_back({slice(part.leaves, 1, part.leaves.size() - 1), inner_positions,
                             total_context(part.leaves[0], part.context)});
    }
    Leaves result = {segdes};
    Leaves rest = merge(t->children[0], inner_parts, inner, one_to_one);
    result.insert(result.end(), rest.begin(), rest.end());
    return result;
  }

  // The lifted value over `destination`'s instances whose instance j is the source's instance
  // positions[j]; `source` counts the source's instances.
  // Where each index of `indices` (segmented by `wanted`) falls in the concatenated data of the
  // sequences `sequences`, one per instance of `outer`; with argument checks, an index outside its
  // sequence stops the program with `message` first (-> and <- share the rule).
  Value checked_positions(Value sequences, Value wanted, Value indices, Value outer,
                          const std::string& message) {
    Value sequence_lengths = lengths(sequences);
    if (options_.argument_checks) {
      Value wanted_context = total_context(wanted, outer);
      Value limit = op1(Op::Dist, Leaf::Int, {sequence_lengths, wanted});
      Value below = op1(Op::Less, Leaf::Int, {indices, distribute(zero_of(Leaf::Int), wanted_context)});
      Value above = op1(Op::GreaterEq, Leaf::Int, {indices, limit});
      any_in(op1(Op::Or, Leaf::Bool, {below, above}), wanted_context, message);
    }
    Value starts = op1(Op::Dist, Leaf::Int, {op1(Op::PlusScan, Leaf::Int, {sequence_lengths, outer}), wanted});
    return op1(Op::Add, Leaf::Int, {indices, starts});
  }

  Leaves gather(const Type& type, const Leaves& leaves, Value positions, Value source, Value destination) {
    Type t = resolve(type);
    if (t->kind == TypeNode::Kind::Base) {
      Leaf leaf = base_leaf(t->base);
      return {op1(Op::BPermute, leaf, {leaves[0], positions, source, destination})};
    }
    if (t->kind == TypeNode::Kind::Pair) {
      std::size_t left = slots(t->children[0]);
      Leaves result = gather(t->children[0], slice(leaves, 0, left), positions, source, destination);
      Leaves right = gather(t->children[1], slice(leaves, left, leaves.size() - left), positions, source, destination);
      result.insert(result.end(), right.begin(), right.end());
      return result;
    }
    Value source_lengths = lengths(leaves[0]);
    Value new_lengths = op1(Op::BPermute, Leaf::Int, {source_lengths, positions, source, destination});
    Value segdes = make_segdes(new_lengths);
    Value starts = op1(Op::PlusScan, Leaf::Int, {source_lengths, source});
    Value gathered_starts = op1(Op::BPermute, Leaf::Int, {starts, positions, source, destination});
    Value ones = distribute(scalar(Leaf::Int, 1), destination);
    Value inner_positions = op1(Op::Index, {gathered_starts, ones, segdes});
    Leaves result = {segdes};
    Leaves rest = gather(t->children[0], slice(leaves, 1, leaves.size() - 1), inner_positions,
                         total_context(leaves[0], source), total_context(segdes, destination));
    result.insert(result.end(), rest.begin(), rest.end());
    return result;
  }

  // The value of each of the current instances copied to each element of its segment.
  Leaves replicate(const Type& type, const Leaves& leaves, Value segdes, Value inner) {
    Type t = resolve(type);
    if (t->kind == TypeNode::Kind::Base) {
      Leaf leaf = base_leaf(t->base);
      return {op1(Op::Dist, leaf, {leaves[0], segdes})};
    }
    if (t->kind == TypeNode::Kind::Pair) {
      std::size_t left = slots(t->children[0]);
      Leaves result = replicate(t->children[0], slice(leaves, 0, left), segdes, inner);
      Leaves right = replicate(t->children[1], slice(leaves, left, leaves.size() - left), segdes, inner);
      result.insert(result.end(), right.begin(), right.end());
      return result;
    }
    Value outer = context();
    Value instance = op1(Op::Index, {int_constant(0), int_constant(1), outer});
    Value owners = op1(Op::Dist, Leaf::Int, {instance, segdes});
    return gather(type, leaves, owners, outer, inner);
  }

  // Empty value of the type, lifted over no instances.
  Leaves empty_lifted(const Type& type) {
    Leaves result;
    for (Leaf leaf : leaves_of(type)) {
      if (leaf == Leaf::Segdes) {
        result.push_back(make_segdes(constant(empty_vector(Leaf::Int))));
      } else {
        result.push_back(constant(empty_vector(leaf)));
      }
    }
    return result;
  }

  // What a position no value was written to holds, in every active instance (the classic's
  // len_put): 0, 0.0, F, a space for a character, an empty sequence; a tuple of these.
  Leaves zero_value(const Type& type) {
    Type t = resolve(type);
    if (t->kind == TypeNode::Kind::Base) {
      Leaf leaf = base_leaf(t->base);
      return {everywhere(t->base == BaseType::Char ? scalar(Leaf::Int, 32) : zero_of(leaf))};
    }
    if (t->kind == TypeNode::Kind::Pair) {
      Leaves result = zero_value(t->children[0]);
      Leaves right = zero_value(t->children[1]);
      result.insert(result.end(), right.begin(), right.end());
      return result;
    }
    return empty_sequence(t);
  }

  Leaves empty_sequence(const Type& type) {
    Value segdes = make_segdes(everywhere(zero_of(Leaf::Int)));
    Leaves result = {segdes};
    Leaves rest = empty_lifted(element_type(type));
    result.insert(result.end(), rest.begin(), rest.end());
    return result;
  }

  Leaves over(const core::Expr& e) {
    Value outer = context();
    std::vector<Leaves> sequences;
    for (const core::Generator& g : e.generators) sequences.push_back(expr(*g.sequence));
    Value segdes = sequences[0][0];
    Value first_lengths = lengths(segdes);
    for (std::size_t i = 1; i < sequences.size() && options_.argument_checks; ++i) {
      Value mismatch = op1(Op::NotEqual, Leaf::Int, {first_lengths, lengths(sequences[i][0])});
      check(mismatch, "Length mismatch in an apply-to-each.");
    }
    Value inner = context_ < 0 ? segdes : total_context(segdes, outer);
    std::vector<Variable> inner_env;
    std::set<std::string> bound;
    for (const core::Generator& g : e.generators) pattern_names(*g.pattern, bound);
    std::set<std::string> free;
    free_variables(*e.children[0], bound, free);
    for (const std::string& name : free) {
      const Variable& v = find(name);
      inner_env.push_back({name, replicate(v.type, v.leaves, segdes, inner), v.type});
    }
    HoistScope scope{env_, context_, segdes, inner, free};
    auto saved_env = env_;
    Value saved_context = context_;
    env_ = inner_env;
    context_ = inner;
    for (std::size_t i = 0; i < e.generators.size(); ++i) {
      bind(*e.generators[i].pattern, slice(sequences[i], 1, sequences[i].size() - 1));
    }
    hoist_.push_back(&scope);
    Leaves body = expr(*e.children[0]);
    hoist_.pop_back();
    env_ = saved_env;
    context_ = saved_context;
    Leaves result = {segdes};
    result.insert(result.end(), body.begin(), body.end());
    return result;
  }

  Leaves sequence(const core::Expr& e) {
    Type element = element_type(e.type);
    std::size_t count = e.children.size();
    Type resolved = resolve(element);
    bool all_constant = context_ < 0 && resolved->kind == TypeNode::Kind::Base;
    for (const core::ExprPtr& child : e.children) all_constant = all_constant && child->kind == core::Kind::Constant;
    if (all_constant) {
      Leaf leaf = base_leaf(resolved->base);
      vcode::Constant elements = empty_vector(leaf);
      for (const core::ExprPtr& child : e.children) {
        const vcode::Constant element = literal(leaf, child->text, child->where);
        elements.ints.insert(elements.ints.end(), element.ints.begin(), element.ints.end());
        elements.floats.insert(elements.floats.end(), element.floats.begin(), element.floats.end());
      }
      Value segdes = make_segdes(int_constant(static_cast<long>(count)));
      return {segdes, constant(std::move(elements))};
    }
    std::vector<Leaves> elements;
    for (const core::ExprPtr& child : e.children) elements.push_back(expr(*child));
    // Instance j's element i goes to position j * count + i of the concatenation.
    Value outer = context();
    Value instances = lengths(outer);
    Value segdes = make_segdes(op1(Op::Dist, Leaf::Int, {int_constant(static_cast<long>(count)), outer}));
    // One element per instance: the concatenation is that element's lifted value as it is.
    if (count == 1) {
      Leaves result = {segdes};
      result.insert(result.end(), elements[0].begin(), elements[0].end());
      return result;
    }
    Value total = make_segdes(op1(Op::Mul, Leaf::Int, {instances, int_constant(static_cast<long>(count))}));
    std::vector<Part> parts;
    for (std::size_t i = 0; i < count; ++i) {
      Value positions =
          op1(Op::Index, {int_constant(static_cast<long>(i)), int_constant(static_cast<long>(count)), outer});
      parts.push_back({elements[i], positions, outer});
    }
    Leaves result = {segdes};
    Leaves rest = merge(element, parts, total);
    result.insert(result.end(), rest.begin(), rest.end());
    return result;
  }

  // --- primitives ----------------------------------------------------------------------------

  Leaves primitive(const core::Expr& e) {
    const Primitive& p = *find_primitive(e.name);
    const core::Expr& argument = *e.children[0];
    Leaves all = expr(argument);
    std::vector<Type> types = components(argument.type, p.arity == 0 ? 1 : p.arity);
    std::vector<Leaves> args;
    std::size_t at = 0;
    for (const Type& type : types) {
      std::size_t n = slots(type);
      args.push_back(slice(all, at, n));
      at += n;
    }
    auto first = [&] { return args[0][0]; };
    switch (p.kind) {
      case PrimitiveKind::Elementwise: {
        Leaves inputs;
        for (const Leaves& a : args) inputs.push_back(a[0]);
        return {op1(p.op, leaf_of(inputs[typed_operand(p.op)]), inputs)};
      }
      case PrimitiveKind::Complement: {
        Leaf leaf = leaf_of(first());
        Value both = op1(p.op, leaf, {first(), args[1][0]});
        return {op1(Op::Not, leaf, {both})};
      }
      case PrimitiveKind::CompareToZero: {
        Leaf leaf = leaf_of(first());
        return {op1(p.op, leaf, {first(), everywhere(zero_of(leaf))})};
      }
      case PrimitiveKind::Negate: {
        Leaf leaf = leaf_of(first());
        return {op1(Op::Sub, leaf, {everywhere(zero_of(leaf)), first()})};
      }
      case PrimitiveKind::Abs: {
        Leaf leaf = leaf_of(first());
        Value zero = everywhere(zero_of(leaf));
        Value negative = op1(Op::Less, leaf, {first(), zero});
        Value negated = op1(Op::Sub, leaf, {zero, first()});
        return {op1(Op::Select, leaf, {negative, negated, first()})};
      }
      case PrimitiveKind::Identity: return args[0];
      case PrimitiveKind::CheckedDivide: {
        Leaf leaf = leaf_of(first());
        Value divisor = args[1][0];
        if (options_.argument_checks) {
          Value zero = op1(Op::Equal, leaf, {divisor, everywhere(zero_of(leaf))});
          check(zero, std::string(p.message));
        }
        return {op1(p.op, leaf, {first(), divisor})};
      }
      case PrimitiveKind::CheckedSqrt: {
        if (options_.argument_checks) {
          Value negative = op1(Op::Less, Leaf::Float, {first(), everywhere(zero_of(Leaf::Float))});
          check(negative, "Sqrt of negative number.");
        }
        return {op1(Op::Sqrt, {first()})};
      }
      case PrimitiveKind::Constant: {
        return {everywhere(scalar(p.constant.is_float ? Leaf::Float : Leaf::Int, p.constant.value))};
      }
      case PrimitiveKind::Reduce: {
        require_flat(types[0], e.name);
        Leaf leaf = leaf_of(args[0][1]);
        return {op1(p.op, leaf, {args[0][1], args[0][0]})};
      }
      case PrimitiveKind::Count: {
        Value as_int = op1(Op::BoolToInt, {args[0][1]});
        return {op1(Op::PlusReduce, Leaf::Int, {as_int, args[0][0]})};
      }
      case PrimitiveKind::Scan: {
        require_flat(types[0], e.name);
        Leaf leaf = leaf_of(args[0][1]);
        // RANK of FLOATs gives INT positions; the scans keep their operand's type.
        return {args[0][0], op1(p.op, leaf, {args[0][1], args[0][0]})};
      }
      case PrimitiveKind::Length: return {lengths(args[0][0])};
      case PrimitiveKind::Dist: {
        Value segdes = make_segdes(args[1][0]);
        Leaves result = {segdes};
        Leaves copies = replicate(types[0], args[0], segdes, total_context(segdes, context()));
        result.insert(result.end(), copies.begin(), copies.end());
        return result;
      }
      case PrimitiveKind::Element: {
        Value segdes = args[0][0];
        Value index = args[1][0];
        Value outer = context();
        Value sizes = lengths(segdes);
        if (options_.argument_checks) {
          Value below = op1(Op::Less, Leaf::Int, {index, everywhere(zero_of(Leaf::Int))});
          Value above = op1(Op::GreaterEq, Leaf::Int, {index, sizes});
          check(op1(Op::Or, Leaf::Bool, {below, above}), "Sequence reference (a[i]) out of bounds.");
        }
        Value starts = op1(Op::PlusScan, Leaf::Int, {sizes, outer});
        Value positions = op1(Op::Add, Leaf::Int, {starts, index});
        return gather(element_type(types[0]), slice(args[0], 1, args[0].size() - 1), positions,
                      total_context(segdes, outer), outer);
      }
      case PrimitiveKind::Range: {
        Value start = args[0][0], end = args[1][0], stride = args[2][0];
        if (options_.argument_checks) {
          Value backwards = op1(Op::Less, Leaf::Int, {end, start});
          Value not_positive = op1(Op::LessEq, Leaf::Int, {stride, everywhere(zero_of(Leaf::Int))});
          check(op1(Op::Or, Leaf::Bool, {backwards, not_positive}),
                "In [s:e:l], e must be >= to s, and l must be positive.");
        }
        Value span = op1(Op::Sub, Leaf::Int, {op1(Op::Add, Leaf::Int, {op1(Op::Sub, Leaf::Int, {end, start}), stride}),
                                   everywhere(scalar(Leaf::Int, 1))});
        Value count = op1(Op::Div, Leaf::Int, {span, stride});
        Value segdes = make_segdes(count);
        return {segdes, op1(Op::Index, {start, stride, segdes})};
      }
      case PrimitiveKind::Pack: {
        Value segdes = args[0][0];
        Value flags = args[1][1];
        Value kept = op(Op::Pack, Leaf::Bool, {flags, flags, segdes})[1];
        Leaves result = {kept};
        Leaves rest = pack_value(element_type(types[0]), slice(args[0], 1, args[0].size() - 1), flags,
                                 total_context(segdes, context()));
        result.insert(result.end(), rest.begin(), rest.end());
        return result;
      }
      case PrimitiveKind::Get: {
        Value outer = context();
        Value source = args[0][0];
        Value wanted = args[1][0];
        Value positions = checked_positions(source, wanted, args[1][1], outer,
                                            "Index out of bounds for function ->.");
        Leaves result = {wanted};
        Leaves rest = gather(element_type(types[0]), slice(args[0], 1, args[0].size() - 1), positions,
                             total_context(source, outer), total_context(wanted, outer));
        result.insert(result.end(), rest.begin(), rest.end());
        return result;
      }
      case PrimitiveKind::Put: {
        require_scalar_leaves(types[0], e.name);
        Value outer = context();
        Value target = args[0][0];
        Value pairs = args[1][0];
        Value pairs_context = total_context(pairs, outer);
        Value positions = checked_positions(target, pairs, args[1][1], outer,
                                            "Index out of bounds for function <-.");
        // Each leaf of the elements (a tuple's components side by side) is scattered alike.
        Value target_context = total_context(target, outer);
        Leaves result = {target};
        for (std::size_t j = 1; j < args[0].size(); ++j) {
          Leaf leaf = leaf_of(args[0][j]);
          result.push_back(op1(Op::DPermute, leaf, {args[1][j + 1], positions, args[0][j], pairs_context, target_context}));
        }
        return result;
      }
      case PrimitiveKind::CondPut:
      case PrimitiveKind::FlagPermute: {
        require_flat(types[0], e.name);
        Leaf leaf = leaf_of(args[0][1]);
        Value source = args[0][0];
        Value target = args[3][0];
        Value flags = args[2][1];
        if (p.kind == PrimitiveKind::FlagPermute) {
          return {target, op1(Op::FPermute, leaf, {args[0][1], args[1][1], flags, source, target})};
        }
        Leaves values = op(Op::Pack, leaf, {args[0][1], flags, source});
        Value indices = op(Op::Pack, Leaf::Int, {args[1][1], flags, source})[0];
        return {target, op1(Op::DPermute, leaf, {values[0], indices, args[3][1], values[1], target})};
      }
      case PrimitiveKind::Flatten: {
        Value totals = op1(Op::PlusReduce, Leaf::Int, {lengths(args[0][1]), args[0][0]});
        Leaves result = {make_segdes(totals)};
        Leaves rest = slice(args[0], 2, args[0].size() - 2);
        result.insert(result.end(), rest.begin(), rest.end());
        return result;
      }
      case PrimitiveKind::Partition: {
        Value outer = context();
        Value wanted = args[1][0];
        Value sizes = args[1][1];
        if (options_.argument_checks) {
          Value sums = op1(Op::PlusReduce, Leaf::Int, {sizes, wanted});
          Value mismatch = op1(Op::NotEqual, Leaf::Int, {sums, lengths(args[0][0])});
          check(mismatch, "Length mismatch in function PARTITION.");
        }
        (void)outer;
        Leaves result = {wanted, make_segdes(sizes)};
        Leaves rest = slice(args[0], 1, args[0].size() - 1);
        result.insert(result.end(), rest.begin(), rest.end());
        return result;
      }
      case PrimitiveKind::Replace: {
        require_scalar_leaves(types[0], e.name);
        Leaves result = {args[0][0]};
        for (std::size_t j = 1; j < args[0].size(); ++j) {
          Leaf leaf = leaf_of(args[0][j]);
          result.push_back(op1(Op::Replace, leaf, {args[0][j], args[2][0], args[1][j - 1], args[0][0]}));
        }
        return result;
      }
      case PrimitiveKind::Rand: {
        Leaf leaf = leaf_of(first());
        if (options_.argument_checks) {
          Value bad = op1(Op::LessEq, leaf, {first(), everywhere(zero_of(leaf))});
          check(bad, "Rand only works with positive numbers.");
        }
        if (leaf == Leaf::Int) return {op1(Op::Rand, {first()})};
        // A float draw scales an int draw below 2^30, as the classic does.
        Value scale = everywhere(scalar(Leaf::Int, 1073741824));
        Value draw = op1(Op::IntToFloat, {op1(Op::Rand, {scale})});
        Value fraction = op1(Op::Div, Leaf::Float, {draw, op1(Op::IntToFloat, {scale})});
        return {op1(Op::Mul, Leaf::Float, {first(), fraction})};
      }
      case PrimitiveKind::OneLike: {
        Leaf leaf = leaf_of(first());
        return {everywhere(scalar(leaf, 1))};
      }
      case PrimitiveKind::ZeroLike: return zero_value(element_type(types[0]));
      case PrimitiveKind::ArgCheck: {
        if (options_.argument_checks) check(first(), std::string(p.message));
        return {first()};
      }
      case PrimitiveKind::Permute: {
        Value segdes = args[0][0];
        Leaves result = {segdes};
        Leaves rest = permute_elements(element_type(types[0]), slice(args[0], 1, args[0].size() - 1), args[1][1], segdes);
        result.insert(result.end(), rest.begin(), rest.end());
        return result;
      }
      case PrimitiveKind::Timer: {
        if (p.op == Op::StartTimer) {
          op(Op::StartTimer, {});
          return {everywhere(zero_of(Leaf::Int))};
        }
        return {op1(Op::StopTimer, {})};
      }
      case PrimitiveKind::Append: {
        Value outer = context();
        Value left_lengths = lengths(args[0][0]);
        Value right_lengths = lengths(args[1][0]);
        Value sizes = op1(Op::Add, Leaf::Int, {left_lengths, right_lengths});
        Value segdes = make_segdes(sizes);
        Value starts = op1(Op::PlusScan, Leaf::Int, {sizes, outer});
        Value right_starts = op1(Op::Add, Leaf::Int, {starts, left_lengths});
        Value ones = everywhere(scalar(Leaf::Int, 1));
        std::vector<Part> parts = {
            {slice(args[0], 1, args[0].size() - 1), op1(Op::Index, {starts, ones, args[0][0]}),
             total_context(args[0][0], outer)},
            {slice(args[1], 1, args[1].size() - 1), op1(Op::Index, {right_starts, ones, args[1][0]}),
             total_context(args[1][0], outer)}};
        Leaves result = {segdes};
        Leaves rest = merge(element_type(types[0]), parts, total_context(segdes, outer));
        result.insert(result.end(), rest.begin(), rest.end());
        return result;
      }
      case PrimitiveKind::Print: {
        op(Op::Write, vcode::TypeKeyword::Char, {args[0][1]});
        return {everywhere(scalar(Leaf::Bool, 1))};
      }
      case PrimitiveKind::WriteString: {
        Leaves status = op(Op::FWrite, vcode::TypeKeyword::Char, {args[0][1], args[1][0]});
        return {status[1], sized(status[0]), status[0]};
      }
      case PrimitiveKind::ReadLine: {
        Value delimiters = constant(newline_delimiter());
        Value no_limit = constant(scalar(Leaf::Int, -1));
        Leaves read = op(Op::FReadChar, {delimiters, no_limit, first()});
        Value at_end = op1(Op::Equal, Leaf::Int, {read[1], constant(scalar(Leaf::Int, -1))});
        return {sized(read[0]), read[0], at_end, read[3], sized(read[2]), read[2]};
      }
      case PrimitiveKind::WriteObject: {
        auto [ok, message] = write_leaves(args[0], args[1][0]);
        return {ok, sized(message), message};
      }
      case PrimitiveKind::ReadObject: {
        Leaves result = read_leaves(args[0], args[1][0]);
        Value message = result.back();
        result.pop_back();
        result.insert(result.end(), {sized(message), message});
        return result;
      }
      case PrimitiveKind::Spawn: {
        Leaves started = op(Op::Spawn, {args[0][1], args[1][0], args[2][0], args[3][0]});
        return {started[2], started[1], started[0], started[4], sized(started[3]), started[3]};
      }
      case PrimitiveKind::OpenFile: {
        Value mode = int_constant(p.file_mode);
        Leaves opened = op(Op::FOpen, {args[0][1], mode});
        return {opened[0], opened[2], sized(opened[1]), opened[1]};
      }
      case PrimitiveKind::CloseFile: {
        Leaves closed = op(Op::FClose, {first()});
        return {closed[1], sized(closed[0]), closed[0]};
      }
      case PrimitiveKind::ReadString: {
        Leaves read = op(Op::FReadChar, {args[0][1], args[1][0], args[2][0]});
        return {sized(read[0]), read[0], read[1], read[3], sized(read[2]), read[2]};
      }
      case PrimitiveKind::UserError: {
        Value prefix = constant(characters("ERROR: "));
        op(Op::Write, vcode::TypeKeyword::Char, {prefix});
        op(Op::Write, vcode::TypeKeyword::Char, {args[0][1]});
        Value newline = constant(characters("\n"));
        op(Op::Write, vcode::TypeKeyword::Char, {newline});
        op(Op::Exit, {});
        return {everywhere(zero_of(Leaf::Bool))};
      }
    }
    throw CompileError({}, "internal error: unknown primitive " + e.name);
  }

  // Writes each leaf, segdes included, in order: whether all went well, and the last message.
  std::pair<Value, Value> write_leaves(const Leaves& leaves, Value stream) {
    Value ok = -1, message = -1;
    for (Value leaf : leaves) {
      Leaves status = op(Op::FWrite, leaf_of(leaf), {leaf, stream});
      ok = ok < 0 ? status[1] : op1(Op::And, Leaf::Bool, {ok, status[1]});
      message = status[0];
    }
    return {ok, message};
  }

  // Reads a value of the leaves' kinds, in order; then whether all went well and the last message.
  Leaves read_leaves(const Leaves& like, Value stream) {
    Leaves result;
    Value ok = -1, message = -1;
    for (Value leaf : like) {
      Leaf kind = leaf_of(leaf);
      Leaves read = op(Op::FRead, kind, {stream});
      result.push_back(read[0]);
      ok = ok < 0 ? read[2] : op1(Op::And, Leaf::Bool, {ok, read[2]});
      message = read[1];
    }
    result.push_back(ok);
    result.push_back(message);
    return result;
  }

  // The segdes of a string an I/O instruction left as a bare vector of codes.
  Value sized(Value codes) { return make_segdes(op1(Op::Length, Leaf::Int, {codes})); }

  // Elements that are base values or tuples of them: one leaf per component, no segdes.
  static void require_scalar_leaves(const Type& sequence, const std::string& name) {
    for (Leaf leaf : leaves_of(element_type(sequence))) {
      if (leaf == Leaf::Segdes) {
        throw CompileError({}, "not supported yet: " + name + " of a sequence of " +
                                   print_type(element_type(sequence)));
      }
    }
  }

  static void require_flat(const Type& sequence, const std::string& name) {
    if (resolve(element_type(sequence))->kind != TypeNode::Kind::Base) {
      throw CompileError({}, "not supported yet: " + name + " of a sequence of " +
                                 print_type(element_type(sequence)));
    }
  }

  const core::Program& program_;
  FlattenOptions options_;
  std::map<std::string, const core::Function*> functions_;
  std::set<std::string> requested_;
  std::deque<std::pair<std::string, bool>> pending_;
  std::map<std::string, flat::Function> error_functions_;
  flat::Function* current_ = nullptr;
  flat::Block* block_ = nullptr;
  Location where_;  // where the statements being made come from
  Value context_ = -1;
  std::vector<Variable> env_;
  std::vector<HoistScope*> hoist_;  // innermost last; null where hoisting must stop
};

}  // namespace

flat::Program flatten(const core::Program& program, const FlattenOptions& options) {
  return Flattener(program, options).run();
}

}  // namespace nesl
