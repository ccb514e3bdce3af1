#include "nesl/parser.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "nesl/diagnostics.hpp"
#include "nesl/lexer.hpp"

namespace nesl {

ExprPtr make_expr(ExprKind kind, Location where, std::string text) {
  auto expr = std::make_unique<Expr>();
  expr->kind = kind;
  expr->where = where;
  expr->text = std::move(text);
  return expr;
}

namespace {

// The classic's binding powers (parse.lisp): a token continues an expression parsed at `rbp`
// only while its left binding power is above rbp. Terminators have none.
constexpr int kCommaPower = 4;
constexpr int kArrowPower = 24;  // `->` is right-associative: its right side is parsed at 23
constexpr int kPostfixPower = 30;  // calls f(x) and indexing a[i]
constexpr int kPrefixPower = 25;   // - # @
constexpr int kBodyPower = 3;      // if parts, let bindings, bodies, arguments, brackets
constexpr int kElementPower = 4;   // sequence elements stop at the comma
constexpr int kEmptyTypePower = 29;

int binary_power(const Token& token) {
  if (token.kind == TokenKind::Identifier) {
    if (token.text == "or" || token.text == "nor" || token.text == "xor") return 7;
    if (token.text == "and" || token.text == "nand") return 8;
    return 0;
  }
  if (token.kind != TokenKind::Symbol) return 0;
  const std::string& s = token.text;
  if (s == ",") return kCommaPower;
  if (s == "==" || s == "/=" || s == "<" || s == ">" || s == "<=" || s == ">=") return 10;
  if (s == "+" || s == "-" || s == "++") return 20;
  if (s == "*" || s == "/" || s == "||") return 21;
  if (s == "^") return 22;
  if (s == "<-") return 23;
  if (s == "->") return kArrowPower;
  if (s == "(" || s == "[") return kPostfixPower;
  return 0;
}

// Why a program may not bind `name`, as the classic refused it; nothing for a name it may bind.
// `pair` is a reserved word, `t` and `f` are the boolean constants and `time` times an
// expression. As in the classic, a function's parameters may still be named t, f or time.
std::optional<std::string> unbindable(const std::string& name) {
  if (name == "pair") return "the reserved word 'pair' (a pair is written with a comma: (a, b))";
  if (name == "t") return "'t', the boolean constant true, which cannot be bound";
  if (name == "f") return "'f', the boolean constant false, which cannot be bound";
  if (name == "time") return "'time', which times an expression (time(e)) and cannot be bound";
  return std::nullopt;
}

// The files being loaded, outermost first: a file may not load itself, even indirectly.
struct Loading {
  std::vector<std::string> files;
};
constexpr std::size_t kMaxLoadDepth = 32;

// Parses over one token vector; every method leaves position_ on the first unconsumed token.
class Parser {
 public:
  Parser(const std::vector<Token>& tokens, std::size_t position, Loading* loading = nullptr)
      : tokens_(tokens), position_(position), loading_(loading) {}

  std::size_t position() const { return position_; }

  Program program(std::shared_ptr<SourceFile> source) {
    Program program;
    program.source = std::move(source);
    while (peek().kind != TokenKind::End) {
      if (at_command("load")) {
        load(program);
      } else {
        program.forms.push_back(top_level_form());
      }
    }
    return program;
  }

  TypeSignature type_signature() {
    TypeSignature signature;
    signature.type = type(kBodyPower);
    if (accept_symbol("::")) signature.context = type_context();
    return signature;
  }

 private:
  const Token& peek(std::size_t ahead = 0) const {
    std::size_t at = position_ + ahead;
    return at < tokens_.size() ? tokens_[at] : tokens_.back();
  }
  int previous_line() const { return position_ > 0 ? tokens_[position_ - 1].where.line : 0; }
  const Token& next() {
    const Token& token = peek();
    if (position_ < tokens_.size() - 1) ++position_;
    return token;
  }
  bool accept_symbol(std::string_view symbol) {
    if (!peek().is_symbol(symbol)) return false;
    next();
    return true;
  }
  bool accept_keyword(std::string_view word) {
    if (!peek().is_keyword(word)) return false;
    next();
    return true;
  }
  [[noreturn]] void fail(const std::string& expected) const {
    // At the end of the input with a bracket still open, the bracket is what is missing.
    if (peek().kind == TokenKind::End && !open_brackets_.empty()) fail_to_close(open_brackets_.back());
    throw CompileError(peek().where, "expected " + expected + ", found " + describe_token(peek()));
  }

