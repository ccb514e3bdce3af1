#include "flatten/flattener.hpp"

#include "flatten/constants.hpp"
#include "nesl/diagnostics.hpp"

namespace nesl::flattening {

Leaves Flattener::io_primitive(const Primitive& p, const Arguments& args) {
  switch (p.kind) {
    case PrimitiveKind::Print: {
      op(Op::Write, vcode::TypeKeyword::Char, {args[0][1]});
      return {everywhere(scalar(Leaf::Bool, 1))};
    }
    case PrimitiveKind::WriteString: {
      Leaves status = op(Op::FWrite, vcode::TypeKeyword::Char, {args[0][1], args[1][0]});
      return {status[1], sized(status[0]), status[0]};
    }
    case PrimitiveKind::ReadLine: {
      Value delimiters = constant(newline_delimiter());
      Value no_limit = constant(scalar(Leaf::Int, -1));
      Leaves read = op(Op::FReadChar, {delimiters, no_limit, args.first()});
      Value at_end = op1(Op::Equal, Leaf::Int, {read[1], constant(scalar(Leaf::Int, -1))});
      return {sized(read[0]), read[0], at_end, read[3], sized(read[2]), read[2]};
    }
    case PrimitiveKind::WriteObject: {
      auto [ok, message] = write_leaves(args[0], args[1][0]);
      return {ok, sized(message), message};
    }
    case PrimitiveKind::ReadObject: {
      Leaves result = read_leaves(args[0], args[1][0]);
      Value message = result.back();
      result.pop_back();
      result.insert(result.end(), {sized(message), message});
      return result;
    }
    case PrimitiveKind::Spawn: {
      Leaves started = op(Op::Spawn, {args[0][1], args[1][0], args[2][0], args[3][0]});
      return {started[2], started[1], started[0], started[4], sized(started[3]), started[3]};
    }
    case PrimitiveKind::OpenFile: {
      Value mode = int_constant(p.file_mode);
      Leaves opened = op(Op::FOpen, {args[0][1], mode});
      return {opened[0], opened[2], sized(opened[1]), opened[1]};
    }
    case PrimitiveKind::CloseFile: {
      Leaves closed = op(Op::FClose, {args.first()});
      return {closed[1], sized(closed[0]), closed[0]};
    }
    case PrimitiveKind::ReadString: {
      Leaves read = op(Op::FReadChar, {args[0][1], args[1][0], args[2][0]});
      return {sized(read[0]), read[0], read[1], read[3], sized(read[2]), read[2]};
    }
    case PrimitiveKind::UserError: {
      Value prefix = constant(characters("ERROR: "));
      op(Op::Write, vcode::TypeKeyword::Char, {prefix});
      op(Op::Write, vcode::TypeKeyword::Char, {args[0][1]});
      Value newline = constant(characters("\n"));
      op(Op::Write, vcode::TypeKeyword::Char, {newline});
      op(Op::Exit, {});
      return {everywhere(zero_of(Leaf::Bool))};
    }
    default: break;
  }
  throw CompileError({}, "internal error: " + args.name + " is not a io primitive");
}

// Writes each leaf, segdes included, in order: whether all went well, and the last message.
std::pair<Value, Value> Flattener::write_leaves(const Leaves& leaves, Value stream) {
  Value ok = -1, message = -1;
  for (Value leaf : leaves) {
    Leaves status = op(Op::FWrite, leaf_of(leaf), {leaf, stream});
    ok = ok < 0 ? status[1] : op1(Op::And, Leaf::Bool, {ok, status[1]});
    message = status[0];
  }
  return {ok, message};
}

// Reads a value of the leaves' kinds, in order; then whether all went well and the last message.
Leaves Flattener::read_leaves(const Leaves& like, Value stream) {
  Leaves result;
  Value ok = -1, message = -1;
  for (Value leaf : like) {
    Leaf kind = leaf_of(leaf);
    Leaves read = op(Op::FRead, kind, {stream});
    result.push_back(read[0]);
    ok = ok < 0 ? read[2] : op1(Op::And, Leaf::Bool, {ok, read[2]});
    message = read[1];
  }
  result.push_back(ok);
  result.push_back(message);
  return result;
}

// The segdes of a string an I/O instruction left as a bare vector of codes.
Value Flattener::sized(Value codes) { return make_segdes(op1(Op::Length, Leaf::Int, {codes})); }
                       }  // namespace nesl::flattening
                       