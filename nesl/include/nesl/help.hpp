// The session's `help;` and `describe NAME;` (also `help NAME;`).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "nesl/session.hpp"

namespace nesl {

// The topics: the top-level forms, the commands, the settings and how to find a function.
std::string help_text();

// What describe says of a keyword (`if`, `let`, `in`, ...) or of the constants t and f, which
// are syntax rather than functions; nothing for another name.
std::optional<std::string> describe_syntax(std::string_view name);

// Prints what `describe NAME;` prints: the session's own definition of NAME, else the built-in
// (a function, operator or constant); for a name neither has, a message with the closest
// names on `errors`, and false.
bool describe_name(Session& session, std::string_view name, std::ostream& out, std::ostream& errors);

}  // namespace nesl
