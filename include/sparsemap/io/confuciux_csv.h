// Reader of ConfuciuX's model CSVs (maestro-project/confuciux, data/model/*.csv).
#pragma once

#include <string>

#include "sparsemap/workload/model.h"

namespace sparsemap::io {

// Header "K,C,Y,X,R,S,T", one layer per row; T = 1 CONV, T = 2 depthwise (DSCONV, K = 1).
// Y and X are input sizes, stride 1, no padding (ConfuciuX hands them to MAESTRO as they are).
// The grammar is GAMMA's (io/gamma_csv.h); ConfuciuX's files only use T = 1 and 2, so any other
// type is refused. The model is named after the file's stem. Throws InputError with
// file:line:column naming what was expected.
workload::Model parse_confuciux_csv(const std::string& text, const std::string& file);
workload::Model read_confuciux_csv(const std::string& path);

}  // namespace sparsemap::io
