// A change to the session's definitions that breaks a form defined before it (a function that
// no longer type-checks with it, a value that no longer fits its datatype) is refused: the form
// would otherwise fail at its next use, with an error far from the cause. These say which form
// broke and how, at the change.
#pragma once

#include <string>

#include "nesl/ast.hpp"
#include "nesl/diagnostics.hpp"

namespace nesl {

// The form of `program` that `error`, from checking it, is located in; null when none is.
const TopLevelForm* form_of_error(const Program& program, const CompileError& error);

// The refusal of a change to `name` (a definition or binding made again) at `at`, where it is
// written: "WHAT: expected NOUN that DEPENDENT still type-checks with, found one that breaks it
// (KEPT)", then a note where `broken` failed when the user wrote it, or else `error`'s message
// after the refusal's.
struct Refusal {
  std::string what;  // "redefinition of sq"
  std::string noun;  // "a definition"
  std::string name;  // "sq"
  std::string kept;  // "the earlier sq stays"
};
std::string format_refusal(const Location& at, const Refusal& refusal, const TopLevelForm* broken,
                           const CompileError& error);

}  // namespace nesl
