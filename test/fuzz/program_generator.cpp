// The random VCODE program generator (program_generator.hpp). Every instruction is emitted through
// `instr`, which keeps the stack model in step with the text; operands are referred to by value
// tags (a COPY keeps the tag), so moving entries never confuses which value is meant.
#include "program_generator.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "random_source.hpp"
#include "stack_model.hpp"
#include "vcode/op.hpp"

namespace fuzz {

namespace {

using vcode::Family;
using vcode::Op;

// Generation stops adding work past this many instructions (a program stays fast to run).
constexpr std::size_t max_lines = 700;
constexpr int max_if_depth = 3;
constexpr int max_call_depth = 3;
constexpr std::size_t max_functions = 8;
constexpr std::size_t max_stack = 36;
constexpr std::int64_t index_mask = 2147483647;  // keeps an INT non-negative before a %

Kind kind_of(vcode::TypeKeyword t) {
  switch (t) {
    case vcode::TypeKeyword::Float: return Kind::Float;
    case vcode::TypeKeyword::Bool: return Kind::Bool;
    case vcode::TypeKeyword::Segdes: return Kind::Segdes;
    case vcode::TypeKeyword::Int:
    case vcode::TypeKeyword::Char: break;
  }
  return Kind::Int;
}

Kind letter_kind(char letter, Kind given) {
  switch (letter) {
    case 'I': return Kind::Int;
    case 'F': return Kind::Float;
    case 'B': return Kind::Bool;
    case 'S': return Kind::Segdes;
    default: return given;
  }
}

// The instruction's text: the opcode, then its type keyword when it takes one.
std::string op_text(Op op, Kind kind) {
  std::string text(vcode::spelling(op));
  if (vcode::info(op).syntax == vcode::Syntax::Type) text += std::string(" ") + keyword(kind);
  return text;
}

// The kinds an op accepts as its type keyword, or the one it implies.
std::vector<Kind> kinds_for(Op op) {
  const auto& info = vcode::info(op);
  if (info.syntax != vcode::Syntax::Type) return {kind_of(vcode::implied_type(op))};
  std::vector<Kind> kinds;
  for (auto t : {vcode::TypeKeyword::Int, vcode::TypeKeyword::Float, vcode::TypeKeyword::Bool})
    if (info.type_set & vcode::typeset::bit(t)) kinds.push_back(kind_of(t));
  return kinds;
}

std::vector<Op> ops_of(Family family) {
  std::vector<Op> ops;
  for (std::size_t i = 0; i < vcode::op_count; ++i)
    if (vcode::op_table[i].family == family) ops.push_back(static_cast<Op>(i));
  return ops;
}

// A REAL literal that reads back as exactly `v` (the lexer needs a decimal point).
std::string float_literal(double v) {
  if (std::isinf(v)) return v > 0 ? "1.0e400" : "-1.0e400";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char text[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(text, sizeof text, "%.1f", v);
  else std::snprintf(text, sizeof text, "%.17e", v);
  return text;
}

// Appends a word to a space-separated list.
void append_word(std::string& text, const std::string& word) {
  if (!text.empty()) text += ' ';
  text += word;
}

struct Body {
  std::vector<Entry> stack;
  std::vector<std::string> lines;
  std::size_t pinned = 0;  // entries below this are never moved or popped (IF branches, recursion)
};

struct Function {
  std::string name;
  std::vector<Entry> params;
  std::vector<Entry> results;
  std::size_t first_new_class = 0;  // classes from here on were made inside the body
  bool recursive = false;
  std::int64_t max_counter = 0;     // recursive: the counter's largest first value
  bool building = true;             // its body is being written: not callable yet
  std::vector<std::string> lines;
};

enum class FloatMode { Any, Exact, Unit };

class Generator {
 public:
  Generator(std::uint64_t seed, bool annotate) : rng_(seed), seed_(seed), annotate_(annotate) {}
  GeneratedProgram run();

 private:
  // Length classes.
  int known_class(std::int64_t size);
  int unknown_class(std::int64_t bound);
  std::int64_t size_of(int c) const { return classes_[static_cast<std::size_t>(c)].size; }
  std::int64_t bound_of(int c) const { return classes_[static_cast<std::size_t>(c)].bound; }
  int one() { return known_class(1); }

  // The model and the text.
  std::vector<Entry>& stack() { return body_->stack; }
  Entry& top() { return stack().back(); }
  std::size_t depth_of(std::size_t pos) const { return body_->stack.size() - 1 - pos; }
  bool full() const { return lines_ > max_lines; }
  void emit(const std::string& line);
  std::uint64_t instr(const std::string& line, std::size_t nargs, std::vector<Entry> results);
  std::size_t position(std::uint64_t tag, std::size_t skip_top = 0) const;
  const Entry& entry(std::uint64_t tag) const { return body_->stack[position(tag)]; }
  void copy_to_top(std::size_t pos);
  void bring(std::uint64_t tag, bool may_move, std::size_t placed = 0);
  void gather(const std::vector<std::uint64_t>& tags);
  std::optional<std::uint64_t> pick(const std::function<bool(const Entry&)>& pred);

  // Values.
  std::int64_t random_int(std::int64_t lo, std::int64_t hi);
  double random_float(FloatMode mode);
  std::uint64_t push_int_const(int c, std::int64_t lo, std::int64_t hi);
  std::uint64_t push_float_const(int c, FloatMode mode);
  std::uint64_t push_bool_const(int c);
  std::uint64_t push_const(Kind kind, int c);
  std::uint64_t fill(Kind kind, int c, const std::string& literal, Entry facts, int nesting = 0);
  std::uint64_t fill_int(int c, std::int64_t value);
  std::uint64_t make(Kind kind, int c, int nesting = 0);
  std::uint64_t vector_of(Kind kind, int c);
  std::uint64_t int_in(int c, std::int64_t lo, std::int64_t hi);
  std::uint64_t exact_floats(int c, bool unit);
  std::uint64_t nonzero_ints(int c, bool avoid_minus_one);
  std::uint64_t binary(Op op, Kind kind, std::uint64_t a, std::uint64_t b);
  std::uint64_t bool_scalar();
  int random_class();

  // Segment descriptors.
  std::uint64_t make_segdes(std::int64_t lengths_max, bool nonempty);
  std::uint64_t segdes_of_total(int c, bool nonempty);
  std::uint64_t segdes(bool nonempty);
  std::uint64_t segdes_from_lengths(std::uint64_t lengths, int total, bool nonempty);
  std::uint64_t lengths_of(std::uint64_t sd);
  std::uint64_t covering_segdes(std::uint64_t sd_s, bool dest_needs_source);
  std::uint64_t per_element_lengths(std::uint64_t of_sd, std::uint64_t over_sd);
  std::uint64_t index_into(std::uint64_t lengths_per_element, int c);

  // Instruction families; each returns false when it could not apply here.
  void step();
  bool gen_const();
  bool gen_elementwise();
  bool gen_rand();
  bool gen_fold();
  bool gen_permute();
  bool gen_extract_replace();
  bool gen_dist_index();
  bool gen_rank();
  bool gen_pack();
  bool gen_lengths();
  bool gen_stack_move();
  bool gen_if();
  bool gen_call();
  bool gen_io();
  bool gen_pair();
  // Whether a PAIR on the stack holds the value `tag` (at any depth of pairs).
  bool in_a_pair(std::uint64_t tag);

  // Control.
  std::vector<Entry> conform(std::size_t base, const std::vector<Entry>& target);
  void steps(int count);
  void run_branch(std::size_t base, const std::vector<Entry>& target, std::vector<Entry>& out,
                  bool& exits);
  Function& new_function(bool recursive);
  std::vector<Entry> call_results(const Function& f);

  // Values an operation still needs: gather and bring copy them instead of moving them.
  std::multiset<std::uint64_t> held_;
  class Hold {
   public:
    Hold(Generator& g, std::vector<std::uint64_t> tags) : g_(g), tags_(std::move(tags)) {
      for (auto t : tags_) g_.held_.insert(t);
    }
    void add(std::uint64_t t) {
      tags_.push_back(t);
      g_.held_.insert(t);
    }
    // Before the operation's last use of its values.
    void release() {
      for (auto t : tags_) g_.held_.erase(g_.held_.find(t));
      tags_.clear();
    }
    ~Hold() { release(); }

   private:
    Generator& g_;
    std::vector<std::uint64_t> tags_;
  };

  Random rng_;
  std::uint64_t seed_;
  bool annotate_ = false;  // a comment with the model's stack before every instruction
  std::vector<LengthClass> classes_;
  std::uint64_t next_tag_ = 1;
  std::size_t lines_ = 0;
  Body* body_ = nullptr;
  std::vector<Function> functions_;
  int if_depth_ = 0;
  int call_depth_ = 0;
  bool big_ = false;                 // some vectors of thousands of elements (threads, device)
  bool unordered_folds_ = false;     // + and * FLOAT folds of arbitrary values allowed (small)
  bool used_unordered_fold_ = false;
  std::int64_t max_total_ = 64;      // the largest vector a descriptor from data may describe
};

// ---- classes and the model ------------------------------------------------------------------

int Generator::known_class(std::int64_t size) {
  for (std::size_t c = 0; c < classes_.size(); ++c)
    if (classes_[c].size == size) return static_cast<int>(c);
  classes_.push_back({size, size});
  return static_cast<int>(classes_.size() - 1);
}

int Generator::unknown_class(std::int64_t bound) {
  classes_.push_back({-1, bound});
  return static_cast<int>(classes_.size() - 1);
}

void Generator::emit(const std::string& line) {
  if (annotate_) {
    std::string shape = "{";
    for (const auto& e : stack()) {
      shape += std::string(" ") + keyword(e.kind);
      if (e.is_vector()) shape += ":" + std::to_string(size_of(e.len)) + "c" + std::to_string(e.len);
      if (e.kind == Kind::Segdes) shape += ":" + std::to_string(size_of(e.segs)) + "/" + std::to_string(size_of(e.total));
    }
    body_->lines.push_back(shape + " }");
  }
  body_->lines.push_back(line);
  ++lines_;
}

// Emits `line`, which pops `nargs` entries and pushes `results` (in order); returns the tag of
// the last result.
std::uint64_t Generator::instr(const std::string& line, std::size_t nargs, std::vector<Entry> results) {
  emit(line);
  stack().resize(stack().size() - nargs);
  std::uint64_t tag = 0;
  for (auto& r : results) {
    r.tag = tag = next_tag_++;
    stack().push_back(r);
  }
  return tag;
}

// Where the value `tag` is (its topmost copy). A value an operation still needs is held (Hold),
// so it is never consumed before its last use; not finding it is a bug of the generator.
std::size_t Generator::position(std::uint64_t tag, std::size_t skip_top) const {
  const auto& s = body_->stack;
  for (std::size_t i = s.size() - std::min(skip_top, s.size()); i-- > 0;)
    if (s[i].tag == tag) return i;
  throw std::logic_error("fuzz generator: a value was consumed before its last use");
}

void Generator::copy_to_top(std::size_t pos) {
  emit("COPY 1 " + std::to_string(depth_of(pos)));
  Entry e = stack()[pos];
  stack().push_back(e);
}

// Puts the value `tag` on top: a COPY, or (when allowed and above the pinned entries) a CPOP.
// The top `placed` entries are operands already gathered: they are not taken.
void Generator::bring(std::uint64_t tag, bool may_move, std::size_t placed) {
  std::size_t pos = position(tag, placed);
  const bool movable = pos >= body_->pinned && held_.count(tag) == 0;
  if (movable && depth_of(pos) == 0 && may_move) return;  // already on top (placed is 0 here)
  if (movable && may_move) {
    emit("CPOP 1 " + std::to_string(depth_of(pos)));
    Entry e = stack()[pos];
    stack().erase(stack().begin() + static_cast<std::ptrdiff_t>(pos));
    stack().push_back(e);
    return;
  }
  copy_to_top(pos);
}

// Puts the operands on top in order (deepest first). A value needed twice is copied the first
// time; a value used once is moved with some chance (always-copied values pile up otherwise).
void Generator::gather(const std::vector<std::uint64_t>& tags) {
  // When the operands already lie on top in order, a COPY n 0 or nothing at all does it.
  const std::size_t n = tags.size();
  bool in_place = stack().size() >= n;
  for (std::size_t k = 0; in_place && k < n; ++k) in_place = stack()[stack().size() - n + k].tag == tags[k];
  if (in_place) {
    bool keep = false;
    for (std::size_t k = 0; k < n; ++k)
      keep |= stack().size() - n + k < body_->pinned || held_.count(tags[k]) > 0;
    if (keep || rng_.chance(0.2)) {
      emit("COPY " + std::to_string(n) + " 0");
      std::vector<Entry> block(stack().end() - static_cast<std::ptrdiff_t>(n), stack().end());
      stack().insert(stack().end(), block.begin(), block.end());
    }
    return;
  }
  for (std::size_t k = 0; k < n; ++k) {
    bool later = false;
    for (std::size_t j = k + 1; j < n; ++j) later |= tags[j] == tags[k];
    bring(tags[k], !later && rng_.chance(0.6), k);
  }
}

std::optional<std::uint64_t> Generator::pick(const std::function<bool(const Entry&)>& pred) {
  std::vector<std::uint64_t> hits;
  for (const auto& e : stack())
    if (pred(e)) hits.push_back(e.tag);
  if (hits.empty()) return std::nullopt;
  if (rng_.chance(0.6)) return hits[hits.size() - 1 - rng_.below(std::min<std::size_t>(3, hits.size()))];
  return rng_.pick(hits);
}

// ---- values ----------------------------------------------------------------------------------

std::int64_t Generator::random_int(std::int64_t lo, std::int64_t hi) {
  switch (rng_.below(7)) {
    case 0: return lo;
    case 1: return hi;
    case 2: {
      static const std::int64_t specials[] = {0, 1, -1, 2, int_min, int_max, 255, 65536, 31, 32, 33};
      std::int64_t v = specials[rng_.below(std::size(specials))];
      if (v >= lo && v <= hi) return v;
      return rng_.between(lo, hi);
    }
    case 3:
    case 4: return rng_.between(std::max<std::int64_t>(lo, -12), std::min<std::int64_t>(hi, 12)) ;
    default: return rng_.between(lo, hi);
  }
}

double Generator::random_float(FloatMode mode) {
  const double inf = HUGE_VAL;
  if (mode == FloatMode::Unit) {
    static const double units[] = {1.0, -1.0, 1.0, -1.0, 0.0, -0.0, HUGE_VAL, -HUGE_VAL};
    return units[rng_.below(std::size(units))];
  }
  if (mode == FloatMode::Exact) {
    if (rng_.chance(0.15)) {
      static const double specials[] = {HUGE_VAL, -HUGE_VAL, 0.0, -0.0};
      return specials[rng_.below(std::size(specials))];
    }
    return static_cast<double>(rng_.between(-1000, 1000));
  }
  const auto r = rng_.below(10);
  if (r < 2) {
    static const double specials[] = {
        HUGE_VAL, -HUGE_VAL, 0.0, -0.0, 4.9e-324, -4.9e-324, 2.2250738585072014e-308,
        1.7976931348623157e308, -1.7976931348623157e308, 1e-300, 0.1, 0.5, -2.5, 2.5,
        0.49999999999999994, -0.49999999999999994, 3.141592653589793, 1.5707963267948966,
        2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0, 1e10, 9.999999616903162e35};
    (void)inf;
    return specials[rng_.below(std::size(specials))];
  }
  if (r < 5) return static_cast<double>(rng_.between(-40, 40)) / 2.0;
  const double mantissa = 1.0 + 9.0 * rng_.unit_interval();
  const int exponent = rng_.chance(0.1) ? static_cast<int>(rng_.between(-320, 307))
                                        : static_cast<int>(rng_.between(-6, 6));
  const double v = mantissa * std::pow(10.0, exponent);
  return rng_.chance(0.5) ? -v : v;
}

// A constant vector of class c (known size) with values in [lo, hi].
std::uint64_t Generator::push_int_const(int c, std::int64_t lo, std::int64_t hi) {
  const std::int64_t n = size_of(c);
  std::vector<std::int64_t> values;
  for (std::int64_t i = 0; i < n; ++i) values.push_back(random_int(lo, hi));
  std::int64_t vmin = int_max, vmax = int_min;
  std::string text;
  for (auto v : values) {
    vmin = std::min(vmin, v), vmax = std::max(vmax, v);
    append_word(text, std::to_string(v));
  }
  if (values.empty()) vmin = vmax = 0;
  const bool scalar_form = n == 1 && rng_.chance(0.85);
  return instr("CONST INT " + (scalar_form ? text : "(" + text + ")"), 0, {int_entry(c, vmin, vmax)});
}

std::uint64_t Generator::push_float_const(int c, FloatMode mode) {
  const std::int64_t n = size_of(c);
  std::string text;
  Entry e = vector_entry(Kind::Float, c);
  e.int_mag = 0;
  e.unit = true;
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = random_float(mode);
    append_word(text, float_literal(v));
    if (std::isfinite(v)) {
      if (v != std::floor(v) || std::fabs(v) > 1e12) e.int_mag = -1;
      else if (e.int_mag >= 0) e.int_mag = std::max(e.int_mag, std::fabs(v));
      if (!(v == 0 || v == 1 || v == -1)) e.unit = false;
    }
  }
  const bool scalar_form = n == 1 && rng_.chance(0.85);
  return instr("CONST FLOAT " + (scalar_form ? text : "(" + text + ")"), 0, {e});
}

std::uint64_t Generator::push_bool_const(int c) {
  const std::int64_t n = size_of(c);
  const double p = rng_.unit_interval();
  std::string text;
  for (std::int64_t i = 0; i < n; ++i) append_word(text, rng_.chance(p) ? "T" : "F");
  const bool scalar_form = n == 1 && rng_.chance(0.85);
  return instr("CONST BOOL " + (scalar_form ? text : "(" + text + ")"), 0, {vector_entry(Kind::Bool, c)});
}

// A constant of class c, which must have a known size.
std::uint64_t Generator::push_const(Kind kind, int c) {
  switch (kind) {
    case Kind::Float: {
      const auto r = rng_.below(10);
      return push_float_const(c, r < 6 ? FloatMode::Any : r < 9 ? FloatMode::Exact : FloatMode::Unit);
    }
    case Kind::Bool: return push_bool_const(c);
    default: break;
  }
  static const std::pair<std::int64_t, std::int64_t> ranges[] = {
      {-10, 10}, {0, 15}, {int_min, int_max}, {0, 1}, {-3, 3}, {1, 100}};
  const auto [lo, hi] = ranges[rng_.below(std::size(ranges))];
  return push_int_const(c, lo, hi);
}

// A vector of class c whose every element is the constant `literal` (facts: what it is).
std::uint64_t Generator::fill(Kind kind, int c, const std::string& literal, Entry facts, int nesting) {
  facts.kind = kind;
  facts.len = c;
  const std::string type = keyword(kind);
  if (c == one()) return instr("CONST " + type + " " + literal, 0, {facts});
  const std::int64_t n = size_of(c);
  if (n >= 0 && n <= 16 && rng_.chance(0.5)) {
    std::string text;
    for (std::int64_t i = 0; i < n; ++i) append_word(text, literal);
    return instr("CONST " + type + " (" + text + ")", 0, {facts});
  }
  Entry count = int_entry(one(), 0, bound_of(c));
  Entry sd;
  sd.kind = Kind::Segdes;
  sd.segs = one();
  sd.total = c;
  Entry scalar = facts;
  scalar.len = one();
  if (auto d = pick([&](const Entry& e) { return e.kind == Kind::Segdes && e.segs == one() && e.total == c; })) {
    instr("CONST " + type + " " + literal, 0, {scalar});
    copy_to_top(position(*d));
    return instr("DIST " + type, 2, {facts});
  }
  if (auto v = pick([&](const Entry& e) { return e.is_vector() && e.len == c; })) {
    instr("CONST " + type + " " + literal, 0, {scalar});
    const Kind vk = entry(*v).kind;
    copy_to_top(position(*v));
    instr(std::string("LENGTH ") + keyword(vk), 1, {count});
    instr("MAKE_SEGDES", 1, {sd});
    return instr("DIST " + type, 2, {facts});
  }
  if (n >= 0) {
    instr("CONST " + type + " " + literal, 0, {scalar});
    instr("CONST INT " + std::to_string(n), 0, {int_entry(one(), n, n)});
    instr("MAKE_SEGDES", 1, {sd});
    return instr("DIST " + type, 2, {facts});
  }
  if (nesting < 2)
    if (auto d = pick([&](const Entry& e) { return e.kind == Kind::Segdes && e.total == c; })) {
      Entry per = facts;
      if (fill(kind, entry(*d).segs, literal, per, nesting + 1) == 0) return 0;
      copy_to_top(position(*d));
      return instr("DIST " + type, 2, {facts});
    }
  return 0;
}

std::uint64_t Generator::fill_int(int c, std::int64_t value) {
  return fill(Kind::Int, c, std::to_string(value), int_entry(c, value, value));
}

// Some value of kind and class c, pushed on top; 0 when nothing of class c can be reached.
std::uint64_t Generator::make(Kind kind, int c, int nesting) {
  const std::int64_t n = size_of(c);
  const auto route = rng_.below(4);
  if (n >= 0 && n <= 40 && (route == 0 || nesting > 1)) return push_const(kind, c);
  if (route == 1 && nesting < 2) {
    // From a value of another kind of the same class: a conversion.
    auto other = pick([&](const Entry& e) { return e.is_vector() && e.len == c && e.kind != kind; });
    if (other) {
      const Entry src = entry(*other);
      copy_to_top(position(*other));
      if (src.kind == Kind::Bool) {
        instr("B_TO_I", 1, {int_entry(c, 0, 1)});
        if (kind == Kind::Int) return top().tag;
        Entry f = vector_entry(Kind::Float, c);
        f.int_mag = 1, f.unit = true;
        return instr("I_TO_F", 1, {f});
      }
      if (src.kind == Kind::Int && kind == Kind::Float) {
        Entry f = vector_entry(Kind::Float, c);
        f.int_mag = static_cast<double>(std::max(std::abs(src.lo), std::abs(src.hi)));
        f.unit = src.lo >= -1 && src.hi <= 1;
        return instr("I_TO_F", 1, {f});
      }
      if (src.kind == Kind::Int) return instr("I_TO_B", 1, {vector_entry(Kind::Bool, c)});
      // FLOAT to INT or BOOL
      if (kind == Kind::Int) {
        static const char* conversions[] = {"TRUNC", "FLOOR", "CEIL", "ROUND"};
        return instr(conversions[rng_.below(4)], 1, {vector_entry(Kind::Int, c)});
      }
      copy_to_top(stack().size() - 1);
      static const char* comparisons[] = {"<", "<=", ">", ">=", "=", "!="};
      return instr(std::string(comparisons[rng_.below(6)]) + " FLOAT", 2, {vector_entry(Kind::Bool, c)});
    }
  }
  if (route == 2 && nesting < 2 && kind == Kind::Int) {
    // From a descriptor of total c: an INDEX.
    // (When the per-segment operands cannot be made, a constant below does it.)
    if (auto d = pick([&](const Entry& e) { return e.kind == Kind::Segdes && e.total == c; })) {
      const Entry sd = entry(*d);
      Hold hold(*this, {*d});
      const std::uint64_t starts = make(Kind::Int, sd.segs, nesting + 1);
      hold.add(starts);
      const std::uint64_t strides = starts ? make(Kind::Int, sd.segs, nesting + 1) : 0;
      hold.release();
      if (starts && strides) {
        gather({starts, strides, *d});
        return instr("INDEX", 3, {vector_entry(Kind::Int, c)});
      }
    }
  }
  if (n >= 0 && n <= 200) return push_const(kind, c);
  // A constant everywhere.
  switch (kind) {
    case Kind::Float: {
      const double v = random_float(FloatMode::Any);
      Entry f = vector_entry(Kind::Float, c);
      if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e12) f.int_mag = std::fabs(v);
      f.unit = v == 0 || v == 1 || v == -1 || std::isinf(v);
      if (std::isinf(v)) f.int_mag = 0;
      return fill(Kind::Float, c, float_literal(v), f);
    }
    case Kind::Bool: return fill(Kind::Bool, c, rng_.chance(0.5) ? "T" : "F", vector_entry(Kind::Bool, c));
    default: return fill_int(c, random_int(-100, 100));
  }
}

// A value of kind and class c: one on the stack, or a new one.
std::uint64_t Generator::vector_of(Kind kind, int c) {
  if (rng_.chance(0.75))
    if (auto v = pick([&](const Entry& e) { return e.kind == kind && e.len == c; })) return *v;
  return make(kind, c);
}

// An INT of class c with every element in [lo, hi] (lo >= 0): one on the stack, a constant, or
// lo + (x AND mask) where that stays inside the range.
std::uint64_t Generator::int_in(int c, std::int64_t lo, std::int64_t hi) {
  if (rng_.chance(0.5))
    if (auto v = pick([&](const Entry& e) { return e.kind == Kind::Int && e.len == c && e.lo >= lo && e.hi <= hi; }))
      return *v;
  const std::int64_t n = size_of(c);
  if (n >= 0 && n <= 40 && rng_.chance(0.4)) return push_int_const(c, lo, hi);
  std::int64_t mask = 1;
  while (mask * 2 + 1 <= hi - lo) mask = mask * 2 + 1;
  if (hi - lo < 1) mask = 0;
  const std::uint64_t x = vector_of(Kind::Int, c);
  if (!x) return 0;
  Hold hold(*this, {x});
  const std::uint64_t m = fill_int(c, mask);
  if (!m) return 0;
  hold.release();
  gather({x, m});
  std::uint64_t r = instr("AND INT", 2, {int_entry(c, 0, mask)});
  if (lo != 0) {
    Hold keep(*this, {r});
    const std::uint64_t offset = fill_int(c, lo);
    keep.release();
    if (!offset) return 0;
    gather({r, offset});
    r = instr("+ INT", 2, {int_entry(c, lo, lo + mask)});
  }
  return r;
}

// FLOATs of class c whose + folds (or, if unit, * folds) are exact in any grouping.
std::uint64_t Generator::exact_floats(int c, bool unit) {
  auto ok = [&](const Entry& e) {
    return e.kind == Kind::Float && e.len == c && (unit ? e.unit : e.sums_exactly(bound_of(c)));
  };
  if (rng_.chance(0.6))
    if (auto v = pick(ok)) return *v;
  const std::int64_t n = size_of(c);
  if (n >= 0 && n <= 40 && rng_.chance(0.5)) return push_float_const(c, unit ? FloatMode::Unit : FloatMode::Exact);
  const std::uint64_t ints = unit ? int_in(c, 0, 1) : vector_of(Kind::Int, c);
  if (!ints) return 0;
  const Entry src = entry(ints);
  bring(ints, rng_.chance(0.5));
  Entry f = vector_entry(Kind::Float, c);
  f.int_mag = static_cast<double>(std::max(std::abs(src.lo), std::abs(src.hi)));
  f.unit = src.lo >= -1 && src.hi <= 1;
  return instr("I_TO_F", 1, {f});
}

// INTs of class c with no zero (and, if asked, no -1): a divisor or a RAND bound.
std::uint64_t Generator::nonzero_ints(int c, bool avoid_minus_one) {
  if (rng_.chance(0.4))
    if (auto v = pick([&](const Entry& e) {
          return e.kind == Kind::Int && e.len == c && (e.lo >= 1 || e.hi <= (avoid_minus_one ? -2 : -1));
        }))
      return *v;
  static const std::int64_t masks[] = {1, 7, 255, 65535, 1073741823};
  const std::int64_t mask = masks[rng_.below(std::size(masks))];
  const std::uint64_t x = int_in(c, 0, mask);
  if (!x) return 0;
  Hold hold(*this, {x});
  const std::uint64_t two = fill_int(c, 2);
  if (!two) return 0;
  hold.release();
  gather({x, two});
  const std::int64_t hi = entry(x).hi + 2;
  std::uint64_t r = instr("+ INT", 2, {int_entry(c, 2, hi)});
  if (rng_.chance(0.4)) {
    Hold keep(*this, {r});
    const std::uint64_t minus = fill_int(c, -1);
    if (!minus) return 0;
    keep.release();
    gather({r, minus});
    r = instr("* INT", 2, {int_entry(c, -hi, -2)});
  }
  return r;
}

// A BOOL scalar for an IF.
std::uint64_t Generator::bool_scalar() {
  if (rng_.chance(0.3))
    if (auto b = pick([&](const Entry& e) { return e.kind == Kind::Bool && e.len == one(); })) return *b;
  switch (rng_.below(4)) {
    case 0: return push_bool_const(one());
    case 1: {  // a length against a constant
      auto v = pick([](const Entry& e) { return e.is_vector(); });
      if (!v) return push_bool_const(one());
      const Entry e = entry(*v);
      copy_to_top(position(*v));
      instr(std::string("LENGTH ") + keyword(e.kind), 1, {int_entry(one(), 0, bound_of(e.len))});
      instr("CONST INT " + std::to_string(rng_.between(0, 6)), 0, {int_entry(one(), 0, 6)});
      static const char* comparisons[] = {"<", "<=", ">", ">=", "=", "!="};
      return instr(std::string(comparisons[rng_.below(6)]) + " INT", 2, {vector_entry(Kind::Bool, one())});
    }
    default: {  // two scalars compared
      const Kind k = rng_.chance(0.5) ? Kind::Int : Kind::Float;
      const std::uint64_t a = vector_of(k, one());
      if (!a) return push_bool_const(one());
      Hold hold(*this, {a});
      const std::uint64_t b = vector_of(k, one());
      if (!b) return push_bool_const(one());
      hold.release();
      gather({a, b});
      static const char* comparisons[] = {"<", "<=", ">", ">=", "=", "!="};
      return instr(std::string(comparisons[rng_.below(6)]) + " " + keyword(k), 2,
                   {vector_entry(Kind::Bool, one())});
    }
  }
}

// A class for a new value: mostly one that values on the stack already have.
int Generator::random_class() {
  std::vector<int> present;
  for (const auto& e : stack())
    if (e.is_vector()) present.push_back(e.len);
  if (!present.empty() && rng_.chance(0.7)) return rng_.pick(present);
  if (rng_.chance(0.35)) return one();
  if (big_ && rng_.chance(0.2)) return known_class(rng_.pick(std::vector<std::int64_t>{2047, 4096, 4097, 33000, 70000}));
  return known_class(rng_.between(0, 9));
}

// The result of a binary elementwise op on the values a and b (of one class), with its facts.
std::uint64_t Generator::binary(Op op, Kind kind, std::uint64_t a, std::uint64_t b) {
  const Entry x = entry(a), y = entry(b);
  const int c = x.len;
  const Kind result = letter_kind(vcode::info(op).results[0], kind);
  Entry r = vector_entry(result, c);
  if (result == Kind::Int && kind == Kind::Int) {
    std::int64_t lo = int_min, hi = int_max;
    switch (op) {
      case Op::Add: lo = x.lo + y.lo, hi = x.hi + y.hi; break;
      case Op::Sub: lo = x.lo - y.hi, hi = x.hi - y.lo; break;
      case Op::Mul: {
        const std::int64_t p[] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi};
        lo = *std::min_element(std::begin(p), std::end(p)), hi = *std::max_element(std::begin(p), std::end(p));
        break;
      }
      case Op::And:
        if (x.lo >= 0 || y.lo >= 0) lo = 0, hi = std::min(x.lo >= 0 ? x.hi : int_max, y.lo >= 0 ? y.hi : int_max);
        break;
      case Op::Mod: {
        const std::int64_t m = std::max(std::abs(y.lo), std::abs(y.hi)) - 1;
        lo = x.lo >= 0 ? 0 : -m, hi = x.hi <= 0 ? 0 : m;
        break;
      }
      default: break;
    }
    if (lo < int_min || hi > int_max) lo = int_min, hi = int_max;  // may wrap
    r.lo = lo, r.hi = hi;
  }
  if (result == Kind::Float) {
    const double n = 9.0e15;
    if (x.int_mag >= 0 && y.int_mag >= 0) {
      if (op == Op::Add || op == Op::Sub) r.int_mag = x.int_mag + y.int_mag;
      if (op == Op::Mul) r.int_mag = x.int_mag * y.int_mag;
      if (r.int_mag > n) r.int_mag = -1;
    }
    r.unit = op == Op::Mul && x.unit && y.unit;
  }
  gather({a, b});
  return instr(op_text(op, kind), 2, {r});
}

