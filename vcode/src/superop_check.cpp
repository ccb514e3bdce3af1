#include "vcode/superop_check.hpp"

#include <algorithm>
#include <string>

#include "vcode/superop_print.hpp"

namespace vcode {
namespace {

using Kind = SuperOpNode::Kind;

// "$k". (Appending, not `"$" + std::to_string(k)`, which GCC 12 at -O3 flags with a false
// -Wrestrict.)
std::string operand_name(std::size_t k) {
  std::string name = "$";
  name += std::to_string(k);
  return name;
}

class DefinitionChecker {
 public:
  DefinitionChecker(const SuperOp& op, std::span<const SourceLocation> node_where,
                    std::vector<Diagnostic>& errors)
      : op_(op), where_(node_where), errors_(errors) {}

  void run() {
    if (op_.nodes.empty()) {
      error(op_.where, "has no expression");
      return;
    }
    for (TypeKeyword kind : op_.operands)
      if (kind == TypeKeyword::Char) error(op_.where, "CHAR is not an operand kind");
    find_dist_only_uses();
    for (std::uint32_t i = 0; i < op_.nodes.size(); ++i) {
      if (!children_before(i)) continue;  // the other checks would index out of range
      node(i);
    }
    if (errors_.size() > first_error_) return;  // unused-operand messages would only repeat them
    uses();
  }

 private:
  SourceLocation at(std::uint32_t node) const {
    return node < where_.size() ? where_[node] : op_.where;
  }
  void error(SourceLocation where, const std::string& message) {
    errors_.push_back({where, "error: SUPEROP " + std::to_string(op_.id) + ": " + message});
  }
  std::string text(std::uint32_t node) const {
    std::string t = superop_expression_text(op_, node);
    return t.size() > 60 ? t.substr(0, 57) + "..." : t;
  }
  const SuperOpNode& arg(const SuperOpNode& n, int a) const { return op_.nodes[n.args[a]]; }

  bool children_before(std::uint32_t i) {
    const SuperOpNode& n = op_.nodes[i];
    for (std::uint8_t a = 0; a < n.arity && a < 3; ++a)
      if (n.args[a] >= i) {
        error(at(i), "node " + std::to_string(i) + " refers to a later node");
        return false;
      }
    if (n.arity > 3) {
      error(at(i), "node " + std::to_string(i) + " has more than 3 arguments");
      return false;
    }
    return true;
  }

  // Which nodes are read only as the value of a DIST (a nested reduction must be).
  void find_dist_only_uses() {
    const std::size_t count = op_.nodes.size();
    dist_only_.assign(count, true);
    for (const SuperOpNode& n : op_.nodes)
      for (std::uint8_t a = 0; a < n.arity && a < 3; ++a)
        if (n.args[a] < count && !(n.kind == Kind::Dist && a == 0)) dist_only_[n.args[a]] = false;
  }

  bool is_segdes_operand(const SuperOpNode& n) const {
    return n.kind == Kind::Operand && n.operand < op_.operands.size() &&
           op_.operands[n.operand] == TypeKeyword::Segdes;
  }
  bool is_leaf(const SuperOpNode& n) const {
    return (n.kind == Kind::Operand && !is_segdes_operand(n)) || n.kind == Kind::Constant;
  }

  void arity(std::uint32_t i, std::size_t expected) {
    const SuperOpNode& n = op_.nodes[i];
    if (n.arity != expected)
      error(at(i), std::string(spelling(n.op)) + " takes " + std::to_string(expected) +
                       " argument" + (expected == 1 ? "" : "s") + ", " + std::to_string(n.arity) +
                       " given");
  }

  // The type keyword of node i must be allowed by ops.def (or be the op's implied type).
  bool type_allowed(std::uint32_t i) {
    const SuperOpNode& n = op_.nodes[i];
    const OpInfo& op = info(n.op);
    bool ok = op.syntax == Syntax::Type ? (op.type_set & typeset::bit(n.type)) != 0
                                        : n.type == implied_type(n.op);
    if (!ok)
      error(at(i), std::string(spelling(n.op)) + " is not defined on " +
                       std::string(keyword_name(n.type)));
    return ok;
  }

