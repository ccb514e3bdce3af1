#include "nesl/large_stack.hpp"

#include <pthread.h>

#include <exception>

namespace nesl {
namespace {

struct Call {
  const std::function<int()>* body;
  int result = 0;
  std::exception_ptr error;
};

void* call_body(void* argument) {
  auto* call = static_cast<Call*>(argument);
  try {
    call->result = (*call->body)();
  } catch (...) {
    call->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

int run_with_stack(std::size_t bytes, const std::function<int()>& body) {
  Call call{&body, 0, nullptr};
  pthread_attr_t attributes;
  pthread_t thread;
  bool started = pthread_attr_init(&attributes) == 0;
  if (started) {
    started = pthread_attr_setstacksize(&attributes, bytes) == 0 &&
              pthread_create(&thread, &attributes, call_body, &call) == 0;
    pthread_attr_destroy(&attributes);
  }
  if (!started) return body();
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
  return call.result;
}

}  // namespace nesl
