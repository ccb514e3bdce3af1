// The generator of random well-typed NESL programs (nesl_program_generator.hpp). Every
// expression is written for a type it must have; compound expressions are always parenthesized,
// so that NESL's precedence (and `if`/`let` extending to the right) cannot change their meaning.
#include "nesl_program_generator.hpp"

#include <cstdio>
#include <algorithm>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "random_source.hpp"

namespace fuzz {
namespace {

struct Ty {
  enum class Kind { Int, Float, Bool, Char, Seq, Pair };
  Kind kind = Kind::Int;
  std::vector<Ty> parts;  // Seq: the element type; Pair: left and right

  static Ty of(Kind kind) {
    Ty t;
    t.kind = kind;
    return t;
  }
  static Ty seq(Ty element) {
    Ty t;
    t.kind = Kind::Seq;
    t.parts.push_back(std::move(element));
    return t;
  }
  static Ty pair(Ty left, Ty right) {
    Ty t;
    t.kind = Kind::Pair;
    t.parts.push_back(std::move(left));
    t.parts.push_back(std::move(right));
    return t;
  }
  bool operator==(const Ty&) const = default;
  const Ty& element() const { return parts[0]; }
  bool is(Kind k) const { return kind == k; }
  bool number() const { return kind == Kind::Int || kind == Kind::Float; }
  bool ordinal() const { return number() || kind == Kind::Char; }
  // How deeply sequences nest in it (a pair counts its deeper side).
  int nesting() const {
    if (kind == Kind::Seq) return 1 + parts[0].nesting();
    if (kind == Kind::Pair) return std::max(parts[0].nesting(), parts[1].nesting());
    return 0;
  }
};

const Ty kInt = Ty::of(Ty::Kind::Int), kFloat = Ty::of(Ty::Kind::Float), kBool = Ty::of(Ty::Kind::Bool),
         kChar = Ty::of(Ty::Kind::Char);

// Concatenates in order: the pieces of a braced list are evaluated left to right (the operands of
// `+` are not), so that a seed gives the same text with any compiler.
std::string join(std::initializer_list<std::string> pieces) {
  std::string out;
  for (const auto& piece : pieces) out += piece;
  return out;
}

// The type as NESL source, for `[] TYPE`.
std::string type_text(const Ty& t) {
  switch (t.kind) {
    case Ty::Kind::Int: return "int";
    case Ty::Kind::Float: return "float";
    case Ty::Kind::Bool: return "bool";
    case Ty::Kind::Char: return "char";
    case Ty::Kind::Seq: return "[" + type_text(t.element()) + "]";
    case Ty::Kind::Pair: return "(" + type_text(t.parts[0]) + ", " + type_text(t.parts[1]) + ")";
  }
  return "int";
}

// Sequences nest at most this deep, in any type the generator makes.
constexpr int kMaxNesting = 3;

struct Variable {
  std::string name;
  Ty type;
};
using Scope = std::vector<Variable>;

struct Function {
  std::string name;
  std::vector<Ty> params;
  Ty result;
  // The first argument is a recursion counter: calls pass a small non-negative int.
  bool counter = false;
};

// One way to make an expression: the feature it exercises, a weight, and the maker.
struct Production {
  const char* feature;
  int weight;
  std::function<std::string()> make;
};

class Generator {
 public:
  Generator(std::uint64_t seed, const NeslGeneratorOptions& options) : rng_(seed), options_(options) {}

  GeneratedNeslProgram program() {
    GeneratedNeslProgram result;
    unsafe_ = rng_.chance(0.06);
    result.unsafe = unsafe_;
    const int functions = static_cast<int>(rng_.between(0, 4));
    for (int i = 0; i < functions; ++i) define_function();
    if (unsafe_) used_.insert("unsafe");
    // Most functions are called from the expression, directly or on each element of a sequence.
    std::vector<std::string> parts;
    for (const Function& f : functions_)
      if (rng_.chance(0.7) && use("call")) {
        const int depth = static_cast<int>(rng_.between(1, 3));
        const bool takes_sequence = std::any_of(f.params.begin() + (f.counter ? 1 : 0), f.params.end(),
                                                [](const Ty& p) { return p.is(Ty::Kind::Seq); });
        if (takes_sequence && rng_.chance(0.4) && use("shared_call")) parts.push_back(shared_map_call(f, depth));
        else parts.push_back(rng_.chance(0.5) ? call(f, {}, depth) : map_function(f, {}, depth));
      }
    const int more = static_cast<int>(rng_.between(parts.empty() ? 1 : 0, 2));
    for (int i = 0; i < more; ++i) {
      const Ty type = random_type(kMaxNesting);
      const int depth = static_cast<int>(rng_.between(2, 5));
      parts.push_back(expr(type, {}, depth));
    }
    std::string expression;
    for (std::size_t i = 0; i < parts.size(); ++i) expression += (i ? ", " : "") + parts[i];
    if (unsafe_) result.text = "% unsafe: some indexing and division unguarded, it may end in a runtime error %\n";
    for (const auto& line : lines_) result.text += line + "\n";
    result.features = used_;
    result.text += (parts.size() > 1 ? "(" + expression + ")" : expression) + ";\n";
    return result;
  }

 private:
  std::string fresh(const char* prefix) { return prefix + std::to_string(++names_); }

  Ty random_type(int max_nesting, bool pairs = true) {
    const int roll = static_cast<int>(rng_.below(100));
    if (max_nesting > 0 && roll < 30) return Ty::seq(random_type(max_nesting - 1, pairs));
    if (pairs && roll < 38) {
      Ty left = random_type(max_nesting, false);
      // Now and then an element and a sequence of its type, as head_rest gives.
      Ty right = left.nesting() < max_nesting && rng_.chance(0.2) ? Ty::seq(left) : random_type(max_nesting, pairs);
      return Ty::pair(std::move(left), std::move(right));
    }
    static const std::vector<Ty> scalars = {kInt, kInt, kInt, kFloat, kFloat, kBool, kChar};
    return rng_.pick(scalars);
  }
  Ty random_scalar() { return rng_.pick(std::vector<Ty>{kInt, kInt, kFloat, kBool, kChar}); }
  Ty random_ordinal() { return rng_.pick(std::vector<Ty>{kInt, kInt, kFloat, kChar}); }
  Ty random_number() { return rng_.pick(std::vector<Ty>{kInt, kInt, kFloat}); }