  // Each bracket open where the parser is, innermost last, for the messages about unclosed ones.
  struct OpenBracket {
    std::string symbol;
    Location where;
  };
  static std::string closing(const std::string& open) { return open == "(" ? ")" : open == "[" ? "]" : "}"; }
  [[noreturn]] void fail_to_close(const OpenBracket& open) const {
    throw CompileError(peek().where, "expected '" + closing(open.symbol) + "' to close the '" + open.symbol +
                                         "' opened at " + std::to_string(open.where.line) + ":" +
                                         std::to_string(open.where.column) + ", found " + describe_token(peek()));
  }
  // Consumes an opening bracket, which expect_close then closes.
  void expect_open(std::string_view symbol, const std::string& context) {
    const Location where = peek().where;
    expect_symbol(symbol, context);
    open_brackets_.push_back({std::string(symbol), where});
  }
  bool accept_open(std::string_view symbol) {
    const Location where = peek().where;
    if (!accept_symbol(symbol)) return false;
    open_brackets_.push_back({std::string(symbol), where});
    return true;
  }
  void opened(const Token& token) { open_brackets_.push_back({token.text, token.where}); }
  // The innermost bracket's closing one; a bracket opened on an earlier line is named with its
  // place, since the caret's line does not show it.
  void expect_close(const std::string& context) {
    const OpenBracket open = open_brackets_.back();
    if (!accept_symbol(closing(open.symbol))) {
      if (peek().where.line != open.where.line) fail_to_close(open);
      fail("'" + closing(open.symbol) + "' " + context);
    }
    open_brackets_.pop_back();
  }
  void expect_symbol(std::string_view symbol, const std::string& context) {
    if (!accept_symbol(symbol)) fail("'" + std::string(symbol) + "' " + context);
  }
  void expect_keyword(std::string_view word, const std::string& context) {
    if (!accept_keyword(word)) fail("'" + std::string(word) + "' " + context);
  }
  std::string name(const std::string& what) {
    if (peek().kind != TokenKind::Identifier || is_keyword(peek().text)) fail(what);
    return next().text;
  }
  // The name a definition binds: a function's or a datatype's.
  std::string defined_name(const std::string& what) {
    if (peek().kind == TokenKind::Identifier) {
      if (std::optional<std::string> why = unbindable(peek().text))
        throw CompileError(peek().where, "expected " + what + ", found " + *why);
    }
    return name(what);
  }
  void end_of_form(const std::string& what) {
    if (!accept_symbol(";") && !accept_symbol("$")) fail("';' or '$' to end " + what);
  }

  // The classic's top-level commands, which are not reserved words: `load FILE;` and
  // `set NAME VALUE;` (a binding `set = ...` or a call `load(x)` is still a form). A `set` with
  // no value or a negative number is one too, for the session to refuse naming the setting.
  bool at_command(std::string_view word) const {
    if (peek().kind != TokenKind::Identifier || peek().text != word) return false;
    const Token& after = peek(1);
    if (word == "load") return after.kind != TokenKind::Symbol && after.kind != TokenKind::End;
    if (after.kind != TokenKind::Identifier || is_keyword(after.text)) return false;
    const std::size_t end = setting_value_length(2) + 2;
    return peek(end).is_symbol(";") || peek(end).is_symbol("$");
  }

  // The tokens of a setting's value from `ahead`: a word, a number, a negative number or none.
  std::size_t setting_value_length(std::size_t ahead) const {
    if (peek(ahead).kind == TokenKind::Identifier || peek(ahead).kind == TokenKind::Integer) return 1;
    if (peek(ahead).is_symbol("-") && peek(ahead + 1).kind == TokenKind::Integer) return 2;
    return 0;
  }

