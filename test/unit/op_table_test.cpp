#include <catch2/catch.hpp>

#include "vcode/op.hpp"

TEST_CASE("every opcode of ops.def is found by its spelling, FUSED among them", "[ops]") {
  REQUIRE(vcode::find_op("FUSED"));
  CHECK(vcode::info(vcode::Op::Fused).syntax == vcode::Syntax::Integer);
  for (std::size_t i = 0; i < vcode::op_count; ++i) {
    auto op = vcode::find_op(vcode::op_table[i].spelling);
    REQUIRE(op);
    CHECK(static_cast<std::size_t>(*op) == i);
    const auto& info = vcode::op_table[i];
    // An opcode takes a type keyword exactly when it has a set of allowed types.
    CHECK((info.syntax == vcode::Syntax::Type || info.syntax == vcode::Syntax::Const) == (info.type_set != 0));
    for (char letter : info.args) CHECK(std::string("GIBFSVX").find(letter) != std::string::npos);
  }
  CHECK_FALSE(vcode::find_op("FOO"));
  CHECK_FALSE(vcode::find_op("int"));
}