  // Picks one production by weight among those not avoided and runs it.
  std::string choose(const std::vector<Production>& productions) {
    std::vector<const Production*> open;
    std::vector<int> weights;
    for (const auto& p : productions)
      if (p.weight > 0 && !options_.avoid.count(p.feature)) {
        open.push_back(&p);
        weights.push_back(p.weight);
      }
    if (open.empty()) return {};
    const Production& chosen = *open[rng_.weighted(weights)];
    used_.insert(chosen.feature);
    return chosen.make();
  }

  // Whether `feature` may be used; if so, it counts as used.
  bool use(const char* feature) {
    if (options_.avoid.count(feature)) return false;
    used_.insert(feature);
    return true;
  }

  // ---- leaves ----

  std::string literal(const Ty& t) {
    switch (t.kind) {
      case Ty::Kind::Int: {
        const auto n = rng_.between(-5, 20);
        return n < 0 ? "(" + std::to_string(n) + ")" : std::to_string(n);
      }
      case Ty::Kind::Float: {
        // Multiples of 1/4: exact in binary, so that sums of them do not depend on their grouping.
        const auto quarters = rng_.between(-32, 32);
        char text[32];
        std::snprintf(text, sizeof text, "%.2f", static_cast<double>(quarters) / 4.0);
        return quarters < 0 ? "(" + std::string(text) + ")" : std::string(text);
      }
      case Ty::Kind::Bool: return rng_.chance(0.5) ? "t" : "f";
      case Ty::Kind::Char: {
        static const std::string chars = "abcmxyzABQZ0179";
        return std::string("`") + chars[rng_.below(chars.size())];
      }
      case Ty::Kind::Seq: {
        if (t.element().is(Ty::Kind::Char) && rng_.chance(0.4)) {
          static const std::vector<std::string> strings = {"\"\"", "\"a\"", "\"nesl\"", "\"Hello7\"", "\"zzyx\""};
          return rng_.pick(strings);
        }
        if (rng_.chance(0.2)) return empty(t.element());
        const int n = static_cast<int>(rng_.between(1, 4));
        std::string out = "[";
        for (int i = 0; i < n; ++i) out += (i ? ", " : "") + literal(t.element());
        return out + "]";
      }
      case Ty::Kind::Pair: return join({"(", literal(t.parts[0]), ", ", literal(t.parts[1]), ")"});
    }
    return "0";
  }

  static std::string empty(const Ty& element) { return "([] " + type_text(element) + ")"; }

  std::string leaf(const Ty& t, const Scope& scope) {
    std::vector<const Variable*> matching;
    for (const auto& v : scope)
      if (v.type == t) matching.push_back(&v);
    if (!matching.empty() && rng_.chance(0.7)) return rng_.pick(matching)->name;
    return literal(t);
  }

  // ---- expressions of a given type ----

  std::string expr(const Ty& t, const Scope& scope, int depth) {
    if (depth <= 0 || rng_.chance(0.12)) return leaf(t, scope);
    const int d = depth - 1;
    std::vector<Production> productions = generic(t, scope, d);
    switch (t.kind) {
      case Ty::Kind::Int: add_int(productions, scope, d); break;
      case Ty::Kind::Float: add_float(productions, scope, d); break;
      case Ty::Kind::Bool: add_bool(productions, scope, d); break;
      case Ty::Kind::Char: add_char(productions, scope, d); break;
      case Ty::Kind::Seq: add_seq(productions, t.element(), scope, d); break;
      case Ty::Kind::Pair: add_pair(productions, t, scope, d); break;
    }
    std::string made = choose(productions);
    return made.empty() ? leaf(t, scope) : made;
  }

  // `e` reduced to [0, n): `abs(rem(e, n))`. Not `rem(abs(e), n)`: abs of the least INT is
  // itself (min_scan's identity plus one wraps to it), and its remainder may be negative.
  static std::string in_range(const std::string& e, const std::string& n) {
    return join({"abs(rem(", e, ", ", n, "))"});
  }
  // A small non-negative int.
  std::string below(int n, const Scope& scope, int d) {
    return in_range(expr(kInt, scope, d), std::to_string(n));
  }
  std::string pick(std::initializer_list<const char*> names) {
    return rng_.pick(std::vector<std::string>(names.begin(), names.end()));
  }

  static Scope with(Scope scope, std::string name, Ty type) {
    scope.push_back({std::move(name), std::move(type)});
    return scope;
  }

  // Forms of any type: if, let, a tuple pattern, an element of a sequence, a user function.
  std::vector<Production> generic(const Ty& t, const Scope& s, int d) {
    std::vector<Production> p;
    p.push_back({"if", 6, [=, this] {
                   return join({"(if ", expr(kBool, s, d), " then ", expr(t, s, d), " else ", expr(t, s, d), ")"});
                 }});
    p.push_back({"let", 6, [=, this] {
                   const Ty u = random_type(2);
                   const std::string v = fresh("v");
                   const std::string bound = expr(u, s, d);
                   if (rng_.chance(0.25)) {  // two bindings, the second reading the first
                     const Ty w = random_type(2);
                     const std::string v2 = fresh("v");
                     const Scope inner = with(s, v, u);
                     const std::string bound2 = expr(w, inner, d);
                     const std::string body = expr(t, with(inner, v2, w), d);
                     return "(let " + v + " = " + bound + "; " + v2 + " = " + bound2 + " in " + body + ")";
                   }
                   const std::string body = expr(t, with(s, v, u), d);
                   return "(let " + v + " = " + bound + " in " + body + ")";
                 }});
    // A function expression bound by let and called: its body reads the scope it is made in.
    p.push_back({"function_expression", 3, [=, this] {
                   const Ty u = random_type(2);
                   const std::string g = fresh("g"), y = fresh("y");
                   const std::string body = expr(t, with(s, y, u), d);
                   return "(let " + g + " = (" + y + " => " + body + ") in " + g + "(" + expr(u, s, d) + "))";
                 }});
    p.push_back({"let_tuple", 3, [=, this] {
                   const Ty a = random_type(1, false), b = random_type(1);
                   const std::string x = fresh("p"), y = fresh("q");
                   const std::string bound = expr(Ty::pair(a, b), s, d);
                   const std::string body = expr(t, with(with(s, x, a), y, b), d);
                   return "(let (" + x + ", " + y + ") = " + bound + " in " + body + ")";
                 }});
    if (t.nesting() < kMaxNesting)
      p.push_back({"element", 5, [=, this] {
                     const std::string seq = expr(Ty::seq(t), s, d);
                     if (unsafe_ && rng_.chance(0.3)) return join({"(", seq, "[", expr(kInt, s, d), "])"});
                     const std::string v = fresh("v");
                     return join({"(let ", v, " = ", seq, " ++ [", expr(t, s, d), "] in ", v, "[",
                                  in_range(expr(kInt, s, d), "#" + v), "])"});
                   }});
    std::vector<const Function*> callable;
    for (const auto& f : functions_)
      if (f.result == t) callable.push_back(&f);
    if (!callable.empty()) p.push_back({"call", 6, [=, this] { return call(*rng_.pick(callable), s, d); }});
    const std::vector<Variable> holding = sequences_in(s, [&](const Ty& v) { return v.element() == t; });
    if (!holding.empty()) p.push_back({"free_index", 4, [=, this] { return free_element(rng_.pick(holding), s, d); }});
    if (d >= 1) p.push_back({"shared_apply_to_each", 4, [=, this] { return shared_apply_to_each(t, s, d); }});
    return p;
  }