  // `load FILE;`: FILE's forms take its place. FILE is a string, strings joined by ++, or a
  // variable bound above to one, as in the classic's `load dir ++ "primes";`. A relative name
  // is looked for from the working directory, then from the loading file's; `.nesl` may be
  // left out.
  void load(Program& program) {
    Location where = next().where;
    ExprPtr name_expression = expression(kBodyPower);
    const std::string name = constant_string(*name_expression);
    end_of_form("the load");
    const std::string path = find_loaded_file(name, where);
    Loading outermost;
    Loading& loading = loading_ ? *loading_ : outermost;
    if (loading.files.empty() && program.source) loading.files.push_back(canonical(program.source->name()));
    const std::string key = canonical(path);
    for (const std::string& file : loading.files) {
      if (file == key) throw CompileError(where, "expected a file not being loaded already, found '" + name + "' loading itself");
    }
    if (loading.files.size() >= kMaxLoadDepth) {
      throw CompileError(where, "expected at most " + std::to_string(kMaxLoadDepth) + " nested loads, found more");
    }
    std::shared_ptr<SourceFile> file = read_source_file(path);
    std::vector<Token> tokens = tokenize(*file);
    loading.files.push_back(key);
    Program loaded = Parser(tokens, 0, &loading).program(file);
    loading.files.pop_back();
    for (TopLevelForm& form : loaded.forms) program.forms.push_back(std::move(form));
    program.loaded.push_back(file);
    for (auto& inner : loaded.loaded) program.loaded.push_back(std::move(inner));
  }

  static std::string canonical(const std::string& path) {
    std::error_code error;
    std::filesystem::path found = std::filesystem::weakly_canonical(path, error);
    return error ? path : found.string();
  }

  std::string find_loaded_file(const std::string& name, Location where) const {
    namespace fs = std::filesystem;
    std::vector<fs::path> places = {fs::path(name)};
    if (fs::path(name).is_relative() && where.file) {
      fs::path directory = fs::path(where.file->name()).parent_path();
      if (!directory.empty()) places.push_back(directory / name);
    }
    // `.nesl` is added only to a name without it.
    const bool has_extension = fs::path(name).extension() == ".nesl";
    bool directory = false;
    for (const fs::path& place : places) {
      std::vector<fs::path> candidates = {place};
      if (!has_extension) candidates.emplace_back(place.string() + ".nesl");
      for (const fs::path& candidate : candidates) {
        std::error_code error;
        if (fs::is_regular_file(candidate, error)) return candidate.string();
        directory = directory || fs::is_directory(candidate, error);
      }
    }
    if (directory) throw CompileError(where, "expected a file to load, found the directory '" + name + "'");
    throw CompileError(where, "expected a file to load, found none named '" + name + "'" +
                                  (has_extension ? "" : " (nor '" + name + ".nesl')"));
  }

  std::string constant_string(const Expr& e) const {
    if (e.kind == ExprKind::String) return e.text;
    if (e.kind == ExprKind::Binary && e.text == "++") return constant_string(*e.children[0]) + constant_string(*e.children[1]);
    if (e.kind == ExprKind::Variable) {
      auto found = strings_.find(e.text);
      if (found != strings_.end()) return found->second;
    }
    const std::string found = e.kind == ExprKind::Variable ? "the name '" + e.text + "', bound to no string above"
                                                           : describe_expression(e);
    throw CompileError(e.where, "expected a file name to load (a string, strings joined by ++, or a variable bound "
                                "to one above), found " + found);
  }

  void remember_string(const GlobalBinding& binding) {
    if (binding.pattern->kind != ExprKind::Variable) return;
    try {
      strings_[binding.pattern->text] = constant_string(*binding.value);
    } catch (const CompileError&) {
      strings_.erase(binding.pattern->text);
    }
  }