// ---- segment descriptors --------------------------------------------------------------------

// MAKE_SEGDES of the lengths `lengths` (on the stack); its total is class `total`.
std::uint64_t Generator::segdes_from_lengths(std::uint64_t lengths, int total, bool nonempty) {
  Entry sd;
  sd.kind = Kind::Segdes;
  sd.segs = entry(lengths).len;
  sd.total = total;
  sd.nonempty = nonempty;
  bring(lengths, rng_.chance(0.7));
  return instr("MAKE_SEGDES", 1, {sd});
}

// A new descriptor from constant lengths (each at most lengths_max), or from data.
std::uint64_t Generator::make_segdes(std::int64_t lengths_max, bool nonempty) {
  const auto route = rng_.below(10);
  if (route < 5 || stack().empty()) {
    const std::int64_t count = rng_.chance(0.1) ? 0 : rng_.chance(0.3) ? 1 : rng_.between(1, 7);
    std::vector<std::int64_t> lengths;
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < count; ++i) {
      std::int64_t l = nonempty ? rng_.between(1, std::max<std::int64_t>(1, lengths_max))
                                : (rng_.chance(0.3) ? 0 : rng_.between(0, lengths_max));
      if (big_ && rng_.chance(0.3)) l = rng_.pick(std::vector<std::int64_t>{1000, 2048, 4097, 20000, 40000});
      if (sum + l > max_total_) l = nonempty ? 1 : 0;
      lengths.push_back(l);
      sum += l;
    }
    Entry sd;
    sd.kind = Kind::Segdes;
    sd.segs = known_class(count);
    sd.total = known_class(sum);
    sd.nonempty = true;
    for (auto l : lengths) sd.nonempty &= l > 0;
    if (count == 1 && rng_.chance(0.4)) return instr("CONST SEGDES " + std::to_string(sum), 0, {sd});
    if (count == 0 && rng_.chance(0.3)) return instr("CONST SEGDES ()", 0, {sd});
    std::string text;
    for (auto l : lengths) append_word(text, std::to_string(l));
    const std::uint64_t l = instr("CONST INT " + (count == 1 && rng_.chance(0.5) ? text : "(" + text + ")"), 0,
                                  {int_entry(known_class(count), 0, sum)});
    return segdes_from_lengths(l, sd.total, sd.nonempty);
  }
  // From data: one segment per element of some class (in big programs, tens of thousands of
  // short segments), lengths in [nonempty, m]: random, or all equal (the uniform fast path).
  const int c = random_class();
  const std::int64_t m = std::min<std::int64_t>(lengths_max, max_total_ / std::max<std::int64_t>(1, bound_of(c)));
  if (m < 1 || (!big_ && bound_of(c) > 64)) return make_segdes(std::min<std::int64_t>(lengths_max, 3), nonempty);
  if (rng_.chance(0.25)) {
    const std::int64_t l = rng_.between(nonempty ? 1 : 0, m);
    const std::uint64_t lengths = fill_int(c, l);
    if (!lengths) return 0;
    return segdes_from_lengths(lengths, size_of(c) >= 0 ? known_class(size_of(c) * l) : unknown_class(bound_of(c) * l),
                               nonempty || l > 0);
  }
  const std::uint64_t lengths = int_in(c, nonempty ? 1 : 0, m);
  if (!lengths) return 0;
  return segdes_from_lengths(lengths, unknown_class(bound_of(c) * m), nonempty);
}

