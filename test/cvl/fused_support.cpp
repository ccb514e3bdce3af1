#include "fused_support.hpp"

#include "cvl/op_dispatch.hpp"
#include "vcode/parser.hpp"

namespace cvl_test {

vcode::SuperOp superop(const std::string& text) {
  auto program = vcode::parse_program(text + "\nFUNC MAIN\nRET\n", "fused_test.fcode");
  REQUIRE(program.superops.size() == 1);
  return program.superops[0];
}

FusedCase random_case(const vcode::SuperOp& op, const Ints& lengths, std::mt19937_64& rng) {
  FusedCase c;
  c.lengths = lengths;
  c.domain = total_of(lengths);
  auto uses = vcode::operand_uses(op);
  c.vectors.resize(op.operands.size());
  for (std::size_t k = 0; k < op.operands.size(); ++k) {
    if (op.operands[k] == vcode::TypeKeyword::Segdes) continue;
    std::size_t n = uses[k].elementwise || uses[k].per_segment_of.empty() ? c.domain : lengths.size();
    Type t = cvl::to_type(op.operands[k]);
    c.vectors[k] = random_vector(t, n, rng);
    // Positive FLOAT: sums without cancellation, so regrouped ones stay within 1e-9.
    if (t == Type::Float) c.vectors[k].f = random_floats(n, 0.25, 2.0, rng);
    if (t == Type::Int && !uses[k].elementwise && !uses[k].per_segment_of.empty())
      c.vectors[k].i = random_ints(n, -1000, 1000, rng);  // INDEX starts and strides
  }
  return c;
}

std::vector<cvl::FusedOperand> upload_operands(cvl::Backend& b, const vcode::SuperOp& op,
                                               const FusedCase& c) {
  std::vector<cvl::FusedOperand> operands(op.operands.size());
  for (std::size_t k = 0; k < op.operands.size(); ++k) {
    if (op.operands[k] == vcode::TypeKeyword::Segdes) operands[k].segdes = segdes(b, c.lengths);
    else operands[k].vector = upload(b, c.vectors[k]);
  }
  return operands;
}

const std::vector<std::string>& fused_definitions() {
  static const std::vector<std::string> definitions = [] {
    std::vector<std::string> d = {
        // maps
        "SUPEROP 0 (INT INT) (+ INT (* INT $0 (CONST INT 3)) (% $0 (+ INT (CONST INT 1000) (AND INT $1 (CONST INT 255)))))",
        "SUPEROP 0 (FLOAT FLOAT) (/ FLOAT (- FLOAT (* FLOAT $0 (EXP $1)) (SIN $0)) (+ FLOAT (CONST FLOAT 3.5) $1))",
        "SUPEROP 0 (FLOAT INT BOOL) (SELECT FLOAT (AND BOOL $2 (< FLOAT $0 (I_TO_F $1))) (SQRT (* FLOAT $0 $0)) (I_TO_F (FLOOR $0)))",
        "SUPEROP 0 (INT BOOL) (SELECT BOOL $1 (!= INT (RSHIFT $0 (CONST INT 3)) (CONST INT 0)) (NOT BOOL $1))",
        // DIST and INDEX leaves
        "SUPEROP 0 (INT FLOAT SEGDES) (+ FLOAT (I_TO_F (INDEX $0 (CONST INT 2) $2)) (DIST FLOAT $1 $2))",
        "SUPEROP 0 (BOOL SEGDES INT) (SELECT INT (DIST BOOL $0 $1) $2 (INDEX (CONST INT 7) (CONST INT -1) $1))",
        "SUPEROP 0 (INT INT SEGDES) (* INT (INDEX $0 $1 $2) (DIST INT (CONST INT 5) $2))",
        // values written at each use (computed once) and values that are the same everywhere
        // (computed once per call), as fcode-opt writes them
        "SUPEROP 0 (FLOAT SEGDES) (+ FLOAT (* FLOAT (LOG (/ FLOAT (DIST FLOAT (CONST FLOAT 1.0) $1) $0)) (LOG (/ FLOAT (DIST FLOAT (CONST FLOAT 1.0) $1) $0))) (* FLOAT (EXP (I_TO_F (DIST INT (CONST INT 3) $1))) $0))",
        "SUPEROP 0 (SEGDES) (SQRT (+ FLOAT (DIST FLOAT (CONST FLOAT 2.0) $0) (EXP (DIST FLOAT (CONST FLOAT 2.0) $0))))",
        "SUPEROP 0 (INT SEGDES) (+ INT (/ INT $0 (DIST INT (CONST INT 7) $1)) (* INT (/ INT $0 (DIST INT (CONST INT 7) $1)) (DIST INT (CONST INT 7) $1)))",
        "SUPEROP 0 (SEGDES) (+_REDUCE INT (B_TO_I (NOT BOOL (> FLOAT (DIST FLOAT (CONST FLOAT 0.0) $0) (DIST FLOAT (CONST FLOAT 1.0) $0)))) $0)",
        "SUPEROP 0 (SEGDES) (+_SCAN FLOAT (COS (DIST FLOAT (CONST FLOAT 0.5) $0)) $0)",
        // DISTs of operands: the same at every element when the descriptor has one segment
        "SUPEROP 0 (FLOAT SEGDES FLOAT) (* FLOAT (SQRT (* FLOAT (DIST FLOAT (CONST FLOAT 2.0) $1) (DIST FLOAT $2 $1))) (+ FLOAT $0 (LOG (DIST FLOAT $2 $1))))",
        "SUPEROP 0 (SEGDES FLOAT) (MAX_REDUCE FLOAT (EXP (DIST FLOAT $1 $0)) $0)",
    };
    // Every scan and reduction on each of its types, over a small expression of that type.
    const char* int_body = "(+ INT $0 (DIST INT $1 $2))";
    const char* float_body = "(* FLOAT $0 (DIST FLOAT $1 $2))";
    const char* bool_body = "(XOR BOOL $0 (DIST BOOL $1 $2))";
    for (const char* kind : {"SCAN", "REDUCE"}) {
      for (const char* op : {"+", "*", "MAX", "MIN"}) {
        d.push_back(std::string("SUPEROP 0 (INT INT SEGDES) (") + op + "_" + kind + " INT " + int_body + " $2)");
        d.push_back(std::string("SUPEROP 0 (FLOAT FLOAT SEGDES) (") + op + "_" + kind + " FLOAT " + float_body + " $2)");
      }
      for (const char* op : {"AND", "OR", "XOR"}) {
        d.push_back(std::string("SUPEROP 0 (INT INT SEGDES) (") + op + "_" + kind + " INT " + int_body + " $2)");
        d.push_back(std::string("SUPEROP 0 (BOOL BOOL SEGDES) (") + op + "_" + kind + " BOOL " + bool_body + " $2)");
      }
    }
    // Nested reductions: max_index and min_index shapes (cvl-cpu's one pass; ties from the INT
    // one), and others every backend runs in stages. Last, so that the random operands of the
    // definitions above stay those they were tested with.
    d.push_back(
        "SUPEROP 0 (FLOAT SEGDES INT) (MIN_REDUCE INT (SELECT INT (= FLOAT (DIST FLOAT (MAX_REDUCE FLOAT $0 $1) $1) $0) (INDEX (CONST INT 0) (CONST INT 1) $1) (DIST INT $2 $1)) $1)");
    d.push_back(
        "SUPEROP 0 (INT SEGDES INT) (MAX_REDUCE INT (SELECT INT (= INT (AND INT $0 (CONST INT 3)) (DIST INT (MIN_REDUCE INT (AND INT $0 (CONST INT 3)) $1) $1)) (INDEX $2 (CONST INT -3) $1) (CONST INT 7)) $1)");
    d.push_back(
        "SUPEROP 0 (SEGDES) (MIN_REDUCE INT (SELECT INT (= FLOAT (DIST FLOAT (MAX_REDUCE FLOAT (CONST FLOAT 1.5) $0) $0) (CONST FLOAT 1.5)) (INDEX (CONST INT 0) (CONST INT 1) $0) (CONST INT 9)) $0)");
    d.push_back(
        "SUPEROP 0 (FLOAT SEGDES) (+_SCAN FLOAT (- FLOAT $0 (DIST FLOAT (MAX_REDUCE FLOAT $0 $1) $1)) $1)");
    d.push_back(
        "SUPEROP 0 (FLOAT SEGDES) (+_REDUCE FLOAT (* FLOAT $0 (DIST FLOAT (+_REDUCE FLOAT (- FLOAT $0 (DIST FLOAT (MIN_REDUCE FLOAT $0 $1) $1)) $1) $1)) $1)");
    return d;
  }();
  return definitions;
}

}  // namespace cvl_test
