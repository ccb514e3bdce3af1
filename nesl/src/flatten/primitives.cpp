#include "nesl/primitives.hpp"

namespace nesl {
namespace {

using K = PrimitiveKind;

constexpr Primitive table[] = {
    {"+", K::Elementwise, 2, "+"},
    {"-", K::Elementwise, 2, "-"},
    {"*", K::Elementwise, 2, "*"},
    {"/", K::CheckedDivide, 2, "/"},
    {"rem", K::CheckedDivide, 2, "%"},
    {"negate", K::Negate, 1, "-"},
    {"abs", K::Abs, 1, "<"},
    {"<", K::Elementwise, 2, "<"},
    {">", K::Elementwise, 2, ">"},
    {"<=", K::Elementwise, 2, "<="},
    {">=", K::Elementwise, 2, ">="},
    {"==", K::Elementwise, 2, "="},
    {"/=", K::Elementwise, 2, "!="},
    {"plusp", K::CompareToZero, 1, ">"},
    {"minusp", K::CompareToZero, 1, "<"},
    {"zerop", K::CompareToZero, 1, "="},
    {"not", K::Elementwise, 1, "NOT"},
    {"and", K::Elementwise, 2, "AND"},
    {"or", K::Elementwise, 2, "OR"},
    {"xor", K::Elementwise, 2, "XOR"},
    {"nand", K::Complement, 2, "AND"},
    {"nor", K::Complement, 2, "OR"},
    {"lshift", K::Elementwise, 2, "LSHIFT"},
    {"rshift", K::Elementwise, 2, "RSHIFT"},
    // SELECT of one base-type leaf; basis.nesl's select is an if, for values of every type.
    {"prim_select", K::Elementwise, 3, "SELECT"},
    {"btoi", K::Elementwise, 1, "B_TO_I"},
    {"float", K::Elementwise, 1, "I_TO_F"},
    {"floor", K::Elementwise, 1, "FLOOR"},
    {"ceil", K::Elementwise, 1, "CEIL"},
    {"trunc", K::Elementwise, 1, "TRUNC"},
    {"round", K::Elementwise, 1, "ROUND"},
    {"prim_ln", K::Elementwise, 1, "LOG"},  // basis.nesl's ln checks its argument first
    {"exp", K::Elementwise, 1, "EXP"},
    {"sin", K::Elementwise, 1, "SIN"},
    {"cos", K::Elementwise, 1, "COS"},
    {"tan", K::Elementwise, 1, "TAN"},
    {"asin", K::Elementwise, 1, "ASIN"},
    {"acos", K::Elementwise, 1, "ACOS"},
    {"atan", K::Elementwise, 1, "ATAN"},
    {"sinh", K::Elementwise, 1, "SINH"},
    {"cosh", K::Elementwise, 1, "COSH"},
    {"tanh", K::Elementwise, 1, "TANH"},
    {"sqrt", K::CheckedSqrt, 1, "SQRT"},
    {"char_code", K::Identity, 1, ""},
    {"code_char", K::Identity, 1, ""},
    {"max_int", K::Constant, 0, "INT 2147483647"},
    {"min_int", K::Constant, 0, "INT -2147483648"},
    {"space", K::Constant, 0, "INT 32"},
    {"newline", K::Constant, 0, "INT 10"},
    {"tab", K::Constant, 0, "INT 9"},
    {"pi", K::Constant, 0, "FLOAT 3.14159265358979312e+00"},
    {"sum", K::Reduce, 1, "+_REDUCE"},
    {"product", K::Reduce, 1, "*_REDUCE"},
    {"max_val", K::Reduce, 1, "MAX_REDUCE"},
    {"min_val", K::Reduce, 1, "MIN_REDUCE"},
    {"all", K::Reduce, 1, "AND_REDUCE"},
    {"any", K::Reduce, 1, "OR_REDUCE"},
    {"parity", K::Reduce, 1, "XOR_REDUCE"},
    {"count", K::Count, 1, "+_REDUCE"},
    {"plus_scan", K::Scan, 1, "+_SCAN"},
    {"mult_scan", K::Scan, 1, "*_SCAN"},
    {"max_scan", K::Scan, 1, "MAX_SCAN"},
    {"min_scan", K::Scan, 1, "MIN_SCAN"},
    {"and_scan", K::Scan, 1, "AND_SCAN"},
    {"or_scan", K::Scan, 1, "OR_SCAN"},
    {"xor_scan", K::Scan, 1, "XOR_SCAN"},
    {"#", K::Length, 1, "LENGTHS"},
    {"length", K::Length, 1, "LENGTHS"},
    {"dist", K::Dist, 2, "DIST"},
    {"elt", K::Element, 2, "EXTRACT"},
    {"range", K::Range, 3, "INDEX"},
    {"pack_flags", K::Pack, 2, "PACK"},
    {"->", K::Get, 2, "BPERMUTE"},
    {"cond_put", K::CondPut, 4, "DPERMUTE"},
    {"fpermute_hack", K::FlagPermute, 4, "FPERMUTE"},
    {"<-", K::Put, 2, "DPERMUTE"},
    {"flatten", K::Flatten, 1, ""},
    {"partition", K::Partition, 2, ""},
    {"rep", K::Replace, 3, "REPLACE"},
    {"rand", K::Rand, 1, "RAND"},
    {"one_like", K::OneLike, 1, ""},
    {"zero_like", K::ZeroLike, 1, ""},
    {"transpose_check", K::ArgCheck, 1, "Lengths of subsequences are not equal in function TRANSPOSE."},
    {"exp_string_check", K::ArgCheck, 1, "In function exp_string, digits_after_point is too large."},
    {"hash_check", K::ArgCheck, 1, "The second argument for the function HASH must be positive."},
    {"take_check", K::ArgCheck, 1, "Bounds error for function TAKE."},
    {"drop_check", K::ArgCheck, 1, "Bounds error for function DROP."},
    {"subseq_check", K::ArgCheck, 1, "Bounds error for function SUBSEQ."},
    {"interleave_check", K::ArgCheck, 1, "Length mismatch for function INTERLEAVE."},
    {"zip_check", K::ArgCheck, 1, "Length mismatch in function ZIP."},
    {"mod_check", K::ArgCheck, 1, "Divide by zero in function MOD."},
    {"ln_check", K::ArgCheck, 1, "Ln of negative number."},
    {"power_check", K::ArgCheck, 1, "The power must be nonnegative for ^ ."},
    {"range_check", K::ArgCheck, 1, "In [s:e:l], e must be >= to s, and l must be positive."},
    // `<-`'s scatter, given (indices, v) where a sequence of pairs would be: v is a scalar whose
    // VCODE vector is as long as the indices (a FREAD's result), so it becomes a sequence.
    {"sequence_of_vector", K::Put, 2, "DPERMUTE"},
    {"rank", K::Scan, 1, "RANK_UP"},
    {"rank_down", K::Scan, 1, "RANK_DOWN"},
    {"prim_length", K::Elementwise, 1, "LENGTH"},
    {"rand_seed", K::Elementwise, 1, "SRAND"},
    {"start_timer", K::Timer, 1, "START_TIMER"},
    {"stop_timer", K::Timer, 1, "STOP_TIMER"},
    {"permute", K::Permute, 2, "PERMUTE"},
    {"++", K::Append, 2, "DPERMUTE"},
    {"error", K::UserError, 1, "WRITE"},
    {"print_string", K::Print, 1, "WRITE CHAR"},
    {"write_string", K::WriteString, 2, "FWRITE CHAR"},
    {"read_line", K::ReadLine, 1, "FREAD_CHAR"},
    {"write_object", K::WriteObject, 2, "FWRITE"},
    {"prim_read_object", K::ReadObject, 2, "FREAD"},  // basis.nesl's read_object gives the identity on failure
    {"spawn", K::Spawn, 4, "SPAWN"},
    // The *_file functions are basis.nesl's, over the opens below, with the classic's reports.
    // FOPEN's stream, flag and message; basis.nesl's open_*_file add the classic's null stream and
    // "ERROR: while trying to open NAME" line on failure.
    {"prim_open_in_file", K::OpenFile, 1, "1"},
    {"prim_open_out_file", K::OpenFile, 1, "2"},
    {"prim_open_append_file", K::OpenFile, 1, "3"},
    {"close_file", K::CloseFile, 1, "FCLOSE"},
    {"read_string", K::ReadString, 3, "FREAD_CHAR"},
    {"stdin", K::Constant, 0, "INT 0"},
    {"stdout", K::Constant, 0, "INT 2"},  // the classic's value, so its output lands on stderr
    {"stderr", K::Constant, 0, "INT 2"},
    {"nullstr", K::Constant, 0, "INT -1"},
};

}  // namespace

const Primitive* find_primitive(std::string_view name) {
  for (const Primitive& primitive : table) {
    if (primitive.name == name) return &primitive;
  }
  return nullptr;
}

}  // namespace nesl
