// Opcodes and their static properties, generated from ops.def.
#pragma once

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

enum class Op : std::uint8_t {
#define X(id, spelling, syntax, types, implied, family, args, results, meaning) id,
#include "vcode/ops.def"
#undef X
};

struct OpInfo {
  std::string_view spelling;
  Syntax syntax;
  unsigned type_set;
  Implied implied;
  Family family;
  std::string_view args;     // operand letters, deepest first (see ops.def)
  std::string_view results;  // result letters, pushed in order
  std::string_view meaning;
};

inline constexpr OpInfo op_table[] = {
#define X(id, spelling, syntax, types, implied, family, args, results, meaning)           \
  OpInfo{spelling, Syntax::syntax, [] { using namespace typeset; return unsigned(types); }(), \
         Implied::implied, Family::family, args, results, meaning},
#include "vcode/ops.def"
#undef X
};

inline constexpr std::size_t op_count = sizeof(op_table) / sizeof(op_table[0]);

inline constexpr const OpInfo& info(Op op) { return op_table[static_cast<std::size_t>(op)]; }
inline constexpr std::string_view spelling(Op op) { return info(op).spelling; }

// Looks an opcode up by its spelling; nullopt if the word is not an opcode.
std::optional<Op> find_op(std::string_view word);

std::string_view keyword_name(TypeKeyword t);  // "INT", "BOOL", ...

}  // namespace vcode
