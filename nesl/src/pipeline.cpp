#include "nesl/pipeline.hpp"

#include <chrono>
#include <cstdio>

#include "nesl/diagnostics.hpp"
#include "nesl/flat_opt.hpp"
#include "nesl/flatten.hpp"
#include "nesl/library.hpp"
#include "nesl/normalize.hpp"
#include "nesl/parser.hpp"
#include "nesl/printer.hpp"
#include "nesl/specialize.hpp"
#include "vcode/printer.hpp"
#include "vcode/verify.hpp"

namespace nesl {
namespace {

// What a pass reads besides what the earlier passes made. The syntax and its types are read
// where they are: in the Compilation, or in the caller's hands (compile_checked).
struct PassContext {
  const Basis& basis;
  const CompileOptions& options;
  const Program* syntax = nullptr;
  const CheckedProgram* checked = nullptr;
  bool argument_checks = options.argument_checks;
};

using Problems = std::vector<std::string>;

struct Pass {
  PassInfo info;
  void (*run)(Compilation&, PassContext&);
  Problems (*verify)(const Compilation&);  // the IR it made
  std::string (*dump)(const Compilation&, const PassContext&);
};

bool has_bindings(const Program& program) {
  for (const TopLevelForm& form : program.forms) {
    if (form.kind == TopLevelForm::Kind::Binding) return true;
  }
  return false;
}

// The last `set arg_check on|off;` among a file's forms, or `given` when there is none: the
// classic's `dump vcode` compiles with the setting of the moment.
bool file_argument_checks(const Program& program, bool given) {
  for (const TopLevelForm& form : program.forms) {
    // The lexer has folded the words' case already.
    if (form.kind != TopLevelForm::Kind::Setting || form.setting.name != "arg_check") continue;
    if (form.setting.value == "on" || form.setting.value == "off") given = form.setting.value == "on";
  }
  return given;
}

std::string forms_text(const CheckedProgram& checked) {
  std::string text;
  for (const FormType& form : checked.forms) text += describe_form(form) + "\n";
  return text;
}

Problems nothing_to_verify(const Compilation&) { return {}; }

constexpr Pass passes[] = {
    {{"parse", "NESL source to the syntax tree"},
     [](Compilation& c, PassContext& context) {
       c.syntax = parse_program(c.syntax.source);
       context.syntax = &c.syntax;
       context.argument_checks = file_argument_checks(c.syntax, context.argument_checks);
     },
     nothing_to_verify,
     [](const Compilation&, const PassContext& context) { return print_program(*context.syntax); }},
    {{"typecheck", "Hindley-Milner types with NESL's classes; records each expression's type and instance"},
     [](Compilation& c, PassContext& context) {
       c.checked = check_program(*context.syntax, context.basis);
       context.checked = &c.checked;
     },
     nothing_to_verify,
     [](const Compilation&, const PassContext& context) { return forms_text(*context.checked); }},
    {{"eval-globals", "runs the top-level bindings, as the classic's load did; their values become literals"},
     [](Compilation& c, PassContext& context) {
       if (!context.options.evaluate_globals || !has_bindings(*context.syntax)) return;
       if (context.syntax != &c.syntax) throw CompileError({}, "internal error: eval-globals without its program");
       c.syntax = context.options.evaluate_globals(std::move(c.syntax));
       c.checked = check_program(c.syntax, context.basis);
       context.syntax = &c.syntax;
       context.checked = &c.checked;
     },
     nothing_to_verify,
     [](const Compilation&, const PassContext& context) { return print_program(*context.syntax); }},
    {{"specialize", "monomorphic copies of the functions reachable from main; names resolved, syntax desugared"},
     [](Compilation& c, PassContext& context) {
       c.core = specialize(*context.syntax, *context.checked, embedded_library(context.basis));
     },
     [](const Compilation& c) { return core::verify_program(c.core, false); },
     [](const Compilation& c, const PassContext&) { return core::print_program(c.core); }},
    {{"normalize", "A-normal form: every operand a variable or a constant"},
     [](Compilation& c, PassContext&) { c.core = normalize(c.core); },
     [](const Compilation& c) { return core::verify_program(c.core, true); },
     [](const Compilation& c, const PassContext&) { return core::print_program(c.core); }},
    {{"flatten", "vectorization into flat functions over segdes and vectors, with lifted twins"},
     [](Compilation& c, PassContext& context) {
       c.flat = flatten(c.core, FlattenOptions{context.argument_checks, context.options.blank_line_before_errors});
     },
     [](const Compilation& c) { return flat::verify_program(c.flat); },
     [](const Compilation& c, const PassContext&) { return flat::print_program(c.flat); }},
    {{"flat-opt", "shares repeated operations; drops the constants and LENGTHS nobody reads"},
     [](Compilation& c, PassContext&) { c.flat = optimize_flat(std::move(c.flat)); },
     [](const Compilation& c) { return flat::verify_program(c.flat); },
     [](const Compilation& c, const PassContext&) { return flat::print_program(c.flat); }},
    {{"lower", "flat functions to a VCODE program, the stack as environment; functions of the same code once"},
     [](Compilation& c, PassContext&) { c.vcode = lower(c.flat); },
     [](const Compilation& c) { return vcode::verify_program(c.vcode.program); },
     [](const Compilation& c, const PassContext&) { return vcode::print_program(c.vcode.program); }},
};

constexpr std::size_t pass_count = sizeof(passes) / sizeof(passes[0]);

std::size_t pass_index(std::string_view name) {
  for (std::size_t i = 0; i < pass_count; ++i) {
    if (passes[i].info.name == name) return i;
  }
  throw CompileError({}, "internal error: no compiler pass is named " + std::string(name));
}

void verified(std::string_view pass, const Problems& problems) {
  if (problems.empty()) return;
  std::string text = "internal error: the IR is broken after pass " + std::string(pass) + ":";
  for (const std::string& problem : problems) text += "\n  " + problem;
  throw CompileError({}, text);
}

// Runs passes first..last (indices into `passes`).
void run_passes(Compilation& compilation, PassContext& context, std::size_t first, std::size_t last) {
  const CompileOptions& options = context.options;
  for (std::size_t i = first; i <= last; ++i) {
    const Pass& pass = passes[i];
    const auto started = std::chrono::steady_clock::now();
    pass.run(compilation, context);
    verified(pass.info.name, pass.verify(compilation));
    if (options.timings) {
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
      print_pass_time(*options.timings, pass.info.name, took.count());
    }
    if (options.dump && options.dump_after == pass.info.name) *options.dump << pass.dump(compilation, context);
  }
  if (options.source_map && last == pass_count - 1) {
    *options.source_map = SourceMap(compilation.vcode.lines, embedded_library(context.basis).program->source.get());
  }
}

}  // namespace

std::span<const PassInfo> compiler_passes() {
  static const std::vector<PassInfo> infos = [] {
    std::vector<PassInfo> list;
    for (const Pass& pass : passes) list.push_back(pass.info);
    return list;
  }();
  return infos;
}

bool is_compiler_pass(std::string_view name) {
  for (const Pass& pass : passes) {
    if (pass.info.name == name) return true;
  }
  return false;
}

void print_pass_time(std::ostream& out, std::string_view pass, double seconds) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", seconds * 1e3);
  out << "pass " << pass << ": " << text << " ms\n";
}

Compilation compile_until(std::string_view last, std::shared_ptr<SourceFile> source, const Basis& basis,
                          const CompileOptions& options) {
  Compilation compilation;
  compilation.syntax.source = std::move(source);
  PassContext context{basis, options};
  run_passes(compilation, context, 0, pass_index(last));
  return compilation;
}

LoweredProgram compile_checked(const Program& program, const CheckedProgram& checked, const Basis& basis,
                               const CompileOptions& options) {
  Compilation compilation;
  PassContext context{basis, options, &program, &checked};
  run_passes(compilation, context, pass_index("typecheck") + 1, pass_count - 1);
  return std::move(compilation.vcode);
}

}  // namespace nesl
