#include "nesl/session.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <optional>
#include <set>

#include "cvl/backend.hpp"
#include "cvl/registry.hpp"
#include "nesl/checker.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/lexer.hpp"
#include "nesl/parser.hpp"
#include "nesl/pipeline.hpp"
#include "nesl/printer.hpp"
#include "nesl/reference.hpp"
#include "nesl/result_layout.hpp"
#include "nesl/result_reader.hpp"
#include "nesl/runtime_failure.hpp"
#include "nesl/value_source.hpp"
#include "session/dependents.hpp"

namespace nesl {
namespace {

const char* const kErrorAtTopLevel = "Error at top level.  ";

// The settings `set NAME VALUE;` takes, with the form of their values.
struct SettingUsage {
  const char* name;
  const char* value;
};
constexpr SettingUsage kSettings[] = {{"arg_check", "on|off"}, {"backend", "NAME"}, {"threads", "N"},
                                      {"optimize", "on|off"}, {"print_length", "N"}};

const SettingUsage* find_setting(const std::string& name) {
  for (const SettingUsage& setting : kSettings)
    if (name == setting.name) return &setting;
  return nullptr;
}

// "arg_check on|off, backend NAME, ... or print_length N"
std::string settings_usage() {
  std::string text;
  const std::size_t count = std::size(kSettings);
  for (std::size_t i = 0; i < count; ++i) {
    text += i == 0 ? "" : i + 1 == count ? " or " : ", ";
    text += std::string(kSettings[i].name) + " " + kSettings[i].value;
  }
  return text;
}

std::string backend_names() {
  std::string names;
  for (const std::string& name : cvl::available_backends()) names += (names.empty() ? "" : " ") + name;
  return names;
}

// Our own notes after the classic's lines: at the NESL expression a run stopped in, and, when
// that is inside a function, at the outermost call of the user's on the way there (in the form
// itself), which tells which form of a loaded file, or which of its calls, failed.
void note_stop(const SourceMap& map, const std::vector<int>& stopped_at, std::ostream& errors) {
  const SourcePoint* point = map.user_point(stopped_at);
  if (!point) return;
  errors << format_located(point->file, point->line, point->column, *point->text, "note",
                           "the runtime error came from here");
  const SourcePoint* outermost = nullptr;
  for (auto line = stopped_at.rbegin(); line != stopped_at.rend() && !outermost; ++line) {
    const SourcePoint* at = map.at(*line);
    if (at && !at->in_library) outermost = at;
  }
  const bool elsewhere = outermost && (outermost->file != point->file || outermost->line != point->line ||
                                       outermost->column != point->column || *outermost->text != *point->text);
  if (elsewhere) {
    errors << format_located(outermost->file, outermost->line, outermost->column, *outermost->text, "note",
                             "called from here");
  }
}

// The pattern of a top-level binding as the classic prints it before ` = `.
std::string pattern_text(const Expr& pattern, bool parenthesized) {
  switch (pattern.kind) {
    case ExprKind::Pair: {
      std::string inside = pattern_text(*pattern.children[0], true) + ", " +
                           pattern_text(*pattern.children[1], false);
      return parenthesized ? "(" + inside + ")" : inside;
    }
    case ExprKind::Call:
      return pattern.children[0]->text + "(" + pattern_text(*pattern.children[1], false) + ")";
    default: return pattern.text;
  }
}

// Each variable of `pattern` with its part of `value`; false when they do not match.
bool match_pattern(const Expr& pattern, const Value& value,
                   std::vector<std::pair<std::string, const Value*>>& out) {
  switch (pattern.kind) {
    case ExprKind::Variable: out.emplace_back(pattern.text, &value); return true;
    case ExprKind::Pair:
      return value.kind == Value::Kind::Pair &&
             match_pattern(*pattern.children[0], value.children[0], out) &&
             match_pattern(*pattern.children[1], value.children[1], out);
    case ExprKind::Call:
      return value.kind == Value::Kind::Datatype && value.name == pattern.children[0]->text &&
             match_pattern(*pattern.children[1], value.children[0], out);
    default: return false;
  }
}

void collect_names(const Expr* expr, std::set<std::string>& names) {
  if (!expr) return;
  if (expr->kind == ExprKind::Variable) names.insert(expr->text);
  for (const ExprPtr& child : expr->children) collect_names(child.get(), names);
  for (const Binding& binding : expr->bindings) collect_names(binding.value.get(), names);
}

// Every name `form` and the context's functions mention: the variables a program made of them
// may read (shadowing is ignored, so a few more).
std::set<std::string> mentioned_names(const Program& context, const std::optional<TopLevelForm>& form) {
  std::set<std::string> names;
  for (const TopLevelForm& defined : context.forms)
    if (defined.kind == TopLevelForm::Kind::Function) collect_names(defined.function.body.get(), names);
  if (!form) return names;
  switch (form->kind) {
    case TopLevelForm::Kind::Function: collect_names(form->function.body.get(), names); break;
    case TopLevelForm::Kind::Binding: collect_names(form->binding.value.get(), names); break;
    case TopLevelForm::Kind::Expression: collect_names(form->expression.value.get(), names); break;
    case TopLevelForm::Kind::Datatype:
    case TopLevelForm::Kind::Setting: break;
  }
  return names;
}

// The one variable a context binding binds (the context's bindings are all `NAME = LITERAL`).
const std::string* bound_name(const TopLevelForm& form) {
  if (form.kind != TopLevelForm::Kind::Binding || form.binding.pattern->kind != ExprKind::Variable)
    return nullptr;
  return &form.binding.pattern->text;
}

// Whether a context binding's value (a literal) names `name`: a datatype's constructor.
bool value_mentions(const TopLevelForm& binding, const std::string& name) {
  std::set<std::string> names;
  collect_names(binding.binding.value.get(), names);
  return names.count(name) > 0;
}

// What a Lent program leaves out or adds of the context: the definitions of the names in
// `left_out`, and the variables whose values name `redefined` (a datatype's constructor).
struct LentChoice {
  std::set<std::string> left_out;
  std::string redefined;
};

// A program of the context's definitions, the variables `form` may read, and `form` last. The
// context's forms are lent to it and taken back when it goes. Datatypes come first (a literal
// may construct one), then the variables (literals need nothing else), then the functions, so
// that a function sees a variable bound again after it was defined.
class Lent {
 public:
  Lent(Program& context, std::optional<TopLevelForm> form, const LentChoice& choice = {}) : context_(context) {
    const std::set<std::string> names = mentioned_names(context, form);
    for (TopLevelForm::Kind kind : {TopLevelForm::Kind::Datatype, TopLevelForm::Kind::Binding,
                                    TopLevelForm::Kind::Function}) {
      for (std::size_t i = 0; i < context.forms.size(); ++i) {
        const TopLevelForm& defined = context.forms[i];
        if (defined.kind != kind) continue;
        const std::string* name = bound_name(defined);
        const bool constructs = name && !choice.redefined.empty() && value_mentions(defined, choice.redefined);
        if (name && !names.count(*name) && !constructs) continue;  // not read: not computed
        if (left_out(defined, choice)) continue;
        from_.push_back(i);
        program_.forms.push_back(std::move(context.forms[i]));
      }
    }
    if (form) program_.forms.push_back(std::move(*form));
  }
  ~Lent() {
    for (std::size_t i = 0; i < from_.size(); ++i)
      context_.forms[from_[i]] = std::move(program_.forms[i]);
  }
  Lent(const Lent&) = delete;
  Lent& operator=(const Lent&) = delete;

