#include "session/dependents.hpp"

#include <utility>

namespace nesl {
namespace {

// How a message names a form that depends on another: a function by its name, a variable's
// value (written back as a literal by the session) by the variable's.
std::string describe(const TopLevelForm& form) {
  switch (form.kind) {
    case TopLevelForm::Kind::Function: return form.function.name;
    case TopLevelForm::Kind::Datatype: return "datatype " + form.datatype.name;
    case TopLevelForm::Kind::Binding:
      if (form.binding.pattern && form.binding.pattern->kind == ExprKind::Variable)
        return "the value of " + form.binding.pattern->text;
      return "a binding";
    case TopLevelForm::Kind::Expression:
    case TopLevelForm::Kind::Setting: break;
  }
  return "a form";
}

}  // namespace

const TopLevelForm* form_of_error(const Program& program, const CompileError& error) {
  const std::pair<int, int> at{error.where().line, error.where().column};
  const TopLevelForm* found = nullptr;
  for (const TopLevelForm& form : program.forms) {
    // The error keeps its file's name, not the file; the REPL's forms are all "stdin", each its
    // own text, so the line is compared too.
    if (!form.where.file || form.where.file->name() != error.file_name() ||
        form.where.file->line_text(error.where().line) != error.source_line()) {
      continue;
    }
    const std::pair<int, int> start{form.where.line, form.where.column};
    if (start <= at && (!found || start > std::pair<int, int>{found->where.line, found->where.column})) {
      found = &form;
    }
  }
  return found;
}

std::string format_refusal(const Location& at, const Refusal& refusal, const TopLevelForm* broken,
                           const CompileError& error) {
  const std::string dependent = broken ? describe(*broken) : "a form defined before it";
  const bool user_source = broken && broken->where.file && !broken->where.file->generated();
  std::string message = refusal.what + ": expected " + refusal.noun + " that " + dependent +
                        " still type-checks with, found one that breaks it (" + refusal.kept + ")";
  if (!user_source) message += ": " + error.message();
  std::string out = format_located(at.file->name(), at.line, at.column, std::string(at.file->line_text(at.line)),
                                   "error", message);
  if (user_source) {
    out += format_located(error.file_name(), error.where().line, error.where().column, error.source_line(),
                          "note", dependent + ", with the new " + refusal.name + ": " + error.message());
  }
  return out;
}

}  // namespace nesl
