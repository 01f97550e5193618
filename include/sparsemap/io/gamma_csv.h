// Reader of GAMMA's model CSVs: one layer per row, columns K,C,Y,X,R,S,T.
#pragma once

#include <string>

#include "sparsemap/workload/model.h"

namespace sparsemap::io {

// Header "K,C,Y,X,R,S,T" (other column orders accepted by name; an optional leading name
// column). T: 0 FC, 1 CONV, 2 DSCONV, 3 GEMM. Y and X are input sizes, stride 1, as GAMMA
// runs them. Layers are named L0, L1, ... Throws InputError with file:line:column.
workload::Model parse_gamma_csv(const std::string& text, const std::string& file);
workload::Model read_gamma_csv(const std::string& path);

}  // namespace sparsemap::io