  void argument_type(std::uint32_t i, int a, TypeKeyword expected) {
    const SuperOpNode& n = op_.nodes[i];
    const SuperOpNode& x = arg(n, a);
    if (x.result != expected)
      error(at(n.args[a]), "type error: argument " + std::to_string(a + 1) + " of " +
                               std::string(spelling(n.op)) + " is " +
                               std::string(keyword_name(x.result)) + ", expected " +
                               std::string(keyword_name(expected)) + " (" + text(n.args[a]) + ")");
  }

  void descriptor(std::uint32_t i, int a) {
    const SuperOpNode& n = op_.nodes[i];
    if (!is_segdes_operand(arg(n, a)))
      error(at(n.args[a]), "the segment descriptor of " + std::string(spelling(n.op)) +
                               " must be a SEGDES operand $s, not " + text(n.args[a]));
  }

  void leaf(std::uint32_t i, int a, TypeKeyword expected) {
    const SuperOpNode& n = op_.nodes[i];
    if (!is_leaf(arg(n, a))) {
      error(at(n.args[a]), "argument " + std::to_string(a + 1) + " of " +
                               std::string(spelling(n.op)) +
                               " must be an operand $k or a constant, not " + text(n.args[a]));
      return;
    }
    argument_type(i, a, expected);
  }

  void node(std::uint32_t i) {
    const SuperOpNode& n = op_.nodes[i];
    const bool root = i + 1 == op_.nodes.size();
    switch (n.kind) {
      case Kind::Operand:
        if (n.operand >= op_.operands.size()) {
          error(at(i), operand_name(n.operand) + " is out of range (" +
                           std::to_string(op_.operands.size()) + " operands declared)");
        } else if (n.result != op_.operands[n.operand]) {
          error(at(i), operand_name(n.operand) + " has the wrong type");
        } else if (root && is_segdes_operand(n)) {
          error(at(i), "the result cannot be a segment descriptor");
        }
        return;
      case Kind::Constant:
        if (n.type == TypeKeyword::Segdes || n.type == TypeKeyword::Char || n.result != n.type)
          error(at(i), "a constant must be INT, FLOAT or BOOL");
        if (root) error(at(i), "a constant alone has no length (no operand fixes the domain)");
        return;
      case Kind::Elementwise: {
        const OpInfo& op = info(n.op);
        if (op.family != Family::Elementwise) {
          error(at(i), std::string(spelling(n.op)) + " is not an elementwise op");
          return;
        }
        arity(i, op.args.size());
        if (!type_allowed(i) || n.arity != op.args.size()) return;
        for (std::uint8_t a = 0; a < n.arity; ++a) {
          argument_type(i, a, operand_type(n.op, n.type, a));
        }
        check_result(i);
        return;
      }
      case Kind::Dist:
        if (n.op != Op::Dist) error(at(i), "a DIST node must have the op DIST");
        arity(i, 2);
        if (!type_allowed(i) || n.arity != 2) return;
        if (arg(n, 0).kind == Kind::Reduce)
          nested_reduction(i);
        else
          leaf(i, 0, n.type);
        descriptor(i, 1);
        check_result(i);
        return;
      case Kind::Index:
        if (n.op != Op::Index) error(at(i), "an INDEX node must have the op INDEX");
        arity(i, 3);
        if (n.arity != 3) return;
        leaf(i, 0, TypeKeyword::Int);
        leaf(i, 1, TypeKeyword::Int);
        descriptor(i, 2);
        check_result(i);
        return;
      case Kind::Gather:
        error(at(i), "a gather node is made at run time only; FCODE cannot hold one");
        return;
      case Kind::Random:
        error(at(i), "a random node is made at run time only; FCODE cannot hold one");
        return;
      case Kind::Scan:
      case Kind::Reduce: {
        Family want = n.kind == Kind::Scan ? Family::Scan : Family::Reduce;
        if (info(n.op).family != want) {
          error(at(i), std::string(spelling(n.op)) + " is not a " +
                           (want == Family::Scan ? "scan" : "reduction"));
          return;
        }
        if (!root && (n.kind == Kind::Scan || !dist_only_[i]))
          error(at(i), std::string(spelling(n.op)) +
                           (n.kind == Kind::Scan
                                ? " may only be the root of a superoperator"
                                : " may only be the root of a superoperator or the value of a "
                                  "DIST over its own descriptor"));
        arity(i, 2);
        if (!type_allowed(i) || n.arity != 2) return;
        argument_type(i, 0, n.type);
        descriptor(i, 1);
        check_result(i);
        return;
      }
    }
    error(at(i), "node " + std::to_string(i) + " has an unknown kind");
  }