// A descriptor with total class c (one on the stack, or a new one).
std::uint64_t Generator::segdes_of_total(int c, bool nonempty) {
  if (rng_.chance(0.7))
    if (auto d = pick([&](const Entry& e) { return e.kind == Kind::Segdes && e.total == c && (e.nonempty || !nonempty); }))
      return *d;
  const std::int64_t n = size_of(c);
  if (n >= 0) {
    // Cut n into segments (empty ones too, unless nonempty).
    std::int64_t count = nonempty ? (n == 0 ? 0 : rng_.between(1, std::min<std::int64_t>(n, 6)))
                                  : (n == 0 ? rng_.between(0, 3) : rng_.between(1, 6));
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(count), nonempty ? 1 : 0);
    std::int64_t left = n - (nonempty ? count : 0);
    for (std::int64_t i = 0; i + 1 < count; ++i) {
      const std::int64_t l = rng_.chance(0.3) ? 0 : rng_.between(0, left);
      lengths[static_cast<std::size_t>(i)] += l;
      left -= l;
    }
    if (count > 0) lengths.back() += left;
    Entry sd;
    sd.kind = Kind::Segdes;
    sd.segs = known_class(count);
    sd.total = c;
    sd.nonempty = true;
    for (auto l : lengths) sd.nonempty &= l > 0;
    if (count == 1 && rng_.chance(0.3)) return instr("CONST SEGDES " + std::to_string(n), 0, {sd});
    std::string text;
    for (auto l : lengths) append_word(text, std::to_string(l));
    const std::uint64_t l = instr("CONST INT (" + text + ")", 0, {int_entry(sd.segs, 0, n)});
    return segdes_from_lengths(l, c, sd.nonempty);
  }
  if (nonempty) return 0;  // of unknown size: one segment, which may be empty
  auto v = pick([&](const Entry& e) { return e.is_vector() && e.len == c; });
  if (!v) return 0;
  const Kind k = entry(*v).kind;
  copy_to_top(position(*v));
  instr(std::string("LENGTH ") + keyword(k), 1, {int_entry(one(), 0, bound_of(c))});
  Entry sd;
  sd.kind = Kind::Segdes;
  sd.segs = one();
  sd.total = c;
  return instr("MAKE_SEGDES", 1, {sd});
}

