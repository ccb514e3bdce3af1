#include "nesl/help.hpp"

#include <array>
#include <cctype>
#include <optional>

#include "nesl/lexer.hpp"
#include "nesl/reference.hpp"

namespace nesl {
namespace {

// The session's commands: each as written, a line for help, and what describe says of it.
struct Command {
  std::string_view name;
  std::string_view usage;
  std::string_view summary;
  std::string_view meaning;
};

constexpr std::array<Command, 7> commands = {{
    {"load", "load \"FILE\";", "run the forms of a file",
     "Runs the forms of FILE as if they were typed here; .nesl may be left out."},
    {"set", "set NAME VALUE;", "change a setting (below)",
     "Changes a setting: arg_check on|off, backend NAME, threads N, optimize on|off or\n"
     "  print_length N. show status; prints them."},
    {"show", "show status;", "the settings", "Prints the settings."},
    {"describe", "describe NAME;",
     "a function's type and meaning: a built-in, an operator\n"
     "                               (describe ->;) or one defined in this session",
     "Prints the type and meaning of a built-in function, operator or constant, or the\n"
     "  type of a name defined in this session."},
    {"help", "help;", "this text; help NAME; is describe NAME;",
     "Lists the forms, the commands and the settings; help NAME; is describe NAME;."},
    {"exit", "exit;", "leave (end of input does too)", "Leaves the session; the end of the input does too."},
    {"quit", "quit;", "", "Leaves the session, as exit; does."},
}};

// What describe says of NESL's syntax: the keywords and the constants t and f, which are not
// functions. Each entry is shown for each of its space-separated words.
struct Syntax {
  std::string_view words;
  std::string_view form;
  std::string_view meaning;
};

constexpr std::array<Syntax, 7> syntax = {{
    {"if then else", "if COND then EXP1 else EXP2",
     "EXP1 when COND is t, else EXP2: both branches are needed, and they have one type."},
    {"in", "{EXP : PATTERN in SEQUENCE; ... | COND}",
     "EXP for each element of SEQUENCE (in parallel), keeping those for which COND holds."},
    {"let in", "let PATTERN = EXP; ... in BODY",
     "BODY with the names of each PATTERN bound; a binding may use the ones before it."},
    {"function", "function NAME(ARGS) [: TYPE] = EXP;",
     "Defines a function; its type is inferred, or checked against TYPE when given."},
    {"datatype", "datatype NAME(TYPES) [:: CONTEXT];",
     "Defines a datatype: NAME(...) makes a value of it, and in a pattern takes one apart."},
    {"t", "t : bool", "The constant true, printed T; f is false. Neither can be bound as a name."},
    {"f", "f : bool", "The constant false, printed F; t is true. Neither can be bound as a name."},
}};

bool has_word(std::string_view words, std::string_view word) {
  while (!words.empty()) {
    const std::size_t space = words.find(' ');
    if (words.substr(0, space) == word) return true;
    if (space == std::string_view::npos) break;
    words.remove_prefix(space + 1);
  }
  return false;
}

std::string padded(std::string_view text, std::size_t width) {
  std::string out(text);
  if (out.size() < width) out.append(width - out.size(), ' ');
  return out;
}

}  // namespace

std::string help_text() {
  std::string text =
      "Top-level forms (each ends with ; or $):\n"
      "  function NAME(ARGS) [: TYPE] = EXP;   define a function\n"
      "  datatype NAME(TYPES) [:: CONTEXT];    define a datatype\n"
      "  PATTERN = EXP;                        bind top-level variables\n"
      "  EXP;                                  evaluate (its value is then `it`)\n"
      "Commands:\n";
  for (const Command& command : commands) {
    if (command.name == "quit") continue;  // exit's other name
    text += "  " + padded(command.usage, 29) + std::string(command.summary) + "\n";
  }
  return text +
         "Settings:\n"
         "  set arg_check on|off;        runtime argument checks\n"
         "  set backend NAME;            the VM's vector library (cpu, cuda-emulated, ...)\n"
         "  set threads N;               CPU threads (0: all cores; 1: sequential, exact)\n"
         "  set optimize on|off;         run through fcode-opt's pipeline (vinterp -O)\n"
         "  set print_length N;          elements shown of a sequence\n"
         "Finding functions:\n"
         "  describe plus_scan;          one function; a misspelt name gets suggestions\n"
         "  doc/library.md               every built-in by family (nesl --library-reference)\n"
         "Ctrl-C stops the form that is running; at the prompt it drops what was typed.\n";
}

std::optional<std::string> describe_syntax(std::string_view name) {
  std::string text;
  for (const Syntax& entry : syntax) {
    if (has_word(entry.words, name)) text += std::string(entry.form) + " (syntax)\n  " + std::string(entry.meaning) + "\n";
  }
  if (text.empty()) return std::nullopt;
  return text;
}

bool describe_name(Session& session, std::string_view written, std::ostream& out, std::ostream& errors) {
  // Names are case-insensitive, as the lexer reads them; operators are as written.
  const bool word = !written.empty() && (std::isalpha(static_cast<unsigned char>(written[0])) || written[0] == '_');
  const std::string name = word ? lowercase(std::string(written)) : std::string(written);
  std::optional<std::string> description = session.describe(name);
  if (!description) description = describe_builtin(session.basis(), name);
  if (description) {
    out << *description << std::flush;
    return true;
  }
  if (const std::optional<std::string> text = describe_syntax(name)) {
    out << *text << std::flush;
    return true;
  }
  for (const Command& command : commands) {
    if (command.name != name) continue;
    out << command.usage << " (a command of the session)\n  " << command.meaning << "\n" << std::flush;
    return true;
  }
  std::vector<std::string> candidates = session.basis().declared;
  for (const std::string& defined : session.defined_names()) candidates.push_back(defined);
  errors << unknown_name_message(name, candidates) << "\n" << std::flush;
  return false;
}

}  // namespace nesl