  std::string call(const Function& f, const Scope& s, int d) {
    std::string out = f.name + "(";
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      if (i) out += ", ";
      out += (i == 0 && f.counter) ? below(6, s, d) : expr(f.params[i], s, d);
    }
    return out + ")";
  }

  // `(a OP b)` over two expressions of type t.
  std::string binary(const Ty& t, const std::string& op, const Scope& s, int d) {
    return join({"(", expr(t, s, d), " ", op, " ", expr(t, s, d), ")"});
  }
  // `NAME(a)` and `NAME(a, b)` over expressions of type t.
  std::string unary_call(const std::string& name, const Ty& t, const Scope& s, int d) {
    return join({name, "(", expr(t, s, d), ")"});
  }
  std::string binary_call(const std::string& name, const Ty& t, const Scope& s, int d) {
    return join({name, "(", expr(t, s, d), ", ", expr(t, s, d), ")"});
  }

  void add_int(std::vector<Production>& p, const Scope& s, int d) {
    const std::vector<Variable> sequences = sequences_in(s, [](const Ty&) { return true; });
    if (!sequences.empty()) p.push_back({"free_length", 3, [=, this] { return "#" + rng_.pick(sequences).name; }});
    auto positive = [=, this] { return join({"(abs(", expr(kInt, s, d), ") + 1)"}); };
    p.push_back({"arith", 10, [=, this] { return binary(kInt, "+", s, d); }});
    p.push_back({"arith", 6, [=, this] { return binary(kInt, "-", s, d); }});
    // Products are reduced at once, so that no sum or product of them overflows.
    p.push_back({"mul", 4, [=, this] { return join({"rem(", expr(kInt, s, d), " * ", expr(kInt, s, d), ", 1009)"}); }});
    p.push_back({"div", 3, [=, this] {
                   if (unsafe_ && rng_.chance(0.3)) return binary(kInt, "/", s, d);
                   return join({"(", expr(kInt, s, d), " / ", positive(), ")"});
                 }});
    p.push_back({"rem", 3, [=, this] { return join({"rem(", expr(kInt, s, d), ", ", positive(), ")"}); }});
    p.push_back({"mod", 2, [=, this] { return join({"mod(", expr(kInt, s, d), ", ", positive(), ")"}); }});
    p.push_back({"power", 1, [=, this] { return join({"(rem(", expr(kInt, s, d), ", 50) ^ ", below(4, s, d), ")"}); }});
    p.push_back({"minmax", 3, [=, this] { return binary_call(pick({"max", "min"}), kInt, s, d); }});
    p.push_back({"abs_negate", 3, [=, this] {
                   return rng_.chance(0.5) ? unary_call("abs", kInt, s, d) : unary_call("-", kInt, s, d);
                 }});
    p.push_back({"length", 6, [=, this] { return join({"(#", expr(Ty::seq(random_type(2)), s, d), ")"}); }});
    p.push_back({"sum", 6, [=, this] { return unary_call("sum", Ty::seq(kInt), s, d); }});
    p.push_back({"count", 3, [=, this] { return unary_call("count", Ty::seq(kBool), s, d); }});
    p.push_back({"max_val", 3, [=, this] {
                   return join({pick({"max_val(", "min_val("}), expr(Ty::seq(kInt), s, d), " ++ [", expr(kInt, s, d),
                                "])"});
                 }});
    p.push_back({"max_index", 2, [=, this] {
                   const Ty e = random_ordinal();
                   return join({pick({"max_index(", "min_index("}), expr(Ty::seq(e), s, d), " ++ [", expr(e, s, d),
                                "])"});
                 }});
    p.push_back({"median", 1, [=, this] {
                   return join({"median(", expr(Ty::seq(kInt), s, d), " ++ [", expr(kInt, s, d), "])"});
                 }});
    p.push_back({"float_to_int", 4, [=, this] {
                   return unary_call(pick({"round", "trunc", "floor", "ceil"}), kFloat, s, d);
                 }});
    p.push_back({"char_code", 2, [=, this] { return unary_call("char_code", kChar, s, d); }});
    p.push_back({"btoi", 2, [=, this] { return unary_call("btoi", kBool, s, d); }});
    p.push_back({"gcd", 1, [=, this] { return binary_call("gcd", kInt, s, d); }});
    p.push_back({"shift", 1, [=, this] {
                   return join({pick({"lshift(", "rshift("}), expr(kInt, s, d), ", ", below(4, s, d), ")"});
                 }});
    p.push_back({"bitwise", 2, [=, this] { return binary(kInt, pick({"and", "or", "xor"}), s, d); }});
    p.push_back({"isqrt", 1, [=, this] { return join({"isqrt(", in_range(expr(kInt, s, d), "1000003"), ")"}); }});
  }

