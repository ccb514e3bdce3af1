#include "nesl/pipeline.hpp"

#include <chrono>
#include <cstdio>

#include "nesl/core.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/flat.hpp"
#include "nesl/flatten.hpp"
#include "nesl/library.hpp"
#include "nesl/lower.hpp"
#include "nesl/normalize.hpp"
#include "nesl/specialize.hpp"

namespace nesl {
namespace {

constexpr PassInfo passes[] = {
    {"parse", "NESL source to the syntax tree"},
    {"typecheck", "Hindley-Milner types with NESL's classes; records each expression's type and instance"},
    {"specialize", "monomorphic copies of the functions reachable from main; names resolved, syntax desugared"},
    {"normalize", "A-normal form: every operand a variable or a constant"},
    {"flatten", "vectorization into flat functions over segdes and vectors, with lifted twins"},
    {"lower", "flat functions to VCODE, the stack as environment"},
};

void verified(const std::string& pass, const std::vector<std::string>& problems) {
  if (problems.empty()) return;
  std::string text = "internal error: the IR is broken after pass " + pass + ":";
  for (const std::string& problem : problems) text += "\n  " + problem;
  throw CompileError({}, text);
}

bool dumping(const CompileOptions& options, std::string_view pass) {
  return options.dump && options.dump_after == pass;
}

}  // namespace

std::span<const PassInfo> compiler_passes() { return passes; }

bool is_compiler_pass(std::string_view name) {
  for (const PassInfo& pass : passes) {
    if (pass.name == name) return true;
  }
  return false;
}

void print_pass_time(std::ostream& out, std::string_view pass, double seconds) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", seconds * 1e3);
  out << "pass " << pass << ": " << text << " ms\n";
}

std::string compile_to_vcode(const Program& program, const CheckedProgram& checked, const Basis& basis,
                             const CompileOptions& options) {
  auto started = std::chrono::steady_clock::now();
  // The time since the last mark, printed for `pass` when timings are asked for (with the checks).
  const auto mark = [&](std::string_view pass) {
    const auto now = std::chrono::steady_clock::now();
    if (options.timings)
      print_pass_time(*options.timings, pass, std::chrono::duration<double>(now - started).count());
    started = now;
  };
  const Library& library = embedded_library(basis);
  mark("library");
  core::Program specialized = specialize(program, checked, library);
  verified("specialize", core::verify_program(specialized, false));
  mark("specialize");
  if (dumping(options, "specialize")) *options.dump << core::print_program(specialized);
  core::Program normalized = normalize(specialized);
  verified("normalize", core::verify_program(normalized, true));
  mark("normalize");
  if (dumping(options, "normalize")) *options.dump << core::print_program(normalized);
  flat::Program flattened =
      flatten(normalized, FlattenOptions{options.argument_checks, options.blank_line_before_errors});
  verified("flatten", flat::verify_program(flattened));
  mark("flatten");
  if (dumping(options, "flatten")) *options.dump << flat::print_program(flattened);
  std::vector<Location> lines;
  std::string vcode = lower(flattened, options.source_map ? &lines : nullptr);
  if (options.source_map) *options.source_map = SourceMap(lines, library.program.source.get());
  mark("lower");
  if (dumping(options, "lower")) *options.dump << vcode;
  return vcode;
}

}  // namespace nesl
