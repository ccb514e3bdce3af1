// The primitive built-ins: each basis name that flatten implements directly, with the VCODE it becomes.
#pragma once

#include <string_view>

#include "vcode/op.hpp"

namespace nesl {

// How flatten implements a primitive (the rule of each kind is in flatten/); an opcode is
// completed by the type keyword of its operands.
enum class PrimitiveKind {
  Elementwise,     // one VCODE elementwise opcode over the arguments' leaves
  Complement,      // NOT of the elementwise opcode (nand, nor)
  CompareToZero,   // the opcode applied to the argument and a zero of its type (plusp, zerop, ...)
  Negate,          // 0 - x in the argument's type
  Abs,             // x < 0 ? 0 - x : x
  Identity,        // a change of NESL type only (char_code, code_char)
  CheckedDivide,   // `/`, rem: a zero divisor anywhere is the message, unless arg checks are off
  CheckedSqrt,     // sqrt: a negative argument anywhere is a runtime error, unless arg checks are off
  Constant,        // a value with no argument (max_int, min_int, pi, stdout)
  Reduce,          // the segmented reduction opcode over a flat sequence
  Count,           // the number of true flags
  Scan,            // the segmented exclusive scan opcode; the result keeps the segdes
  Length,          // `#`
  Dist,            // dist(x, n)
  Element,         // a[i], with its bounds check
  Range,           // [s:e:d]
  Pack,            // pack_flags(v, flags): keeps the flagged elements (filters use it)
  Get,             // a -> i: the elements at the indices, with its bounds check
  Put,             // a <- [(i, v)]: a with the pairs' values at their indices
  CondPut,         // cond_put(v, i, flags, d): d with the flagged v at their indices
  FlagPermute,     // fpermute_hack(v, i, flags, d): FPERMUTE, d giving the length
  Flatten,         // flatten(a): the concatenation of the subsequences
  Partition,       // partition(a, lengths): a cut into subsequences of the lengths
  Replace,         // rep(a, v, i): a with v at i
  Rand,            // rand(n): a random number below n, drawn once per element in order
  OneLike,         // one_like(x): 1 in x's type
  ZeroLike,        // zero_like(s): the value unset positions get, of s's element type
  ArgCheck,        // a basis.nesl argument check: t stops the program with the message, unless
                   // argument checks are off; the result is the flag
  Timer,           // start_timer(x) starts the clock; stop_timer(x) reads it (time(e) uses both)
  Permute,         // permute(v, i)
  Append,          // a ++ b
  UserError,       // error(message): prints ERROR: message and stops
  Print,           // print_string(s): writes s to stderr; true
  WriteString,     // write_string(s, stream): (ok, error message)
  ReadLine,        // read_line(stream): ((line, at end of file), ok, error message)
  WriteObject,     // write_object(v, stream): each leaf with FWRITE; (ok, error message)
  ReadObject,      // read_object(like, stream): each leaf of like's type with FREAD; (v, ok, message)
  Spawn,           // spawn(command, in, out, err): ((in, out, err), ok, error message)
  OpenFile,        // open_*_file(name): FOPEN in the file mode; (stream, ok, message)
  CloseFile,       // close_file(stream): (ok, message)
  ReadString,      // read_string(delimiters, limit, stream): ((text, what stopped it), ok, message)
};

// A constant primitive's value: an INT (an exact integer) or a FLOAT.
struct PrimitiveConstant {
  bool is_float = false;
  double value = 0;
};

struct Primitive {
  std::string_view name;       // the NESL name (operators as written: + == /= ...)
  PrimitiveKind kind;
  int arity;                   // the number of components of the argument tuple
  vcode::Op op = vcode::Op::Exit;  // Elementwise, Complement, CompareToZero, CheckedDivide,
                                   // Reduce, Scan, Timer: the opcode
  std::string_view message = {};   // CheckedDivide, ArgCheck: the runtime error's message
  PrimitiveConstant constant = {};  // Constant
  int file_mode = 0;           // OpenFile: FOPEN's mode (1 read, 2 write, 3 append)
};

// The primitive a basis name denotes, or null when the name is not a primitive.
const Primitive* find_primitive(std::string_view name);

}  // namespace nesl