  TopLevelForm top_level_form() {
    TopLevelForm form;
    form.where = peek().where;
    if (at_command("set")) {
      next();
      form.kind = TopLevelForm::Kind::Setting;
      form.setting.name = name("a setting's name after 'set'");
      for (std::size_t n = setting_value_length(0); n > 0; --n) form.setting.value += next().text;
      end_of_form("the setting");
    } else if (accept_keyword("function")) {
      form.kind = TopLevelForm::Kind::Function;
      FunctionDefinition& function = form.function;
      function.name = defined_name("a function name after 'function'");
      expect_open("(", "before the parameters of " + function.name);
      if (peek().is_symbol(")")) fail("a parameter (functions take at least one)");
      function.arguments = expression(kBodyPower);
      check_pattern(*function.arguments);
      expect_close("after the parameters of " + function.name);
      if (accept_symbol(":")) function.signature = type_signature();
      // As in the classic's library sources, a string before '=' documents the function.
      if (peek().kind == TokenKind::String) function.documentation = next().text;
      if (!accept_symbol("=")) {
        fail(function.signature ? "'=' after the type of " + function.name
                                : "'=' or ':' after the parameters of " + function.name);
      }
      function.body = expression(kBodyPower);
      end_of_form("the definition of " + function.name);
    } else if (accept_keyword("datatype")) {
      form.kind = TopLevelForm::Kind::Datatype;
      DatatypeDefinition& datatype = form.datatype;
      datatype.name = defined_name("a datatype name after 'datatype'");
      expect_open("(", "before the fields of " + datatype.name);
      datatype.fields.type = type(kBodyPower);
      expect_close("after the fields of " + datatype.name);
      if (accept_symbol("::")) datatype.fields.context = type_context();
      end_of_form("the datatype " + datatype.name);
    } else {
      ExprPtr value = expression(kBodyPower);
      if (accept_symbol("=")) {
        check_pattern(*value);
        check_binders(*value);
        form.kind = TopLevelForm::Kind::Binding;
        form.binding.pattern = std::move(value);
        form.binding.value = expression(kBodyPower);
        end_of_form("the binding");
        remember_string(form.binding);
      } else {
        form.kind = TopLevelForm::Kind::Expression;
        form.expression.value = std::move(value);
        end_of_form("the expression");
      }
    }
    return form;
  }

  // Deeply nested input must end in a diagnostic, not in a stack overflow.
  class NestingGuard {
   public:
    explicit NestingGuard(Parser& parser) : parser_(parser) {
      if (++parser_.depth_ > kMaxNesting) {
        throw CompileError(parser_.peek().where, "expected at most " + std::to_string(kMaxNesting) +
                                                     " levels of nesting, found more");
      }
    }
    ~NestingGuard() { --parser_.depth_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    Parser& parser_;
  };
  static constexpr int kMaxNesting = 1000;
  static constexpr int kMaxChained = 100000;

  // A chain of operators `1 + 2 + ... + n` is not nesting as written, but it nests the tree one
  // level deeper on the left per operator, and the passes after the parser recurse over it
  // (`nesl` runs them on a stack made for kMaxChained levels). The operators applied by the
  // expressions being parsed, innermost included, are counted here.
  class ChainGuard {
   public:
    explicit ChainGuard(Parser& parser) : parser_(parser) {}
    ~ChainGuard() { parser_.chained_ -= applied_; }
    ChainGuard(const ChainGuard&) = delete;
    ChainGuard& operator=(const ChainGuard&) = delete;
    void one_more() {
      ++applied_;
      if (++parser_.chained_ > kMaxChained) {
        throw CompileError(parser_.peek().where, "expected at most " + std::to_string(kMaxChained) +
                                                     " operators in a chain, found more");
      }
    }

   private:
    Parser& parser_;
    int applied_ = 0;
  };

  ExprPtr expression(int rbp) {
    NestingGuard guard(*this);
    ChainGuard chain(*this);
    ExprPtr left = prefix();
    for (;;) {
      if (rbp < binary_power(peek()) || (rbp < kPostfixPower && starts_operand(peek()))) chain.one_more();
      if (rbp < binary_power(peek())) {
        left = infix(std::move(left));
      } else if (rbp < kPostfixPower && starts_operand(peek())) {
        // As in the classic, an operand right after an expression applies it: `(float) n`. On
        // a later line it is more likely the next form after a missing ';', which the checker
        // then suggests if the application does not type-check.
        ExprPtr call = make_expr(ExprKind::Call, peek().where,
                                 peek().where.line > previous_line() ? std::string(kJuxtaposedOnNewLine) : "");
        call->children.push_back(std::move(left));
        call->children.push_back(expression(kPostfixPower));
        left = std::move(call);
      } else if (rbp <= kBodyPower && peek().is_symbol("=>")) {
        return lambda(std::move(left));
      } else {
        return left;
      }
    }
  }

  // `pattern => body`, the classic's function expression; the body reads as far as it goes.
  ExprPtr lambda(ExprPtr parameter) {
    check_pattern(*parameter);
    ExprPtr node = make_expr(ExprKind::Lambda, next().where);
    Binding binding;
    binding.pattern = std::move(parameter);
    node->bindings.push_back(std::move(binding));
    node->children.push_back(expression(kBodyPower));
    return node;
  }

