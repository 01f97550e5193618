// Test helper: the message of the InputError `f` throws ("no error" when it throws none).
#pragma once

#include <string>

#include "sparsemap/error.h"

namespace sparsemap::testing {

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace sparsemap::testing
