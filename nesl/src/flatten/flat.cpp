#include "nesl/flat.hpp"

#include <set>
#include <sstream>

#include "vcode/printer.hpp"

namespace nesl::flat {

vcode::TypeKeyword keyword_of(Leaf leaf) {
  switch (leaf) {
    case Leaf::Float: return vcode::TypeKeyword::Float;
    case Leaf::Bool: return vcode::TypeKeyword::Bool;
    case Leaf::Segdes: return vcode::TypeKeyword::Segdes;
    case Leaf::Int: break;
  }
  return vcode::TypeKeyword::Int;
}

Leaf leaf_of(vcode::TypeKeyword keyword) {
  switch (keyword) {
    case vcode::TypeKeyword::Float: return Leaf::Float;
    case vcode::TypeKeyword::Bool: return Leaf::Bool;
    case vcode::TypeKeyword::Segdes: return Leaf::Segdes;
    case vcode::TypeKeyword::Int:
    case vcode::TypeKeyword::Char: break;
  }
  return Leaf::Int;
}

const char* leaf_keyword(Leaf leaf) {
  switch (leaf) {
    case Leaf::Int: return "INT";
    case Leaf::Float: return "FLOAT";
    case Leaf::Bool: return "BOOL";
    case Leaf::Segdes: return "SEGDES";
  }
  return "?";
}

std::vector<Leaf> result_leaves(vcode::Op op, std::optional<vcode::TypeKeyword> type) {
  std::vector<Leaf> leaves;
  const vcode::TypeKeyword given = type.value_or(vcode::implied_type(op));
  for (char letter : vcode::info(op).results) {
    leaves.push_back(leaf_of(vcode::letter_type(letter, given).value_or(given)));
  }
  return leaves;
}

namespace {

std::string value_name(Value v) {
  std::string name = "v";
  name += std::to_string(v);
  return name;
}

std::string names(const Function& function, const std::vector<Value>& values) {
  std::string text;
  for (Value v : values) {
    if (!text.empty()) text += ' ';
    text += value_name(v);
    text += ':';
    text += leaf_keyword(function.leaves[v]);
  }
  return text;
}

std::string operation_text(const Statement& s) {
  std::string text(vcode::spelling(s.op));
  if (s.type) {
    text += ' ';
    text += vcode::keyword_name(*s.type);
  }
  return text;
}

void print_block(std::ostream& out, const Function& function, const Block& block, int indent) {
  std::string pad(indent, ' ');
  for (const Statement& s : block) {
    out << pad;
    if (!s.outputs.empty()) out << names(function, s.outputs) << " = ";
    switch (s.kind) {
      case Statement::Kind::Op: out << operation_text(s) << " " << names(function, s.inputs) << "\n"; break;
      case Statement::Kind::Const: out << "CONST " << vcode::constant_text(s.constant) << "\n"; break;
      case Statement::Kind::Call: out << "CALL " << s.callee << " " << names(function, s.inputs) << "\n"; break;
      case Statement::Kind::If:
        out << "IF " << names(function, s.inputs) << "\n";
        print_block(out, function, s.then_block, indent + 2);
        out << pad << "  yield " << names(function, s.then_results) << "\n" << pad << "ELSE\n";
        print_block(out, function, s.else_block, indent + 2);
        out << pad << "  yield " << names(function, s.else_results) << "\n" << pad << "ENDIF\n";
        break;
    }
  }
}

// Whether an opcode is an operation on vectors the flat IR may hold: the stack, control and
// structure opcodes are lower's to write (EXIT is the one control opcode that is an operation).
bool flat_operation(vcode::Op op) {
  switch (vcode::info(op).family) {
    case vcode::Family::Stack:
    case vcode::Family::Structure:
    case vcode::Family::Fused: return false;
    case vcode::Family::Control: return op == vcode::Op::Exit;
    default: return true;
  }
}

class Verifier {
 public:
  explicit Verifier(const Program& program) {
    for (const Function& f : program.functions) functions_.insert(f.name);
  }

  void function(const Function& f) {
    function_ = &f;
    defined_.assign(f.leaves.size(), false);
    visible_.assign(f.leaves.size(), false);
    std::vector<Value> scope;
    for (Value v : f.parameters) define(v, scope);
    block(f.body, scope);
    uses(f.results);
  }

  std::vector<std::string> problems;

 private:
  void fail(const std::string& what) { problems.push_back(function_->name + ": " + what); }

  bool in_range(Value v) const { return v >= 0 && v < static_cast<int>(defined_.size()); }

  void define(Value v, std::vector<Value>& scope) {
    if (!in_range(v)) return fail("value out of range");
    if (defined_[v]) fail(value_name(v) + " defined twice");
    defined_[v] = true;
    visible_[v] = true;
    scope.push_back(v);
  }

  void uses(const std::vector<Value>& values) {
    for (Value v : values) {
      if (!in_range(v) || !visible_[v]) fail(value_name(v) + " used where it is not defined");
    }
  }