  static bool starts_operand(const Token& token) {
    switch (token.kind) {
      case TokenKind::Integer:
      case TokenKind::Float:
      case TokenKind::Character:
      case TokenKind::String: return true;
      case TokenKind::Identifier:
        return !is_keyword(token.text) || token.text == "if" || token.text == "let";
      case TokenKind::Symbol: return token.text == "{";
      case TokenKind::End: return false;
    }
    return false;
  }

  ExprPtr prefix() {
    const Token& token = peek();
    switch (token.kind) {
      case TokenKind::Integer: return make_expr(ExprKind::Integer, token.where, next().text);
      case TokenKind::Float: return make_expr(ExprKind::Float, token.where, next().text);
      case TokenKind::Character: return make_expr(ExprKind::Character, token.where, next().text);
      case TokenKind::String: return make_expr(ExprKind::String, token.where, next().text);
      case TokenKind::Identifier:
        if (token.text == "if") return if_expression();
        if (token.text == "let") return let_expression();
        if (is_keyword(token.text)) fail("an expression");
        if (token.text == "pair") throw CompileError(token.where, "expected an expression, found " + *unbindable("pair"));
        return make_expr(ExprKind::Variable, token.where, next().text);
      case TokenKind::Symbol: break;
      case TokenKind::End: fail("an expression");
    }
    Location where = token.where;
    if (accept_open("(")) {
      if (peek().is_symbol(")")) fail("an expression inside ( )");
      ExprPtr inner = expression(kBodyPower);
      expect_close("to close the parenthesis");
      return inner;
    }
    if (accept_open("[")) return bracket(where);
    if (accept_open("{")) return apply_to_each(where);
    for (std::string_view op : {"-", "#", "@"}) {
      if (accept_symbol(op)) {
        ExprPtr unary = make_expr(ExprKind::Unary, where, std::string(op));
        unary->children.push_back(expression(kPrefixPower));
        return unary;
      }
    }
    fail("an expression");
  }

  ExprPtr infix(ExprPtr left) {
    const Token& token = next();
    Location where = token.where;
    if (token.is_symbol("(") || token.is_symbol("[")) opened(token);
    if (token.is_symbol("(")) {
      if (peek().is_symbol(")")) fail("an argument (functions take at least one)");
      ExprPtr call = make_expr(ExprKind::Call, where);
      call->children.push_back(std::move(left));
      call->children.push_back(expression(kBodyPower));
      expect_close("to close the arguments");
      return call;
    }
    if (token.is_symbol("[")) {
      ExprPtr index = make_expr(ExprKind::Index, where);
      index->children.push_back(std::move(left));
      index->children.push_back(expression(kBodyPower));
      expect_close("to close the index");
      return index;
    }
    int power = binary_power(token);
    int right_power = token.is_symbol(",") ? kCommaPower - 1
                      : token.is_symbol("->") ? kArrowPower - 1
                                              : power;
    // A tuple is located where it starts, an operator application at its operator.
    ExprPtr node = token.is_symbol(",") ? make_expr(ExprKind::Pair, left->where)
                                        : make_expr(ExprKind::Binary, where, token.text);
    node->children.push_back(std::move(left));
    node->children.push_back(expression(right_power));
    return node;
  }

  ExprPtr if_expression() {
    ExprPtr node = make_expr(ExprKind::If, next().where);
    node->children.push_back(expression(kBodyPower));
    expect_keyword("then", "after the condition of 'if'");
    node->children.push_back(expression(kBodyPower));
    expect_keyword("else", "after the 'then' branch");
    node->children.push_back(expression(kBodyPower));
    return node;
  }

  ExprPtr let_expression() {
    ExprPtr node = make_expr(ExprKind::Let, next().where);
    for (;;) {
      Binding binding;
      binding.pattern = expression(kBodyPower);
      check_pattern(*binding.pattern);
      check_binders(*binding.pattern);
      expect_symbol("=", "after the pattern of a let binding");
      binding.value = expression(kBodyPower);
      node->bindings.push_back(std::move(binding));
      if (!accept_symbol(";") || peek().is_keyword("in")) break;
    }
    expect_keyword("in", "or ';' after a let binding");
    node->children.push_back(expression(kBodyPower));
    return node;
  }

