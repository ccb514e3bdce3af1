#include "nesl/printer.hpp"

#include "syntax/enclose.hpp"

namespace nesl {
namespace {



// How tightly each node binds, on the parser's scale: a child printed where the parser reads
// at power p needs parentheses when its level is not above p (printing asks for level >= p+1).
int binary_level(const std::string& op) {
  if (op == "or" || op == "nor" || op == "xor") return 7;
  if (op == "and" || op == "nand") return 8;
  if (op == "==" || op == "/=" || op == "<" || op == ">" || op == "<=" || op == ">=") return 10;
  if (op == "+" || op == "-" || op == "++") return 20;
  if (op == "*" || op == "/" || op == "||") return 21;
  if (op == "^") return 22;
  if (op == "<-") return 23;
  if (op == "->") return 24;
  return 0;
}

int level(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::Pair: return 4;
    case ExprKind::Binary: return binary_level(expr.text);
    case ExprKind::Unary: return 25;
    case ExprKind::Call:
    case ExprKind::Index: return 30;
    // if and let read their last part as far as it goes, so anything after them needs parentheses
    case ExprKind::If:
    case ExprKind::Let: return 3;
    default: return 100;
  }
}

std::string print(const Expr& expr, int minimum_level);

// Tuples in patterns, bound values and bodies keep their parentheses, as people write them.
std::string print_grouped(const Expr& expr) {
  std::string text = print(expr, 0);
  return expr.kind == ExprKind::Pair ? enclose('(', text, ')') : text;
}

std::string quote_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string print_unparenthesized(const Expr& expr) {
  const auto& c = expr.children;
  switch (expr.kind) {
    case ExprKind::Integer:
    case ExprKind::Float:
    case ExprKind::Variable: return expr.text;
    case ExprKind::Character: return "`" + expr.text;
    case ExprKind::String: return quote_string(expr.text);
    case ExprKind::Pair: return print(*c[0], 5) + ", " + print(*c[1], 4);
    case ExprKind::Call: return print(*c[0], 30) + enclose('(', print(*c[1], 0), ')');
    case ExprKind::Index: return print(*c[0], 30) + enclose('[', print(*c[1], 0), ']');
    case ExprKind::Binary: {
      int op_level = binary_level(expr.text);
      bool right_associative = expr.text == "->";
      std::string left = print(*c[0], right_associative ? op_level + 1 : op_level);
      std::string right = print(*c[1], right_associative ? op_level : op_level + 1);
      return left + " " + expr.text + " " + right;
    }
    case ExprKind::Unary: {
      // A prefix operator's operand may itself start with one without parentheses.
      const Expr& operand = *c[0];
      std::string inner = operand.kind == ExprKind::Unary ? print_unparenthesized(operand)
                                                          : print(operand, 26);
      return expr.text + inner;
    }
    case ExprKind::If:
      return "if " + print(*c[0], 0) + " then " + print(*c[1], 0) + " else " + print(*c[2], 0);
    case ExprKind::Let: {
      std::string out = "let ";
      for (std::size_t i = 0; i < expr.bindings.size(); ++i) {
        if (i > 0) out += "; ";
        out += print_grouped(*expr.bindings[i].pattern) + " = " + print_grouped(*expr.bindings[i].value);
      }
      return out + " in " + print_grouped(*c[0]);
    }
    case ExprKind::Over: {
      std::string out = "{";
      if (c[0]) out += print(*c[0], 0) + " : ";
      for (std::size_t i = 0; i < expr.bindings.size(); ++i) {
        if (i > 0) out += "; ";
        out += print_grouped(*expr.bindings[i].pattern) + " in " + print(*expr.bindings[i].value, 0);
      }
      if (c[1]) out += " | " + print(*c[1], 0);
      return out + "}";
    }
    case ExprKind::Sequence: {
      std::string out = "[";
      for (std::size_t i = 0; i < c.size(); ++i) {
        if (i > 0) out += ", ";
        out += print(*c[i], 5);
      }
      return out + "]";
    }
    case ExprKind::Empty: return "[] " + print_type_expression(*expr.type);
    case ExprKind::Lambda:
      return "(" + print_grouped(*expr.bindings[0].pattern) + " => " + print(*c[0], 0) + ")";
    case ExprKind::Range: {
      std::string out = "[";
      out += print(*c[0], 5);
      out += ':';
      out += print(*c[1], 0);
      if (c.size() > 2) {
        out += ':';
        out += print(*c[2], 0);
      }
      return out + "]";
    }
  }
  return "?";
}

std::string print(const Expr& expr, int minimum_level) {
  std::string text = print_unparenthesized(expr);
  return level(expr) < minimum_level ? enclose('(', text, ')') : text;
}

int type_level(const TypeExpr& type) {
  switch (type.kind) {
    case TypeExpr::Kind::Pair: return 4;
    case TypeExpr::Kind::Function: return 24;
    default: return 100;
  }
}

std::string print_type(const TypeExpr& type, int minimum_level) {
  std::string text;
  const auto& c = type.children;
  switch (type.kind) {
    case TypeExpr::Kind::Name:
      text = type.name;
      if (!c.empty()) {
        text += "(";
        for (std::size_t i = 0; i < c.size(); ++i) text += (i ? ", " : "") + print_type(*c[i], 5);
        text += ")";
      }
      break;
    // A tuple element keeps its parentheses, as the classic writes `[(int, bool)]`.
    case TypeExpr::Kind::Sequence: text = enclose('[', print_type(*c[0], 5), ']'); break;
    case TypeExpr::Kind::Pair: {
      // A function type inside a tuple keeps its parentheses, as the basis writes `((a -> b), [a])`.
      auto component = [](const TypeExpr& part, int level) {
        return part.kind == TypeExpr::Kind::Function ? enclose('(', print_type(part, 0), ')')
                                                     : print_type(part, level);
      };
      text = component(*c[0], 5) + ", " + component(*c[1], 4);
      break;
    }
    case TypeExpr::Kind::Function:
      text = print_type(*c[0], 25) + " -> " + print_type(*c[1], 24);
      break;
  }
  return type_level(type) < minimum_level ? enclose('(', text, ')') : text;
}

std::string print_context(const std::vector<TypeContextEntry>& context) {
  if (context.empty()) return "";
  std::string out = " :: (";
  for (std::size_t i = 0; i < context.size(); ++i) {
    if (i > 0) out += "; ";
    out += context[i].variable + " in " + context[i].type_class;
  }
  return out + ")";
}

}  // namespace