  // The operands and results of an operation against ops.def's letters for its type.
  void operation(const Statement& s) {
    const vcode::OpInfo& info = vcode::info(s.op);
    // The operation's text, only when there is a problem to name it in.
    const auto what = [&] { return operation_text(s); };
    if (!flat_operation(s.op)) return fail(what() + " is not an operation of the flat IR");
    const bool typed = info.syntax == vcode::Syntax::Type;
    if (typed != s.type.has_value()) {
      return fail(what() + (typed ? " needs a type keyword" : " takes no type keyword"));
    }
    if (s.type && !(info.type_set & vcode::typeset::bit(*s.type))) return fail(what() + ": a type it does not take");
    const vcode::TypeKeyword given = s.type.value_or(vcode::implied_type(s.op));
    if (s.inputs.size() != info.args.size()) {
      return fail(what() + " takes " + std::to_string(info.args.size()) + " operands, given " +
                  std::to_string(s.inputs.size()));
    }
    for (std::size_t k = 0; k < s.inputs.size(); ++k) {
      if (!in_range(s.inputs[k])) continue;
      const Leaf leaf = function_->leaves[s.inputs[k]];
      const std::optional<vcode::TypeKeyword> wanted = vcode::letter_type(info.args[k], given);
      const bool fits = wanted ? leaf == leaf_of(*wanted) : leaf != Leaf::Segdes;  // V: any vector
      if (!fits) {
        fail(what() + ": operand " + std::to_string(k) + " (" + value_name(s.inputs[k]) + ") is " +
             leaf_keyword(leaf));
      }
    }
    const std::vector<Leaf> results = result_leaves(s.op, s.type);
    if (s.outputs.size() != results.size()) {
      return fail(what() + " gives " + std::to_string(results.size()) + " results");
    }
    for (std::size_t k = 0; k < results.size(); ++k) {
      if (in_range(s.outputs[k]) && function_->leaves[s.outputs[k]] != results[k]) {
        fail(what() + ": result " + std::to_string(k) + " is " + leaf_keyword(results[k]) + ", not " +
             leaf_keyword(function_->leaves[s.outputs[k]]));
      }
    }
  }

  void constant(const Statement& s) {
    if (!s.inputs.empty() || s.outputs.size() != 1) return fail("a constant takes nothing and gives one value");
    if (in_range(s.outputs[0]) && function_->leaves[s.outputs[0]] != leaf_of(s.constant.type)) {
      fail("CONST " + vcode::constant_text(s.constant) + " gives a " + leaf_keyword(function_->leaves[s.outputs[0]]));
    }
  }

  void if_arms(const Statement& s, std::vector<Value>& scope) {
    if (s.inputs.size() != 1 || !in_range(s.inputs[0]) || function_->leaves[s.inputs[0]] != Leaf::Bool) {
      fail("IF needs one BOOL");
    }
    for (auto [arm, results] :
         {std::pair{&s.then_block, &s.then_results}, std::pair{&s.else_block, &s.else_results}}) {
      // What the arm defines is visible in it only.
      const std::size_t mark = scope.size();
      block(*arm, scope);
      uses(*results);
      for (std::size_t i = mark; i < scope.size(); ++i) visible_[scope[i]] = false;
      scope.resize(mark);
      if (results->size() != s.outputs.size()) {
        fail("an IF arm yields " + std::to_string(results->size()) + " values for " +
             std::to_string(s.outputs.size()) + " outputs");
        continue;
      }
      for (std::size_t i = 0; i < results->size(); ++i) {
        if (in_range((*results)[i]) && in_range(s.outputs[i]) &&
            function_->leaves[(*results)[i]] != function_->leaves[s.outputs[i]]) {
          fail("an IF arm yields a value of another kind");
        }
      }
    }
  }

  void block(const Block& statements, std::vector<Value>& scope) {
    for (const Statement& s : statements) {
      uses(s.inputs);
      switch (s.kind) {
        case Statement::Kind::Op: operation(s); break;
        case Statement::Kind::Const: constant(s); break;
        case Statement::Kind::Call:
          if (!functions_.count(s.callee)) fail("call of unknown " + s.callee);
          break;
        case Statement::Kind::If: if_arms(s, scope); break;
      }
      for (Value v : s.outputs) define(v, scope);
    }
  }

  std::set<std::string> functions_;
  const Function* function_ = nullptr;
  std::vector<bool> defined_;
  std::vector<bool> visible_;  // defined in the scope being checked
};

}  // namespace

std::string print_program(const Program& program) {
  std::ostringstream out;
  for (const Function& f : program.functions) {
    out << "function " << f.name << "(" << names(f, f.parameters) << ")\n";
    print_block(out, f, f.body, 2);
    out << "  return " << names(f, f.results) << "\n\n";
  }
  return out.str();
}

std::vector<std::string> verify_program(const Program& program) {
  Verifier verifier(program);
  for (const Function& f : program.functions) verifier.function(f);
  return verifier.problems;
}

}  // namespace nesl::flat
