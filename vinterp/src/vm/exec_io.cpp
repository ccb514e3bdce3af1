// I/O, timer and random-seed instructions (spec/VCODE.md §6.11-6.12). Every I/O instruction
// ends by pushing a status pair: an error message (INT character codes, empty on success) and
// a BOOL flag, T on success. In a distributed run only the io root touches the outside world;
// every process pushes what it found (Machine::on_io_root).
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "machine.hpp"
#include "shared_result.hpp"

namespace vm {

using vcode::Instruction;
using vcode::Op;
using vcode::TypeKeyword;

namespace {

std::vector<std::int32_t> codes(const std::string& text) {
  std::vector<std::int32_t> out;
  for (char c : text) out.push_back(static_cast<signed char>(c));
  return out;
}

std::string text_of(const std::vector<std::int32_t>& codes) {
  std::string out;
  for (auto c : codes) out += static_cast<char>(c);
  return out;
}

int skip_space(std::FILE* in) {
  int c;
  do c = std::getc(in);
  while (c != EOF && std::isspace(c));
  return c;
}

const char* prompt_for(TypeKeyword type) {
  switch (type) {
    case TypeKeyword::Int: return "integer vector, in form (1 2 3)";
    case TypeKeyword::Float: return "float vector, in form (1.0 2.0 3.0)";
    case TypeKeyword::Bool: return "boolean vector, in form (T F)";
    case TypeKeyword::Char: return "string vector, in form \"string\"";
    case TypeKeyword::Segdes: return "segment descriptor vector, in form [1 2 3]";
  }
  return "";
}

// The status message of an I/O instruction given a stream that is not open.
std::string illegal_descriptor(int line, const char* what, std::int32_t fd) {
  return "vinterp: line " + std::to_string(line) + ": illegal VCODE file descriptor for " + what +
         ": " + std::to_string(fd);
}

}  // namespace

void Machine::push_status(const std::string& message) {
  push(host_ints(codes(message)));
  push(bool_scalar(message.empty()));
}

bool Machine::valid_stream(std::int32_t fd) const {
  return fd >= 0 && fd < static_cast<std::int32_t>(streams_.size()) && streams_[fd].open;
}

std::int32_t Machine::free_stream() const {
  std::size_t slot = 3;
  while (slot < streams_.size() && streams_[slot].open) ++slot;
  return slot == streams_.size() ? -1 : static_cast<std::int32_t>(slot);
}

// What a failed READ/FREAD pushes: an empty vector of the type read, INT for SEGDES and CHAR.
Value Machine::failed_read_value(TypeKeyword type) {
  switch (type) {
    case TypeKeyword::Float: return Value::of(backend_.upload(cvl::Type::Float, nullptr, 0));
    case TypeKeyword::Bool: return Value::of(backend_.upload(cvl::Type::Bool, nullptr, 0));
    default: return host_ints({});
  }
}

// One vector as READ parsed it, on the host: the elements of its type (CHAR reads none), or the
// error that ended the read.
struct ReadVector {
  std::vector<std::int32_t> ints;  // INT, SEGDES (the lengths)
  std::vector<double> floats;
  std::vector<std::uint8_t> flags;  // BOOL
  std::string error;                // empty: read
};

SharedResult& operator<<(SharedResult& out, const ReadVector& read) {
  return out << read.ints << read.floats << read.flags << read.error;
}
SharedResult& operator>>(SharedResult& in, ReadVector& read) {
  return in >> read.ints >> read.floats >> read.flags >> read.error;
}

namespace {

// Reads one vector in the printed format, with the quirks of the classic reader
// (spec/VCODE.md §6.12): a number's terminating character is consumed, so `(1 2 3)` fails.
ReadVector parse_vector(std::FILE* in, TypeKeyword type) {
  const bool segdes = type == TypeKeyword::Segdes;
  const char open = segdes ? '[' : type == TypeKeyword::Char ? '"' : '(';
  const char close = segdes ? ']' : type == TypeKeyword::Char ? '"' : ')';
  ReadVector read;
  if (skip_space(in) != open) {
    read.error = std::string("vinterp: input error: vector must start with ") + open;
    return read;
  }
  auto must_end = [&] {
    read.error = std::string("input error: vector must end with ") + close;
    return read;
  };
  switch (type) {
    case TypeKeyword::Char:
      if (std::getc(in) != '"') return must_end();
      return read;
    case TypeKeyword::Bool:
      for (int c = std::getc(in);; c = std::getc(in)) {
        if (c == ' ' || c == '\t' || c == '\n') continue;
        if (c == 'T' || c == 'F') { read.flags.push_back(c == 'T'); continue; }
        if (c != ')') return must_end();
        break;
      }
      return read;
    case TypeKeyword::Float:
      while (true) {
        int c = skip_space(in);
        if (c == ')') break;
        if (c == EOF) return must_end();
        std::ungetc(c, in);
        double x;
        if (std::fscanf(in, "%lf", &x) != 1) return must_end();
        read.floats.push_back(x);
      }
      return read;
    case TypeKeyword::Int:
    case TypeKeyword::Segdes:
      while (true) {
        int c = skip_space(in);
        if (c == close) break;
        bool negative = c == '-';
        if (c != '-' && c != '+' && !std::isdigit(c)) return must_end();
        if (c == '-' || c == '+') c = std::getc(in);
        std::uint32_t magnitude = 0;
        for (; c != EOF && std::isdigit(c); c = std::getc(in)) magnitude = magnitude * 10 + unsigned(c - '0');
        read.ints.push_back(static_cast<std::int32_t>(negative ? 0u - magnitude : magnitude));
        // The terminating character (c) is dropped, as in the classic reader.
      }
      return read;
  }
  return read;
}

}  // namespace

// The value a READ of `type` pushes for what was parsed (every process makes the same uploads).
Value Machine::read_value(const ReadVector& read, TypeKeyword type) {
  if (!read.error.empty()) return failed_read_value(type);
  switch (type) {
    case TypeKeyword::Bool:
      return Value::of(backend_.upload(cvl::Type::Bool, read.flags.data(), read.flags.size()));
    case TypeKeyword::Float:
      return Value::of(backend_.upload(cvl::Type::Float, read.floats.data(), read.floats.size()));
    case TypeKeyword::Segdes:
      return segdes_from_data(backend_.make_segdes(host_ints(read.ints).take_vector()));
    case TypeKeyword::Int:
    case TypeKeyword::Char:
      break;
  }
  return host_ints(read.ints);
}

void Machine::exec_io(const Instruction& ins, const Prepared& prep) {
  // --sandbox: nothing reaches the file system or other programs (the open streams still work).
  if (options_.sandbox && (ins.op == Op::FOpen || ins.op == Op::Spawn))
    fail(std::string(vcode::spelling(ins.op)) + " is not allowed with --sandbox");
  // These check their own operands: the stream's kind and the value's depend on the instruction.
  if (ins.op != Op::FRead && ins.op != Op::FWrite && ins.op != Op::Write) check_operands(ins, prep);
  // Nothing reaches the outside world before what the device computed is certain (no guessed
  // length outstanding) and the length rules still pending on the device hold.
  guesses_.settle();
  run_all_checks();
  effect_since_checkpoint_ = true;  // a region that runs again must not repeat it
  switch (ins.op) {
    case Op::StartTimer:
      // The timed region holds the device work queued inside it, none from before.
      backend_.complete_pending_work();
      timer_start_ = std::chrono::steady_clock::now();
      return;
    case Op::StopTimer: {
      backend_.complete_pending_work();
      double seconds = 0;
      on_io_root([&](SharedResult& out) {
        out << std::chrono::duration<double>(std::chrono::steady_clock::now() - timer_start_).count();
      }) >> seconds;
      push(float_scalar(seconds));
      return;
    }
    case Op::SRand: return exec_srand(ins);
    case Op::Write:
    case Op::FWrite: return exec_write(ins);
    case Op::Read:
    case Op::FRead: return exec_read(ins);
    case Op::FOpen: return exec_fopen(ins);
    case Op::FClose: return exec_fclose(ins);
    case Op::FReadChar: return exec_fread_char(ins);
    case Op::Spawn: return exec_spawn();
    default: fail_internal("not an I/O instruction");
  }
}

std::int32_t Machine::int_scalar_operand(const Instruction& ins, std::size_t depth,
                                         const char* what) {
  const Value& v = from_top(depth);
  if (v.kind != Kind::Int || v.length() != 1)
    fail(std::string(vcode::spelling(ins.op)) + ": " + what + " is not an integer scalar");
  return read_int(v, 0);
}

void Machine::exec_srand(const Instruction& ins) {
  std::int32_t seed = int_scalar_operand(ins, 0, "the seed");
  stack_.pop_back();
  random_.seed(static_cast<std::uint32_t>(seed));
  push(bool_scalar(true));
}

// WRITE value, FWRITE value fd -> msg ok (WRITE writes to stderr).
void Machine::exec_write(const Instruction& ins) {
  const bool to_stream = ins.op == Op::FWrite;
  const std::size_t arity = to_stream ? 2 : 1;
  if (stack_.size() < arity)
    fail("stack underflow: " + std::string(vcode::spelling(ins.op)) + " needs " +
         std::to_string(arity) + " values");
  std::int32_t fd = to_stream ? int_scalar_operand(ins, 0, "the stream") : 2;
  Value value = std::move(from_top(arity - 1));
  if (value.kind != kind_of(*ins.type))
    fail("type mismatch: " + std::string(vcode::spelling(ins.op)) + " " +
         std::string(vcode::keyword_name(*ins.type)) + " of a " + kind_name(value.kind));
  stack_.resize(stack_.size() - arity);
  if (fd == -1) return push_status("FWRITE to NULL_STREAM");
  if (!valid_stream(fd)) return push_status(illegal_descriptor(ins.where.line, "FWRITE", fd));
  // Every process reads the value (a download may involve them all); the root writes it.
  std::string text =
      *ins.type == TypeKeyword::Char ? text_of(read_ints(value)) : format_value(value);
  std::string message;
  on_io_root([&](SharedResult& out) {
    std::FILE* stream = streams_[fd].file;
    if (stream == stderr) std::fflush(stdout);
    bool ok = std::fwrite(text.data(), 1, text.size(), stream) == text.size() &&
              std::fflush(stream) == 0;
    out << std::string(ok ? "" : std::strerror(errno));
  }) >> message;
  push_status(message);
}

// READ, FREAD fd -> value msg ok (READ reads stdin).
void Machine::exec_read(const Instruction& ins) {
  std::int32_t fd = 0;
  if (ins.op == Op::FRead) {
    if (stack_.empty()) fail("stack underflow: FREAD needs 1 value");
    fd = int_scalar_operand(ins, 0, "the stream");
    stack_.pop_back();
  }
  TypeKeyword type = *ins.type;
  if (fd == -1) {
    // NULL_STREAM reads nothing successfully: an empty value of the type read.
    push(type == TypeKeyword::Segdes ? Value::of(backend_.make_segdes(host_ints({}).take_vector()))
                                     : failed_read_value(type));
    return push_status("");
  }
  if (!valid_stream(fd)) {
    push(failed_read_value(type));
    return push_status(illegal_descriptor(ins.where.line, "FREAD", fd));
  }
  SharedResult result = on_io_root([&](SharedResult& out) {
    std::FILE* in = streams_[fd].file;
    if (isatty(fileno(in))) {
      std::fprintf(stderr, "vinterp: input %s: ", prompt_for(type));
      std::fflush(stderr);
    }
    out << parse_vector(in, type);
  });
  ReadVector read;
  result >> read;
  push(read_value(read, type));
  push_status(read.error);
}

// FOPEN name mode -> fd msg ok.
void Machine::exec_fopen(const Instruction& ins) {
  std::int32_t mode = int_scalar_operand(ins, 0, "the mode");
  if (mode < 1 || mode > 3)
    fail("FOPEN: top of stack (" + std::to_string(mode) + ") not legal mode");
  std::string name = text_of(read_ints(from_top(1)));
  stack_.resize(stack_.size() - 2);
  std::int32_t fd = -1;
  std::string message;
  on_io_root([&](SharedResult& out) {
    std::int32_t slot = free_stream();
    if (slot < 0) {
      out << slot << std::string("no room in internal file table");
      return;
    }
    std::FILE* file = std::fopen(name.c_str(), mode == 1 ? "r" : mode == 2 ? "w" : "a");
    if (!file) {
      out << std::int32_t{-1} << std::string(std::strerror(errno));
      return;
    }
    streams_[slot].file = file;
    out << slot << std::string();
  }) >> fd >> message;
  if (fd >= 0) streams_[fd].open = true;
  push(int_scalar(fd));
  push_status(message);
}

// FCLOSE fd -> msg ok.
void Machine::exec_fclose(const Instruction& ins) {
  std::int32_t fd = int_scalar_operand(ins, 0, "the stream");
  stack_.pop_back();
  if (fd == -1) return push_status("");
  if (!valid_stream(fd)) return push_status(illegal_descriptor(ins.where.line, "FCLOSE", fd));
  std::string message;
  on_io_root([&](SharedResult& out) {
    out << std::string(std::fclose(streams_[fd].file) == 0 ? ""
                                                           : "vinterp: FCLOSE: could not close file");
  }) >> message;
  streams_[fd] = {};
  push_status(message);
}

// FREAD_CHAR delims max fd -> str stop msg ok: reads up to `max` characters (all when negative),
// stopping before a delimiter; `stop` is the delimiter, -1 at end of file, -2 at the count.
void Machine::exec_fread_char(const Instruction& ins) {
  std::int32_t fd = int_scalar_operand(ins, 0, "the stream");
  std::int32_t max = int_scalar_operand(ins, 1, "the count");
  const Value& delim_value = from_top(2);
  if (delim_value.kind != Kind::Int) fail("FREAD_CHAR: third element on stack not string");
  std::vector<std::int32_t> delims = read_ints(delim_value);
  bool is_delim[256] = {};
  for (std::size_t i = 0; i < delims.size(); ++i) {
    if (delims[i] < 0 || delims[i] > 255)
      fail("delimiter element " + std::to_string(i) + " for FREAD_CHAR is not a legal character");
    is_delim[delims[i]] = true;
  }
  stack_.resize(stack_.size() - 3);
  if (!valid_stream(fd)) {
    push(host_ints({}));
    push(host_ints({}));
    return push_status("illegal VCODE file descriptor in FREAD");
  }
  std::vector<std::int32_t> text;
  std::int32_t stop = -1;
  on_io_root([&](SharedResult& out) {
    std::FILE* in = streams_[fd].file;
    std::vector<std::int32_t> chars;
    std::int32_t reason;
    while (true) {
      if (max >= 0 && chars.size() == static_cast<std::size_t>(max)) { reason = -2; break; }
      int c = std::getc(in);
      if (c == EOF) { reason = -1; break; }
      if (is_delim[c]) { reason = c; break; }
      chars.push_back(static_cast<signed char>(c));
    }
    out << chars << reason;
  }) >> text >> stop;
  push(host_ints(text));
  push(int_scalar(stop));
  push_status("");
}

}  // namespace vm