  void add_float(std::vector<Production>& p, const Scope& s, int d) {
    p.push_back({"arith", 10, [=, this] { return binary(kFloat, "+", s, d); }});
    p.push_back({"arith", 5, [=, this] { return binary(kFloat, "-", s, d); }});
    p.push_back({"mul", 4, [=, this] { return binary(kFloat, "*", s, d); }});
    p.push_back({"div", 3, [=, this] {
                   return join({"(", expr(kFloat, s, d), " / (abs(", expr(kFloat, s, d), ") + 1.0))"});
                 }});
    p.push_back({"int_to_float", 6, [=, this] { return unary_call("float", kInt, s, d); }});
    p.push_back({"sqrt_ln", 2, [=, this] {
                   return rng_.chance(0.5) ? join({"sqrt(abs(", expr(kFloat, s, d), "))"})
                                           : join({"ln(abs(", expr(kFloat, s, d), ") + 1.0)"});
                 }});
    p.push_back({"trig", 2, [=, this] { return unary_call(pick({"sin", "cos"}), kFloat, s, d); }});
    p.push_back({"minmax", 3, [=, this] { return binary_call(pick({"max", "min"}), kFloat, s, d); }});
    p.push_back({"abs_negate", 3, [=, this] {
                   return rng_.chance(0.5) ? unary_call("abs", kFloat, s, d) : unary_call("-", kFloat, s, d);
                 }});
    p.push_back({"sum", 5, [=, this] { return unary_call("sum", Ty::seq(kFloat), s, d); }});
    // Factors in (-1, 1): a product of twenty of them cannot overflow.
    p.push_back({"product", 1, [=, this] {
                   const std::string x = fresh("x");
                   return join({"product({", x, " / (abs(", x, ") + 1.0) : ", x, " in ", expr(Ty::seq(kFloat), s, d),
                                "})"});
                 }});
    p.push_back({"max_val", 2, [=, this] {
                   return join({pick({"max_val(", "min_val("}), expr(Ty::seq(kFloat), s, d), " ++ [",
                                expr(kFloat, s, d), "])"});
                 }});
    p.push_back({"power", 1, [=, this] { return join({"(", expr(kFloat, s, d), " ^ ", below(3, s, d), ")"}); }});
  }

  void add_bool(std::vector<Production>& p, const Scope& s, int d) {
    p.push_back({"compare", 10, [=, this] {
                   const Ty e = random_ordinal();
                   return binary(e, pick({"==", "/=", "<", ">", "<=", ">="}), s, d);
                 }});
    p.push_back({"logic", 5, [=, this] { return binary(kBool, pick({"and", "or", "xor"}), s, d); }});
    p.push_back({"not", 3, [=, this] { return unary_call("not", kBool, s, d); }});
    p.push_back({"parity", 3, [=, this] { return unary_call(pick({"evenp", "oddp"}), kInt, s, d); }});
    p.push_back({"all_any", 3, [=, this] { return unary_call(pick({"all", "any"}), Ty::seq(kBool), s, d); }});
    p.push_back({"sign", 2, [=, this] {
                   const std::string name = pick({"plusp", "minusp", "zerop"});
                   return unary_call(name, random_number(), s, d);
                 }});
    p.push_back({"digitp", 1, [=, this] { return unary_call("digitp", kChar, s, d); }});
  }

  void add_char(std::vector<Production>& p, const Scope& s, int d) {
    p.push_back({"code_char", 4, [=, this] { return join({"code_char(97 + ", below(26, s, d), ")"}); }});
    p.push_back({"case", 3, [=, this] { return unary_call(pick({"lowercase", "uppercase"}), kChar, s, d); }});
    p.push_back({"minmax", 2, [=, this] { return binary_call(pick({"max", "min"}), kChar, s, d); }});
  }

  // An apply-to-each over a sequence of a random type, with a body of type `body`: one or two
  // generators, a tuple pattern, a filter.
  std::string apply_to_each(const Ty& body, const Scope& s, int d) {
    const Ty u = random_type(std::min(2, kMaxNesting - 1));
    const std::string seq = expr(Ty::seq(u), s, d);
    Scope inner = s;
    std::string head;
    if (u.is(Ty::Kind::Pair) && rng_.chance(0.6)) {
      const std::string x = fresh("p"), y = fresh("q");
      inner = with(with(inner, x, u.parts[0]), y, u.parts[1]);
      head = "(" + x + ", " + y + ")";
    } else {
      head = fresh("x");
      inner = with(inner, head, u);
    }
    std::string generators, let_prefix, let_suffix;
    if (rng_.chance(0.3) && use("two_generators")) {
      // A second generator over a sequence of the same length, made from the first.
      const std::string v = fresh("v"), y = fresh("y");
      auto [second, w] = same_length(v, u, s, d);
      let_prefix = "(let " + v + " = " + seq + " in ";
      let_suffix = ")";
      generators = head + " in " + v + "; " + y + " in " + second;
      inner = with(inner, y, w);
    } else {
      generators = head + " in " + seq;
    }
    std::string filter;
    if (rng_.chance(0.3) && use("filter")) filter = " | " + expr(kBool, inner, d);
    const std::string made = expr(body, inner, d);
    return let_prefix + "{" + made + " : " + generators + filter + "}" + let_suffix;
  }

  // A sequence as long as the variable `v` (of type [u]), and its element type.
  std::pair<std::string, Ty> same_length(const std::string& v, const Ty& u, const Scope& s, int d) {
    const int ways = u.number() ? 7 : 4;
    switch (rng_.below(static_cast<std::size_t>(ways))) {
      case 0: return {"reverse(" + v + ")", u};
      case 1: return {join({"rotate(", v, ", ", expr(kInt, s, d), ")"}), u};
      case 2: return {"index(#" + v + ")", kInt};
      case 3: {
        const Ty w = random_type(1);
        const std::string z = fresh("z");
        return {join({"{", expr(w, with(s, z, u), d), " : ", z, " in ", v, "}"}), w};
      }
      case 4: return {"plus_scan(" + v + ")", u};
      case 5: return {"sort(" + v + ")", u};
      default: return {"rank(" + v + ")", kInt};
    }
  }