// Some descriptor: one on the stack, or a new one.
std::uint64_t Generator::segdes(bool nonempty) {
  if (rng_.chance(0.65))
    if (auto d = pick([&](const Entry& e) { return e.kind == Kind::Segdes && (e.nonempty || !nonempty); })) return *d;
  if (rng_.chance(0.3)) {
    auto v = pick([](const Entry& e) { return e.is_vector(); });
    if (v) {
      const std::uint64_t d = segdes_of_total(entry(*v).len, nonempty);
      if (d) return d;
    }
  }
  return make_segdes(big_ ? 6 : 4, nonempty);
}

std::uint64_t Generator::lengths_of(std::uint64_t sd) {
  const Entry d = entry(sd);
  copy_to_top(position(sd));
  return instr("LENGTHS", 1, {int_entry(d.segs, d.nonempty ? 1 : 0, bound_of(d.total))});
}

// A descriptor with sd_s's segment count whose segment k is empty where sd_s's is (when
// dest_needs_source: a gather's destination) or non-empty where sd_s's is (a scatter's).
std::uint64_t Generator::covering_segdes(std::uint64_t sd_s, bool dest_needs_source) {
  if (rng_.chance(0.35)) return sd_s;
  const Entry s = entry(sd_s);
  const std::int64_t m = 3;
  if (bound_of(s.segs) * m + bound_of(s.total) > max_total_) return sd_s;
  const std::uint64_t l = lengths_of(sd_s);
  Hold hold(*this, {l});
  std::uint64_t lengths;
  if (dest_needs_source) {
    // SELECT (l > 0) (x AND m) l
    const std::uint64_t zero = fill_int(s.segs, 0);
    if (!zero) return sd_s;
    gather({l, zero});
    const std::uint64_t flags = instr("> INT", 2, {vector_entry(Kind::Bool, s.segs)});
    hold.add(flags);
    const std::uint64_t x = int_in(s.segs, 0, m);
    if (!x) return sd_s;
    hold.release();
    gather({flags, x, l});
    lengths = instr("SELECT INT", 3, {int_entry(s.segs, 0, std::max<std::int64_t>(m, bound_of(s.total)))});
  } else {
    const std::uint64_t x = int_in(s.segs, 0, m);
    if (!x) return sd_s;
    hold.release();
    gather({l, x});
    lengths = instr("+ INT", 2, {int_entry(s.segs, 0, bound_of(s.total) + m)});
  }
  return segdes_from_lengths(lengths, unknown_class(bound_of(s.total) + bound_of(s.segs) * m),
                             !dest_needs_source && s.nonempty);
}