  // After `[`: an empty sequence `[] type`, a range `[s:e]`/`[s:e:d]`, or elements `[a, b]`.
  ExprPtr bracket(Location where) {
    if (accept_symbol("]")) {
      open_brackets_.pop_back();
      // A type starts with a name, '[' or '('; anything else means the type was left out.
      const Token& after = peek();
      if (!after.is_symbol("[") && !after.is_symbol("(") &&
          (after.kind != TokenKind::Identifier || is_keyword(after.text))) {
        throw CompileError(where, "expected the element type after [] (an empty sequence is written [] int), found " +
                                      describe_token(after));
      }
      ExprPtr empty = make_expr(ExprKind::Empty, where);
      empty->type = type(kEmptyTypePower);
      return empty;
    }
    ExprPtr first = expression(kElementPower);
    if (accept_symbol(":")) {
      ExprPtr range = make_expr(ExprKind::Range, where);
      range->children.push_back(std::move(first));
      range->children.push_back(expression(kBodyPower));
      if (accept_symbol(":")) range->children.push_back(expression(kBodyPower));
      expect_close("to close the range");
      return range;
    }
    ExprPtr sequence = make_expr(ExprKind::Sequence, where);
    sequence->children.push_back(std::move(first));
    while (accept_symbol(",")) sequence->children.push_back(expression(kElementPower));
    expect_close("or ',' in the sequence");
    return sequence;
  }

  // After `{`: `{e : p in s; q in t | filter}` or `{p in s | filter}`; a generator that is a
  // bare variable x stands for `x in x`.
  ExprPtr apply_to_each(Location where) {
    ExprPtr node = make_expr(ExprKind::Over, where);
    ExprPtr body = expression(kBodyPower);
    ExprPtr first_pattern;
    if (accept_symbol(":")) {
      first_pattern = expression(kBodyPower);
    } else {
      first_pattern = std::move(body);
    }
    node->bindings.push_back(generator(std::move(first_pattern)));
    while (accept_symbol(";")) {
      expect_generator_after_semicolon();
      node->bindings.push_back(generator(expression(kBodyPower)));
    }
    node->children.push_back(std::move(body));
    if (accept_symbol("|")) {
      node->children.push_back(expression(kBodyPower));
    } else {
      node->children.push_back(nullptr);
    }
    expect_close("to close the apply-to-each");
    return node;
  }

  // A ';' in braces is read as the start of another generator, so one meant to end the form
  // (at the prompt, the braces left open) is named with the brace it is in.
  void expect_generator_after_semicolon() const {
    const Token& token = peek();
    static constexpr std::string_view kCannotStart[] = {";", "$", "}", "|", ")", "]"};
    for (std::string_view symbol : kCannotStart) {
      if (!token.is_symbol(symbol)) continue;
      const OpenBracket& open = open_brackets_.back();
      throw CompileError(token.where, "expected a generator after ';' (inside the '{' opened at " +
                                          std::to_string(open.where.line) + ":" + std::to_string(open.where.column) +
                                          ", where ';' separates generators), found " + describe_token(token));
    }
  }

  Binding generator(ExprPtr pattern) {
    check_pattern(*pattern);
    check_binders(*pattern);
    Binding binding;
    if (accept_keyword("in")) {
      binding.value = expression(kBodyPower);
    } else if (pattern->kind == ExprKind::Variable) {
      binding.value = make_expr(ExprKind::Variable, pattern->where, pattern->text);
    } else {
      fail("'in' after the pattern of an apply-to-each");
    }
    binding.pattern = std::move(pattern);
    return binding;
  }

  // Patterns are parsed as expressions and then checked: variables, tuples of patterns, and a
  // datatype constructor applied to a pattern.
  static void check_pattern(const Expr& pattern) {
    switch (pattern.kind) {
      case ExprKind::Variable: return;
      case ExprKind::Pair:
        check_pattern(*pattern.children[0]);
        check_pattern(*pattern.children[1]);
        return;
      case ExprKind::Call:
        if (pattern.children[0]->kind == ExprKind::Variable) {
          check_pattern(*pattern.children[1]);
          return;
        }
        break;
      default: break;
    }
    throw CompileError(pattern.where,
                       "expected a pattern (a variable, a tuple, or a datatype constructor "
                       "applied to patterns), found " + describe_expression(pattern));
  }

  // The variables of a checked pattern of a let, an apply-to-each or a top-level binding must
  // be names a program may bind (unbindable); a datatype constructor in it is not bound.
  static void check_binders(const Expr& pattern) {
    switch (pattern.kind) {
      case ExprKind::Variable:
        if (std::optional<std::string> why = unbindable(pattern.text))
          throw CompileError(pattern.where, "expected a variable to bind, found " + *why);
        return;
      case ExprKind::Pair:
        check_binders(*pattern.children[0]);
        check_binders(*pattern.children[1]);
        return;
      case ExprKind::Call: check_binders(*pattern.children[1]); return;
      default: return;
    }
  }