  void add_seq(std::vector<Production>& p, const Ty& e, const Scope& s, int d) {
    const Ty t = Ty::seq(e);
    const std::vector<Variable> same = sequences_in(s, [&](const Ty& v) { return v == t; });
    if (!same.empty()) {
      p.push_back({"free_gather", 3, [=, this] { return free_gather(rng_.pick(same), s, d); }});
      p.push_back({"free_update", 2, [=, this] { return free_update(rng_.pick(same), s, d); }});
    }
    p.push_back({"sequence", 6, [=, this] {
                   const int n = static_cast<int>(rng_.between(1, 4));
                   std::string out = "[";
                   for (int i = 0; i < n; ++i) out += (i ? ", " : "") + expr(e, s, d);
                   return out + "]";
                 }});
    p.push_back({"empty", 2, [=] { return empty(e); }});
    p.push_back({"apply_to_each", 16, [=, this] { return apply_to_each(e, s, d); }});
    // map of a function expression: its environment goes to every element.
    p.push_back({"map_function_expression", 3, [=, this] {
                   const Ty u = random_type(2);
                   const std::string y = fresh("y");
                   return join({"map((", y, " => ", expr(e, with(s, y, u), d), "), ", expr(Ty::seq(u), s, d), ")"});
                 }});
    p.push_back({"filter_short", 3, [=, this] {
                   const std::string x = fresh("x");
                   return join({"{", x, " in ", expr(t, s, d), " | ", expr(kBool, with(s, x, e), d), "}"});
                 }});
    p.push_back({"append", 5, [=, this] { return binary(t, "++", s, d); }});
    p.push_back({"cons_snoc", 2, [=, this] {
                   return rng_.chance(0.5) ? join({"cons(", expr(e, s, d), ", ", expr(t, s, d), ")"})
                                           : join({"snoc(", expr(t, s, d), ", ", expr(e, s, d), ")"});
                 }});
    p.push_back({"reverse", 3, [=, this] { return unary_call("reverse", t, s, d); }});
    p.push_back({"rotate", 2, [=, this] { return join({"rotate(", expr(t, s, d), ", ", expr(kInt, s, d), ")"}); }});
    p.push_back({"odd_even_elts", 1, [=, this] { return unary_call(pick({"odd_elts", "even_elts"}), t, s, d); }});
    p.push_back({"take_drop", 4, [=, this] {
                   const std::string name = pick({"take(", "drop("});
                   if (unsafe_ && rng_.chance(0.3)) return join({name, expr(t, s, d), ", ", expr(kInt, s, d), ")"});
                   const std::string v = fresh("v");
                   return join({"(let ", v, " = ", expr(t, s, d), " in ", name, v, ", ",
                                in_range(expr(kInt, s, d), "#" + v + " + 1"), "))"});
                 }});
    p.push_back({"dist", 3, [=, this] { return join({"dist(", expr(e, s, d), ", ", below(6, s, d), ")"}); }});
    p.push_back({"gather", 3, [=, this] {
                   const Ty indices = Ty::seq(kInt);
                   if (unsafe_ && rng_.chance(0.3)) return join({"(", expr(t, s, d), " -> ", expr(indices, s, d), ")"});
                   const std::string v = fresh("v"), i = fresh("i");
                   return join({"(let ", v, " = ", expr(t, s, d), " ++ [", expr(e, s, d), "] in ", v, " -> {",
                                in_range(i, "#" + v), " : ", i, " in ", expr(indices, s, d), "})"});
                 }});
    if (t.nesting() < kMaxNesting)
      p.push_back({"flatten", 3, [=, this] { return unary_call("flatten", Ty::seq(t), s, d); }});
    if (e.number()) {
      p.push_back({"sort", 3, [=, this] { return unary_call("sort", t, s, d); }});
      p.push_back({"scan", 4, [=, this] { return unary_call(pick({"plus_scan", "max_scan", "min_scan"}), t, s, d); }});
    }
    if (e.is(Ty::Kind::Bool))
      p.push_back({"scan", 2, [=, this] { return unary_call(pick({"or_scan", "and_scan"}), t, s, d); }});
    if (e.is(Ty::Kind::Int)) {
      p.push_back({"range", 4, [=, this] {
                     const std::string v = fresh("v");
                     const std::string start = expr(kInt, s, d);
                     const std::string length = below(9, s, d);
                     const std::string stride = rng_.chance(0.3) ? " : 2" : "";
                     return "(let " + v + " = " + start + " in [" + v + " : " + v + " + " + length + stride + "])";
                   }});
      p.push_back({"index", 2, [=, this] { return join({"index(", below(9, s, d), ")"}); }});
      p.push_back({"rank", 1, [=, this] { return unary_call("rank", Ty::seq(random_number()), s, d); }});
      p.push_back({"enumerate", 1, [=, this] {
                     return unary_call(pick({"enumerate", "pack_index"}), Ty::seq(kBool), s, d);
                   }});
    }
    if (e.is(Ty::Kind::Seq)) {
      const Ty inner = e.element();
      p.push_back({"split", 2, [=, this] {
                     const std::string v = fresh("v"), x = fresh("x");
                     return join({"(let ", v, " = ", expr(Ty::seq(inner), s, d), " in split(", v, ", {",
                                  expr(kBool, with(s, x, inner), d), " : ", x, " in ", v, "}))"});
                   }});
      p.push_back({"bottop", 1, [=, this] { return unary_call("bottop", Ty::seq(inner), s, d); }});
    }
    if (e.is(Ty::Kind::Pair)) {
      const Ty a = e.parts[0], b = e.parts[1];
      p.push_back({"zip", 3, [=, this] {
                     const std::string v = fresh("v"), x = fresh("x");
                     return join({"(let ", v, " = ", expr(Ty::seq(a), s, d), " in zip(", v, ", {",
                                  expr(b, with(s, x, a), d), " : ", x, " in ", v, "}))"});
                   }});
    }
    // A user function applied to each element: a recursive one ends at a different depth in each
    // instance.
    std::vector<const Function*> callable;
    for (const auto& f : functions_)
      if (f.result == e) callable.push_back(&f);
    if (!callable.empty())
      p.push_back({"map_function", 6, [=, this] { return map_function(*rng_.pick(callable), s, d); }});
  }

  // `{f(x, ...) : x in S}`: f on each element of a sequence of its first argument's type.
  std::string map_function(const Function& f, const Scope& s, int d) {
    const Ty u = f.counter ? kInt : f.params[0];
    const std::string x = fresh("x");
    const Scope inner = with(s, x, u);
    std::string args = f.counter ? in_range(x, "6") : x;
    for (std::size_t i = 1; i < f.params.size(); ++i) args += ", " + expr(f.params[i], inner, d);
    return join({"{", f.name, "(", args, ") : ", x, " in ", expr(Ty::seq(u), s, d), "}"});
  }

  void add_pair(std::vector<Production>& p, const Ty& t, const Scope& s, int d) {
    const Ty a = t.parts[0], b = t.parts[1];
    p.push_back({"tuple", 10, [=, this] { return join({"(", expr(a, s, d), ", ", expr(b, s, d), ")"}); }});
    if (b.is(Ty::Kind::Seq) && b.element() == a)
      p.push_back({"head_rest", 2, [=, this] {
                     return join({"head_rest(cons(", expr(a, s, d), ", ", expr(b, s, d), "))"});
                   }});
    if (a.is(Ty::Kind::Seq) && b.is(Ty::Kind::Seq))
      p.push_back({"unzip", 2, [=, this] {
                     return unary_call("unzip", Ty::seq(Ty::pair(a.element(), b.element())), s, d);
                   }});
  }

  // ---- free sequences read inside an apply-to-each ----
  //
  // A sequence bound outside an apply-to-each (a parameter, a let, an outer element) that its
  // body reads in place (`w[i]`, `#w`, `w -> is`, an argument of a call) is shared by the
  // elements, not copied to each (nesl/FLATTENING.md); these make such bodies, nested one to three
  // deep, in `if` arms, with two free sequences, through recursion, and now and then with a use
  // that copies the sequence after all.

