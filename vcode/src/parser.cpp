#include "vcode/parser.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "vcode/lexer.hpp"
#include "vcode/linker.hpp"
#include "vcode/superop_check.hpp"
#include "vcode/superop_parse.hpp"

namespace vcode {

namespace {

std::optional<TypeKeyword> type_keyword(std::string_view word) {
  if (word == "INT") return TypeKeyword::Int;
  if (word == "BOOL") return TypeKeyword::Bool;
  if (word == "FLOAT") return TypeKeyword::Float;
  if (word == "SEGDES") return TypeKeyword::Segdes;
  if (word == "CHAR") return TypeKeyword::Char;
  return std::nullopt;
}

std::optional<std::int32_t> stream_constant(std::string_view word) {
  if (word == "STDIN") return 0;
  if (word == "STDOUT") return 1;
  if (word == "STDERR") return 2;
  if (word == "NULL_STREAM") return -1;
  return std::nullopt;
}

// Words that can never name a function (spec/VCODE.md §2.1).
bool is_reserved(std::string_view word) {
  return find_op(word) || type_keyword(word) || stream_constant(word) || word == "T" ||
         word == "F" || word == "FUSED" || word == "SUPEROP";
}

// The value of an integer token, or nothing when it does not fit a 32-bit INT. (The classic
// interpreter read it like glibc sscanf("%d") and kept the low 32 bits: 3000000000 became
// -1294967296; here that is a parse error.)
std::optional<std::int32_t> int32_value(std::string_view text) {
  const bool negative = text[0] == '-';
  std::size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const std::uint64_t limit = negative ? std::uint64_t(INT32_MAX) + 1 : std::uint64_t(INT32_MAX);
  std::uint64_t magnitude = 0;
  for (; i < text.size(); ++i) {
    magnitude = magnitude * 10 + unsigned(text[i] - '0');
    if (magnitude > limit) return std::nullopt;
  }
  return static_cast<std::int32_t>(negative ? -std::int64_t(magnitude) : std::int64_t(magnitude));
}

double real_value(std::string_view text) {
  std::string copy(text);
  return std::strtod(copy.c_str(), nullptr);
}

struct ParseFailed {};  // unwinds to the top after a fatal syntax error

class Parser {
 public:
  Parser(std::vector<Token> tokens, Program& program, std::vector<Diagnostic>& errors,
         const std::string& file, const ParseOptions& options)
      : tokens_(std::move(tokens)), program_(program), errors_(errors), file_(file),
        options_(options) {}