std::string print_expression(const Expr& expr) { return print(expr, 0); }

std::string print_type_expression(const TypeExpr& type) { return print_type(type, 100); }

std::string print_type_signature(const TypeSignature& signature) {
  return print_type(*signature.type, 0) + print_context(signature.context);
}

std::string print_form(const TopLevelForm& form) {
  switch (form.kind) {
    case TopLevelForm::Kind::Function: {
      const FunctionDefinition& function = form.function;
      std::string out = "function " + function.name + enclose('(', print(*function.arguments, 0), ')');
      if (function.signature) {
        out += " : " + print_type(*function.signature->type, 0) +
               print_context(function.signature->context);
      }
      if (!function.documentation.empty()) out += " " + quote_string(function.documentation);
      return out + " = " + print_grouped(*function.body) + ";";
    }
    case TopLevelForm::Kind::Datatype:
      return "datatype " + form.datatype.name + "(" + print_type(*form.datatype.fields.type, 0) +
             ")" + print_context(form.datatype.fields.context) + ";";
    case TopLevelForm::Kind::Binding:
      return print_grouped(*form.binding.pattern) + " = " + print_grouped(*form.binding.value) + ";";
    case TopLevelForm::Kind::Expression: return print(*form.expression.value, 0) + ";";
    case TopLevelForm::Kind::Setting: return "set " + form.setting.name + " " + form.setting.value + ";";
  }
  return "";
}

std::string print_program(const Program& program) {
  std::string out;
  for (const TopLevelForm& form : program.forms) out += print_form(form) + "\n";
  return out;
}

}  // namespace nesl
