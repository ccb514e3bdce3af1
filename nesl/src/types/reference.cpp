#include "nesl/reference.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include "nesl/name_suggestions.hpp"
#include "nesl/printer.hpp"

namespace nesl {
namespace {

constexpr std::array<LibraryFamily, 22> families = {{
    {"logical", "Logical operations"},
    {"comparison", "Comparisons and predicates"},
    {"arithmetic", "Arithmetic"},
    {"math", "Mathematical functions"},
    {"conversion", "Conversions"},
    {"random", "Random numbers"},
    {"constant", "Constants"},
    {"sequence", "Basic sequence functions"},
    {"scan", "Scans"},
    {"reduction", "Reductions"},
    {"reorder", "Reordering and writing into sequences"},
    {"manipulate", "Taking sequences apart and joining them"},
    {"nest", "Nested sequences"},
    {"search", "Searching, sets and grouping"},
    {"function", "Functions as arguments"},
    {"any", "Functions on any type"},
    {"string", "Characters and strings"},
    {"print", "Printing"},
    {"io", "Streams and files"},
    {"shell", "Processes and the environment"},
    {"other", "Timing and errors"},
    {"internal", "Library internals"},
}};

constexpr std::string_view kExampleMarker = "Example:";

bool is_blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string trim(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return std::string(text);
}

// A line break and the blanks around it read as one space: the strings are wrapped in the source.
std::string join_lines(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (!out.empty() && is_blank(out.back())) out.pop_back();
    while (i + 1 < text.size() && is_blank(text[i + 1])) ++i;
    out += ' ';
  }
  return trim(out);
}

DocumentationExample parse_example(const std::string& text) {
  // The value is what follows the last ` = `: an expression may hold one (a let), a value not.
  const std::size_t equals = text.rfind(" = ");
  if (equals == std::string::npos) return {text, ""};
  return {trim(std::string_view(text).substr(0, equals)), trim(std::string_view(text).substr(equals + 3))};
}

bool is_operator(std::string_view name) {
  static const std::array<std::string_view, 5> infix_words = {"and", "or", "xor", "nand", "nor"};
  if (std::find(infix_words.begin(), infix_words.end(), name) != infix_words.end()) return true;
  return std::none_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::vector<std::string> split_parameters(const std::string& parameters) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start < parameters.size()) {
    std::size_t comma = parameters.find(", ", start);
    if (comma == std::string::npos) comma = parameters.size();
    names.push_back(parameters.substr(start, comma - start));
    start = comma + 2;
  }
  return names;
}

// The name with its parameters as a program writes a use of it.
std::string usage(std::string_view name, const std::string& parameters) {
  if (parameters.empty()) return std::string(name);
  const std::vector<std::string> names = split_parameters(parameters);
  if (is_operator(name) && names.size() == 2) return names[0] + " " + std::string(name) + " " + names[1];
  if (is_operator(name) && names.size() == 1 && !std::isalpha(static_cast<unsigned char>(name[0])))
    return std::string(name) + names[0];
  return std::string(name) + "(" + parameters + ")";
}

// `text` broken at spaces into lines of at most `width` characters after `indent`.
std::string wrap(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t space = text.find(' ', start);
    if (space == std::string::npos) space = text.size();
    const std::string word = text.substr(start, space - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = space + 1;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

// Text for Markdown: a backquote (NESL's character literals) would open a code span, and `<` or
// `*` could read as HTML or emphasis.
std::string markdown_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '`' || c == '<' || c == '*') out += '\\';
    out += c;
  }
  return out;
}

// A Markdown code span that may hold backquotes (NESL's character literals).
std::string code(const std::string& text) {
  if (text.find('`') == std::string::npos) return "`" + text + "`";
  return "`` " + text + " ``";
}

// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
std::string anchor(std::string_view title) {
  std::string out;
  for (char c : title) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (c == ' ' || c == '-') out += '-';
  }
  return out;
}

