#include "nesl/name_suggestions.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace nesl {
namespace {

struct Hint {
  std::string_view name;
  std::string_view hint;
};

// Names a newcomer from another language tries first. None is defined in NESL, and each name
// quoted in a hint is (a test checks both against the basis).
constexpr std::array kOtherLanguages = {
    Hint{"true", "NESL writes true as t"},
    Hint{"false", "NESL writes false as f"},
    Hint{"odd", "did you mean 'oddp'?"},
    Hint{"even", "did you mean 'evenp'?"},
    Hint{"len", "the length of a sequence s is #s"},
    Hint{"size", "the length of a sequence s is #s"},
    Hint{"strlen", "the length of a string s is #s"},
    Hint{"modulo", "did you mean 'rem' or 'mod'?"},
    Hint{"div", "the quotient of two ints is a / b"},
    Hint{"to_upper", "did you mean 'uppercase'?"},
    Hint{"toupper", "did you mean 'uppercase'?"},
    Hint{"upper", "did you mean 'uppercase'?"},
    Hint{"to_lower", "did you mean 'lowercase'?"},
    Hint{"tolower", "did you mean 'lowercase'?"},
    Hint{"lower", "did you mean 'lowercase'?"},
    Hint{"filter", "the elements of s that p keeps are {x in s | p(x)}"},
    Hint{"reduce", "the reductions are 'sum', 'product', 'max_val', 'min_val', 'any' and 'all'"},
    Hint{"fold", "the reductions are 'sum', 'product', 'max_val', 'min_val', 'any' and 'all'"},
    Hint{"foldl", "the reductions are 'sum', 'product', 'max_val', 'min_val', 'any' and 'all'"},
    Hint{"foldr", "the reductions are 'sum', 'product', 'max_val', 'min_val', 'any' and 'all'"},
    Hint{"concat", "sequences are joined with ++, and 'flatten' joins a sequence of them"},
    Hint{"append", "sequences are joined with ++"},
    Hint{"head", "the first element of a sequence s is s[0]"},
    Hint{"car", "the first element of a sequence s is s[0]"},
    Hint{"tail", "did you mean 'drop'? drop(s, 1) is s but its first element"},
    Hint{"cdr", "did you mean 'drop'? drop(s, 1) is s but its first element"},
    Hint{"last", "the last element of a sequence s is s[#s - 1]"},
    Hint{"str", "@x is x written as a string"},
    Hint{"to_string", "@x is x written as a string"},
    Hint{"tostring", "@x is x written as a string"},
    Hint{"show", "@x is x written as a string"},
    Hint{"ord", "did you mean 'char_code'?"},
    Hint{"chr", "did you mean 'code_char'?"},
    Hint{"random", "did you mean 'rand'?"},
    Hint{"pow", "did you mean 'expt'?"},
    Hint{"println", "did you mean 'print_line'?"},
    Hint{"puts", "did you mean 'print_string'?"},
    Hint{"printf", "did you mean 'print_string'?"},
    Hint{"range", "the ints from a to b - 1 are [a:b]"},
    Hint{"nil", "an empty sequence is written [] int"},
    Hint{"null", "an empty sequence is written [] int"},
    Hint{"empty", "an empty sequence is written [] int"},
    Hint{"int", "'round', 'trunc', 'floor' and 'ceil' make an int of a float, 'btoi' of a bool"},
    Hint{"to_int", "'round', 'trunc', 'floor' and 'ceil' make an int of a float, 'btoi' of a bool"},
};

// The session's commands, which are read as names when they are not whole (`load;`,
// `describe a b;`): what a command looks like.
constexpr std::array kCommands = {
    Hint{"load", "load is a command: load \"FILE\";"},
    Hint{"describe", "describe NAME; is a command at the prompt, first on its line"},
    Hint{"help", "help; and help NAME; are commands at the prompt, first on their line"},
    Hint{"set", "set is a command: set NAME VALUE; show status; lists the settings"},
};

void add_pattern_names(const Expr& pattern, std::vector<std::string>& out) {
  switch (pattern.kind) {
    case ExprKind::Variable: out.push_back(pattern.text); return;
    case ExprKind::Pair:
      add_pattern_names(*pattern.children[0], out);
      add_pattern_names(*pattern.children[1], out);
      return;
    case ExprKind::Call: add_pattern_names(*pattern.children[1], out); return;  // not the constructor
    default: return;
  }
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t change = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + change});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string other_language_hint(const std::string& name) {
  for (const Hint& entry : kOtherLanguages) {
    if (entry.name == name) return std::string(entry.hint);
  }
  return "";
}

std::string command_hint(const std::string& name) {
  for (const Hint& entry : kCommands) {
    if (entry.name == name) return std::string(entry.hint);
  }
  return "";
}

std::vector<std::string_view> other_language_names() {
  std::vector<std::string_view> names;
  for (const Hint& entry : kOtherLanguages) names.push_back(entry.name);
  return names;
}

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  if (name.size() < 3) return "";
  // One slip in a name of three or four letters, two from five, three from seven: a shorter
  // name is too near too many others for a guess to help.
  const std::size_t allowed = std::min<std::size_t>((name.size() - 1) / 2, 3);
  std::string best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& candidate : candidates) {
    if (candidate == name) continue;
    const std::size_t gap = candidate.size() > name.size() ? candidate.size() - name.size() : name.size() - candidate.size();
    if (gap >= best_distance) continue;
    const std::size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::vector<std::string> names_defined_by(const TopLevelForm& form) {
  std::vector<std::string> names;
  switch (form.kind) {
    case TopLevelForm::Kind::Function: names.push_back(form.function.name); break;
    case TopLevelForm::Kind::Datatype: names.push_back(form.datatype.name); break;
    case TopLevelForm::Kind::Binding: add_pattern_names(*form.binding.pattern, names); break;
    case TopLevelForm::Kind::Expression:
    case TopLevelForm::Kind::Setting: break;
  }
  return names;
}

DefinitionPlaces::DefinitionPlaces(const std::vector<TopLevelForm>& forms) {
  for (std::size_t i = 0; i < forms.size(); ++i) {
    for (const std::string& name : names_defined_by(forms[i])) places_[name].emplace_back(i, forms[i].where);
  }
}

const Location* DefinitionPlaces::after(std::size_t form, const std::string& name) const {
  auto found = places_.find(name);
  if (found == places_.end()) return nullptr;
  for (const auto& [index, where] : found->second) {
    if (index > form) return &where;
  }
  return nullptr;
}

}  // namespace nesl
