// Fused superoperators of FCODE: one `FUSED n` instruction evaluates the expression of
// superoperator n over its operands in a single pass (elementwise, optionally reduced or scanned
// per segment at the root). The definitions live in the FCODE file itself, so every backend can
// run any FCODE file (README "FCODE").
//
// Text form: definitions at the top level of the file, before, between or after functions:
//
//   SUPEROP <n> ( <operand kinds> ) <expression>
//
//   operand kinds   INT FLOAT BOOL SEGDES, deepest stack entry first ($0 is the deepest)
//   expression      $k                                  operand k, element j
//                 | (CONST INT 5) (CONST FLOAT 2.5) (CONST BOOL T)   a constant at every j
//                 | (<elementwise op> [<type>] e1 [e2 [e3]])          as the VCODE instruction
//                 | (DIST <type> <leaf> $s)            leaf = $k or CONST: element seg(j) of $k
//                 | (INDEX <leaf> <leaf> $s)           start[seg(j)] + pos(j) * stride[seg(j)]
//                 | (<scan op> <type> e $s)            root only: exclusive segmented scan of e
//                 | (<reduce op> <type> e $s)          root only: one result per segment of $s
//                 | (DIST <type> (<reduce op> <type> e $s) $s)   a nested reduction: each
//                                                      segment's result at its elements
//
// where seg(j) is the segment holding element j of segment descriptor $s and pos(j) its position
// inside that segment. Op and type spellings are those of ops.def; an op is written with a type
// keyword exactly when its VCODE instruction takes one, with as many arguments as the
// instruction pops, of the types ops.def gives them. Tokens are VCODE's (blanks and `{...}`
// comments between them, any line breaks), plus `$k`: `$` and decimal digits. CONST INT takes
// -2147483648..2147483647 (no wrapping), CONST FLOAT a literal with a '.' (1.0e999 is infinity;
// NaN cannot be written), CONST BOOL T or F. The printer writes one definition per line,
// numbers in order, before the functions, FLOAT constants with 17 significant digits so they
// read back exactly.
//
// Numbering: the n of a file are 0, 1, ..., m-1, each defined once; Program::superops is sorted
// so that superops[n].id == n. `FUSED n` must name a definition. It pops the k declared operands
// ($k-1 on top) and pushes the result.
//
// Lengths: let n be the domain length. Every operand read as `$k` elementwise has length n;
// every segment descriptor has `total` = n; every operand read as a DIST value or an INDEX
// start/stride has one element per segment of its descriptor. A definition must name at least
// one elementwise operand or segment descriptor, which fixes n. The result has n elements, or
// one per segment for a reduction root. Its type is that of the root node. Every declared
// operand must be used. INT / and % trap as their instructions do (division by zero, INT_MIN /
// -1): the whole FUSED fails with that error.
//
// Gather nodes (Kind::Gather) are never written: cvl-cpu makes them at run time, for a BPERMUTE
// whose result is pending (cvl-cpu/src/pending/lazy_elementwise.hpp). (GATHER <type> $k e): element e(j)
// of operand $k, e an INT expression whose values the BPERMUTE checked to lie in [0, len($k));
// $k is read at those positions only, so its length is free. check_superop refuses the node, so
// no FCODE file and no other backend ever meets one.
//
// Random nodes (Kind::Random) are run-time only too, for a RAND whose result is pending: element
// j is draw j of a generator stream saved when the RAND ran, reduced by its bound (int_value), as
// the RAND would have drawn it. args[0] is the operand holding the saved stream (cvl-cpu's
// layout), read whole, so its length is free.
//
// Nested reductions: a reduction may also be the value of a DIST over its own descriptor, as in
// NESL's max_index, `(MIN_REDUCE INT (SELECT INT (= FLOAT (DIST FLOAT (MAX_REDUCE FLOAT $0 $1)
// $1) $0) (INDEX (CONST INT 0) (CONST INT 1) $1) (DIST INT (CONST INT 2147483647) $1)) $1)`. Its
// value is that of the reduction run first, alone, over the same operands; the rest then reads
// the result as a DIST of an operand. A backend runs such a definition in those stages
// (vcode/superop_stages.hpp), or in one pass where it knows the shape (superop_arg_reduce.hpp).
//
// Nodes: the parser makes one node per written occurrence, children before parents (a tree),
// and refuses nesting deeper than 2000 (its recursion then stays within a default 8 MiB stack);
// a definition built in memory may share nodes (a DAG), which the printer writes out at each
// use. The static rules are vcode/superop_check.hpp's.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "vcode/diagnostics.hpp"
#include "vcode/op.hpp"

