#include "machine.hpp"

#include <algorithm>
#include <cstdlib>

namespace vm {

using vcode::Family;
using vcode::Instruction;
using vcode::Op;

Machine::Machine(const vcode::Program& program, cvl::Backend& backend, MachineOptions options)
    : program_(program),
      backend_(backend),
      io_(cvl::distributed_io_of(backend)),
      guesses_(cvl::speculation_of(backend)),
      sites_(backend.operation_sites()),
      options_(options),
      memory_(options.profile ? backend.vector_memory() : nullptr) {
  const bool root = io_.is_io_root();
  streams_[0] = {true, root ? stdin : nullptr};
  streams_[1] = {true, root ? stdout : nullptr};
  streams_[2] = {true, root ? stderr : nullptr};
  stack_.reserve(1024);
  returns_.reserve(1024);
  if (options_.optimize_seconds >= 0) profile_.optimizer_ran(options_.optimize_seconds);
  if (options_.profile && options_.source_lines) profile_.use_source_lines(*options_.source_lines);
  prepare();
}

Machine::~Machine() {
  for (std::size_t fd = 3; fd < streams_.size(); ++fd)
    if (streams_[fd].file) std::fclose(streams_[fd].file);
}

void Machine::prepare() {
  // Every superoperator is planned once, here: FUSED n only runs superops_[n].
  superops_.reserve(program_.superops.size());
  for (const vcode::SuperOp& op : program_.superops) {
    superops_.push_back(backend_.prepare(op));
    superop_rules_.push_back(vcode::length_rules(superops_.back()->analysis));
  }
  prepared_.resize(program_.code.size());
  for (std::size_t i = 0; i < program_.code.size(); ++i) {
    const Instruction& ins = program_.code[i];
    const vcode::OpInfo& op = vcode::info(ins.op);
    Prepared& p = prepared_[i];
    const vcode::TypeKeyword keyword = ins.type ? *ins.type : vcode::implied_type(ins.op);
    const Kind given = kind_of(keyword);
    if (is_vector(given)) p.type = element_type(given);
    auto letter_kind = [&](char letter) {
      const auto type = vcode::letter_type(letter, keyword);
      return type ? kind_of(*type) : given;
    };
    p.arity = static_cast<std::uint8_t>(op.args.size());
    if (ins.op == Op::Fused)  // the definition's operands (exec_fused.cpp checks them): --profile counts them
      p.arity = static_cast<std::uint8_t>(
          std::min<std::size_t>(program_.superops[static_cast<std::size_t>(ins.count)].operands.size(), 255));
    for (std::size_t a = 0; a < op.args.size(); ++a) {
      char letter = op.args[a];
      p.expect[a] = letter == 'V'   ? Expect::AnyVector
                    : letter == 'X' ? Expect::Any
                                    : static_cast<Expect>(letter_kind(letter));
    }
    if (ins.op == Op::Const) {
      pc_ = static_cast<std::uint32_t>(i);  // so that an error here names the CONST
      p.constant = make_constant(program_.constants[ins.constant]);
    }
  }
  pc_ = 0;
}

Value Machine::make_constant(const vcode::Constant& c) {
  switch (c.type) {
    case vcode::TypeKeyword::Float:
      return Value::of(backend_.upload(cvl::Type::Float, c.floats.data(), c.floats.size()));
    case vcode::TypeKeyword::Bool: {
      std::vector<std::uint8_t> flags(c.ints.begin(), c.ints.end());
      return Value::of(backend_.upload(cvl::Type::Bool, flags.data(), flags.size()));
    }
    case vcode::TypeKeyword::Segdes:
      return Value::of(backend_.make_segdes(backend_.upload(cvl::Type::Int, c.ints.data(), c.ints.size())));
    case vcode::TypeKeyword::Int:
    case vcode::TypeKeyword::Char:
      break;
  }
  return Value::of(backend_.upload(cvl::Type::Int, c.ints.data(), c.ints.size()));
}

std::string Machine::location() const {
  const Instruction& ins = program_.code[pc_];
  return program_.file + ":" + std::to_string(ins.where.line) + ": in function " +
         program_.functions[ins.function].name + ", instruction " +
         vcode::instruction_text(program_, ins);
}

void Machine::fail(const std::string& message) { throw RuntimeError(message); }
void Machine::fail_internal(const std::string& message) { throw cvl::InternalError(message); }

int Machine::report_error(const Failure& failure) {
  reported_failure_ = failure;
  bool late = false;
  try {
    throw;  // the failure being handled: one found late names the instruction that caused it
  } catch (const cvl::DeferredError& e) {
    if (e.site < program_.code.size()) pc_ = e.site;
    late = true;
  } catch (...) {
  }
  record_stop(late);
  if (!options_.print_failures) return 1;
  return report_failure(backend_, failure_line(failure, location()), options_.debug.abort);
}

void Machine::record_stop(bool only_pc) {
  if (!options_.stopped_at) return;
  options_.stopped_at->assign(1, pc_);
  if (only_pc) return;
  for (auto at = returns_.rbegin(); at != returns_.rend(); ++at)
    if (*at > 0) options_.stopped_at->push_back(*at - 1);  // the CALL before the return address
}

Value Machine::segdes_from_data(cvl::Segdes sd) {
  require_at_most(sd.total, backend_.longest_descriptor_total(), [](std::size_t total, std::size_t) {
    return cvl::vector_too_long_message(total);
  });
  return Value::of(std::move(sd));
}

Value Machine::pop() {
  Value v = std::move(stack_.back());
  stack_.pop_back();
  return v;
}

namespace {

struct ExitRequest {};  // thrown by EXIT to leave the run loop

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void Machine::run_instructions(bool instrumented) {
  while (true) {
    const Instruction& ins = program_.code[pc_];
    if (ins.op == Op::Ret && returns_.empty()) return;
    if (!instrumented) {
      execute(ins, prepared_[pc_]);
      if (!kept_checks_.empty()) run_ready_checks();
      if (speculation_) checkpoint_if_certain();
      continue;
    }
    trace(ins);
    const bool measured = options_.profile || options_.trace_json;
    std::uint64_t elements = 0;
    for (std::size_t a = 0; a < prepared_[pc_].arity && a < stack_.size(); ++a) {
      // A count still pending on the device is added at the end: reading it now would wait.
      const cvl::Length& n =
          from_top(a).kind == Kind::Segdes ? from_top(a).total_of() : from_top(a).length_of();
      if (n.known())
        elements += n.get();
      else if (options_.profile)
        profile_.count_later(ins.op, n);
    }
    std::vector<cvl::Length> work_lengths;
    Profile::Footprint footprint;
    if (options_.profile) {
      work_lengths = operand_work_lengths(ins, prepared_[pc_].arity);
      footprint = operand_footprint(ins, prepared_[pc_].arity);
    }
    const std::int32_t place =
        options_.profile && options_.source_lines ? source_place() : SourceLines::kNone;
    const std::uint64_t in_use_before = memory_ ? memory_->bytes_in_use() : 0;
    const cvl::BackendStats stats_before = measured ? backend_.stats() : cvl::BackendStats{};
    if (device_clock_) device_clock_->stamp_device_clock(1);
    const auto before = std::chrono::steady_clock::now();
    execute(ins, prepared_[pc_]);
    if (measured) {
      if (device_clock_) device_clock_->stamp_device_clock(2);
      // A GPU op's own device time, not just its launch; the wait reads nothing back, so the
      // counts below are those of a run without --profile.
      backend_.wait_for_device();
      const cvl::BackendStats stats_after = backend_.stats();
      const auto after = std::chrono::steady_clock::now();
      if (options_.trace_json)  // with a device clock, the device's own times
        trace_instruction(ins, elements, device_clock_ ? device_time(1) : before,
                          device_clock_ ? device_time(2) : after, stats_before, stats_after);
      if (options_.profile) {
        const double seconds = std::chrono::duration<double>(after - before).count();
        profile_.record(ins.op, seconds, elements, stats_before, stats_after);
        const std::uint64_t peak = memory_ ? memory_->take_peak_bytes() : 0;
        const std::uint64_t added = peak > in_use_before ? peak - in_use_before : 0;
        if (memory_) profile_.record_peak(ins.op, peak, added);
        if (options_.source_lines) profile_.record_source(place, seconds, peak, added);
        add_result_work_lengths(ins, work_lengths);
        profile_.record_work(ins.op, std::move(work_lengths));
        if (stats_after.device_bytes_moved != stats_before.device_bytes_moved) {
          add_result_footprint(ins, footprint);
          profile_.record_minimum(ins.op, std::move(footprint));
        }
      }
    }
    if (!kept_checks_.empty()) run_ready_checks();
    if (speculation_) checkpoint_if_certain();
  }
}

namespace {

// A vector's work is its length; a segment descriptor's its segments (an operation over a
// descriptor's elements reads or writes a vector that long) or, for a superoperator, the elements
// it describes (a fused INDEX or DIST generates them without a vector of that length).
cvl::Length work_length(const Value& v, bool fused) {
  if (v.kind != Kind::Segdes) return v.length_of();
  return fused ? v.total_of() : v.segments_of();
}

}  // namespace

std::int32_t Machine::source_place() const {
  const SourceLines& lines = *options_.source_lines;
  std::int32_t place = lines.place_of(program_.code[pc_].where.line);
  // Outside the user's source: the innermost call made from it.
  for (auto at = returns_.rbegin(); place == SourceLines::kNone && at != returns_.rend(); ++at)
    if (*at > 0) place = lines.place_of(program_.code[*at - 1].where.line);
  return place;
}

std::vector<cvl::Length> Machine::operand_work_lengths(const Instruction& ins, std::size_t arity) {
  // A gather reads only the elements it fetches: its source (the deepest operand) is not counted.
  const bool gathers = vcode::info(ins.op).shape == vcode::Shape::Gather || ins.op == Op::Extract;
  std::vector<cvl::Length> lengths;
  for (std::size_t a = 0; a < arity && a < stack_.size(); ++a)
    if (!(gathers && a + 1 == arity)) lengths.push_back(work_length(from_top(a), ins.op == Op::Fused));
  return lengths;
}

void Machine::add_result_work_lengths(const Instruction& ins, std::vector<cvl::Length>& lengths) {
  if (ins.op == Op::Fused) return;  // a superoperator's results are no longer than its operands
  const std::size_t results = vcode::op_table[static_cast<std::size_t>(ins.op)].results.size();
  for (std::size_t r = 0; r < results && r < stack_.size(); ++r)
    lengths.push_back(work_length(from_top(r), false));
}

namespace {

// What reading or writing a value once moves: a vector's elements, a descriptor's lengths (a
// pair: nothing, it is not an operand of device work).
void add_footprint(const Value& v, Profile::Footprint& footprint) {
  if (is_vector(v.kind))
    footprint.emplace_back(v.length_of(), cvl::element_size(element_type(v.kind)));
  else if (v.kind == Kind::Segdes)
    footprint.emplace_back(v.segments_of(), sizeof(std::int32_t));
}

bool gathers(vcode::Op op) {
  return vcode::info(op).shape == vcode::Shape::Gather || op == Op::Extract;
}

}  // namespace

Profile::Footprint Machine::operand_footprint(const Instruction& ins, std::size_t arity) {
  // A gather needs only the source elements it fetches: add_result_footprint counts them.
  Profile::Footprint footprint;
  for (std::size_t a = 0; a < arity && a < stack_.size(); ++a)
    if (!(gathers(ins.op) && a + 1 == arity)) add_footprint(from_top(a), footprint);
  return footprint;
}

void Machine::add_result_footprint(const Instruction& ins, Profile::Footprint& footprint) {
  const std::size_t results = ins.op == Op::Fused
                                  ? 1
                                  : vcode::op_table[static_cast<std::size_t>(ins.op)].results.size();
  for (std::size_t r = 0; r < results && r < stack_.size(); ++r) add_footprint(from_top(r), footprint);
  // A gather's source elements fetched: one per result element.
  if (gathers(ins.op) && results > 0 && !stack_.empty()) add_footprint(from_top(0), footprint);
}

TraceJson::Clock::time_point Machine::device_time(int mark) {
  const std::chrono::duration<double> since_origin(device_clock_->device_clock_seconds(mark));
  return device_origin_ + std::chrono::duration_cast<TraceJson::Clock::duration>(since_origin);
}

void Machine::trace_instruction(const Instruction& ins, std::uint64_t elements,
                                TraceJson::Clock::time_point start, TraceJson::Clock::time_point end,
                                const cvl::BackendStats& before, const cvl::BackendStats& after) {
  TraceJson& trace = *options_.trace_json;
  TraceJson::Instruction span;
  span.opcode = vcode::op_table[static_cast<std::size_t>(ins.op)].spelling;
  if (ins.type) span.type = vcode::keyword_name(*ins.type);
  // CONST's text carries its value, which may be a long vector: its name is the opcode and type.
  span.text = ins.op == Op::Const ? "CONST " + std::string(span.type)
                                  : vcode::instruction_text(program_, ins);
  span.function = program_.functions[ins.function].name;
  span.line = ins.where.line;
  span.start = start;
  span.end = end;
  span.elements = elements;
  span.before = before;
  span.after = after;
  trace.instruction(span);
  if (ins.op == Op::Call) trace.enter_function(ins.callee, end);
  if (ins.op == Op::Ret) trace.leave_function(end);
  trace.memory(after.host_bytes_in_use, after.device_bytes_in_use, end);
}

void Machine::checkpoint_if_certain() {
  ++instructions_since_checkpoint_;
  const bool synchronized = backend_.synchronizations() != checkpoint_.syncs;
  if (!(synchronized || effect_since_checkpoint_) || !guesses_.settled()) return;
  // A checkpoint copies both stacks. A recursion that synchronizes at every level (an IF on a
  // device value) would copy them once a level, quadratic in its depth, so while guessing a
  // synchronization alone waits for one instruction per kCheckpointEntriesPerInstruction entries
  // since the last one. An effect never waits (it must not run twice), nor does the end of a
  // region run again (guessing resumes there).
  const std::size_t entries = stack_.size() + returns_.size();
  if (!effect_since_checkpoint_ && guessing_ &&
      instructions_since_checkpoint_ * kCheckpointEntriesPerInstruction < entries)
    return;
  take_checkpoint();
  if (!guessing_) {  // a region ran again up to here: guesses may resume
    guessing_ = true;
    guesses_.allow_speculation(true);
  }
}

void Machine::take_checkpoint() {
  checkpoint_.stack = stack_;
  checkpoint_.returns = returns_;
  checkpoint_.pc = pc_;
  checkpoint_.random = random_;
  checkpoint_.kept_checks = kept_checks_;
  checkpoint_.syncs_checked = syncs_checked_;
  checkpoint_.syncs = backend_.synchronizations();
  effect_since_checkpoint_ = false;
  instructions_since_checkpoint_ = 0;
  guesses_.mark_certain_point();
}

void Machine::return_to_checkpoint() {
  stack_ = checkpoint_.stack;
  returns_ = checkpoint_.returns;
  pc_ = checkpoint_.pc;
  random_ = checkpoint_.random;
  kept_checks_ = checkpoint_.kept_checks;
  syncs_checked_ = checkpoint_.syncs_checked;
  fused_operands_.clear();
  checkpoint_.syncs = backend_.synchronizations();  // the failed synchronization is no progress
  instructions_since_checkpoint_ = 0;
  guessing_ = false;
  guesses_.allow_speculation(false);
}

int Machine::run() {
  auto started = std::chrono::steady_clock::now();
  pc_ = program_.functions[program_.entry_function].first;
  const bool traced = options_.trace || options_.trace_json || options_.debug.command ||
                      options_.debug.stack || options_.debug.values || options_.debug.runtime;
  const bool instrumented = traced || options_.profile;
  // A region that runs again would trace twice: speculation only without traces.
  speculation_ = options_.speculation && !traced;
  if (options_.trace_json) {
    options_.trace_json->enter_function(program_.functions[program_.entry_function].name, started);
    device_clock_ = backend_.device_clock();
    if (device_clock_) {  // the device's time 0: now, with nothing queued
      backend_.wait_for_device();
      device_clock_->stamp_device_clock(0);
      backend_.wait_for_device();
      device_origin_ = std::chrono::steady_clock::now();
    }
  }
  if (memory_) profile_.record_run_peak(memory_->take_peak_bytes());  // the constants, loaded
  guessing_ = speculation_;
  guesses_.allow_speculation(guessing_);
  if (speculation_) take_checkpoint();
  try {
    while (true) {
      try {
        run_instructions(instrumented);
        guesses_.settle();
        // A fault still on the device and the kept checks, before any of the stack is printed.
        backend_.synchronize();
        run_all_checks();
        break;
      } catch (const cvl::SpeculationFailed&) {
        if (!speculation_) throw;
        return_to_checkpoint();
      }
    }
  } catch (const ExitRequest&) {  // EXIT: no stack dump, status 0
    record_stop(false);
    try {
      backend_.synchronize();
      run_all_checks();
    } catch (...) {
      return report_error(current_failure());
    }
    std::fflush(stdout);
    if (options_.profile) print_profile(seconds_since(started));
    return 0;
  } catch (...) {  // every other kind of failure (error_report.hpp)
    // A kept check that fails now names an earlier instruction: the first fault in program order.
    try {
      run_ready_checks();
    } catch (const RuntimeError&) {  // a failed check (anything else: the first failure stands)
      return report_error(current_failure());
    } catch (...) {
    }
    return report_error(current_failure());
  }
  if (options_.time_program && io_.is_io_root()) {
    std::fprintf(stderr, "elapsed time = %f seconds\n", seconds_since(started));
    std::fflush(stderr);
  }
  try {
    dump_stack();
  } catch (...) {  // reading a value may need memory: a vector of one value is written only now
    reported_failure_ = current_failure();
    if (!options_.print_failures) return 1;
    return report_failure(backend_,
                          failure_line(*reported_failure_, program_.file + ": the final stack dump"),
                          options_.debug.abort);
  }
  if (options_.profile) print_profile(seconds_since(started));
  return 0;
}

void Machine::print_profile(double wall_seconds) {
  const cvl::BackendStats stats = backend_.stats();
  if (memory_) profile_.record_run_peak(memory_->take_peak_bytes());  // the final stack dump
  profile_.gather_processes(io_, stats);  // on every process: a collective
  if (io_.is_io_root()) profile_.print(stderr, wall_seconds, stats, backend_.name());
}

void Machine::execute(const Instruction& ins, const Prepared& prep) {
  if (sites_) sites_->operation_site(pc_);
  switch (ins.op) {
    case Op::Call:
      if (options_.interrupt && options_.interrupt->load(std::memory_order_relaxed))
        fail(interrupted_message);
      if (returns_.size() >= options_.max_call_depth)
        fail("call depth limit exceeded: " + std::to_string(returns_.size()) +
             " calls deep (--max-call-depth " + std::to_string(options_.max_call_depth) + ")");
      if (options_.debug.runtime && io_.is_io_root())
        std::fprintf(stderr, "push: \t stack_count = %zu, saved_pc = %u\n", returns_.size() + 1, pc_ + 1);
      returns_.push_back(pc_ + 1);
      pc_ = ins.target;
      return;
    case Op::Ret:
      if (options_.debug.runtime && io_.is_io_root())
        std::fprintf(stderr, "pop: \t stack_count = %zu, new_pc = %u\n", returns_.size(), returns_.back());
      pc_ = returns_.back();
      returns_.pop_back();
      return;
    case Op::If: {
      if (stack_.empty()) fail("stack underflow: IF needs 1 value, the stack is empty");
      const Value& c = stack_.back();
      auto not_a_scalar = [&](std::size_t n) {
        return std::string("IF: top of stack not a bool scalar (it is ") + kind_name(c.kind) +
               (c.kind == Kind::Segdes ? " of " + std::to_string(n) + " segments)"
                                       : " of length " + std::to_string(n) + ")");
      };
      if (c.kind == Kind::Segdes) fail(not_a_scalar(c.segments()));
      if (c.kind != Kind::Bool || c.length_of().bound() < 1) fail(not_a_scalar(c.length()));
      // A pending length is read with the flag, in the same wait.
      std::uint8_t flag = 0;
      download(c, 0, 1, &flag);
      if (c.length() != 1) fail(not_a_scalar(c.length()));
      stack_.pop_back();
      pc_ = flag ? pc_ + 1 : ins.target;
      return;
    }
    case Op::Else:
      pc_ = ins.target;
      return;
    case Op::EndIf:
      ++pc_;
      return;
    case Op::Const:
      stack_.push_back(prep.constant);
      ++pc_;
      return;
    case Op::Exit:
      guesses_.settle();  // leaving for good: nothing may still be a guess
      throw ExitRequest{};
    default:
      break;
  }
  switch (vcode::info(ins.op).family) {
    case Family::Stack: exec_stack(ins); break;
    case Family::Io: exec_io(ins, prep); break;
    default: exec_vector(ins, prep); break;
  }
  ++pc_;
}

void Machine::exec_stack(const Instruction& ins) {
  std::size_t n = static_cast<std::size_t>(ins.count);
  std::size_t d = static_cast<std::size_t>(ins.depth);
  auto need = [&](std::size_t k) {
    if (stack_.size() < k)
      fail("stack underflow: can't do " + vcode::instruction_text(program_, ins) + "; only " +
           std::to_string(stack_.size()) + " items on the stack");
  };
  switch (ins.op) {
    case Op::Copy: {
      need(n + d);
      std::size_t first = stack_.size() - d - n;
      for (std::size_t k = 0; k < n; ++k) stack_.push_back(stack_[first + k]);
      return;
    }
    case Op::Pop: {
      need(n + d);
      auto first = stack_.end() - static_cast<std::ptrdiff_t>(d + n);
      stack_.erase(first, first + static_cast<std::ptrdiff_t>(n));
      return;
    }
    case Op::CPop: {
      need(n + d);
      auto first = stack_.end() - static_cast<std::ptrdiff_t>(d + n);
      std::rotate(first, first + static_cast<std::ptrdiff_t>(n), stack_.end());
      return;
    }
    case Op::Pair: {
      need(2);
      auto pair = std::make_shared<PairStorage>();
      pair->second = pop();
      pair->first = pop();
      push({Kind::Pair, 0, 0, 0, std::move(pair)});
      return;
    }
    case Op::Unpair: {
      need(1);
      if (stack_.back().kind != Kind::Pair)
        fail(std::string("UNPAIR of a non-pair (") + kind_name(stack_.back().kind) + ")");
      Value pair = pop();
      push(pair_of(pair).first);
      push(pair_of(pair).second);
      return;
    }
    default:
      fail_internal("not a stack instruction");
  }
}

void Machine::check_operands(const Instruction& ins, const Prepared& prep) {
  if (stack_.size() < prep.arity)
    fail("stack underflow: " + std::string(vcode::spelling(ins.op)) + " needs " +
         std::to_string(prep.arity) + " values, the stack has " + std::to_string(stack_.size()));
  std::size_t base = stack_.size() - prep.arity;
  for (std::size_t a = 0; a < prep.arity; ++a) {
    Kind actual = stack_[base + a].kind;
    Expect want = prep.expect[a];
    bool ok = want == Expect::Any || (want == Expect::AnyVector ? is_vector(actual)
                                                               : actual == static_cast<Kind>(want));
    if (ok) continue;
    std::string wanted = want == Expect::AnyVector ? "a vector" : kind_name(static_cast<Kind>(want));
    fail("type mismatch: Stack[" + std::to_string(a) + "] is " + kind_name(actual) + ", " +
         std::string(vcode::spelling(ins.op)) + " expects " + wanted);
  }
}

Value Machine::int_scalar(std::int32_t x) { return Value::of(backend_.upload(cvl::Type::Int, &x, 1)); }
Value Machine::bool_scalar(bool x) {
  std::uint8_t flag = x;
  return Value::of(backend_.upload(cvl::Type::Bool, &flag, 1));
}
Value Machine::float_scalar(double x) { return Value::of(backend_.upload(cvl::Type::Float, &x, 1)); }
Value Machine::host_ints(const std::vector<std::int32_t>& xs) {
  return Value::of(backend_.upload(cvl::Type::Int, xs.data(), xs.size()));
}

std::int32_t Machine::read_int(const Value& v, std::size_t i) {
  std::int32_t x = 0;
  download(v, i, 1, &x);
  return x;
}

std::vector<std::int32_t> Machine::read_ints(const Value& v) {
  std::vector<std::int32_t> xs(v.length());
  if (!xs.empty()) download(v, 0, xs.size(), xs.data());
  return xs;
}

}  // namespace vm
