// The command-line options that belong to backends: a backend's folder declares them as a group
// (names, arguments, help) with the function that turns the values given into BackendOptions;
// its registry entry names the groups it takes (cvl/registry.hpp), and vinterp offers every
// group's options besides its own. Options every backend shares (threads, FLOAT rank order,
// memory limit, device) are vinterp's.
#pragma once

#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "cvl/backend.hpp"

namespace cvl {

// What follows an option's name: nothing (a switch), a word, or an integer (signed, unsigned).
enum class OptionArgument { None, Text, Integer, Unsigned };

struct BackendOption {
  std::string_view name;  // without its dashes: `--name`
  OptionArgument argument = OptionArgument::None;
  std::string_view argument_name = {};  // in the help: `--name ARGUMENT` ("" for a switch)
  // The help's text, its lines separated by '\n' (vinterp indents them).
  std::string_view description = {};
};

// The values given for backends' options, by name; an option not given is absent.
class GivenOptions {
 public:
  using Value = std::variant<std::monostate, std::string, long long, unsigned long long>;

  void set(std::string_view name, Value value) { values_[std::string(name)] = std::move(value); }
  bool has(std::string_view name) const { return values_.find(name) != values_.end(); }
  // The value of an option given with that kind of argument (std::bad_variant_access otherwise).
  const std::string& text(std::string_view name) const { return std::get<std::string>(at(name)); }
  long long integer(std::string_view name) const { return std::get<long long>(at(name)); }
  unsigned long long unsigned_integer(std::string_view name) const {
    return std::get<unsigned long long>(at(name));
  }
  // The names given, in order. (A plain list: clang 14 cannot compile libstdc++ 12's views.)
  std::vector<std::string> names() const {
    std::vector<std::string> names;
    for (const auto& [name, value] : values_) names.push_back(name);
    return names;
  }

 private:
  const Value& at(std::string_view name) const { return values_.find(name)->second; }
  std::map<std::string, Value, std::less<>> values_;
};

// A value an option does not take: vinterp prints the message, then its usage text.
struct OptionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct BackendOptionGroup {
  std::span<const BackendOption> options;
  // Whether the backends that do not take the group refuse its options (a mistake worth
  // hearing about) or accept them and ignore them (a command line kept for several backends).
  bool refused_by_others = false;
  // Sets the BackendOptions that the group's options decide from those given, after vinterp
  // has set the shared ones (`options.threads`...); with none given, the defaults of a command
  // line. Throws OptionError for a value the option does not take. Every group applies to every
  // run, whichever backend it makes: a bad value is refused on any backend.
  void (*apply)(const GivenOptions& given, BackendOptions& options) = nullptr;
};

}  // namespace cvl
