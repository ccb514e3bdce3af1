#include "vcode/linker.hpp"

#include <unordered_map>

namespace vcode {

void link_program(Program& program, std::vector<Diagnostic>& errors) {
  std::unordered_map<std::string, std::uint32_t> last_definition;
  for (std::uint32_t f = 0; f < program.functions.size(); ++f)
    last_definition[program.functions[f].name] = f;

  if (program.functions.empty()) return;
  auto main = last_definition.find("MAIN");
  // The entry is MAIN if defined, else the first function's name (its last definition).
  program.entry_function = main != last_definition.end()
                               ? main->second
                               : last_definition.at(program.functions.front().name);

  for (auto& ins : program.code) {
    if (ins.op != Op::Call) continue;
    auto found = last_definition.find(ins.callee);
    if (found == last_definition.end()) {
      errors.push_back({ins.where, "error: unresolved function " + ins.callee});
      continue;
    }
    ins.target = program.functions[found->second].first;
  }
}

}  // namespace vcode
