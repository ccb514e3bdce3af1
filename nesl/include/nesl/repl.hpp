// The interactive NESL loop: forms ended by `;` or `$`, read with libedit at a terminal or from
// any input, run by a Session, and the classic's commands (load, set, exit).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "nesl/session.hpp"

namespace nesl {

// Where the first `;` or `$` outside strings, comments and character literals is in `text`
// (npos for none): the point where the classic REPL tries to read what was typed as forms.
std::size_t form_end(std::string_view text);
bool has_form_end(std::string_view text);

// Reads and runs forms from standard input until `exit;` or its end. At a terminal: prompt
// `<Nesl> `, line editing and history (~/.nesl_history) through libedit. Errors of any kind are
// printed and the loop goes on. Returns the exit status: 0.
int run_repl(Session& session);

}  // namespace nesl
