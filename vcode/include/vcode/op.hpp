// Opcodes and their static properties, generated from ops.def.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace vcode {

// A type keyword as written after an opcode (CHAR exists only as a keyword).
enum class TypeKeyword : std::uint8_t { Int, Bool, Float, Segdes, Char };

// Bit sets of TypeKeyword, named like spec/VCODE.md §6.1.
namespace typeset {
inline constexpr unsigned bit(TypeKeyword t) { return 1u << static_cast<unsigned>(t); }
inline constexpr unsigned TI = bit(TypeKeyword::Int);
inline constexpr unsigned T1 = bit(TypeKeyword::Int) | bit(TypeKeyword::Float);
inline constexpr unsigned T2 = bit(TypeKeyword::Int) | bit(TypeKeyword::Bool);
inline constexpr unsigned T3 = T1 | bit(TypeKeyword::Bool);
inline constexpr unsigned T5 = T3 | bit(TypeKeyword::Segdes) | bit(TypeKeyword::Char);
}  // namespace typeset

enum class Syntax : std::uint8_t { None, Type, Counts, Name, Const, Integer };
enum class Implied : std::uint8_t { None, Int, Float, Bool };
enum class Family : std::uint8_t {
  Elementwise, Random, Scan, Reduce, Permute, Vector, Rank, Pack, Segdes,
  Stack, Control, Structure, Io, Fused
};

// How an elementwise op costs (ops.def Cost) and which way a permute's indices point (Shape).
enum class Cost : std::uint8_t { None, Memory, Compute };
enum class Shape : std::uint8_t { None, Scatter, Gather };

enum class Op : std::uint8_t {
#define X(id, spelling, syntax, types, implied, family, sem, cost, shape, args, results, lengths, meaning) id,
#include "vcode/ops.def"
#undef X
};

struct OpInfo {
  std::string_view spelling;
  Syntax syntax;
  unsigned type_set;
  Implied implied;
  Family family;
  std::string_view sem;      // the cvl_sem struct of its scalar rule, or "None" (see ops.def)
  Cost cost;
  Shape shape;
  std::string_view args;     // operand letters, deepest first (see ops.def)
  std::string_view results;  // result letters, pushed in order
  std::string_view lengths;  // the operands' length rules (see ops.def; vcode/length_rules.hpp)
  std::string_view meaning;
};

inline constexpr OpInfo op_table[] = {
#define X(id, spelling, syntax, types, implied, family, sem, cost, shape, args, results, lengths, meaning) \
  OpInfo{spelling, Syntax::syntax, [] { using namespace typeset; return unsigned(types); }(),     \
         Implied::implied, Family::family, #sem, Cost::cost, Shape::shape, args, results, lengths, \
         meaning},
#include "vcode/ops.def"
#undef X
};

inline constexpr std::size_t op_count = sizeof(op_table) / sizeof(op_table[0]);

inline constexpr const OpInfo& info(Op op) { return op_table[static_cast<std::size_t>(op)]; }
inline constexpr std::string_view spelling(Op op) { return info(op).spelling; }

// The operand letters of ops.def, decoded once. `type` is the instruction's type keyword (or
// implied_type for an op written without one).

// The type keyword an op written without one works on (ops.def Implied): INT for % and INDEX,
// FLOAT for FLOOR and LOG, BOOL for B_TO_I; INT where nothing is implied.
inline constexpr TypeKeyword implied_type(Op op) {
  switch (info(op).implied) {
    case Implied::Float: return TypeKeyword::Float;
    case Implied::Bool: return TypeKeyword::Bool;
    case Implied::Int:
    case Implied::None: break;
  }
  return TypeKeyword::Int;
}
// The type keyword a letter stands for: G is the instruction's; V and X have none (nullopt).
inline constexpr std::optional<TypeKeyword> letter_type(char letter, TypeKeyword type) {
  switch (letter) {
    case 'G': return type;
    case 'I': return TypeKeyword::Int;
    case 'F': return TypeKeyword::Float;
    case 'B': return TypeKeyword::Bool;
    case 'S': return TypeKeyword::Segdes;
    default: return std::nullopt;
  }
}
// Operand k's type (deepest first) and the first result's type, for ops with fixed letters.
inline constexpr TypeKeyword operand_type(Op op, TypeKeyword type, std::size_t k) {
  return letter_type(info(op).args[k], type).value_or(type);
}
inline constexpr TypeKeyword result_type_of(Op op, TypeKeyword type) {
  std::string_view results = info(op).results;
  return results.empty() ? type : letter_type(results[0], type).value_or(type);
}
inline constexpr std::size_t arity(Op op) { return info(op).args.size(); }
// The elementwise ops that can fail on their values: INT / and % (a zero divisor, INT_MIN / -1).
inline constexpr bool elementwise_can_trap(Op op, TypeKeyword type) {
  return op == Op::Mod || (op == Op::Div && type == TypeKeyword::Int);
}

// The scan with the same combiner (ops.def Sem) as a reduction: a reduction of a segment is the
// scan's last exclusive value combined with the last element.
inline constexpr Op paired_scan(Op reduce) {
  for (std::size_t i = 0; i < sizeof(op_table) / sizeof(op_table[0]); ++i)
    if (op_table[i].family == Family::Scan && op_table[i].sem == info(reduce).sem)
      return static_cast<Op>(i);
  return reduce;
}
// Permutes: which optional operands the letters name (a B flag vector, a second G default).
inline constexpr bool permute_has_flags(Op op) {
  return info(op).args.find('B') != std::string_view::npos;
}
inline constexpr bool permute_has_defaults(Op op) {
  std::string_view a = info(op).args;
  return a.find('G') != a.rfind('G');
}

// Looks an opcode up by its spelling; nullopt if the word is not an opcode.
std::optional<Op> find_op(std::string_view word);

std::string_view keyword_name(TypeKeyword t);  // "INT", "BOOL", ...

}  // namespace vcode
