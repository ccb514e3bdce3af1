// The library reference: what `describe NAME` prints of a built-in and the page doc/library.md,
// both read from the built-ins' documentation strings, so that neither can drift from them.
//
// A documentation string (basis.types: after the type; basis.nesl: before the `=`) reads
//     "[FAMILY] MEANING Example: EXPRESSION = VALUE Example: ..."
// FAMILY is one of library_families()' keys; the examples are optional, and each VALUE is what
// the REPL prints for EXPRESSION (a test runs them). Line breaks in the string read as spaces.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nesl/basis.hpp"

namespace nesl {

struct DocumentationExample {
  std::string expression;
  std::string value;
};

struct Documentation {
  std::string family;   // the key in brackets; empty when there is none
  std::string meaning;  // the text before the first "Example:"
  std::vector<DocumentationExample> examples;
};

// Reads a documentation string in the form above; a string without it is all meaning.
Documentation parse_documentation(std::string_view text);

// The reference's sections, in order: each key as written in brackets and its heading.
struct LibraryFamily {
  std::string_view key;
  std::string_view title;
};
std::span<const LibraryFamily> library_families();

// How a built-in is written with its parameters and type: `plus_scan(v) : [a] -> [a] :: (a in
// number)`, an operator as it is used (`v -> i : ...`, `#v : ...`), a constant `pi : float`.
std::string builtin_signature(const Basis& basis, std::string_view name);

// What describe prints of a built-in: its signature, then its meaning and examples indented;
// nothing for a name the basis does not declare.
std::optional<std::string> describe_builtin(const Basis& basis, std::string_view name);

// A signature line, then the meaning and examples of `documentation` indented, as describe
// prints built-ins and, with their documentation strings, a program's functions.
std::string describe_entry(const std::string& signature, std::string_view documentation);

// One line for each built-in whose documentation lacks a known family or a meaning.
std::vector<std::string> undocumented_builtins(const Basis& basis);

// doc/library.md: every built-in grouped by family, in the order each is declared.
std::string library_reference(const Basis& basis);

// The names among `candidates` that `name` may be a misspelling of, closest first (at most 3).
std::vector<std::string> similar_names(std::string_view name, const std::vector<std::string>& candidates);

// What describe says of a name nothing has: the closest of `candidates`, or where to look.
std::string unknown_name_message(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace nesl