// Whether a word of `name` (between underscores) of four letters or more is part of `candidate`:
// `to_upper` finds `uppercase`.
bool shares_word(std::string_view name, std::string_view candidate) {
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('_', start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view word = name.substr(start, end - start);
    if (word.size() >= 4 && candidate.find(word) != std::string_view::npos) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

Documentation parse_documentation(std::string_view raw) {
  Documentation doc;
  std::string text = join_lines(raw);
  if (text.starts_with("[")) {
    const std::size_t close = text.find(']');
    if (close != std::string::npos) {
      doc.family = text.substr(1, close - 1);
      text = trim(std::string_view(text).substr(close + 1));
    }
  }
  std::size_t example = text.find(kExampleMarker);
  doc.meaning = trim(std::string_view(text).substr(0, example));
  while (example != std::string::npos) {
    const std::size_t start = example + kExampleMarker.size();
    example = text.find(kExampleMarker, start);
    doc.examples.push_back(parse_example(trim(std::string_view(text).substr(start, example - start))));
  }
  return doc;
}

std::span<const LibraryFamily> library_families() { return families; }

std::string builtin_signature(const Basis& basis, std::string_view name) {
  const auto signature = basis.signatures.find(name);
  if (signature == basis.signatures.end()) return "";
  const auto description = basis.descriptions.find(name);
  const std::string parameters = description == basis.descriptions.end() ? "" : description->second.parameters;
  return usage(name, parameters) + " : " + print_type_signature(*signature->second);
}

std::string describe_entry(const std::string& signature, std::string_view documentation) {
  std::string out = signature + "\n";
  const Documentation doc = parse_documentation(documentation);
  out += wrap(doc.meaning, 96, "  ");
  for (const DocumentationExample& example : doc.examples) {
    out += "  Example: " + example.expression + " = " + example.value + "\n";
  }
  return out;
}

std::optional<std::string> describe_builtin(const Basis& basis, std::string_view name) {
  if (!basis.signatures.count(name)) return std::nullopt;
  const auto description = basis.descriptions.find(name);
  return describe_entry(builtin_signature(basis, name),
                        description == basis.descriptions.end() ? "" : description->second.documentation);
}

std::vector<std::string> undocumented_builtins(const Basis& basis) {
  std::vector<std::string> problems;
  for (const std::string& name : basis.declared) {
    const auto description = basis.descriptions.find(name);
    const Documentation doc =
        parse_documentation(description == basis.descriptions.end() ? "" : description->second.documentation);
    const bool known = std::any_of(families.begin(), families.end(),
                                   [&](const LibraryFamily& family) { return family.key == doc.family; });
    if (doc.meaning.empty()) problems.push_back(name + ": no documentation string giving its meaning");
    else if (!known) problems.push_back(name + ": no known [family] at the start of its documentation");
    for (const DocumentationExample& example : doc.examples) {
      if (example.value.empty()) problems.push_back(name + ": an example without ` = VALUE`");
    }
  }
  return problems;
}

std::string library_reference(const Basis& basis) {
  std::map<std::string, std::vector<std::string>, std::less<>> members;
  for (const std::string& name : basis.declared) {
    const auto description = basis.descriptions.find(name);
    if (description == basis.descriptions.end()) continue;
    members[parse_documentation(description->second.documentation).family].push_back(name);
  }
  std::string out =
      "# The NESL library\n\n"
      "<!-- Generated by `nesl --library-reference` from the documentation strings in\n"
      "     nesl/lib/basis.types and nesl/lib/basis.nesl. Edit those, then run\n"
      "     `cmake --build build --target library_reference`; the test nesl_library_reference\n"
      "     fails while this page differs from what they give. -->\n\n"
      "Every built-in function, operator and constant of `nesl`, by family. At the `nesl` prompt,\n"
      "`describe NAME;` prints one entry: `describe plus_scan;`, `describe ->;`.\n\n"
      "Types: `int`, `float`, `bool`, `char`; `[t]` a sequence of t; `(t1, t2)` a tuple (a\n"
      "function of several arguments takes one); `a`, `b` type variables, each in the class its\n"
      "`::` context names: `number` (int, float), `ordinal` (int, float, char), `logical`\n"
      "(int, bool) or `any`. Booleans are written `t` and `f` and printed `T` and `F`; an empty\n"
      "sequence is written with its type, `[] int`.\n\n"
      "Syntax rather than functions: `a[i]` (element i, counted from 0), `[s:e]` and `[s:e:d]`\n"
      "(the integers from s up to but not including e, in steps of d), `{e : x in a | p}`\n"
      "(e for each element x of a for which p holds, in parallel), `-x` (`negate`), `if`, `let`.\n\n"
      "## Contents\n\n";
  for (const LibraryFamily& family : families) {
    const auto found = members.find(family.key);
    if (found == members.end()) continue;
    out += "- [" + std::string(family.title) + "](#" + anchor(family.title) + "): ";
    for (std::size_t i = 0; i < found->second.size(); ++i) {
      if (i > 0) out += ' ';
      out += code(found->second[i]);
    }
    out += "\n";
  }
  for (const LibraryFamily& family : families) {
    const auto found = members.find(family.key);
    if (found == members.end()) continue;
    out += "\n## " + std::string(family.title) + "\n\n";
    for (const std::string& name : found->second) {
      const Documentation doc = parse_documentation(basis.descriptions.find(name)->second.documentation);
      out += "- " + code(builtin_signature(basis, name)) + "  \n  " + markdown_text(doc.meaning);
      for (std::size_t i = 0; i < doc.examples.size(); ++i) {
        out += i > 0 ? "; " : doc.examples.size() == 1 ? " Example: " : " Examples: ";
        out += code(doc.examples[i].expression) + " = " + code(doc.examples[i].value);
      }
      out += doc.examples.empty() ? "\n" : ".\n";
    }
  }
  return out;
}

std::vector<std::string> similar_names(std::string_view name, const std::vector<std::string>& candidates) {
  // Operators are one or two symbols, each a slip away from the others and from a short word.
  const auto is_word = [](std::string_view text) {
    return !text.empty() && (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_');
  };
  if (!is_word(name)) return {};
  const std::size_t allowed = name.size() <= 4 ? 1 : name.size() <= 8 ? 2 : 3;
  std::vector<std::pair<std::size_t, std::string>> close;
  for (const std::string& candidate : candidates) {
    if (candidate == name || !is_word(candidate)) continue;
    const std::size_t distance = edit_distance(name, candidate);
    if (distance <= allowed || shares_word(name, candidate)) close.emplace_back(distance, candidate);
  }
  std::sort(close.begin(), close.end());
  close.erase(std::unique(close.begin(), close.end()), close.end());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < close.size() && i < 3; ++i) names.push_back(close[i].second);
  return names;
}

std::string unknown_name_message(std::string_view name, const std::vector<std::string>& candidates) {
  std::string message = "describe: no function, operator, constant or variable is named '" + std::string(name) + "'";
  if (const std::string hint = other_language_hint(std::string(name)); !hint.empty()) return message + " (" + hint + ")";
  const std::vector<std::string> close = similar_names(name, candidates);
  if (close.empty()) return message + " (doc/library.md lists every built-in)";
  // Worded as the checker words an unbound name's suggestion.
  message += " (did you mean ";
  for (std::size_t i = 0; i < close.size(); ++i) {
    message += (i == 0 ? "" : i + 1 == close.size() ? " or " : ", ") + ("'" + close[i] + "'");
  }
  return message + "?)";
}

}  // namespace nesl