// For each element described by over_sd: the length of its segment's counterpart in of_sd.
std::uint64_t Generator::per_element_lengths(std::uint64_t of_sd, std::uint64_t over_sd) {
  const std::uint64_t l = lengths_of(of_sd);
  const Entry over = entry(over_sd);
  gather({l, over_sd});
  return instr("DIST INT", 2, {int_entry(over.total, 0, entry(l).hi)});
}

// Indices of class c: (x AND mask) % lengths, where every length is positive wherever an index
// of class c exists (the callers make sure of it).
std::uint64_t Generator::index_into(std::uint64_t lengths, int c) {
  Hold hold(*this, {lengths});
  const std::uint64_t x = int_in(c, 0, rng_.chance(0.5) ? index_mask : 15);
  if (!x) return 0;
  hold.release();
  const std::int64_t hi = entry(lengths).hi;
  gather({x, lengths});
  return instr("%", 2, {int_entry(c, 0, std::max<std::int64_t>(0, hi - 1))});
}

// ---- instruction families -------------------------------------------------------------------

bool Generator::gen_const() {
  if (rng_.chance(0.15)) return make_segdes(big_ ? 8 : 4, rng_.chance(0.3)) != 0;
  if (rng_.chance(0.06)) {  // NaN has no literal: 0.0 / 0.0 (folds of it are exact in any grouping)
    Entry nan = vector_entry(Kind::Float, one());
    nan.int_mag = 0;
    nan.unit = true;
    instr("CONST FLOAT 0.0", 0, {nan});
    instr("CONST FLOAT 0.0", 0, {nan});
    instr("/ FLOAT", 2, {nan});
    return true;
  }
  if (rng_.chance(0.05)) {
    static const char* texts[] = {"hello", "", "a b\nc", "{not a comment}", "x\ty", "100%", "-0.0e+00"};
    const std::string text = texts[rng_.below(std::size(texts))];
    instr("CONST CHAR \"" + text + "\"", 0, {int_entry(known_class(static_cast<std::int64_t>(text.size())), 0, 127)});
    return true;
  }
  const Kind kinds[] = {Kind::Int, Kind::Float, Kind::Bool};
  const Kind k = kinds[rng_.below(3)];
  int c = random_class();
  if (size_of(c) < 0 || size_of(c) > 40) c = known_class(rng_.between(0, 8));
  push_const(k, c);
  return true;
}

bool Generator::gen_elementwise() {
  static const std::vector<Op> ops = ops_of(Family::Elementwise);
  const Op op = rng_.pick(ops);
  const std::vector<Kind> kinds = kinds_for(op);
  const Kind kind = rng_.pick(kinds);
  const auto& info = vcode::info(op);
  const Kind first_kind = letter_kind(info.args[0], kind);
  std::uint64_t first = 0;
  if (rng_.chance(0.8))
    if (auto v = pick([&](const Entry& e) { return e.kind == first_kind; })) first = *v;
  if (!first) first = make(first_kind, random_class());
  if (!first) return false;
  const int c = entry(first).len;
  std::vector<std::uint64_t> operands{first};
  Hold hold(*this, {first});
  for (std::size_t k = 1; k < info.args.size(); ++k) {
    const Kind ak = letter_kind(info.args[k], kind);
    const bool divisor = (op == Op::Div || op == Op::Mod) && kind == Kind::Int && k == 1;
    const std::uint64_t v = divisor ? nonzero_ints(c, entry(first).lo == int_min) : vector_of(ak, c);
    if (!v) return false;
    operands.push_back(v);
    hold.add(v);
  }
  hold.release();
  if (operands.size() == 2) {
    binary(op, kind, operands[0], operands[1]);
    return true;
  }
  const Kind result = letter_kind(info.results[0], kind);
  Entry r = vector_entry(result, c);
  if (op == Op::Select) r = join(entry(operands[1]), entry(operands[2]));
  if (op == Op::BoolToInt) r = int_entry(c, 0, 1);
  if (op == Op::IntToFloat) {
    const Entry src = entry(first);
    r.int_mag = static_cast<double>(std::max(std::abs(src.lo), std::abs(src.hi)));
    r.unit = src.lo >= -1 && src.hi <= 1;
  }
  gather(operands);
  instr(op_text(op, kind), operands.size(), {r});
  return true;
}

bool Generator::gen_rand() {
  if (rng_.chance(0.2)) {
    instr("CONST INT " + std::to_string(random_int(int_min, int_max)), 0, {int_entry(one(), int_min, int_max)});
    instr("SRAND INT", 1, {vector_entry(Kind::Bool, one())});
    if (rng_.chance(0.8)) instr("POP 1 0", 1, {});
    return true;
  }
  const int c = random_class();
  const std::uint64_t bounds = nonzero_ints(c, false);
  if (!bounds) return false;
  const Entry b = entry(bounds);
  bring(bounds, rng_.chance(0.6));
  instr("RAND", 1, {int_entry(c, 0, std::max(std::abs(b.lo), std::abs(b.hi)) - 1)});
  return true;
}

bool Generator::gen_fold() {
  static const std::vector<Op> scans = ops_of(Family::Scan), reduces = ops_of(Family::Reduce);
  const bool scan = rng_.chance(0.45);
  const Op op = rng_.pick(scan ? scans : reduces);
  const Kind kind = rng_.pick(kinds_for(op));
  const std::uint64_t sd = segdes(false);
  if (!sd) return false;
  const Entry d = entry(sd);
  Hold hold(*this, {sd});
  const std::string sem(vcode::info(op).sem);
  std::uint64_t v = 0;
  Entry r = vector_entry(kind, scan ? d.total : d.segs);
  const std::int64_t n = bound_of(d.total);
  if (kind == Kind::Float && (sem == "Add" || sem == "Mul")) {
    const bool unordered = unordered_folds_ && n <= 1000 && rng_.chance(0.5);
    v = unordered ? vector_of(Kind::Float, d.total) : exact_floats(d.total, sem == "Mul");
    if (!v) return false;
    used_unordered_fold_ |= unordered;
    const Entry e = entry(v);
    if (sem == "Add" && e.sums_exactly(n)) r.int_mag = e.int_mag * static_cast<double>(std::max<std::int64_t>(n, 1));
    if (sem == "Mul" && e.unit) r.unit = true, r.int_mag = 1;
  } else {
    v = vector_of(kind, d.total);
    if (!v) return false;
    const Entry e = entry(v);
    if (kind == Kind::Int && sem == "Add") {
      const std::int64_t lo = std::min<std::int64_t>(0, e.lo) * std::max<std::int64_t>(n, 1);
      const std::int64_t hi = std::max<std::int64_t>(0, e.hi) * std::max<std::int64_t>(n, 1);
      if (lo >= int_min && hi <= int_max) r.lo = lo, r.hi = hi;
    }
  }
  hold.release();
  gather({v, sd});
  instr(op_text(op, kind), 2, {r});
  return true;
}