  // The scope's sequence variables whose type satisfies `fits`.
  static std::vector<Variable> sequences_in(const Scope& s, const std::function<bool(const Ty&)>& fits) {
    std::vector<Variable> out;
    for (const auto& v : s)
      if (v.type.is(Ty::Kind::Seq) && fits(v.type)) out.push_back(v);
    return out;
  }

  // The type of a free sequence: ints and floats, tuples, nested sequences.
  Ty shared_type() {
    switch (rng_.below(8)) {
      case 0:
      case 1: return Ty::seq(kInt);
      case 2: return Ty::seq(kFloat);
      case 3: return Ty::seq(Ty::pair(kInt, kFloat));
      case 4: return Ty::seq(Ty::seq(kInt));
      case 5: return Ty::seq(Ty::seq(kFloat));
      case 6: return Ty::seq(Ty::pair(random_scalar(), Ty::seq(kInt)));
      default: return Ty::seq(random_type(2));
    }
  }

  // `w[i]` with i in range, or `otherwise` when w is empty; unsafe programs now and then index
  // one past the end.
  std::string free_element(const Variable& w, const Scope& s, int d) {
    const std::string n = "#" + w.name;
    if (unsafe_ && rng_.chance(0.3)) return join({"(", w.name, "[", in_range(expr(kInt, s, d), n + " + 1"), "])"});
    return join({"(if ", n, " == 0 then ", expr(w.type.element(), s, d), " else ", w.name, "[",
                 in_range(expr(kInt, s, d), n), "])"});
  }

  // `w -> is` with every index in range (w's length read per element of is too).
  std::string free_gather(const Variable& w, const Scope& s, int d) {
    const std::string n = "#" + w.name, i = fresh("i");
    if (unsafe_ && rng_.chance(0.3)) return join({"(", w.name, " -> ", expr(Ty::seq(kInt), s, d), ")"});
    return join({"(if ", n, " == 0 then ", expr(w.type, s, d), " else ", w.name, " -> {", in_range(i, n), " : ", i,
                 " in ", expr(Ty::seq(kInt), s, d), "})"});
  }

  // `w <- [(i, x)]`: a use that copies w.
  std::string free_update(const Variable& w, const Scope& s, int d) {
    const std::string n = "#" + w.name;
    return join({"(if ", n, " == 0 then ", w.name, " else (", w.name, " <- [(", in_range(expr(kInt, s, d), n), ", ",
                 expr(w.type.element(), s, d), ")]))"});
  }

  // An expression of type t that reads the free sequence w: mostly in place, sometimes copying it.
  std::string read_free(const Ty& t, const Variable& w, const Scope& s, int d) {
    const Ty& u = w.type.element();
    if (t == u && rng_.chance(0.6)) return use("free_index") ? free_element(w, s, d) : expr(t, s, d);
    if (t == w.type && rng_.chance(0.7)) {
      const auto roll = rng_.below(10);
      if (roll < 5 && use("free_gather")) return free_gather(w, s, d);
      if (roll < 7 && use("free_update")) return free_update(w, s, d);
      if (use("shared_copy")) return roll < 9 ? join({"(", w.name, " ++ ", expr(t, s, d), ")"}) : w.name;
    }
    if (t == kInt && rng_.chance(0.5) && use("free_length")) return join({"(#", w.name, " + ", expr(kInt, s, d), ")"});
    // One read, bound, then an expression of type t that may use it.
    const std::string r = fresh("r");
    std::string read;
    Ty type;
    const auto roll = rng_.below(3);
    if (roll == 0 && use("free_index")) {
      read = free_element(w, s, d);
      type = u;
    } else if (roll == 1 && use("free_gather")) {
      read = free_gather(w, s, d);
      type = w.type;
    } else {
      used_.insert("free_length");
      read = "#" + w.name;
      type = kInt;
    }
    return join({"(let ", r, " = ", read, " in ", expr(t, with(s, r, type), d), ")"});
  }

  // A call of a user function, inside the apply-to-each, with a free sequence as an argument as
  // it is (prefers `forced_call_`); empty when no function takes any of `frees`.
  std::string shared_call(const Ty& t, const Scope& s, const std::vector<Variable>& frees, int d) {
    std::vector<std::pair<const Function*, Variable>> candidates;
    for (const auto& f : functions_)
      for (std::size_t i = f.counter ? 1 : 0; i < f.params.size(); ++i)
        for (const auto& w : frees)
          if (f.params[i] == w.type && (!forced_call_ || forced_call_ == &f)) candidates.push_back({&f, w});
    if (candidates.empty() || options_.avoid.count("shared_call")) return {};
    used_.insert("shared_call");
    forced_call_ = nullptr;
    const auto [f, w] = rng_.pick(candidates);
    std::string call = f->name + "(";
    bool passed = false;
    for (std::size_t i = 0; i < f->params.size(); ++i) {
      if (i) call += ", ";
      if (i == 0 && f->counter) call += below(6, s, d);
      else if (f->params[i] == w.type && (!passed || rng_.chance(0.5))) {
        call += w.name;
        passed = true;
      }
      else call += expr(f->params[i], s, d);
    }
    call += ")";
    if (f->result == t) return call;
    const std::string r = fresh("r");
    return join({"(let ", r, " = ", call, " in ", expr(t, with(s, r, f->result), d), ")"});
  }

