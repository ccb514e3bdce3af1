#include "nesl/flat.hpp"

#include <map>
#include <set>
#include <sstream>

namespace nesl::flat {

const char* leaf_keyword(Leaf leaf) {
  switch (leaf) {
    case Leaf::Int: return "INT";
    case Leaf::Float: return "FLOAT";
    case Leaf::Bool: return "BOOL";
    case Leaf::Segdes: return "SEGDES";
  }
  return "?";
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

void print_block(std::ostream& out, const Function& function, const Block& block, int indent) {
  std::string pad(indent, ' ');
  for (const Statement& s : block) {
    out << pad;
    if (!s.outputs.empty()) out << names(function, s.outputs) << " = ";
    switch (s.kind) {
      case Statement::Kind::Op: out << s.text << " " << names(function, s.inputs) << "\n"; break;
      case Statement::Kind::Const: out << "CONST " << s.text << "\n"; break;
      case Statement::Kind::Call: out << "CALL " << s.text << " " << names(function, s.inputs) << "\n"; break;
      case Statement::Kind::Exit: out << "EXIT\n"; break;
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

  void define(Value v, std::vector<Value>& scope) {
    if (v < 0 || v >= static_cast<int>(defined_.size())) return fail("value out of range");
    if (defined_[v]) fail(value_name(v) + " defined twice");
    defined_[v] = true;
    visible_[v] = true;
    scope.push_back(v);
  }

  void uses(const std::vector<Value>& values) {
    for (Value v : values) {
      if (v < 0 || v >= static_cast<int>(visible_.size()) || !visible_[v])
        fail(value_name(v) + " used where it is not defined");
    }
  }

  void block(const Block& statements, std::vector<Value>& scope) {
    for (const Statement& s : statements) {
      uses(s.inputs);
      if (s.kind == Statement::Kind::Call && !functions_.count(s.text)) fail("call of unknown " + s.text);
      if (s.kind == Statement::Kind::If) {
        if (s.inputs.size() != 1 || function_->leaves[s.inputs[0]] != Leaf::Bool) fail("IF needs one BOOL");
        for (auto [arm, results] : {std::pair{&s.then_block, &s.then_results},
                                    std::pair{&s.else_block, &s.else_results}}) {
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
            if (function_->leaves[(*results)[i]] != function_->leaves[s.outputs[i]]) {
              fail("an IF arm yields a value of another kind");
            }
          }
        }
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