  const Program& program() const { return program_; }
  // The form given to it, if any.
  TopLevelForm* last() { return from_.size() < program_.forms.size() ? &program_.forms.back() : nullptr; }

 private:
  static bool left_out(const TopLevelForm& form, const LentChoice& choice) {
    for (const std::string& name : names_defined_by(form)) {
      if (choice.left_out.count(name)) return true;
    }
    return false;
  }

  Program& context_;
  Program program_;
  std::vector<std::size_t> from_;
};

// A pattern of one variable per component of an argument of this type: `(arg1_, arg2_)`.
std::string parameters_for(const Type& argument) {
  std::string text = "(";
  int count = 1;
  for (Type t = resolve(argument); t->kind == TypeNode::Kind::Pair; t = resolve(t->children[1])) {
    text += "arg" + std::to_string(count++) + "_, ";
  }
  return text + "arg" + std::to_string(count) + "_)";
}

// A form whose value is a function: nothing runs (a function value is known when compiling),
// but the program `let function_value_ = VALUE in 0` is compiled, so that specialize checks that
// VALUE names a function it can know. A variable already bound to a function stands for the
// source naming it, so that `it;` never makes `it` call itself. Throws CompileError.
Value function_value(Lent& lent, const Type& type, const std::map<std::string, std::string>& function_values,
                     const Basis& basis, const CompileOptions& options, const NamesOutside& names_outside) {
  TopLevelForm& form = *lent.last();
  const Expr& value = *form.expression.value;
  Value function;
  function.kind = Value::Kind::Function;
  auto known = value.kind == ExprKind::Variable ? function_values.find(value.text) : function_values.end();
  function.name = known != function_values.end() ? known->second : print_expression(value);
  function.parameters = parameters_for(resolve(type)->children[0]);
  const Location where = form.expression.value->where;
  ExprPtr wrapped = make_expr(ExprKind::Let, where);
  Binding binding;
  binding.pattern = make_expr(ExprKind::Variable, where, "function_value_");
  binding.value = std::move(form.expression.value);
  wrapped->bindings.push_back(std::move(binding));
  wrapped->children.push_back(make_expr(ExprKind::Integer, where, "0"));
  form.expression.value = std::move(wrapped);
  const CheckedProgram checked = check_program(lent.program(), basis, names_outside);
  compile_checked(lent.program(), checked, basis, options);
  return function;
}

}  // namespace

Session::Session(std::shared_ptr<const Basis> basis, SessionSettings settings, std::ostream& out, std::ostream& errors)
    : basis_(std::move(basis)), settings_(std::move(settings)), out_(out), errors_(errors) {
  // The forms lent to the program being checked are empty here; the checker knows their names.
  names_outside_.known = [this] {
    std::vector<std::string> names;
    for (const TopLevelForm& form : context_.forms) {
      if (form.kind == TopLevelForm::Kind::Binding && !form.binding.pattern) continue;
      for (std::string& name : names_defined_by(form)) {
        if (!name.empty()) names.push_back(std::move(name));
      }
    }
    return names;
  };
}

Session::~Session() = default;

void Session::change_settings(const SessionSettings& settings) {
  if (settings.vm.backend != settings_.vm.backend || settings.vm.threads != settings_.vm.threads)
    backend_.reset();
  settings_ = settings;
}

Program Session::release_loaded_program(std::vector<TopLevelForm> expressions) {
  Program program;
  program.source = sources_.empty() ? nullptr : sources_.front();
  // The order a Lent program has: datatypes, variables, functions.
  for (TopLevelForm::Kind kind : {TopLevelForm::Kind::Datatype, TopLevelForm::Kind::Binding,
                                  TopLevelForm::Kind::Function}) {
    for (TopLevelForm& form : context_.forms) {
      if (form.kind == kind) program.forms.push_back(std::move(form));
    }
  }
  for (TopLevelForm& form : expressions) program.forms.push_back(std::move(form));
  context_.forms.clear();
  program.loaded = sources_;  // the forms point into them
  return program;
}

bool Session::run(Program program) {
  sources_.push_back(program.source);
  for (const std::shared_ptr<SourceFile>& file : program.loaded) sources_.push_back(file);
  bool all = true;
  // Where the forms after the running one define names, while they are here.
  const DefinitionPlaces places(program.forms);
  struct Forget {
    NamesOutside& outside;
    ~Forget() { outside.defined_later = {}; }
  } forget_places{names_outside_};
  for (std::size_t i = 0; i < program.forms.size(); ++i) {
    if (interrupted()) return false;  // Ctrl-C stops the rest of a loaded file too
    names_outside_.defined_later = [&places, i](const std::string& name) { return places.after(i, name); };
    all = run_form(std::move(program.forms[i])) && all;
  }
  return all;
}

std::string Session::set(const std::string& what_written, const std::string& value) {
  SessionSettings settings = settings_;
  const std::string what = lowercase(what_written), lower = lowercase(value);
  const SettingUsage* usage = find_setting(what);
  if (what.empty()) return "set takes a setting and its value: " + settings_usage() + ".";
  if (!usage) return "There is no setting " + what + ": set takes " + settings_usage() + ".";
  if (value.empty()) {
    std::string problem = std::string("set ") + usage->name + " needs a value: set " + usage->name + " " +
                          usage->value + ";";
    if (what == "backend") problem += " (this build has " + backend_names() + ")";
    return problem;
  }
  const auto on_off = [&](bool& flag) -> std::string {
    if (lower != "on" && lower != "off") return "Expected either ON or OFF for command " + what + ".";
    flag = lower == "on";
    change_settings(settings);
    return "";
  };
  const auto number = [&](int& out, int least) -> std::string {
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(value.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || n < least || n > std::numeric_limits<int>::max())
      return "The argument to SET " + what + " must be an integer, at least " + std::to_string(least) + ".";
    out = static_cast<int>(n);
    return "";
  };
  // The VM's settings are tried at once: a backend that cannot be made now is refused now, and
  // the earlier one stays.
  const auto with_backend = [&](std::string problem) -> std::string {
    if (!problem.empty()) return problem;
    std::unique_ptr<cvl::Backend> made;
    try {
      made = make_vm_backend(settings.vm);
    } catch (const std::exception& e) {
      return e.what();
    }
    change_settings(settings);
    backend_ = std::move(made);
    return "";
  };
  if (what == "arg_check") return on_off(settings.argument_checks);
  if (what == "optimize") return on_off(settings.vm.optimize);
  if (what == "print_length") {
    std::string problem = number(settings.print_length, 0);
    if (problem.empty()) change_settings(settings);
    return problem;
  }
  if (what == "threads") return with_backend(number(settings.vm.threads, 0));
  settings.vm.backend = lower;  // backend
  return with_backend("");
}

std::string Session::start_backend() {
  if (backend_) return "";
  try {
    backend_ = make_vm_backend(settings_.vm);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

bool Session::run_form(TopLevelForm form) {
  switch (form.kind) {
    case TopLevelForm::Kind::Setting: {
      const std::string problem = set(form.setting.name, form.setting.value);
      if (problem.empty()) return true;
      out_ << kErrorAtTopLevel << "\n" << problem << "\n";
      flush();
      return false;
    }
    case TopLevelForm::Kind::Function:
    case TopLevelForm::Kind::Datatype: return define(std::move(form));
    case TopLevelForm::Kind::Binding: return bind(std::move(form));
    case TopLevelForm::Kind::Expression: {
      std::optional<Value> value = evaluate(std::move(form), "it");
      if (value) add_binding("it", *value);  // as the classic, a later form may read `it`
      return value.has_value();
    }
  }
  return false;
}

bool Session::define(TopLevelForm form) {
  const std::string name =
      form.kind == TopLevelForm::Kind::Function ? form.function.name : form.datatype.name;
  // A definition made again takes the earlier one's place, so that the functions defined since,
  // which call it, still come after it. One they no longer type-check with is refused, and the
  // earlier one stays: a later form would otherwise fail in them.
  for (std::size_t i = 0; i < context_.forms.size(); ++i) {
    const TopLevelForm& earlier = context_.forms[i];
    const bool same = earlier.kind == form.kind &&
                      (form.kind == TopLevelForm::Kind::Function ? earlier.function.name == name
                                                                  : earlier.datatype.name == name);
    if (!same) continue;
    const Location written = form.where;
    std::swap(context_.forms[i], form);
    Type type;
    std::string refused;
    {
      Lent lent(context_, std::nullopt, {{}, name});
      try {
        const CheckedProgram checked = check_program(lent.program(), *basis_, names_outside_);
        for (const FormType& defined : checked.forms)
          if (defined.is_function && defined.name == name) type = defined.type;
      } catch (const CompileError& error) {
        const TopLevelForm* broken = form_of_error(lent.program(), error);
        // An error in the new definition itself is reported as for a first one.
        const bool itself = broken && broken->where.file == written.file && broken->where.line == written.line &&
                            broken->where.column == written.column;
        refused = itself ? format_diagnostic(error)
                         : format_refusal(written,
                                          {"redefinition of " + name, "a definition", name, "the earlier " + name + " stays"},
                                          broken, error);
      }
    }
    if (!refused.empty()) {
      std::swap(context_.forms[i], form);
      errors_ << refused;
      flush();
      return false;
    }
    forget(name, i);
    out_ << layout_result(name, "fn", print_type(type, true));
    flush();
    return true;
  }
  Type type;
  std::optional<Lent> lent;
  try {
    lent.emplace(context_, std::move(form));
    CheckedProgram checked = check_program(lent->program(), *basis_, names_outside_);
    type = checked.forms.back().type;
    form = std::move(*lent->last());
  } catch (const CompileError& error) {
    errors_ << format_diagnostic(error);
    flush();
    return false;
  }
  lent.reset();
  context_.forms.push_back(std::move(form));
  forget(name, context_.forms.size() - 1);
  out_ << layout_result(name, "fn", print_type(type, true));
  flush();
  return true;
}

bool Session::bind(TopLevelForm form) {
  // Checked as written first, so that a pattern its value does not fit is a compile error.
  std::map<std::string, Type> bound;
  try {
    Lent lent(context_, std::move(form));
    const CheckedProgram checked = check_program(lent.program(), *basis_, names_outside_);
    form = std::move(*lent.last());
    for (const std::string& name : names_defined_by(form)) {
      for (const FormType& variable : checked.forms)
        if (variable.name == name) bound[name] = variable.type;  // the last: this form's
    }
  } catch (const CompileError& error) {
    errors_ << format_diagnostic(error);
    flush();
    return false;
  }
  if (!keeps_dependents(form.where, bound)) return false;
  ExprPtr pattern = std::move(form.binding.pattern);
  TopLevelForm expression;
  expression.kind = TopLevelForm::Kind::Expression;
  expression.where = form.where;
  expression.expression.value = std::move(form.binding.value);
  std::optional<Value> value = evaluate(std::move(expression), pattern_text(*pattern, true));
  if (!value) return false;
  std::vector<std::pair<std::string, const Value*>> parts;
  if (!match_pattern(*pattern, *value, parts)) {
    out_ << kErrorAtTopLevel << "\nPattern " << pattern_text(*pattern, true)
         << " does not match value in an assignment.\n";
    flush();
    return false;
  }
  for (const auto& [name, part] : parts) add_binding(name, *part);
  return true;
}

bool Session::keeps_dependents(const Location& binding, std::map<std::string, Type> bound) {
  const std::set<std::string> read = mentioned_names(context_, std::nullopt);
  std::erase_if(bound, [&](const auto& variable) { return !read.count(variable.first); });
  if (bound.empty()) return true;
  NamesOutside outside = names_outside_;
  outside.types = bound;
  LentChoice choice;
  std::string names;
  for (const auto& [name, type] : bound) {
    choice.left_out.insert(name);
    names += (names.empty() ? "" : ", ") + name;
  }
  std::string refused;
  {
    Lent lent(context_, std::nullopt, choice);
    try {
      check_program(lent.program(), *basis_, outside);
    } catch (const CompileError& error) {
      const Refusal refusal{"rebinding of " + names, "a value", names,
                            names + (bound.size() == 1 ? " keeps its value" : " keep their values")};
      refused = format_refusal(binding, refusal, form_of_error(lent.program(), error), error);
    }
  }
  if (refused.empty()) return true;
  errors_ << refused;
  flush();
  return false;
}

std::optional<Value> Session::evaluate(TopLevelForm expression, const std::string& name) {
  CheckedProgram checked;
  vcode::Program compiled;
  SourceMap map;
  try {
    Lent lent(context_, std::move(expression));
    checked = check_program(lent.program(), *basis_, names_outside_);
    CompileOptions options;
    options.argument_checks = settings_.argument_checks;
    // The classic REPL's transcript has no blank line before a runtime error's message.
    options.blank_line_before_errors = false;
    options.source_map = &map;
    const Type type = checked.expressions.back();
    if (resolve(type)->kind == TypeNode::Kind::Function) {
      Value function = function_value(lent, type, function_values_, *basis_, options, names_outside_);
      out_ << layout_result(name, print_value(function), print_type(type, true));
      flush();
      return function;
    }
    compiled = compile_checked(lent.program(), checked, *basis_, options).program;
  } catch (const CompileError& error) {
    errors_ << format_diagnostic(error);
    flush();
    return std::nullopt;
  }
  // Only the types are read from here on: the checked expressions are gone with the program.
  const Type type = checked.expressions.back();
  cvl::Backend* vm = backend();
  if (!vm) return std::nullopt;
  VmOutcome outcome;
  try {
    outcome = run_vcode(std::move(compiled), "top level", settings_.vm, *vm);
  } catch (const std::exception& e) {
    errors_ << "nesl: " << e.what() << "\n";
    flush();
    return std::nullopt;
  }
  if (outcome.interrupted) {
    errors_ << "Interrupted.\n";
    backend_.reset();
    flush();
    return std::nullopt;
  }
  if (outcome.failed) {
    // The classic's interpreter died of SIGFPE where ours reports an INT division fault. Another
    // stop on the data is said as the classic's checks say theirs, on the error stream; a bug of
    // ours or the device's keeps the VM's words.
    if (outcome.division) {
      out_ << "Floating point exception\n";
    } else {
      errors_ << (outcome.data_failure.empty() ? outcome.failure : runtime_error_line(outcome.data_failure)) << "\n";
      flush();
    }
    out_ << kErrorAtTopLevel << "\nError while running VCODE.\n";
    backend_.reset();  // made again for the next form, whatever state the failure left it in
    flush();
    note_stop(map, outcome.stopped_at, errors_);
    flush();
    return std::nullopt;
  }
  std::optional<Value> value;
  try {
    value = read_result(outcome.final_stack, type, checked.datatype_constructors);
  } catch (const ResultError& error) {
    out_ << kErrorAtTopLevel << "\n" << error.what() << "\n";
    flush();
    note_stop(map, outcome.stopped_at, errors_);  // the program's own error and EXIT
    flush();
    return std::nullopt;
  }
  out_ << layout_result(name, print_value(*value, settings_.print_length), print_type(type, true));
  flush();
  return value;
}

std::optional<std::string> Session::describe(const std::string& name) {
  const TopLevelForm* definition = nullptr;
  for (const TopLevelForm& form : context_.forms) {
    const std::string* bound = bound_name(form);
    if ((form.kind == TopLevelForm::Kind::Function && form.function.name == name) ||
        (form.kind == TopLevelForm::Kind::Datatype && form.datatype.name == name) || (bound && *bound == name))
      definition = &form;
  }
  if (!definition) return std::nullopt;
  // A variable bound to a function value is kept as a function: it is shown as the variable.
  const bool function = definition->kind == TopLevelForm::Kind::Function && !function_values_.count(name);
  const std::string head = function ? name + "(" + print_expression(*definition->function.arguments) + ")" : name;
  const std::string documentation = function ? definition->function.documentation : "";
  std::string what = definition->kind == TopLevelForm::Kind::Datatype ? "the constructor of a datatype defined"
                     : function                                      ? "a function defined"
                                                                     : "a variable bound";
  what += " in this session";
  if (basis_->signatures.count(name)) what += ", in place of the built-in " + name;
  // The type is the one a form naming it would find.
  TopLevelForm probe;
  probe.kind = TopLevelForm::Kind::Expression;
  probe.where = definition->where;
  probe.expression.value = make_expr(ExprKind::Variable, definition->where, name);
  Type type;
  try {
    Lent lent(context_, std::move(probe));
    type = check_program(lent.program(), *basis_).expressions.back();
  } catch (const CompileError&) {
    return std::nullopt;
  }
  return describe_entry(head + " : " + print_type(type, true), documentation) + "  (" + what + ")\n";
}

std::vector<std::string> Session::defined_names() const {
  std::vector<std::string> names;
  for (const TopLevelForm& form : context_.forms) {
    if (form.kind == TopLevelForm::Kind::Function) names.push_back(form.function.name);
    if (form.kind == TopLevelForm::Kind::Datatype) names.push_back(form.datatype.name);
    if (const std::string* bound = bound_name(form)) names.push_back(*bound);
  }
  return names;
}

// A variable bound to a function is kept as a function that calls it (`function g(arg1_) =
// (sq)(arg1_);`), so that it is defined after the functions it names and before those that
// read it, as a function value must be known when compiling.
void Session::add_binding(const std::string& name, const Value& value) {
  const std::string text =
      value.kind == Value::Kind::Function
          ? "function " + name + value.parameters + " = (" + value.name + ")" + value.parameters + ";\n"
          : name + " = " + value_source(value) + ";\n";
  auto source = std::make_shared<SourceFile>("value of " + name, text, true);
  Program parsed;
  try {
    parsed = parse_program(source);
  } catch (const CompileError& error) {  // a value we cannot write back: the name stays unbound
    errors_ << format_diagnostic(error);
    return;
  }
  sources_.push_back(source);
  context_.forms.push_back(std::move(parsed.forms.front()));
  forget(name, context_.forms.size() - 1);
  if (value.kind == Value::Kind::Function) function_values_[name] = value.name;
}

void Session::forget(const std::string& name, std::size_t keep) {
  function_values_.erase(name);
  std::vector<TopLevelForm> kept;
  for (std::size_t i = 0; i < context_.forms.size(); ++i) {
    TopLevelForm& form = context_.forms[i];
    const std::string* bound = bound_name(form);
    const bool defines = (form.kind == TopLevelForm::Kind::Function && form.function.name == name) ||
                         (form.kind == TopLevelForm::Kind::Datatype && form.datatype.name == name) ||
                         (bound && *bound == name);
    if (i != keep && defines) continue;
    kept.push_back(std::move(form));
  }
  context_.forms = std::move(kept);
}

cvl::Backend* Session::backend() {
  if (!backend_) {
    try {
      backend_ = make_vm_backend(settings_.vm);
    } catch (const std::exception& e) {
      errors_ << "nesl: " << e.what() << "\n";
      flush();
      return nullptr;
    }
  }
  return backend_.get();
}

bool Session::interrupted() const {
  return settings_.vm.interrupt && settings_.vm.interrupt->load();
}

void Session::flush() {
  out_.flush();
  errors_.flush();
  std::fflush(stdout);
}

}  // namespace nesl