  // An expression of type t in which `levels` nested apply-to-each read `frees`, sequences bound
  // outside them: at the innermost level, and in a lifted `if`'s arm now and then.
  std::string shared_reads(const Ty& t, const Scope& s, std::vector<Variable> frees, int levels, int d) {
    std::string body;
    if (levels == 0 || (!t.is(Ty::Kind::Seq) && t.nesting() >= kMaxNesting)) {
      if (rng_.chance(forced_call_ ? 0.9 : 0.25)) body = shared_call(t, s, frees, d);
      if (body.empty() && frees.size() >= 2 && rng_.chance(0.4) && use("shared_two")) {
        // Two free sequences in one body.
        const std::size_t first = rng_.below(frees.size());
        const std::size_t second = (first + 1 + rng_.below(frees.size() - 1)) % frees.size();
        const Ty between = rng_.chance(0.5) ? frees[first].type.element() : kInt;
        const std::string r = fresh("r");
        const std::string read = read_free(between, frees[first], s, d);
        body = join({"(let ", r, " = ", read, " in ", read_free(t, frees[second], with(s, r, between), d), ")"});
      }
      if (body.empty()) body = read_free(t, rng_.pick(frees), s, d);
    } else {
      // The generator: an element of a free sequence of sequences, whose element the levels inside
      // read as a free sequence in turn, or any sequence.
      const std::vector<Variable> nested = [&] {
        std::vector<Variable> out;
        for (const auto& w : frees)
          if (w.type.element().is(Ty::Kind::Seq)) out.push_back(w);
        return out;
      }();
      std::string x, sequence;
      Ty element;
      if (!nested.empty() && rng_.chance(0.5) && use("shared_outer_element")) {
        const Variable& outer = rng_.pick(nested);
        x = fresh("w");
        element = outer.type.element();
        sequence = outer.name;
      } else {
        x = fresh("x");
        element = rng_.chance(0.4) ? kInt : random_type(1);
        sequence = element == kInt && rng_.chance(0.5) ? "index(" + below(12, s, d) + ")" : expr(Ty::seq(element), s, d);
      }
      const Scope inner = with(s, x, element);
      if (element.is(Ty::Kind::Seq)) frees.push_back({x, element});
      if (levels >= 2) used_.insert("shared_nested");
      std::string filter;
      if (rng_.chance(0.15) && use("filter")) filter = " | " + expr(kBool, inner, std::min(d, 1));
      const auto over = [&](const Ty& each) {
        const std::string made = shared_reads(each, inner, frees, levels - 1, d);
        return join({"{", made, " : ", x, " in ", sequence, filter, "}"});
      };
      if (t.is(Ty::Kind::Seq)) {
        body = over(t.element());
      } else if (t == kInt || t == kFloat) {
        body = "sum(" + over(t) + ")";
      } else if (t == kBool) {
        body = join({pick({"any(", "all("}), over(t), ")"});
      } else {
        const std::string z = fresh("z");
        const std::string made = over(t);
        body = join({"(let ", z, " = ", made, " in (if #", z, " == 0 then ", expr(t, s, d), " else ", z, "[0]))"});
      }
    }
    if (rng_.chance(0.2) && use("shared_in_if")) {
      const std::string condition = expr(kBool, s, std::min(d, 1));
      const std::string other = expr(t, s, std::min(d, 1));
      body = rng_.chance(0.5) ? join({"(if ", condition, " then ", body, " else ", other, ")"})
                              : join({"(if ", condition, " then ", other, " else ", body, ")"});
    }
    return body;
  }

  // Free sequences (of the scope, or bound here) read inside one to three nested apply-to-each.
  std::string shared_apply_to_each(const Ty& t, const Scope& s, int d) {
    const int depth = std::min(d, 2);
    std::vector<Variable> frees = sequences_in(s, [](const Ty&) { return true; });
    while (frees.size() > 2) frees.erase(frees.begin() + static_cast<std::ptrdiff_t>(rng_.below(frees.size())));
    Scope scope = s;
    std::string prefix, suffix;
    if (frees.empty() || rng_.chance(0.5)) {
      Ty type = shared_type();
      // Often a type some function takes, so that the body can pass it on.
      std::vector<Ty> taken;
      for (const auto& f : functions_)
        for (std::size_t i = f.counter ? 1 : 0; i < f.params.size(); ++i)
          if (f.params[i].is(Ty::Kind::Seq)) taken.push_back(f.params[i]);
      if (!taken.empty() && rng_.chance(0.5)) type = rng_.pick(taken);
      const std::string w = fresh("w");
      prefix = join({"(let ", w, " = ", expr(type, s, depth), " in "});
      suffix = ")";
      scope = with(scope, w, type);
      frees.push_back({w, type});
    }
    const int levels = static_cast<int>(rng_.between(1, 3));
    return prefix + shared_reads(t, scope, frees, levels, depth) + suffix;
  }

  // A top-level use of f: called inside nested apply-to-each with a let-bound sequence as it is.
  std::string shared_map_call(const Function& f, int depth) {
    std::vector<Ty> sequences;
    for (std::size_t i = f.counter ? 1 : 0; i < f.params.size(); ++i)
      if (f.params[i].is(Ty::Kind::Seq)) sequences.push_back(f.params[i]);
    const Ty type = rng_.pick(sequences);
    const std::string w = fresh("w");
    const std::string bound = expr(type, {}, depth);
    forced_call_ = &f;
    const Ty t = f.result.nesting() < kMaxNesting ? Ty::seq(f.result) : f.result;
    const std::string body = shared_reads(t, {{w, type}}, {{w, type}}, static_cast<int>(rng_.between(1, 3)), depth);
    forced_call_ = nullptr;
    return "(let " + w + " = " + bound + " in " + body + ")";
  }

  // ---- functions ----

  void define_function() {
    const int roll = static_cast<int>(rng_.below(100));
    if (roll < 32) plain_function();
    else if (roll < 50 && use("recursion_counter")) counter_recursion();
    else if (roll < 64 && use("recursion_divide")) divide_recursion();
    else if (roll < 75 && use("recursion_quicksort")) quicksort_recursion();
    else if (roll < 90 && use("recursion_lookup")) lookup_recursion();
    else if (use("recursion_shared_counter")) shared_counter_recursion();
  }

  void plain_function() {
    use("function");
    Function f{fresh("g"), {}, random_type(2)};
    Scope params;
    std::string text = "function " + f.name + "(";
    const int n = static_cast<int>(rng_.between(1, 3));
    for (int i = 0; i < n; ++i) {
      f.params.push_back(random_type(2));
      params.push_back({fresh("a"), f.params.back()});
      text += (i ? ", " : "") + params.back().name;
    }
    text += ") = " + expr(f.result, params, static_cast<int>(rng_.between(2, 4))) + ";";
    lines_.push_back(text);
    functions_.push_back(std::move(f));
  }

  // f(n, acc) counts n down to 0, changing acc at each step.
  void counter_recursion() {
    const Ty acc = random_type(2);
    Function f{fresh("r"), {kInt, acc}, acc, true};
    const std::string n = fresh("n"), a = fresh("a");
    const Scope params = {{n, kInt}, {a, acc}};
    const std::string step = expr(acc, params, static_cast<int>(rng_.between(1, 3)));
    lines_.push_back("function " + f.name + "(" + n + ", " + a + ") = if " + n + " <= 0 then " + a + " else " +
                     recursive_step(f.name, n, {}, step, params, acc) + ";");
    functions_.push_back(std::move(f));
  }

