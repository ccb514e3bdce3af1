#include "vcode/superop_parse.hpp"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace vcode {
namespace {

using Kind = SuperOpNode::Kind;

// Deeper nesting than this is refused rather than risking the parser's stack: even with
// AddressSanitizer's larger frames it stays within half the usual 8 MB. fcode-opt's
// superoperators are far shallower.
constexpr int kMaxDepth = 2000;

struct SyntaxError {};  // unwinds to parse_superop after the diagnostic is recorded

std::optional<TypeKeyword> type_word(const Token& t) {
  if (t.kind != TokenKind::Word) return std::nullopt;
  if (t.text == "INT") return TypeKeyword::Int;
  if (t.text == "BOOL") return TypeKeyword::Bool;
  if (t.text == "FLOAT") return TypeKeyword::Float;
  if (t.text == "SEGDES") return TypeKeyword::Segdes;
  if (t.text == "CHAR") return TypeKeyword::Char;
  return std::nullopt;
}

// A decimal number in [min, max], else nullopt.
std::optional<std::int64_t> bounded_integer(std::string_view text, std::int64_t min,
                                            std::int64_t max) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    return std::nullopt;
  return value;
}

class DefinitionParser {
 public:
  DefinitionParser(std::span<const Token> tokens, std::size_t& pos,
                   std::vector<Diagnostic>& errors)
      : tokens_(tokens), pos_(pos), errors_(errors) {}

  ParsedSuperOp run() {
    const Token& keyword = take();  // SUPEROP
    result_.op.where = keyword.where;
    const Token& number = take();
    auto id = number.kind == TokenKind::Integer ? bounded_integer(number.text, 0, UINT32_MAX - 1)
                                                : std::nullopt;
    if (!id) unexpected(number, "a superoperator number (0, 1, ...) after SUPEROP");
    result_.op.id = static_cast<std::uint32_t>(*id);
    expect(TokenKind::LeftParen, "'(' opening the operand kinds of SUPEROP " + number_text());
    while (peek().kind != TokenKind::RightParen) {
      const Token& kind = take();
      auto type = type_word(kind);
      if (!type || *type == TypeKeyword::Char)
        unexpected(kind, "an operand kind (INT FLOAT BOOL SEGDES) or ')'");
      result_.op.operands.push_back(*type);
    }
    take();
    expression(0);
    return std::move(result_);
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& take() { return tokens_[pos_ + 1 < tokens_.size() ? pos_++ : pos_]; }
  std::string number_text() const { return std::to_string(result_.op.id); }

  [[noreturn]] void fail(const Token& at, const std::string& message) {
    errors_.push_back({at.where, message});
    throw SyntaxError{};
  }
  [[noreturn]] void unexpected(const Token& at, const std::string& expected) {
    fail(at, "syntax error: unexpected " + describe(at) + ", expected " + expected);
  }
  void expect(TokenKind kind, const std::string& what) {
    if (peek().kind != kind) unexpected(peek(), what);
    take();
  }

  std::uint32_t add(SuperOpNode node, SourceLocation where) {
    result_.op.nodes.push_back(node);
    result_.node_where.push_back(where);
    return static_cast<std::uint32_t>(result_.op.nodes.size() - 1);
  }

  // Parses one expression, appends its nodes (children first) and returns the index of its root.
  std::uint32_t expression(int depth) {
    if (depth > kMaxDepth) fail(peek(), "error: superoperator expression nested too deeply");
    const Token& start = take();
    if (start.kind == TokenKind::OperandRef) return operand(start);
    if (start.kind != TokenKind::LeftParen)
      unexpected(start, "an expression ($k or a parenthesized operation) in SUPEROP " +
                            number_text());
    const Token& head = take();
    if (head.kind != TokenKind::Word) unexpected(head, "an operation name after '('");
    if (head.text == "CONST") return constant(start);
    auto op = find_op(head.text);
    if (!op) fail(head, "error: unknown op " + describe(head) + " in SUPEROP " + number_text());
    SuperOpNode node;
    node.op = *op;
    switch (info(*op).family) {
      case Family::Elementwise: node.kind = Kind::Elementwise; break;
      case Family::Scan: node.kind = Kind::Scan; break;
      case Family::Reduce: node.kind = Kind::Reduce; break;
      default:
        if (*op == Op::Dist) node.kind = Kind::Dist;
        else if (*op == Op::Index) node.kind = Kind::Index;
        else
          fail(head, "error: " + describe(head) + " cannot appear in a superoperator (only "
                     "elementwise ops, DIST, INDEX, scans and reductions)");
    }
    if (info(*op).syntax == Syntax::Type) {
      auto type = type_word(peek());
      if (!type) unexpected(peek(), "a type keyword after " + std::string(head.text));
      take();
      node.type = *type;
    } else {
      node.type = implied_type(*op);
    }
    node.result = result_type_of(*op, node.type);
    while (peek().kind != TokenKind::RightParen) {
      if (node.arity == 3)
        fail(peek(), "error: too many arguments for " + std::string(head.text) +
                         " in SUPEROP " + number_text());
      node.args[node.arity++] = expression(depth + 1);
    }
    take();
    return add(node, head.where);
  }

  std::uint32_t operand(const Token& token) {
    auto k = bounded_integer(token.text.substr(1), 0, 1 << 20);
    if (!k) fail(token, "error: operand number " + std::string(token.text) + " is too large");
    SuperOpNode node;
    node.kind = Kind::Operand;
    node.operand = static_cast<std::uint32_t>(*k);
    // Out-of-range numbers are check_superop's to report; the node gets a placeholder type.
    if (node.operand < result_.op.operands.size()) node.result = result_.op.operands[node.operand];
    return add(node, token.where);
  }

  // After `( CONST`: a type and one literal of it, then `)`.
  std::uint32_t constant(const Token& open) {
    SuperOpNode node;
    node.kind = Kind::Constant;
    const Token& type_token = take();
    auto type = type_word(type_token);
    if (!type || *type == TypeKeyword::Segdes || *type == TypeKeyword::Char)
      unexpected(type_token, "INT, FLOAT or BOOL after CONST");
    node.type = node.result = *type;
    const Token& value = take();
    switch (*type) {
      case TypeKeyword::Int: {
        auto v = value.kind == TokenKind::Integer
                     ? bounded_integer(value.text, INT32_MIN, INT32_MAX)
                     : std::nullopt;
        if (!v) unexpected(value, "an INT literal from -2147483648 to 2147483647");
        node.int_value = static_cast<std::int32_t>(*v);
        break;
      }
      case TypeKeyword::Float:
        if (value.kind != TokenKind::Real) unexpected(value, "a FLOAT literal (with a '.')");
        node.float_value = std::strtod(std::string(value.text).c_str(), nullptr);
        break;
      default:
        if (value.kind != TokenKind::Word || (value.text != "T" && value.text != "F"))
          unexpected(value, "T or F");
        node.int_value = value.text == "T";
        break;
    }
    expect(TokenKind::RightParen, "')' closing the constant");
    return add(node, open.where);
  }

  std::span<const Token> tokens_;
  std::size_t& pos_;
  std::vector<Diagnostic>& errors_;
  ParsedSuperOp result_;
};

}  // namespace

std::optional<ParsedSuperOp> parse_superop(std::span<const Token> tokens, std::size_t& pos,
                                           std::vector<Diagnostic>& errors) {
  try {
    return DefinitionParser(tokens, pos, errors).run();
  } catch (const SyntaxError&) {
    return std::nullopt;
  }
}

}  // namespace vcode