bool Generator::gen_permute() {
  static const std::vector<Op> permutes = ops_of(Family::Permute);
  const Op op = rng_.pick(permutes);
  const Kind kind = rng_.pick(kinds_for(op));
  const std::uint64_t sd_s = segdes(false);
  if (!sd_s) return false;
  const Entry s = entry(sd_s);
  Hold hold(*this, {sd_s});
  const std::uint64_t v = vector_of(kind, s.total);
  if (!v) return false;
  hold.add(v);
  switch (op) {
    case Op::Permute: {
      std::uint64_t i = 0;
      if (rng_.chance(0.6)) {  // a rank is a permutation of each segment
        const std::uint64_t keys = vector_of(rng_.chance(0.5) ? Kind::Int : Kind::Float, s.total);
        if (!keys) return false;
        const Kind kk = entry(keys).kind;
        gather({keys, sd_s});
        i = instr(std::string(rng_.chance(0.5) ? "RANK_UP " : "RANK_DOWN ") + keyword(kk), 2,
                  {int_entry(s.total, 0, bound_of(s.total))});
      } else {  // each segment reversed: INDEX (lengths - 1) (-1)
        const std::uint64_t l = lengths_of(sd_s);
        hold.add(l);
        const std::uint64_t minus_one = fill_int(s.segs, -1);
        if (!minus_one) return false;
        gather({l, minus_one});
        const std::uint64_t starts = instr("+ INT", 2, {int_entry(s.segs, -1, bound_of(s.total))});
        hold.add(starts);
        const std::uint64_t strides = fill_int(s.segs, -1);
        if (!strides) return false;
        gather({starts, strides, sd_s});
        i = instr("INDEX", 3, {int_entry(s.total, 0, bound_of(s.total))});
      }
      Entry r = entry(v);
      hold.release();
      gather({v, i, sd_s});
      instr(op_text(op, kind), 3, {r});
      return true;
    }
    case Op::BPermute:
    case Op::BFPermute: {
      const std::uint64_t sd_d = covering_segdes(sd_s, true);
      if (!sd_d) return false;
      hold.add(sd_d);
      const Entry dd = entry(sd_d);
      const std::uint64_t lengths = per_element_lengths(sd_s, sd_d);
      std::uint64_t i = index_into(lengths, dd.total);
      if (!i) return false;
      hold.add(i);
      Entry r = entry(v);
      r.len = dd.total;
      std::uint64_t flags = 0;
      if (op == Op::BFPermute) {
        flags = vector_of(Kind::Bool, dd.total);
        if (!flags) return false;
        hold.add(flags);
        if (rng_.chance(0.4)) {  // unflagged positions' indices are never read: make them wild
          const std::uint64_t wild = vector_of(Kind::Int, dd.total);
          if (!wild) return false;
          gather({flags, i, wild});
          i = instr("SELECT INT", 3, {vector_entry(Kind::Int, dd.total)});
        }
        r.lo = std::min<std::int64_t>(r.lo, 0), r.hi = std::max<std::int64_t>(r.hi, 0);
      }
      hold.release();
      if (flags) gather({v, i, flags, sd_s, sd_d});
      else gather({v, i, sd_s, sd_d});
      instr(op_text(op, kind), flags ? 5 : 4, {r});
      return true;
    }
    case Op::DPermute:
    case Op::DFPermute: {
      const std::uint64_t sd_d = covering_segdes(sd_s, false);
      if (!sd_d) return false;
      hold.add(sd_d);
      const Entry dd = entry(sd_d);
      std::uint64_t i = 0;
      if (sd_d == sd_s && rng_.chance(0.5)) {  // a permutation: no collisions
        const std::uint64_t keys = vector_of(Kind::Int, s.total);
        if (!keys) return false;
        gather({keys, sd_s});
        i = instr("RANK_UP INT", 2, {int_entry(s.total, 0, bound_of(s.total))});
      } else {  // any positions: several sources may hit one position (the highest wins)
        const std::uint64_t lengths = per_element_lengths(sd_d, sd_s);
        i = index_into(lengths, s.total);
      }
      if (!i) return false;
      hold.add(i);
      std::uint64_t flags = 0;
      if (op == Op::DFPermute) {
        flags = vector_of(Kind::Bool, s.total);
        if (!flags) return false;
        hold.add(flags);
        if (rng_.chance(0.4)) {
          const std::uint64_t wild = vector_of(Kind::Int, s.total);
          if (!wild) return false;
          gather({flags, i, wild});
          i = instr("SELECT INT", 3, {vector_entry(Kind::Int, s.total)});
          hold.add(i);
        }
      }
      // Never a vector a PAIR also holds: the classic writes into a single-reference default
      // vector in place without counting the pair's reference (known_differences.txt
      // [pair-default-in-place]).
      std::uint64_t defaults = vector_of(kind, dd.total);
      if (defaults && in_a_pair(defaults)) defaults = make(kind, dd.total);
      if (!defaults) return false;
      Entry r = join(entry(v), entry(defaults));
      r.len = dd.total;
      hold.release();
      if (flags) gather({v, i, flags, defaults, sd_s, sd_d});
      else gather({v, i, defaults, sd_s, sd_d});
      instr(op_text(op, kind), flags ? 6 : 5, {r});
      return true;
    }
    case Op::FPermute: {
      // Every destination written once: flagged elements go to their rank among the flagged ones
      // of their segment (+_SCAN of the flags), counted by PACK's descriptor; some segments
      // reversed.
      const std::uint64_t flags = vector_of(Kind::Bool, s.total);
      if (!flags) return false;
      hold.add(flags);
      gather({v, flags, sd_s});
      Entry packed = entry(v);
      const int pc = unknown_class(bound_of(s.total));
      packed.len = pc;
      Entry psd;
      psd.kind = Kind::Segdes;
      psd.segs = s.segs;
      psd.total = pc;
      const std::uint64_t sd_d = instr(op_text(Op::Pack, kind), 3, {packed, psd});
      emit("POP 1 1");  // the packed values: only their descriptor is needed
      stack().erase(stack().end() - 2);
      hold.add(sd_d);
      copy_to_top(position(flags));
      const std::uint64_t ones = instr("B_TO_I", 1, {int_entry(s.total, 0, 1)});
      gather({ones, sd_s});
      std::uint64_t i = instr("+_SCAN INT", 2, {int_entry(s.total, 0, bound_of(s.total))});
      if (rng_.chance(0.4)) {  // reversed: count - 1 - i
        hold.add(i);
        const std::uint64_t counts = per_element_lengths(sd_d, sd_s);
        gather({counts, i});
        const std::uint64_t d = instr("- INT", 2, {int_entry(s.total, int_min, int_max)});
        hold.add(d);
        const std::uint64_t one_ = fill_int(s.total, 1);
        if (!one_) return false;
        gather({d, one_});
        i = instr("- INT", 2, {int_entry(s.total, int_min, int_max)});
      }
      Entry r = entry(v);
      r.len = pc;
      hold.release();
      gather({v, i, flags, sd_s, sd_d});
      instr(op_text(op, kind), 5, {r});
      return true;
    }
    default: return false;
  }
}

bool Generator::gen_extract_replace() {
  const bool extract = rng_.chance(0.5);
  const Kind kinds[] = {Kind::Int, Kind::Float, Kind::Bool};
  const Kind kind = kinds[rng_.below(3)];
  const std::uint64_t sd = segdes(true);
  if (!sd) return false;
  const Entry d = entry(sd);
  Hold hold(*this, {sd});
  const std::uint64_t v = vector_of(kind, d.total);
  if (!v) return false;
  hold.add(v);
  const std::uint64_t l = lengths_of(sd);
  const std::uint64_t i = index_into(l, d.segs);
  if (!i) return false;
  if (extract) {
    Entry r = entry(v);
    r.len = d.segs;
    hold.release();
    gather({v, i, sd});
    instr(op_text(Op::Extract, kind), 3, {r});
    return true;
  }
  hold.add(i);
  const std::uint64_t x = vector_of(kind, d.segs);
  if (!x) return false;
  Entry r = join(entry(v), entry(x));
  r.len = d.total;
  hold.release();
  gather({v, i, x, sd});
  instr(op_text(Op::Replace, kind), 4, {r});
  return true;
}

bool Generator::gen_dist_index() {
  const std::uint64_t sd = segdes(false);
  if (!sd) return false;
  const Entry d = entry(sd);
  Hold hold(*this, {sd});
  if (rng_.chance(0.5)) {
    const Kind kinds[] = {Kind::Int, Kind::Float, Kind::Bool};
    const Kind kind = kinds[rng_.below(3)];
    const std::uint64_t x = vector_of(kind, d.segs);
    if (!x) return false;
    Entry r = entry(x);
    r.len = d.total;
    hold.release();
    gather({x, sd});
    instr(op_text(Op::Dist, kind), 2, {r});
    return true;
  }
  const std::uint64_t starts = vector_of(Kind::Int, d.segs);
  if (!starts) return false;
  hold.add(starts);
  const std::uint64_t strides = vector_of(Kind::Int, d.segs);
  if (!strides) return false;
  hold.release();
  gather({starts, strides, sd});
  instr("INDEX", 3, {vector_entry(Kind::Int, d.total)});
  return true;
}

bool Generator::gen_rank() {
  const std::uint64_t sd = segdes(false);
  if (!sd) return false;
  const Entry d = entry(sd);
  Hold hold(*this, {sd});
  const Kind kind = rng_.chance(0.5) ? Kind::Int : Kind::Float;
  const std::uint64_t v = vector_of(kind, d.total);
  if (!v) return false;
  hold.release();
  gather({v, sd});
  instr(std::string(rng_.chance(0.5) ? "RANK_UP " : "RANK_DOWN ") + keyword(kind), 2,
        {int_entry(d.total, 0, std::max<std::int64_t>(0, bound_of(d.total) - 1))});
  return true;
}

bool Generator::gen_pack() {
  const std::uint64_t sd = segdes(false);
  if (!sd) return false;
  const Entry d = entry(sd);
  Hold hold(*this, {sd});
  const Kind kinds[] = {Kind::Int, Kind::Float, Kind::Bool};
  const Kind kind = kinds[rng_.below(3)];
  const std::uint64_t v = vector_of(kind, d.total);
  if (!v) return false;
  hold.add(v);
  const std::uint64_t flags = vector_of(Kind::Bool, d.total);
  if (!flags) return false;
  const int pc = unknown_class(bound_of(d.total));
  Entry r = entry(v);
  r.len = pc;
  Entry psd;
  psd.kind = Kind::Segdes;
  psd.segs = d.segs;
  psd.total = pc;
  hold.release();
  gather({v, flags, sd});
  instr(op_text(Op::Pack, kind), 3, {r, psd});
  return true;
}