  // f(s) splits s in halves and recurs on both inside an apply-to-each.
  void divide_recursion() {
    const Ty e = random_type(1);
    const Ty t = Ty::seq(e);
    Function f{fresh("d"), {t}, t};
    const std::string s = fresh("s"), h = fresh("h"), r = fresh("r"), u = fresh("u");
    const std::string base = expr(t, {{s, t}}, 2);
    std::string combine;
    switch (rng_.below(4)) {
      case 0: combine = r + "[0] ++ " + r + "[1]"; break;
      case 1: combine = r + "[1] ++ " + r + "[0]"; break;
      case 2: combine = "flatten(" + r + ")"; break;
      default: {
        const std::string x = fresh("x");
        const Scope parts = {{s, t}, {r, Ty::seq(t)}, {x, e}};
        combine = "{" + x + " in flatten(" + r + ") | " + expr(kBool, parts, 1) + "}";
      }
    }
    lines_.push_back("function " + f.name + "(" + s + ") = if #" + s + " <= 1 then " + base + " else let " + h +
                     " = #" + s + " / 2; " + r + " = {" + f.name + "(" + u + ") : " + u + " in [take(" + s + ", " + h +
                     "), drop(" + s + ", " + h + ")]} in " + combine + ";");
    functions_.push_back(std::move(f));
  }

  // Quicksort on a number sequence, the classic nested-parallel recursion.
  void quicksort_recursion() {
    const Ty e = random_number();
    const Ty t = Ty::seq(e);
    Function f{fresh("qs"), {t}, t};
    const std::string s = fresh("s"), p = fresh("p"), parts = fresh("r"), u = fresh("u"), x = fresh("x");
    const bool down = rng_.chance(0.3);
    const std::string low = down ? " > " : " < ", high = down ? " < " : " > ";
    lines_.push_back("function " + f.name + "(" + s + ") = if #" + s + " <= 1 then " + s + " else let " + p + " = " +
                     s + "[#" + s + " / 2]; " + parts + " = {" + f.name + "(" + u + ") : " + u + " in [{" + x + " in " +
                     s + " | " + x + low + p + "}, {" + x + " in " + s + " | " + x + high + p + "}]} in " + parts +
                     "[0] ++ {" + x + " in " + s + " | " + x + " == " + p + "} ++ " + parts + "[1];");
    functions_.push_back(std::move(f));
  }

  // A treelookup: recurs on both halves of an index sequence inside an apply-to-each, passing the
  // table on as it is, and reads the table at the leaves (in a lifted `if`'s arms now and then,
  // and now and then copying it there too).
  void lookup_recursion() {
    const Ty table = shared_type();
    const Ty u = table.element();
    const Ty e = rng_.chance(0.6) ? u : random_type(1);
    Function f{fresh("tl"), {table, Ty::seq(kInt), kInt}, Ty::seq(e)};
    const std::string t = fresh("t"), s = fresh("s"), k = fresh("k"), i = fresh("i"), h = fresh("h"), r = fresh("r"),
                      v = fresh("u");
    const Scope leaf_scope = {{t, table}, {k, kInt}, {i, kInt}};
    std::string base = "{" + read_free(e, {t, table}, leaf_scope, 2) + " : " + i + " in " + s + "}";
    if (e == u && rng_.chance(0.35) && use("shared_copy")) {
      const std::string n = "#" + t;
      switch (rng_.below(3)) {
        case 0: base = "(" + base + " ++ " + t + ")"; break;
        case 1: base = "(" + base + " ++ take(" + t + ", abs(rem(" + k + ", " + n + " + 1))))"; break;
        default:
          base = "(" + base + " ++ (if " + n + " == 0 then " + t + " else (" + t + " <- [(abs(rem(" + k + ", " + n +
                 ")), " + t + "[abs(rem(" + k + " + 1, " + n + "))])])))";
      }
    }
    std::string recur = f.name + "(" + t + ", " + v + ", " + k + " + 1)";
    if (rng_.chance(0.3) && use("shared_in_if"))
      recur = "(if evenp(" + k + " + #" + v + ") then " + recur + " else " + f.name + "(" + t + ", reverse(" + v +
              "), " + k + " + 2))";
    lines_.push_back("function " + f.name + "(" + t + ", " + s + ", " + k + ") = if #" + s + " <= 1 then " + base +
                     " else let " + h + " = #" + s + " / 2; " + r + " = {" + recur + " : " + v + " in [take(" + s +
                     ", " + h + "), drop(" + s + ", " + h + ")]} in " + r + "[0] ++ " + r + "[1];");
    functions_.push_back(std::move(f));
  }

  // A counter recursion that passes a table on as it is and reads it at each step: lifted when
  // called inside an apply-to-each, where the table stays shared at every depth.
  void shared_counter_recursion() {
    const Ty table = shared_type();
    const Ty acc = random_type(2);
    Function f{fresh("r"), {kInt, table, acc}, acc, true};
    const std::string n = fresh("n"), t = fresh("t"), a = fresh("a");
    const Scope params = {{n, kInt}, {t, table}, {a, acc}};
    const std::string step = read_free(acc, {t, table}, params, static_cast<int>(rng_.between(1, 3)));
    lines_.push_back("function " + f.name + "(" + n + ", " + t + ", " + a + ") = if " + n + " <= 0 then " + a +
                     " else " + recursive_step(f.name, n, t + ", ", step, params, acc) + ";");
    functions_.push_back(std::move(f));
  }

  // The recursive call of a counter recursion: one call, or (one time in two) a call in each arm
  // of a conditional, counting down by 1 or 2 with its own step each, which the compiler makes
  // one call with the arguments chosen.
  std::string recursive_step(const std::string& name, const std::string& n, const std::string& passed,
                             const std::string& step, const Scope& params, const Ty& acc) {
    const std::string one = name + "(" + n + " - 1, " + passed + step + ")";
    if (rng_.below(2) == 0) return one;
    const std::string other_step = expr(acc, params, static_cast<int>(rng_.between(1, 3)));
    const std::string test = rng_.below(2) == 0 ? "rem(" + n + ", 2) == 0" : expr(kBool, params, 2);
    return "(if " + test + " then " + one + " else " + name + "(" + n + " - 2, " + passed + other_step + "))";
  }

  Random rng_;
  const NeslGeneratorOptions& options_;
  bool unsafe_ = false;
  // shared_map_call's function, which the innermost body calls with the free sequence.
  const Function* forced_call_ = nullptr;
  int names_ = 0;
  std::vector<Function> functions_;
  std::vector<std::string> lines_;
  std::set<std::string> used_;
};

}  // namespace

GeneratedNeslProgram generate_nesl_program(std::uint64_t seed, const NeslGeneratorOptions& options) {
  // Hashed first: consecutive seeds would otherwise give the same stream shifted by one draw.
  return Generator(Random(seed).next(), options).program();
}

}  // namespace fuzz
