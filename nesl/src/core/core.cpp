#include "nesl/core.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>
#include <unordered_map>

namespace nesl::core {

ExprPtr make(Kind kind, Type type) {
  auto expr = std::make_shared<Expr>();
  expr->kind = kind;
  expr->type = std::move(type);
  return expr;
}

namespace {

std::string print_pattern(const Pattern& pattern) {
  if (pattern.kind == Pattern::Kind::Variable) return pattern.name;
  std::string text = "(";
  text += print_pattern(*pattern.children[0]);
  text += ", ";
  text += print_pattern(*pattern.children[1]);
  return text + ")";
}

void print_expr(std::ostream& out, const Expr& expr, int indent) {
  std::string pad(indent, ' ');
  const auto& c = expr.children;
  switch (expr.kind) {
    case Kind::Constant: out << expr.text; return;
    case Kind::Variable: out << expr.name; return;
    case Kind::Pair:
      out << "(";
      print_expr(out, *c[0], indent);
      out << ", ";
      print_expr(out, *c[1], indent);
      out << ")";
      return;
    case Kind::Let:
      out << "let " << print_pattern(*expr.pattern) << " = ";
      print_expr(out, *c[0], indent + 2);
      out << " in\n" << pad;
      print_expr(out, *c[1], indent);
      return;
    case Kind::If:
      out << "if ";
      print_expr(out, *c[0], indent);
      out << "\n" << pad << "then ";
      print_expr(out, *c[1], indent + 5);
      out << "\n" << pad << "else ";
      print_expr(out, *c[2], indent + 5);
      return;
    case Kind::Call:
    case Kind::Primitive:
      out << (expr.kind == Kind::Call ? "" : "%") << expr.name << "(";
      print_expr(out, *c[0], indent);
      out << ")";
      return;
    case Kind::Over:
      out << "{";
      print_expr(out, *c[0], indent + 1);
      out << " : ";
      for (std::size_t i = 0; i < expr.generators.size(); ++i) {
        out << (i ? "; " : "") << print_pattern(*expr.generators[i].pattern) << " in ";
        print_expr(out, *expr.generators[i].sequence, indent + 1);
      }
      out << "}";
      return;
    case Kind::Sequence:
      out << "[";
      for (std::size_t i = 0; i < c.size(); ++i) {
        if (i) out << ", ";
        print_expr(out, *c[i], indent);
      }
      out << "]";
      return;
    case Kind::Empty: out << "[] " << print_type(resolve(expr.type)->children[0]); return;
  }
}

bool is_atom(const Expr& expr) { return expr.kind == Kind::Variable || expr.kind == Kind::Constant; }

// Operands must be atoms in ANF; the parts of a pair may be pairs of atoms.
bool is_operand(const Expr& expr) {
  if (expr.kind == Kind::Pair) return is_operand(*expr.children[0]) && is_operand(*expr.children[1]);
  return is_atom(expr);
}

bool is_concrete(const Type& type) {
  Type t = resolve(type);
  if (!t || t->kind == TypeNode::Kind::Variable || t->kind == TypeNode::Kind::Datatype) return false;
  for (const Type& child : t->children) {
    if (!is_concrete(child)) return false;
  }
  return true;
}

class Verifier {
 public:
  Verifier(const Program& program, bool anf) : anf_(anf) {
    for (const Function& function : program.functions) functions_.insert(function.name);
  }

  void function(const Function& function) {
    scope_.clear();
    bound_.clear();
    where_ = function.name;
    bind(*function.parameter);
    expr(*function.body);
  }

  void main(const Expr& body) {
    scope_.clear();
    bound_.clear();
    where_ = "main";
    expr(body);
  }

  std::vector<std::string> problems;

 private:
  void fail(const std::string& what) { problems.push_back(where_ + ": " + what); }

  void bind(const Pattern& pattern) {
    if (pattern.kind == Pattern::Kind::Variable) {
      scope_.push_back(pattern.name);
      ++bound_[pattern.name];
      if (!is_concrete(pattern.type)) fail("pattern variable " + pattern.name + " has no concrete type");
      return;
    }
    for (const auto& child : pattern.children) bind(*child);
  }

  // Drops the names bound after the first `mark`.
  void unbind(std::size_t mark) {
    for (; scope_.size() > mark; scope_.pop_back()) {
      auto found = bound_.find(scope_.back());
      if (--found->second == 0) bound_.erase(found);
    }
  }

  void operand(const Expr& e) {
    if (anf_ && !is_operand(e)) fail("an operand is not a variable or constant");
    expr(e);
  }

  void expr(const Expr& e) {
    if (!is_concrete(e.type)) fail("an expression has no concrete type");
    const auto& c = e.children;
    switch (e.kind) {
      case Kind::Constant: return;
      case Kind::Variable:
        if (!bound_.count(e.name)) fail("unbound " + e.name);
        return;
      case Kind::Pair: expr(*c[0]); expr(*c[1]); return;
      case Kind::Let: {
        expr(*c[0]);
        std::size_t mark = scope_.size();
        bind(*e.pattern);
        expr(*c[1]);
        unbind(mark);
        return;
      }
      case Kind::If: operand(*c[0]); expr(*c[1]); expr(*c[2]); return;
      case Kind::Call:
        if (!functions_.count(e.name)) fail("call of the unknown instance " + e.name);
        operand(*c[0]);
        return;
      case Kind::Primitive: operand(*c[0]); return;
      case Kind::Over: {
        if (e.generators.empty()) fail("an apply-to-each without generators");
        for (const Generator& g : e.generators) operand(*g.sequence);
        std::size_t mark = scope_.size();
        for (const Generator& g : e.generators) bind(*g.pattern);
        expr(*c[0]);
        unbind(mark);
        return;
      }
      case Kind::Sequence:
        if (c.empty()) fail("an empty sequence literal");
        for (const ExprPtr& element : c) operand(*element);
        return;
      case Kind::Empty: return;
    }
  }

  bool anf_;
  std::set<std::string> functions_;
  std::vector<std::string> scope_;
  // How many of scope_'s entries have each name: a body of many lets is checked in linear time.
  std::unordered_map<std::string, int> bound_;
  std::string where_;
};

}  // namespace

std::string print_program(const Program& program) {
  std::ostringstream out;
  for (const Function& function : program.functions) {
    out << "function " << function.name << "(" << print_pattern(*function.parameter) << ") : "
        << print_type(function.result) << " =\n  ";
    print_expr(out, *function.body, 2);
    out << ";\n\n";
  }
  out << "main =\n  ";
  print_expr(out, *program.main, 2);
  out << ";\n";
  return out.str();
}

std::vector<std::string> verify_program(const Program& program, bool anf) {
  Verifier verifier(program, anf);
  for (const Function& function : program.functions) verifier.function(function);
  verifier.main(*program.main);
  return verifier.problems;
}

}  // namespace nesl::core