bool Generator::gen_lengths() {
  if (rng_.chance(0.5)) {
    auto v = pick([](const Entry& e) { return e.is_vector(); });
    if (!v) return false;
    const Entry e = entry(*v);
    bring(*v, rng_.chance(0.3));
    instr(std::string("LENGTH ") + keyword(e.kind), 1, {int_entry(one(), 0, bound_of(e.len))});
    return true;
  }
  const std::uint64_t sd = segdes(false);
  if (!sd) return false;
  const Entry d = entry(sd);
  bring(sd, rng_.chance(0.3));
  instr("LENGTHS", 1, {int_entry(d.segs, 0, bound_of(d.total))});
  return true;
}

bool Generator::gen_stack_move() {
  const std::size_t size = stack().size();
  const std::size_t free = size - body_->pinned;
  if (size == 0) return false;
  const auto which = rng_.below(3);
  if (which == 0 || free == 0) {  // COPY n d
    const std::size_t n = static_cast<std::size_t>(rng_.between(1, std::min<std::int64_t>(3, static_cast<std::int64_t>(size))));
    const std::size_t d = rng_.below(size - n + 1);
    emit("COPY " + std::to_string(n) + " " + std::to_string(d));
    std::vector<Entry> block(stack().end() - static_cast<std::ptrdiff_t>(n + d), stack().end() - static_cast<std::ptrdiff_t>(d));
    stack().insert(stack().end(), block.begin(), block.end());
    return true;
  }
  const std::size_t n = static_cast<std::size_t>(rng_.between(1, std::min<std::int64_t>(3, static_cast<std::int64_t>(free))));
  const std::size_t d = rng_.below(free - n + 1);
  emit((which == 1 ? "POP " : "CPOP ") + std::to_string(n) + " " + std::to_string(d));
  const auto first = stack().end() - static_cast<std::ptrdiff_t>(n + d);
  std::vector<Entry> block(first, first + static_cast<std::ptrdiff_t>(n));
  stack().erase(first, first + static_cast<std::ptrdiff_t>(n));
  if (which != 1) stack().insert(stack().end(), block.begin(), block.end());
  return true;
}

bool Generator::gen_io() {
  const auto which = rng_.below(6);
  if (which == 0) {  // the timer: its value depends on the clock, so it is dropped at once
    emit("START_TIMER");
    instr("STOP_TIMER", 0, {vector_entry(Kind::Float, one())});
    instr("POP 1 0", 1, {});
    return true;
  }
  std::uint64_t v = 0;
  std::string type;
  if (which == 1) {
    static const char* texts[] = {"message\n", "", "[1 2]", "( T F )", "nan"};
    const std::string text = texts[rng_.below(std::size(texts))];
    v = instr("CONST CHAR \"" + text + "\"", 0,
              {int_entry(known_class(static_cast<std::int64_t>(text.size())), 0, 127)});
    type = "CHAR";
  } else {
    auto e = pick([](const Entry& x) { return x.kind != Kind::Pair; });
    if (!e) return false;
    v = *e;
    type = keyword(entry(v).kind);
  }
  bring(v, rng_.chance(0.3));
  instr("WRITE " + type, 1, {int_entry(known_class(0), 0, 0), vector_entry(Kind::Bool, one())});
  if (rng_.chance(0.8)) instr("POP 2 0", 2, {});
  return true;
}

bool Generator::in_a_pair(std::uint64_t tag) {
  const std::function<bool(const Entry&)> holds = [&](const Entry& e) {
    if (e.kind != Kind::Pair) return false;
    return e.parts->first.tag == tag || e.parts->second.tag == tag || holds(e.parts->first) ||
           holds(e.parts->second);
  };
  for (const Entry& x : stack())
    if (holds(x)) return true;
  return false;
}

bool Generator::gen_pair() {
  // Only a pair held once, moved rather than copied: the classic's UNPAIR of a shared pair frees
  // what the other copy still holds (known_differences.txt [shared-pair-unpair]).
  // Copies are counted inside pairs too: a pair that is part of another is shared with it.
  const std::function<std::size_t(const Entry&, std::uint64_t)> copies_in =
      [&](const Entry& e, std::uint64_t tag) -> std::size_t {
    if (e.kind != Kind::Pair) return 0;
    return (e.tag == tag) + copies_in(e.parts->first, tag) + copies_in(e.parts->second, tag);
  };
  const auto held_once = [&](const Entry& e) {
    if (e.kind != Kind::Pair || held_.count(e.tag) > 0) return false;
    std::size_t copies = 0;
    for (const Entry& x : stack()) copies += copies_in(x, e.tag);
    return copies == 1 && position(e.tag, 0) >= body_->pinned;
  };
  if (rng_.chance(0.6))
    if (auto p = pick(held_once)) {
      bring(*p, true);
      const PairParts parts = top().parts;
      instr("UNPAIR", 1, {parts->first, parts->second});
      return true;
    }
  if (stack().size() < body_->pinned + 2) return false;
  Entry p;
  p.kind = Kind::Pair;
  p.parts = std::make_shared<std::pair<Entry, Entry>>(stack()[stack().size() - 2], stack().back());
  instr("PAIR", 2, {p});
  return true;
}

// ---- control ---------------------------------------------------------------------------------

// Leaves exactly values of `target`'s kinds and classes above position `base`: a matching value
// is copied to the top for each slot (made when none exists), then everything between `base` and
// the copies is dropped. Returns the entries left.
std::vector<Entry> Generator::conform(std::size_t base, const std::vector<Entry>& target) {
  // First a value for every slot (making one may leave other values behind), then their copies
  // on top, in order.
  std::vector<std::uint64_t> slots;
  Hold chosen(*this, {});
  for (const Entry& t : target) {
    auto match = [&](const Entry& e) {
      if (t.tag != 0) return e.tag == t.tag;  // this very value (a recursion's counter)
      if (e.kind != t.kind) return false;
      if (e.kind == Kind::Segdes) return e.segs == t.segs && e.total == t.total && (e.nonempty || !t.nonempty);
      return e.len == t.len;
    };
    std::optional<std::uint64_t> found = pick(match);
    const std::uint64_t tag = found ? *found : make(t.kind, t.len);
    if (!tag) throw std::logic_error("fuzz generator: cannot conform");
    slots.push_back(tag);
    chosen.add(tag);
  }
  for (std::uint64_t tag : slots) copy_to_top(position(tag));
  const std::size_t dropped = stack().size() - target.size() - base;
  if (dropped > 0) {
    emit("POP " + std::to_string(dropped) + " " + std::to_string(target.size()));
    stack().erase(stack().begin() + static_cast<std::ptrdiff_t>(base),
                  stack().begin() + static_cast<std::ptrdiff_t>(base + dropped));
  }
  return std::vector<Entry>(stack().begin() + static_cast<std::ptrdiff_t>(base), stack().end());
}

void Generator::steps(int count) {
  for (int i = 0; i < count && !full(); ++i) step();
}

// One branch of an IF: some work (nothing below the branch's start is moved or dropped), then the
// target's shape; or some work and EXIT (exits is then true).
void Generator::run_branch(std::size_t base, const std::vector<Entry>& target, std::vector<Entry>& out,
                           bool& exits) {
  const std::size_t saved_pinned = body_->pinned;
  body_->pinned = stack().size();
  exits = rng_.chance(0.08);
  steps(static_cast<int>(rng_.between(0, 5)));
  if (exits) {
    if (rng_.chance(0.7)) {
      const std::string text = "error: check failed\n";
      instr("CONST CHAR \"" + text + "\"", 0,
            {int_entry(known_class(static_cast<std::int64_t>(text.size())), 0, 127)});
      instr("WRITE CHAR", 1, {int_entry(known_class(0), 0, 0), vector_entry(Kind::Bool, one())});
    }
    emit("EXIT");
  } else {
    out = conform(base, target);
  }
  body_->pinned = saved_pinned;
}

bool Generator::gen_if() {
  if (if_depth_ >= max_if_depth) return false;
  const std::uint64_t cond = bool_scalar();
  bring(cond, true);
  instr("IF", 1, {});
  // The top `region` entries may be replaced by the branches; `extra` new values are added.
  const std::size_t free = stack().size() - body_->pinned;
  const std::size_t region = rng_.below(std::min<std::size_t>(free, 3) + 1);
  const std::size_t base = stack().size() - region;
  std::vector<Entry> target(stack().begin() + static_cast<std::ptrdiff_t>(base), stack().end());
  for (auto& t : target)
    if (t.kind == Kind::Pair) return (void)emit("ENDIF"), true;  // pairs stay where they are
  const int extra = static_cast<int>(rng_.below(3));
  for (int k = 0; k < extra; ++k) {
    auto v = pick([](const Entry& e) { return e.is_vector(); });
    if (!v) break;
    const Kind kinds[] = {Kind::Int, Kind::Float, Kind::Bool};
    target.push_back(vector_entry(kinds[rng_.below(3)], entry(*v).len));
  }
  const std::vector<Entry> saved = stack();
  ++if_depth_;
  std::vector<Entry> then_out, else_out;
  bool then_exits = false, else_exits = false;
  run_branch(base, target, then_out, then_exits);
  const bool no_else = !then_exits && extra == 0 && target.size() == region && rng_.chance(0.3);
  if (!no_else) emit("ELSE");
  stack() = saved;
  if (no_else) {
    else_out = std::vector<Entry>(saved.begin() + static_cast<std::ptrdiff_t>(base), saved.end());
  } else {
    run_branch(base, target, else_out, else_exits);
    if (then_exits && else_exits) {  // both end the program: nothing after this IF runs
      --if_depth_;
      emit("ENDIF");
      stack() = saved;
      stack().resize(base);
      for (const auto& t : target) {
        stack().push_back(t);
        stack().back().tag = next_tag_++;
      }
      return true;
    }
  }
  --if_depth_;
  emit("ENDIF");
  stack() = saved;
  stack().resize(base);
  for (std::size_t k = 0; k < target.size(); ++k) {
    Entry e = then_exits ? else_out[k] : else_exits ? then_out[k] : join(then_out[k], else_out[k]);
    if (e.kind == Kind::Segdes) e.nonempty = (then_exits || then_out[k].nonempty) && (else_exits || else_out[k].nonempty);
    e.tag = next_tag_++;
    stack().push_back(e);
  }
  return true;
}