namespace vcode {

// FLOAT constants are equal when their bits are: 0.0 and -0.0 are different values to share or
// fold (IEEE == says they are equal), and a NaN is equal to itself.
inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

struct SuperOpNode {
  enum class Kind : std::uint8_t {
    Operand, Constant, Elementwise, Dist, Index, Scan, Reduce,
    Gather,  // made at run time only (above): args[0] the $k read, args[1] the INT positions
    Random,  // made at run time only (above): args[0] the $k holding the stream
  };
  Kind kind = Kind::Operand;
  Op op = Op::Add;                        // Elementwise, Scan, Reduce: the VCODE op
  TypeKeyword type = TypeKeyword::Int;    // the op's type keyword / the constant's type
  TypeKeyword result = TypeKeyword::Int;  // element type this node produces (SEGDES for a
                                          // segment-descriptor operand node)
  std::uint32_t operand = 0;              // Operand: k of $k
  std::int32_t int_value = 0;             // Constant INT, BOOL (0 or 1)
  double float_value = 0;                 // Constant FLOAT
  std::uint8_t arity = 0;                 // how many of `args` are used
  std::uint32_t args[3] = {0, 0, 0};      // indices of earlier nodes, in the order written

  bool operator==(const SuperOpNode& o) const {
    return kind == o.kind && op == o.op && type == o.type && result == o.result &&
           operand == o.operand && int_value == o.int_value &&
           same_bits(float_value, o.float_value) && arity == o.arity && args[0] == o.args[0] &&
           args[1] == o.args[1] && args[2] == o.args[2];
  }
};

// How a node reads the node in its argument slot: at each element (an elementwise op's operands,
// a gather's positions, a fold's values), once per segment of the node's descriptor (a DIST's
// value, an INDEX's start and stride), as the descriptor itself, or at positions of the node's own
// choosing (a gather's source, a random node's stream). The one table of it: every analysis and evaluator asks here.
enum class ArgumentRole : std::uint8_t { Element, PerSegment, Descriptor, Gathered };
inline ArgumentRole argument_role(SuperOpNode::Kind kind, std::uint8_t slot) {
  using Kind = SuperOpNode::Kind;
  switch (kind) {
    case Kind::Dist:  // value, descriptor
      return slot == 0 ? ArgumentRole::PerSegment : ArgumentRole::Descriptor;
    case Kind::Index:  // start, stride, descriptor
      return slot < 2 ? ArgumentRole::PerSegment : ArgumentRole::Descriptor;
    case Kind::Scan:
    case Kind::Reduce:  // values, descriptor
      return slot == 0 ? ArgumentRole::Element : ArgumentRole::Descriptor;
    case Kind::Gather:  // source, positions
      return slot == 0 ? ArgumentRole::Gathered : ArgumentRole::Element;
    case Kind::Random:  // stream
      return ArgumentRole::Gathered;
    default:
      return ArgumentRole::Element;
  }
}
// The slot of a node's descriptor (DIST, INDEX, a fold): the last one.
inline std::uint8_t descriptor_slot(const SuperOpNode& n) {
  return static_cast<std::uint8_t>(n.arity - 1);
}

struct SuperOp {
  std::uint32_t id = 0;                 // the n of `SUPEROP n` and `FUSED n`
  std::vector<TypeKeyword> operands;    // declared kinds, $0 first
  std::vector<SuperOpNode> nodes;       // children before parents; the root is the last node
  SourceLocation where;                 // for diagnostics

  const SuperOpNode& root() const { return nodes.back(); }
  TypeKeyword result_type() const { return root().result; }
  bool reduces() const { return root().kind == SuperOpNode::Kind::Reduce; }

  bool operator==(const SuperOp& other) const {
    return id == other.id && operands == other.operands && nodes == other.nodes;
  }
};

// How a definition reads operand k: elementwise (length = domain), as a per-segment value of
// DIST/INDEX (one element per segment of each listed descriptor operand), or as a segment
// descriptor. An operand can be read in several ways; each imposes its length rule.
struct OperandUse {
  bool elementwise = false;
  bool segdes = false;
  bool gathered = false;  // read at the positions of a Gather node: any length, never overwritten
  std::vector<std::uint32_t> per_segment_of;  // descriptor operands, without repeats
};

// The uses of every declared operand ($0 first); operands a node names out of range are ignored.
std::vector<OperandUse> operand_uses(const SuperOp& op);

}  // namespace vcode