  // A DIST of a reduction (nested, evaluated before the rest): over the same descriptor, so that
  // it spreads each segment's result over that segment.
  void nested_reduction(std::uint32_t i) {
    const SuperOpNode& n = op_.nodes[i];
    const SuperOpNode& r = arg(n, 0);
    argument_type(i, 0, n.type);
    if (r.arity != 2 || n.arity != 2) return;  // reported at the reduction
    const SuperOpNode& own = op_.nodes[r.args[1]];
    const SuperOpNode& spread = arg(n, 1);
    if (is_segdes_operand(own) && is_segdes_operand(spread) && own.operand != spread.operand)
      error(at(i), "a DIST of a reduction must be over the reduction's descriptor, " +
                       operand_name(own.operand) + ", not " + operand_name(spread.operand));
  }

  void check_result(std::uint32_t i) {
    const SuperOpNode& n = op_.nodes[i];
    if (n.result != result_type_of(n.op, n.type))
      error(at(i), "node " + std::to_string(i) + " (" + std::string(spelling(n.op)) +
                       ") records the wrong result type");
  }

  void uses() {
    std::vector<OperandUse> uses = operand_uses(op_);
    bool length_source = false;
    for (std::size_t k = 0; k < uses.size(); ++k) {
      const OperandUse& u = uses[k];
      if (!u.elementwise && !u.segdes && u.per_segment_of.empty())
        error(op_.where, "operand " + operand_name(k) + " is declared but not used");
      length_source |= u.elementwise || u.segdes;
    }
    if (!length_source)
      error(op_.where, "no length source: no operand is read elementwise and there is no "
                       "segment descriptor");
  }

  const SuperOp& op_;
  std::span<const SourceLocation> where_;
  std::vector<Diagnostic>& errors_;
  std::size_t first_error_ = errors_.size();
  std::vector<bool> dist_only_;
};

}  // namespace

void check_superop(const SuperOp& op, std::span<const SourceLocation> node_where,
                   std::vector<Diagnostic>& errors) {
  DefinitionChecker(op, node_where, errors).run();
}

void check_superop_table(const Program& program, std::vector<Diagnostic>& errors) {
  const auto& table = program.superops;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].id == i) continue;
    errors.push_back({table[i].where, "error: SUPEROP " + std::to_string(table[i].id) +
                                          " is at position " + std::to_string(i) +
                                          " of the table (definitions are numbered 0, 1, ...)"});
  }
  for (const Instruction& ins : program.code) {
    if (ins.op != Op::Fused) continue;
    auto n = static_cast<std::size_t>(ins.count);
    if (ins.count < 0 || n >= table.size())
      errors.push_back({ins.where, "error: FUSED " + std::to_string(ins.count) +
                                       " names no SUPEROP definition (" +
                                       std::to_string(table.size()) + " defined)"});
  }
}

}  // namespace vcode