// The entries a call of f leaves: its results, with the classes made inside its body new for
// this call (a PACK in the body gives a different length each time).
std::vector<Entry> Generator::call_results(const Function& f) {
  std::map<int, int> renamed;
  auto rename = [&](int c) {
    if (c < 0 || static_cast<std::size_t>(c) < f.first_new_class || size_of(c) >= 0) return c;
    auto [it, fresh] = renamed.emplace(c, 0);
    if (fresh) it->second = unknown_class(bound_of(c));
    return it->second;
  };
  std::vector<Entry> results = f.results;
  std::function<void(Entry&)> fix = [&](Entry& e) {
    e.len = rename(e.len);
    e.segs = rename(e.segs);
    e.total = rename(e.total);
    if (e.parts) {
      auto parts = *e.parts;
      fix(parts.first);
      fix(parts.second);
      e.parts = std::make_shared<std::pair<Entry, Entry>>(parts);
    }
  };
  for (auto& e : results) fix(e);
  return results;
}

Function& Generator::new_function(bool recursive) {
  Function f;
  f.name = "FN" + std::to_string(functions_.size() + 1) + "_" + std::to_string(rng_.between(1, 999));
  f.recursive = recursive;
  functions_.push_back(std::move(f));
  return functions_.back();
}

bool Generator::gen_call() {
  if (call_depth_ >= max_call_depth) return false;
  // A call of an existing function whose parameters are all on the stack.
  if (!functions_.empty() && rng_.chance(0.4)) {
    const std::size_t fi = rng_.below(functions_.size());
    if (!functions_[fi].building) {
      const Function f = functions_[fi];
      std::vector<std::uint64_t> args;
      const std::size_t n = f.params.size() - (f.recursive ? 1 : 0);
      for (std::size_t k = 0; k < n; ++k) {
        auto a = pick([&](const Entry& e) { return satisfies(e, f.params[k]); });
        if (!a) return false;
        args.push_back(*a);
      }
      if (f.recursive) {
        const std::int64_t counter = rng_.between(0, f.max_counter);
        args.push_back(instr("CONST INT " + std::to_string(counter), 0, {int_entry(one(), counter, counter)}));
      }
      gather(args);
      instr("CALL " + f.name, f.params.size(), call_results(f));
      return true;
    }
  }
  const std::size_t free = stack().size() - body_->pinned;
  std::size_t k = std::min<std::size_t>(free, static_cast<std::size_t>(rng_.between(1, 4)));
  for (std::size_t j = 0; j < k; ++j)
    if (stack()[stack().size() - 1 - j].kind == Kind::Pair) k = j;  // no pairs as parameters
  const bool recursive = functions_.size() < max_functions && rng_.chance(0.3);
  if (functions_.size() >= max_functions) return false;
  const std::size_t fi = functions_.size();
  new_function(recursive);
  std::vector<Entry> params(stack().end() - static_cast<std::ptrdiff_t>(k), stack().end());
  Body body;
  Body* caller = body_;
  body_ = &body;
  ++call_depth_;
  functions_[fi].first_new_class = classes_.size();
  if (!recursive) {
    functions_[fi].params = params;
    body.stack = params;
    steps(static_cast<int>(rng_.between(1, 10)));
    while (body.stack.size() > 6) {  // a function leaves a few values
      const std::size_t d = rng_.below(body.stack.size());
      emit("POP 1 " + std::to_string(d));
      body.stack.erase(body.stack.end() - 1 - static_cast<std::ptrdiff_t>(d));
    }
    functions_[fi].results = body.stack;
  } else {
    // state... counter -> state: the body works on the state (the same kinds and classes after),
    // then calls itself with counter - 1 while the counter is positive.
    for (auto& p : params) {  // the body may only rely on what holds after any number of rounds
      if (p.kind == Kind::Int) p.lo = int_min, p.hi = int_max;
      if (p.kind == Kind::Float) p.int_mag = -1, p.unit = false;
    }
    const std::int64_t max_counter = rng_.between(0, 5);
    Entry counter = int_entry(one(), 0, max_counter);
    functions_[fi].params = params;
    functions_[fi].params.push_back(counter);
    functions_[fi].max_counter = max_counter;
    functions_[fi].results = params;
    body.stack = functions_[fi].params;
    for (auto& e : body.stack) e.tag = next_tag_++;
    body.pinned = body.stack.size();
    const Entry counter_value = body.stack.back();
    steps(static_cast<int>(rng_.between(1, 6)));
    std::vector<Entry> target = params;
    for (auto& t : target) t.tag = 0;
    target.push_back(counter_value);  // the counter itself, not another INT scalar
    conform(0, target);
    body.pinned = 0;
    const std::vector<Entry> before_if = body.stack;
    copy_to_top(body.stack.size() - 1);
    instr("CONST INT 0", 0, {int_entry(one(), 0, 0)});
    instr("> INT", 2, {vector_entry(Kind::Bool, one())});
    instr("IF", 1, {});
    instr("CONST INT 1", 0, {int_entry(one(), 1, 1)});
    instr("- INT", 2, {counter});
    instr("CALL " + functions_[fi].name, params.size() + 1, params);
    emit("ELSE");
    body.stack = before_if;
    instr("POP 1 0", 1, {});
    emit("ENDIF");
  }
  functions_[fi].lines = std::move(body.lines);
  functions_[fi].building = false;
  --call_depth_;
  body_ = caller;
  std::vector<std::uint64_t> args;
  for (std::size_t j = 0; j < k; ++j) args.push_back(stack()[stack().size() - k + j].tag);
  if (recursive) {
    if (rng_.chance(0.5)) {
      gather(args);
    }
    const std::int64_t c = rng_.between(0, functions_[fi].max_counter);
    instr("CONST INT " + std::to_string(c), 0, {int_entry(one(), c, c)});
  }
  instr("CALL " + functions_[fi].name, functions_[fi].params.size(), call_results(functions_[fi]));
  return true;
}

void Generator::step() {
  if (stack().size() > max_stack) {
    gen_stack_move();
    if (stack().size() - body_->pinned > 2) instr("POP 2 0", 2, {});
    return;
  }
  // Weights per family, in the order of the switch below.
  static const std::vector<int> weights = {8, 22, 3, 10, 8, 5, 5, 3, 3, 3, 6, 4, 4, 3, 1};
  for (int attempt = 0; attempt < 4; ++attempt) {
    bool done = false;
    switch (rng_.weighted(weights)) {
      case 0: done = gen_const(); break;
      case 1: done = gen_elementwise(); break;
      case 2: done = gen_rand(); break;
      case 3: done = gen_fold(); break;
      case 4: done = gen_permute(); break;
      case 5: done = gen_extract_replace(); break;
      case 6: done = gen_dist_index(); break;
      case 7: done = gen_rank(); break;
      case 8: done = gen_pack(); break;
      case 9: done = gen_lengths(); break;
      case 10: done = gen_stack_move(); break;
      case 11: done = gen_if(); break;
      case 12: done = gen_call(); break;
      case 13: done = gen_io(); break;
      default: done = gen_pair(); break;
    }
    if (done) return;
  }
}

GeneratedProgram Generator::run() {
  big_ = rng_.chance(0.25);
  unordered_folds_ = !big_ && rng_.chance(0.25);
  max_total_ = big_ ? 150000 : 64;
  Body main;
  body_ = &main;
  const int count = static_cast<int>(rng_.between(4, 40));
  steps(count);
  // A short final stack (printed), sometimes ended by EXIT (nothing printed).
  while (main.stack.size() > 8) {
    const std::size_t d = rng_.below(main.stack.size());
    emit("POP 1 " + std::to_string(d));
    main.stack.erase(main.stack.end() - 1 - static_cast<std::ptrdiff_t>(d));
  }
  if (rng_.chance(0.03)) emit("EXIT");

  GeneratedProgram program;
  program.unordered_float_folds = used_unordered_fold_;
  std::string& text = program.text;
  text = "{ vcode_fuzzgen seed " + std::to_string(seed_) + " }\n";
  if (used_unordered_fold_) text += std::string(unordered_folds_marker) + "\n";
  text += "FUNC MAIN1_1\n";
  for (const auto& line : main.lines) text += line + "\n";
  text += "RET\n";
  for (const auto& f : functions_) {
    text += "\nFUNC " + f.name + "\n";
    for (const auto& line : f.lines) text += line + "\n";
    text += "RET\n";
  }
  return program;
}

}  // namespace

GeneratedProgram generate_program(std::uint64_t seed, bool annotate) {
  return Generator(seed, annotate).run();
}

std::vector<std::string> vcode_dictionary() {
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < vcode::op_count; ++i) tokens.emplace_back(vcode::op_table[i].spelling);
  for (const char* t : {"INT", "BOOL", "FLOAT", "SEGDES", "CHAR", "T", "F", "MAIN", "STDIN", "STDOUT",
                        "STDERR", "NULL_STREAM", "SUPEROP", "(", ")", "\"", "{", "}", "$0", "$1", "0", "1",
                        "-1", "2147483647", "-2147483648", "1.0e400", "-0.0", "0.5", "I", "O", "\n"})
    tokens.emplace_back(t);
  return tokens;
}

}  // namespace fuzz
