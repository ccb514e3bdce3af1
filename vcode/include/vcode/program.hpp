// The program model: functions, linear instruction code with resolved targets, constants.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vcode/diagnostics.hpp"
#include "vcode/op.hpp"
#include "vcode/superop.hpp"

namespace vcode {

// A CONST operand. Scalars are vectors of length 1; `vector_form` records whether the source
// wrote `( ... )` (or a string) so the printer can reproduce it.
struct Constant {
  TypeKeyword type = TypeKeyword::Int;
  bool vector_form = false;
  std::vector<std::int32_t> ints;  // INT, BOOL (0/1), SEGDES lengths, CHAR codes
  std::vector<double> floats;      // FLOAT
  std::optional<std::string> stream_name;  // CONST INT STDIN/STDOUT/STDERR/NULL_STREAM

  bool operator==(const Constant& o) const {  // FLOAT values by their bits (same_bits)
    return type == o.type && vector_form == o.vector_form && ints == o.ints &&
           stream_name == o.stream_name &&
           std::equal(floats.begin(), floats.end(), o.floats.begin(), o.floats.end(), same_bits);
  }
};

inline constexpr std::uint32_t no_target = UINT32_MAX;

struct Instruction {
  Op op = Op::Ret;
  std::optional<TypeKeyword> type;  // the type keyword, when the op takes one
  std::int32_t count = 0;           // COPY/POP/CPOP: n
  std::int32_t depth = 0;           // COPY/POP/CPOP: d
  std::string callee;               // CALL: the function name as written
  std::uint32_t target = no_target; // CALL: entry instruction; IF/ELSE: where to jump
  std::uint32_t constant = 0;       // CONST: index into Program::constants
  std::uint32_t function = 0;       // index of the enclosing function
  SourceLocation where;

  bool operator==(const Instruction&) const = default;
};

struct Function {
  std::string name;
  std::uint32_t first = 0;  // index of its first instruction in Program::code
  std::uint32_t end = 0;    // one past its RET
  SourceLocation where;

  bool operator==(const Function&) const = default;
};

struct Program {
  std::string file;  // for diagnostics
  std::vector<Function> functions;  // in source order, redefinitions included
  std::vector<Instruction> code;
  std::vector<Constant> constants;
  std::vector<SuperOp> superops;  // FCODE: the SUPEROP definitions, indexed by their n
  std::uint32_t entry_function = 0;  // MAIN if defined, else the first function

  // Index of the function that a call to `name` reaches (the last definition), if any.
  std::optional<std::uint32_t> find_function(const std::string& name) const;

  // Structural equality, superoperators included (ignores source locations and the file name).
  bool same_code(const Program& other) const;
};

// The text of an instruction as it would be written in VCODE ("+ INT", "COPY 1 0", ...).
std::string instruction_text(const Program& program, const Instruction& instruction);

}  // namespace vcode
