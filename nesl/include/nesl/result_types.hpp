// The types of a compiled program's results, which `nesl --vcode` writes as a comment at the end
// of the VCODE, so that `vinterp --print-nesl` can print the final stack as NESL values.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nesl/types.hpp"

namespace nesl {

struct ResultTypes {
  // Each result's type, in the order the results lie on the stack (the top-level expressions').
  std::vector<Type> results;
  // The constructor of each datatype the results hold (fields -> datatype), as
  // CheckedProgram::datatype_constructors has them; more may be given than are written.
  std::map<std::string, Type> constructors;
};

// The comment: its first line names it, then a line per datatype the results hold,
// `datatype NAME('a, 'b) = FIELDS`, and a line per result, `it : TYPE`, with types written as
// NESL source (`[int]`, `(int, [char])`, `pair_of(float)`) and `}` on a line of its own:
//   { NESL result types (vinterp --print-nesl):
//     datatype labeled('a) = ('a, [char])
//     it : [labeled(int)]
//   }
// A VCODE comment holds no `}`, and neither does a type. Ends in a newline.
std::string result_types_comment(const ResultTypes& types);

// The types of the comment that ends `vcode` (only blanks after it); nothing when it does not
// end in one. Throws ResultError (result_reader.hpp) for one that cannot be read.
std::optional<ResultTypes> read_result_types(std::string_view vcode);

}  // namespace nesl
