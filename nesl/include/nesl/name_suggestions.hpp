// What an unbound name may have meant: a name NESL spells differently from other languages
// (`true` is `t`, `odd` is `oddp`), or the closest name in scope; and where a program's forms
// define names, so that a name used before its definition is told from one never defined.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nesl/ast.hpp"

namespace nesl {

// What NESL writes for `name`, a name of other languages that NESL does not define ("NESL's
// true is t"); empty when the table has none. Every name it suggests is a built-in.
std::string other_language_hint(const std::string& name);
// What a command of the session looks like, for its name read as a name (`load;`); empty for
// a name that is not a command.
std::string command_hint(const std::string& name);
// The names that table knows, for its test.
std::vector<std::string_view> other_language_names();

// Edits from a to b: a letter added, dropped or changed, or two neighbours swapped.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The known names as close to `name` as a typing slip makes them: few edits (a letter added,
// dropped, changed, or two swapped) for its length. The first of the closest in `candidates`'
// order; empty when none is close.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

// The names a top-level form binds: a function's, a datatype's, a binding's variables.
std::vector<std::string> names_defined_by(const TopLevelForm& form);

// Where the forms of a program define names.
class DefinitionPlaces {
 public:
  explicit DefinitionPlaces(const std::vector<TopLevelForm>& forms);
  // Where the first form after form `form` (an index) that defines `name` is; null when none.
  const Location* after(std::size_t form, const std::string& name) const;

 private:
  std::map<std::string, std::vector<std::pair<std::size_t, Location>>> places_;
};

}  // namespace nesl