  void run() {
    if (peek().kind == TokenKind::End) fail(peek(), "syntax error: empty program (no FUNC)");
    while (peek().kind != TokenKind::End) {
      if (peek_word("SUPEROP")) superop();
      else function();
    }
    if (program_.functions.empty()) fail(peek(), "syntax error: no FUNC in the program");
    number_superops();
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& take() { return tokens_[pos_ == tokens_.size() - 1 ? pos_ : pos_++]; }
  bool peek_word(std::string_view word) const {
    return peek().kind == TokenKind::Word && peek().text == word;
  }

  [[noreturn]] void fail(const Token& at, const std::string& message) {
    errors_.push_back({at.where, message});
    throw ParseFailed{};
  }
  [[noreturn]] void unexpected(const Token& at, const std::string& expected) {
    fail(at, "syntax error: unexpected " + describe(at) + ", expected " + expected);
  }
  void error(const Token& at, const std::string& message) {
    errors_.push_back({at.where, message});
  }

  void function() {
    const Token& func = take();
    if (!(func.kind == TokenKind::Word && func.text == "FUNC"))
      unexpected(func, "FUNC (after a function's RET only another FUNC may follow)");
    const Token& name = take();
    if (name.kind != TokenKind::Word || (name.text != "MAIN" && is_reserved(name.text)))
      unexpected(name, "a function name after FUNC");
    std::string function_name(name.text);
    for (const auto& f : program_.functions) {
      if (f.name != function_name) continue;
      if (function_name == "MAIN") error(name, "error: attempt to redefine MAIN");
      else warn(name, "warning: function " + function_name +
                          " is defined again; the last definition wins");
      break;
    }
    auto index = static_cast<std::uint32_t>(program_.functions.size());
    program_.functions.push_back(
        {function_name, static_cast<std::uint32_t>(program_.code.size()), 0, func.where});
    io_info();

    // IFs awaiting their ENDIF: the IF's line, and the IF or ELSE whose target is pending.
    struct OpenIf {
      std::uint32_t pending;
      int line;
      bool has_else;
    };
    std::vector<OpenIf> open_ifs;
    while (true) {
      const Token& start = peek();
      if (start.kind == TokenKind::End)
        fail(start, "syntax error: unexpected end of file, function " + function_name +
                        " has no RET");
      if (start.kind != TokenKind::Word) unexpected(start, "an instruction");
      auto op = find_op(start.text);
      if (!op) unexpected(start, "an instruction");
      if (*op == Op::Func)
        fail(start, "syntax error: unexpected \"FUNC\" inside function " + function_name +
                        " (missing RET?)");
      take();
      Instruction ins;
      ins.op = *op;
      ins.where = start.where;
      ins.function = index;
      operands(ins, start);
      auto here = static_cast<std::uint32_t>(program_.code.size());
      if (ins.op == Op::If) {
        open_ifs.push_back({here, start.where.line, false});
      } else if (ins.op == Op::Else) {
        if (open_ifs.empty()) fail(start, "syntax error: ELSE without IF");
        if (open_ifs.back().has_else) fail(start, "syntax error: second ELSE for one IF");
        program_.code[open_ifs.back().pending].target = here + 1;
        open_ifs.back().pending = here;
        open_ifs.back().has_else = true;
      } else if (ins.op == Op::EndIf) {
        if (open_ifs.empty()) fail(start, "syntax error: ENDIF without IF");
        program_.code[open_ifs.back().pending].target = here + 1;
        open_ifs.pop_back();
      } else if (ins.op == Op::Ret && !open_ifs.empty()) {
        error(start, "syntax error: RET inside IF (the IF of line " +
                         std::to_string(open_ifs.back().line) + " has no ENDIF)");
      }
      program_.code.push_back(std::move(ins));
      if (*op == Op::Ret) break;
    }
    program_.functions[index].end = static_cast<std::uint32_t>(program_.code.size());
  }

  // FCODE: one `SUPEROP n (kinds) expression` definition between functions.
  void superop() {
    auto parsed = parse_superop(tokens_, pos_, errors_);
    if (!parsed) throw ParseFailed{};
    check_superop(parsed->op, parsed->node_where, errors_);
    program_.superops.push_back(std::move(parsed->op));
  }

  // Orders the definitions by number; they must be numbered 0, 1, ... once each.
  void number_superops() {
    auto& table = program_.superops;
    std::stable_sort(table.begin(), table.end(),
                     [](const SuperOp& a, const SuperOp& b) { return a.id < b.id; });
    std::uint32_t expected = 0;
    for (std::size_t i = 0; i < table.size(); ++i) {
      const SuperOp& op = table[i];
      if (i > 0 && op.id == table[i - 1].id) {
        errors_.push_back({op.where, "error: SUPEROP " + std::to_string(op.id) +
                                         " is defined twice (first on line " +
                                         std::to_string(table[i - 1].where.line) + ")"});
        continue;
      }
      if (op.id != expected)
        errors_.push_back({op.where, "error: SUPEROP " + std::to_string(expected) +
                                         (op.id - expected > 1
                                              ? " to " + std::to_string(op.id - 1) + " are"
                                              : std::string(" is")) +
                                         " not defined (definitions are numbered 0, 1, ...)"});
      expected = op.id + 1;
    }
  }

  void warn(const Token& at, const std::string& message) {
    if (options_.warnings) options_.warnings->push_back(format_diagnostic(file_, {at.where, message}));
  }

  // Optional `I types... O types...`: parsed and ignored.
  void io_info() {
    if (peek().kind != TokenKind::InputInfo) return;
    take();
    while (peek().kind == TokenKind::Word && type_keyword(peek().text)) take();
    if (peek().kind != TokenKind::OutputInfo) unexpected(peek(), "O after the input types");
    take();
    while (peek().kind == TokenKind::Word && type_keyword(peek().text)) take();
  }

  // An integer token's value; a parse error naming the token when it does not fit an INT.
  std::int32_t integer_value(const Token& t) {
    auto value = int32_value(t.text);
    if (!value)
      fail(t, "syntax error: integer " + std::string(t.text) +
                  " does not fit a 32-bit INT (-2147483648 to 2147483647)");
    return *value;
  }

  std::int32_t count_operand(const Token& op_token) {
    const Token& t = take();
    if (t.kind != TokenKind::Integer)
      unexpected(t, "a count after " + std::string(op_token.text));
    std::int32_t value = integer_value(t);
    if (value < 0)
      fail(t, "syntax error: negative operand " + std::string(t.text) + " for " +
                  std::string(op_token.text));
    return value;
  }

  void operands(Instruction& ins, const Token& op_token) {
    const OpInfo& op = info(ins.op);
    switch (op.syntax) {
      case Syntax::None: return;
      case Syntax::Type: {
        const Token& t = take();
        auto type = t.kind == TokenKind::Word ? type_keyword(t.text) : std::nullopt;
        if (!type || !(op.type_set & typeset::bit(*type)))
          unexpected(t, "a type keyword allowed for " + std::string(op.spelling) + " (" +
                            allowed_types(op.type_set) + ")");
        ins.type = type;
        return;
      }
      case Syntax::Counts:
        ins.count = count_operand(op_token);
        ins.depth = count_operand(op_token);
        return;
      case Syntax::Name: {
        const Token& t = take();
        if (t.kind != TokenKind::Word || (t.text != "MAIN" && is_reserved(t.text)))
          unexpected(t, "a function name after " + std::string(op.spelling));
        ins.callee = std::string(t.text);
        return;
      }
      case Syntax::Const:
        constant(ins);
        return;
      case Syntax::Integer:
        ins.count = count_operand(op_token);
        return;
    }
  }

  static std::string allowed_types(unsigned set) {
    std::string names;
    for (auto t : {TypeKeyword::Int, TypeKeyword::Bool, TypeKeyword::Float, TypeKeyword::Segdes,
                   TypeKeyword::Char})
      if (set & typeset::bit(t)) {
        if (!names.empty()) names += ' ';
        names += keyword_name(t);
      }
    return names;
  }

  void constant(Instruction& ins) {
    const Token& type_token = take();
    auto type = type_token.kind == TokenKind::Word ? type_keyword(type_token.text) : std::nullopt;
    if (!type) unexpected(type_token, "a type keyword after CONST");
    ins.type = type;
    Constant c;
    c.type = *type;
    const Token& value = take();
    if (value.kind == TokenKind::LeftParen) {
      if (*type == TypeKeyword::Char) unexpected(value, "a string after CONST CHAR");
      c.vector_form = true;
      while (peek().kind != TokenKind::RightParen) {
        const Token& element = take();
        if (element.kind == TokenKind::End) unexpected(element, "')' closing the constant");
        if (element.kind == TokenKind::LeftParen) unexpected(element, "a constant element");
        if (element.kind == TokenKind::Word && stream_constant(element.text))
          unexpected(element, "a constant element (stream names are scalars only)");
        if (!element_into(c, element))
          error(element, "error: illegal type mixing in constant: " + describe(element) +
                             " is not a " + std::string(keyword_name(*type)) + " element");
      }
      take();
    } else if (*type == TypeKeyword::Char) {
      if (value.kind != TokenKind::String) unexpected(value, "a string after CONST CHAR");
      c.vector_form = true;
      for (char ch : value.text) c.ints.push_back(static_cast<signed char>(ch));
    } else if (*type == TypeKeyword::Int && value.kind == TokenKind::Word &&
               stream_constant(value.text)) {
      c.ints.push_back(*stream_constant(value.text));
      c.stream_name = std::string(value.text);
    } else if (*type == TypeKeyword::Segdes) {
      if (value.kind != TokenKind::Integer) unexpected(value, "a segment length after CONST SEGDES");
      std::int32_t length = integer_value(value);
      if (length < 0) fail(value, "error: negative segment length in CONST SEGDES");
      c.ints.push_back(length);
    } else if (!element_into(c, value)) {
      unexpected(value, "a " + std::string(keyword_name(*type)) + " constant");
    }
    ins.constant = static_cast<std::uint32_t>(program_.constants.size());
    program_.constants.push_back(std::move(c));
  }

  // Appends one element token to a constant of its type; false if the token has another type.
  bool element_into(Constant& c, const Token& t) {
    switch (c.type) {
      case TypeKeyword::Int:
        if (t.kind != TokenKind::Integer) return false;
        c.ints.push_back(integer_value(t));
        return true;
      case TypeKeyword::Float:
        if (t.kind != TokenKind::Real) return false;
        c.floats.push_back(real_value(t.text));
        return true;
      case TypeKeyword::Bool:
        if (t.kind != TokenKind::Word || (t.text != "T" && t.text != "F")) return false;
        c.ints.push_back(t.text == "T");
        return true;
      case TypeKeyword::Segdes:  // only `CONST SEGDES ()` has a vector form
      case TypeKeyword::Char:
        return false;
    }
    return false;
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  Program& program_;
  std::vector<Diagnostic>& errors_;
  const std::string& file_;
  const ParseOptions& options_;
};

}  // namespace

Program parse_program(std::string_view source, const std::string& file_name,
                      const ParseOptions& options) {
  std::vector<Diagnostic> errors;
  std::vector<Token> tokens = tokenize(source, errors);
  Program program;
  program.file = file_name;
  if (!errors.empty()) throw LoadError(file_name, std::move(errors));
  try {
    Parser(std::move(tokens), program, errors, file_name, options).run();
  } catch (const ParseFailed&) {
    throw LoadError(file_name, std::move(errors));
  }
  link_program(program, errors);
  if (errors.empty()) check_superop_table(program, errors);
  if (!errors.empty()) throw LoadError(file_name, std::move(errors));
  return program;
}

Program load_program(const std::string& path, const ParseOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("Error opening input file " + path + ": " + std::strerror(errno));
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_program(source, path, options);
}

}  // namespace vcode
