#include "vcode/superop_key.hpp"

#include <bit>
#include <cstdint>

namespace vcode {

std::string definition_key(const SuperOp& op) {
  std::string key;
  auto put = [&](const auto& value) {
    key.append(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  for (TypeKeyword kind : op.operands) put(kind);
  for (const SuperOpNode& n : op.nodes) {
    put(n.kind);
    put(n.op);
    put(n.type);
    put(n.result);
    put(n.operand);
    put(n.int_value);
    put(std::bit_cast<std::uint64_t>(n.float_value));
    put(n.arity);
    for (std::uint8_t a = 0; a < n.arity; ++a) put(n.args[a]);
  }
  return key;
}

}  // namespace vcode
