// The REPL's history keeps a form typed over several lines as one entry, so that one recall
// (one up-arrow) brings all of it back, ready to run again.
#pragma once

#include <string>
#include <string_view>

namespace nesl {

// The history entry for the text of a form as it was typed (its lines, each ended by a newline):
// the lines joined by newlines, as typed, without the blanks around them. libedit shows such an
// entry on its lines, hands it back whole when it is run again, and saves it in ~/.nesl_history
// with its newlines escaped; a string literal over several lines keeps them. Empty for blank
// text, which is not kept.
std::string history_entry(std::string_view typed);

}  // namespace nesl