  static std::string describe_expression(const Expr& expr) {
    switch (expr.kind) {
      case ExprKind::Integer: return "the integer " + expr.text;
      case ExprKind::Float: return "the float " + expr.text;
      case ExprKind::Character: return "a character";
      case ExprKind::String: return "a string";
      case ExprKind::Binary: return "an application of " + expr.text;
      case ExprKind::Unary: return "an application of " + expr.text;
      case ExprKind::Call: return "a call";
      case ExprKind::Index: return "an indexing";
      case ExprKind::If: return "an if expression";
      case ExprKind::Let: return "a let expression";
      case ExprKind::Over: return "an apply-to-each";
      case ExprKind::Lambda: return "a function expression";
      case ExprKind::Sequence:
      case ExprKind::Empty:
      case ExprKind::Range: return "a sequence";
      default: return "an expression";
    }
  }

  // Type syntax: `,` and `->` as in expressions; names with optional parameters, `[t]`, `(t)`.
  TypeExprPtr type(int rbp) {
    NestingGuard guard(*this);
    TypeExprPtr left = type_prefix();
    for (;;) {
      bool comma = peek().is_symbol(",");
      bool arrow = peek().is_symbol("->");
      int power = comma ? kCommaPower : arrow ? kArrowPower : 0;
      if (rbp >= power) return left;
      auto node = std::make_unique<TypeExpr>();
      node->kind = comma ? TypeExpr::Kind::Pair : TypeExpr::Kind::Function;
      node->where = left->where;
      next();
      node->children.push_back(std::move(left));
      node->children.push_back(type(power - 1));
      left = std::move(node);
    }
  }

  TypeExprPtr type_prefix() {
    auto node = std::make_unique<TypeExpr>();
    node->where = peek().where;
    if (accept_open("[")) {
      node->kind = TypeExpr::Kind::Sequence;
      node->children.push_back(type(kBodyPower));
      expect_close("to close the sequence type");
      return node;
    }
    if (accept_open("(")) {
      TypeExprPtr inner = type(kBodyPower);
      expect_close("to close the parenthesized type");
      return inner;
    }
    if (peek().kind != TokenKind::Identifier || is_keyword(peek().text)) fail("a type");
    node->kind = TypeExpr::Kind::Name;
    node->name = next().text;
    if (accept_open("(")) {
      do {
        node->children.push_back(type(kCommaPower));
      } while (accept_symbol(","));
      expect_close("to close the type parameters of " + node->name);
    }
    return node;
  }

  // `(a in number; b in any)`; the parentheses may be left out, and then a `;` separates entries
  // only when `NAME in` follows it, so that `;` can still end the form.
  std::vector<TypeContextEntry> type_context() {
    bool parenthesized = accept_open("(");
    std::vector<TypeContextEntry> entries;
    for (;;) {
      TypeContextEntry entry;
      entry.where = peek().where;
      entry.variable = name("a type variable in the type context");
      expect_keyword("in", "after the type variable " + entry.variable);
      entry.type_class = name("a type class (number, ordinal, logical or any)");
      entries.push_back(std::move(entry));
      bool more = parenthesized ? peek().is_symbol(";")
                                : peek().is_symbol(";") && peek(1).kind == TokenKind::Identifier &&
                                      peek(2).is_keyword("in");
      if (!more) break;
      next();
    }
    if (parenthesized) expect_close("to close the type context");
    return entries;
  }

  const std::vector<Token>& tokens_;
  std::size_t position_;
  int depth_ = 0;
  int chained_ = 0;
  std::vector<OpenBracket> open_brackets_;
  Loading* loading_;
  std::map<std::string, std::string> strings_;  // top-level variables bound to constant strings
};

}  // namespace

Program parse_program(std::shared_ptr<SourceFile> source) {
  std::vector<Token> tokens = tokenize(*source);
  return Parser(tokens, 0).program(std::move(source));
}

TypeSignature parse_type_signature(const std::vector<Token>& tokens, std::size_t& position) {
  Parser parser(tokens, position);
  TypeSignature signature = parser.type_signature();
  position = parser.position();
  return signature;
}

}  // namespace nesl
