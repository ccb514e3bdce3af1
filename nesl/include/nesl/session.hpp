// Top-level forms run one at a time as the classic REPL runs them: each compiled with what was
// defined and bound before it, run on the VM in this process, its result printed as the classic's.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "nesl/ast.hpp"
#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/value.hpp"
#include "nesl/value_printer.hpp"
#include "nesl/vm_run.hpp"

namespace cvl {
class Backend;
}

namespace nesl {

struct SessionSettings {
  VmSettings vm;
  bool argument_checks = true;  // the classic's `set arg_check`
  int print_length = kDefaultPrintLength;
};

class Session {
 public:
  // Results and the classic's error lines go to `out`; compile errors to `errors`.
  Session(std::shared_ptr<const Basis> basis, SessionSettings settings, std::ostream& out, std::ostream& errors);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs each form in order. An error is printed and the next form still runs; false when any
  // form failed. An interrupt (VmSettings::interrupt) stops the form running and the rest.
  bool run(Program program);
  bool run_form(TopLevelForm form);

  // The definitions so far and the variables bound so far, each as the literal of its value,
  // then `expressions`: what the classic's `dump vcode` writes after loading a file, whose
  // bindings ran when they were loaded. Its forms point into the sources it holds (`loaded`),
  // and they leave the session, which has nothing defined after.
  Program release_loaded_program(std::vector<TopLevelForm> expressions);

  // The classic's `set WHAT VALUE` (arg_check, optimize, threads, print_length, backend): an
  // empty string, or why it is refused (an unknown setting, a missing or bad value, a backend
  // that cannot be made now), and then the setting keeps its value. An empty value is missing.
  std::string set(const std::string& what, const std::string& value);
  // Makes the VM's backend now if there is none: an empty string, or why it cannot be made.
  std::string start_backend();

  // What `describe NAME` prints of a function, datatype or variable defined in the session: its
  // signature (a function's parameters and type) and, for a function, its documentation
  // string; nothing when the session does not define NAME.
  std::optional<std::string> describe(const std::string& name);
  // The names the session defines, in the order they were defined.
  std::vector<std::string> defined_names() const;
  const Basis& basis() const { return *basis_; }

  const SessionSettings& settings() const { return settings_; }
  // Takes effect at the next form (a new backend when the VM settings changed).
  void change_settings(const SessionSettings& settings);

 private:
  bool define(TopLevelForm form);
  bool bind(TopLevelForm form);
  // Whether the functions of the context that read the variables in `bound` still type-check with
  // their new types; if not, the binding at `binding` is refused, with why.
  bool keeps_dependents(const Location& binding, std::map<std::string, Type> bound);
  // Compiles `expression` after the context, runs it and prints `NAME = VALUE : TYPE`; nothing
  // after printing why there is no value.
  std::optional<Value> evaluate(TopLevelForm expression, const std::string& name);
  // Drops the context's other definitions of `name` (a function, datatype or variable) than
  // the form at `keep`.
  void forget(const std::string& name, std::size_t keep);
  void add_binding(const std::string& name, const Value& value);
  cvl::Backend* backend();
  // Whether the interrupt flag of the VM settings (the REPL's Ctrl-C) is set.
  bool interrupted() const;
  void flush();

  std::shared_ptr<const Basis> basis_;  // shared, so that the library is checked once for it
  SessionSettings settings_;
  std::ostream& out_;
  std::ostream& errors_;
  // The definitions so far and each top-level variable bound to its value as a literal: what
  // a form may refer to. It never holds an expression, so a program's result is its last form's.
  Program context_;
  std::vector<std::shared_ptr<SourceFile>> sources_;  // the context's forms point into them
  // Each variable bound to a function, with the source that names the function: the variable
  // is kept as a function that calls it (see add_binding).
  std::map<std::string, std::string> function_values_;
  std::unique_ptr<cvl::Backend> backend_;
  // For the messages about unbound names: the context's names, and while a program runs, where
  // its forms after the running one define names.
  NamesOutside names_outside_;
};

}  // namespace nesl
