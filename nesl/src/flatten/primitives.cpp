#include "nesl/primitives.hpp"

namespace nesl {
namespace {

using K = PrimitiveKind;
using vcode::Op;

constexpr Primitive table[] = {
    {.name = "+", .kind = K::Elementwise, .arity = 2, .op = Op::Add},
    {.name = "-", .kind = K::Elementwise, .arity = 2, .op = Op::Sub},
    {.name = "*", .kind = K::Elementwise, .arity = 2, .op = Op::Mul},
    {.name = "/", .kind = K::CheckedDivide, .arity = 2, .op = Op::Div, .message = "Divide by zero."},
    {.name = "rem", .kind = K::CheckedDivide, .arity = 2, .op = Op::Mod, .message = "Divide by zero in function REM."},
    {.name = "negate", .kind = K::Negate, .arity = 1},
    {.name = "abs", .kind = K::Abs, .arity = 1},
    {.name = "<", .kind = K::Elementwise, .arity = 2, .op = Op::Less},
    {.name = ">", .kind = K::Elementwise, .arity = 2, .op = Op::Greater},
    {.name = "<=", .kind = K::Elementwise, .arity = 2, .op = Op::LessEq},
    {.name = ">=", .kind = K::Elementwise, .arity = 2, .op = Op::GreaterEq},
    {.name = "==", .kind = K::Elementwise, .arity = 2, .op = Op::Equal},
    {.name = "/=", .kind = K::Elementwise, .arity = 2, .op = Op::NotEqual},
    {.name = "plusp", .kind = K::CompareToZero, .arity = 1, .op = Op::Greater},
    {.name = "minusp", .kind = K::CompareToZero, .arity = 1, .op = Op::Less},
    {.name = "zerop", .kind = K::CompareToZero, .arity = 1, .op = Op::Equal},
    {.name = "not", .kind = K::Elementwise, .arity = 1, .op = Op::Not},
    {.name = "and", .kind = K::Elementwise, .arity = 2, .op = Op::And},
    {.name = "or", .kind = K::Elementwise, .arity = 2, .op = Op::Or},
    {.name = "xor", .kind = K::Elementwise, .arity = 2, .op = Op::Xor},
    {.name = "nand", .kind = K::Complement, .arity = 2, .op = Op::And},
    {.name = "nor", .kind = K::Complement, .arity = 2, .op = Op::Or},
    {.name = "lshift", .kind = K::Elementwise, .arity = 2, .op = Op::LShift},
    {.name = "rshift", .kind = K::Elementwise, .arity = 2, .op = Op::RShift},
    // SELECT of one base-type leaf; basis.nesl's select is an if, for values of every type.
    {.name = "prim_select", .kind = K::Elementwise, .arity = 3, .op = Op::Select},
    {.name = "btoi", .kind = K::Elementwise, .arity = 1, .op = Op::BoolToInt},
    {.name = "float", .kind = K::Elementwise, .arity = 1, .op = Op::IntToFloat},
    {.name = "floor", .kind = K::Elementwise, .arity = 1, .op = Op::Floor},
    {.name = "ceil", .kind = K::Elementwise, .arity = 1, .op = Op::Ceil},
    {.name = "trunc", .kind = K::Elementwise, .arity = 1, .op = Op::Trunc},
    {.name = "round", .kind = K::Elementwise, .arity = 1, .op = Op::Round},
    {.name = "prim_ln", .kind = K::Elementwise, .arity = 1, .op = Op::Log},  // basis.nesl's ln checks its argument first
    {.name = "exp", .kind = K::Elementwise, .arity = 1, .op = Op::Exp},
    {.name = "sin", .kind = K::Elementwise, .arity = 1, .op = Op::Sin},
    {.name = "cos", .kind = K::Elementwise, .arity = 1, .op = Op::Cos},
    {.name = "tan", .kind = K::Elementwise, .arity = 1, .op = Op::Tan},
    {.name = "asin", .kind = K::Elementwise, .arity = 1, .op = Op::Asin},
    {.name = "acos", .kind = K::Elementwise, .arity = 1, .op = Op::Acos},
    {.name = "atan", .kind = K::Elementwise, .arity = 1, .op = Op::Atan},
    {.name = "sinh", .kind = K::Elementwise, .arity = 1, .op = Op::Sinh},
    {.name = "cosh", .kind = K::Elementwise, .arity = 1, .op = Op::Cosh},
    {.name = "tanh", .kind = K::Elementwise, .arity = 1, .op = Op::Tanh},
    {.name = "sqrt", .kind = K::CheckedSqrt, .arity = 1},
    {.name = "char_code", .kind = K::Identity, .arity = 1},
    {.name = "code_char", .kind = K::Identity, .arity = 1},
    {.name = "max_int", .kind = K::Constant, .arity = 0, .constant = {.value = 2147483647}},
    {.name = "min_int", .kind = K::Constant, .arity = 0, .constant = {.value = -2147483648}},
    {.name = "space", .kind = K::Constant, .arity = 0, .constant = {.value = 32}},
    {.name = "newline", .kind = K::Constant, .arity = 0, .constant = {.value = 10}},
    {.name = "tab", .kind = K::Constant, .arity = 0, .constant = {.value = 9}},
    {.name = "pi", .kind = K::Constant, .arity = 0, .constant = {.is_float = true, .value = 3.14159265358979312e+00}},
    {.name = "sum", .kind = K::Reduce, .arity = 1, .op = Op::PlusReduce},
    {.name = "product", .kind = K::Reduce, .arity = 1, .op = Op::MulReduce},
    {.name = "max_val", .kind = K::Reduce, .arity = 1, .op = Op::MaxReduce},
    {.name = "min_val", .kind = K::Reduce, .arity = 1, .op = Op::MinReduce},
    {.name = "all", .kind = K::Reduce, .arity = 1, .op = Op::AndReduce},
    {.name = "any", .kind = K::Reduce, .arity = 1, .op = Op::OrReduce},
    {.name = "parity", .kind = K::Reduce, .arity = 1, .op = Op::XorReduce},
    {.name = "count", .kind = K::Count, .arity = 1},
    {.name = "plus_scan", .kind = K::Scan, .arity = 1, .op = Op::PlusScan},
    {.name = "mult_scan", .kind = K::Scan, .arity = 1, .op = Op::MulScan},
    {.name = "max_scan", .kind = K::Scan, .arity = 1, .op = Op::MaxScan},
    {.name = "min_scan", .kind = K::Scan, .arity = 1, .op = Op::MinScan},
    {.name = "and_scan", .kind = K::Scan, .arity = 1, .op = Op::AndScan},
    {.name = "or_scan", .kind = K::Scan, .arity = 1, .op = Op::OrScan},
    {.name = "xor_scan", .kind = K::Scan, .arity = 1, .op = Op::XorScan},
    {.name = "#", .kind = K::Length, .arity = 1},
    {.name = "length", .kind = K::Length, .arity = 1},
    {.name = "dist", .kind = K::Dist, .arity = 2},
    {.name = "elt", .kind = K::Element, .arity = 2},
    {.name = "range", .kind = K::Range, .arity = 3},
    {.name = "pack_flags", .kind = K::Pack, .arity = 2},
    {.name = "->", .kind = K::Get, .arity = 2},
    {.name = "cond_put", .kind = K::CondPut, .arity = 4},
    {.name = "fpermute_hack", .kind = K::FlagPermute, .arity = 4},
    {.name = "<-", .kind = K::Put, .arity = 2},
    {.name = "flatten", .kind = K::Flatten, .arity = 1},
    {.name = "partition", .kind = K::Partition, .arity = 2},
    {.name = "rep", .kind = K::Replace, .arity = 3},
    {.name = "rand", .kind = K::Rand, .arity = 1},
    {.name = "one_like", .kind = K::OneLike, .arity = 1},
    {.name = "zero_like", .kind = K::ZeroLike, .arity = 1},
    {.name = "transpose_check", .kind = K::ArgCheck, .arity = 1, .message = "Lengths of subsequences are not equal in function TRANSPOSE."},
    {.name = "exp_string_check", .kind = K::ArgCheck, .arity = 1, .message = "In function exp_string, digits_after_point is too large."},
    {.name = "hash_check", .kind = K::ArgCheck, .arity = 1, .message = "The second argument for the function HASH must be positive."},
    {.name = "take_check", .kind = K::ArgCheck, .arity = 1, .message = "Bounds error for function TAKE."},
    {.name = "drop_check", .kind = K::ArgCheck, .arity = 1, .message = "Bounds error for function DROP."},
    {.name = "subseq_check", .kind = K::ArgCheck, .arity = 1, .message = "Bounds error for function SUBSEQ."},
    {.name = "interleave_check", .kind = K::ArgCheck, .arity = 1, .message = "Length mismatch for function INTERLEAVE."},
    {.name = "zip_check", .kind = K::ArgCheck, .arity = 1, .message = "Length mismatch in function ZIP."},
    {.name = "mod_check", .kind = K::ArgCheck, .arity = 1, .message = "Divide by zero in function MOD."},
    {.name = "ln_check", .kind = K::ArgCheck, .arity = 1, .message = "Ln of negative number."},
    {.name = "power_check", .kind = K::ArgCheck, .arity = 1, .message = "The power must be nonnegative for ^ ."},
    {.name = "range_check", .kind = K::ArgCheck, .arity = 1, .message = "In [s:e:l], e must be >= to s, and l must be positive."},
    // `<-`'s scatter, given (indices, v) where a sequence of pairs would be: v is a scalar whose
    // VCODE vector is as long as the indices (a FREAD's result), so it becomes a sequence.
    {.name = "sequence_of_vector", .kind = K::Put, .arity = 2},
    {.name = "rank", .kind = K::Scan, .arity = 1, .op = Op::RankUp},
    {.name = "rank_down", .kind = K::Scan, .arity = 1, .op = Op::RankDown},
    {.name = "prim_length", .kind = K::Elementwise, .arity = 1, .op = Op::Length},
    {.name = "rand_seed", .kind = K::Elementwise, .arity = 1, .op = Op::SRand},
    {.name = "start_timer", .kind = K::Timer, .arity = 1, .op = Op::StartTimer},
    {.name = "stop_timer", .kind = K::Timer, .arity = 1, .op = Op::StopTimer},
    {.name = "permute", .kind = K::Permute, .arity = 2},
    {.name = "++", .kind = K::Append, .arity = 2},
    {.name = "error", .kind = K::UserError, .arity = 1},
    {.name = "print_string", .kind = K::Print, .arity = 1},
    {.name = "write_string", .kind = K::WriteString, .arity = 2},
    {.name = "read_line", .kind = K::ReadLine, .arity = 1},
    {.name = "write_object", .kind = K::WriteObject, .arity = 2},
    {.name = "prim_read_object", .kind = K::ReadObject, .arity = 2},  // basis.nesl's read_object gives the identity on failure
    {.name = "spawn", .kind = K::Spawn, .arity = 4},
    // The *_file functions are basis.nesl's, over the opens below, with the classic's reports.
    // FOPEN's stream, flag and message; basis.nesl's open_*_file add the classic's null stream and
    // "ERROR: while trying to open NAME" line on failure.
    {.name = "prim_open_in_file", .kind = K::OpenFile, .arity = 1, .file_mode = 1},
    {.name = "prim_open_out_file", .kind = K::OpenFile, .arity = 1, .file_mode = 2},
    {.name = "prim_open_append_file", .kind = K::OpenFile, .arity = 1, .file_mode = 3},
    {.name = "close_file", .kind = K::CloseFile, .arity = 1},
    {.name = "read_string", .kind = K::ReadString, .arity = 3},
    {.name = "stdin", .kind = K::Constant, .arity = 0, .constant = {.value = 0}},
    {.name = "stdout", .kind = K::Constant, .arity = 0, .constant = {.value = 2}},  // the classic's value, so its output lands on stderr
    {.name = "stderr", .kind = K::Constant, .arity = 0, .constant = {.value = 2}},
    {.name = "nullstr", .kind = K::Constant, .arity = 0, .constant = {.value = -1}},
};

}  // namespace

const Primitive* find_primitive(std::string_view name) {
  for (const Primitive& primitive : table) {
    if (primitive.name == name) return &primitive;
  }
  return nullptr;
}

}  // namespace nesl
