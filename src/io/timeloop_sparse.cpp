// Timeloop 3's (Sparseloop's) sparse inputs: `sparse_optimizations` (top-level `targets:` form,
// or per !Component in the v0.4 tag form) and the problem instance's `densities`.
#include <cmath>
#include <filesystem>
#include <set>

#include "sparsemap/io/actual_density.h"
#include "sparsemap/io/timeloop.h"
#include "timeloop_yaml.h"

namespace sparsemap::io::timeloop_detail {
namespace {

arch::RankFormat rank_format(const Reader& r, const YAML::Node& n) {
  const std::string f = r.scalar(n, "a rank format");
  static const std::pair<const char*, arch::RankFormat> kNames[] = {
      {"UOP", arch::RankFormat::kUOP}, {"uop", arch::RankFormat::kUOP},
      {"CP", arch::RankFormat::kCP},   {"cp", arch::RankFormat::kCP},
      {"B", arch::RankFormat::kB},     {"b", arch::RankFormat::kB},
      {"UB", arch::RankFormat::kUB},   {"ub", arch::RankFormat::kUB},
      {"RLE", arch::RankFormat::kRLE}, {"rle", arch::RankFormat::kRLE}};
  for (const auto& [name, v] : kNames)
    if (f == name) return v;
  r.fail(n, "expected a rank format UOP, CP, B, UB or RLE, found " + quote_input(f, 30));
}

int word_bits(const Reader& r, const YAML::Node& n, const std::string& what) {
  const int64_t v = r.integer(n, what);
  if (v < 0 || v > 4096) r.fail(n, "expected " + what + " between 0 and 4096");
  return static_cast<int>(v);
}

arch::RankSpec rank_spec(const Reader& r, const YAML::Node& n) {
  arch::RankSpec s;
  bool has_format = false;
  r.each(n, "a rank (format, metadata_word_bits, payload_word_bits, flattened_rankIDs)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k == "format") {
             s.format = rank_format(r, v);
             has_format = true;
           } else if (k == "metadata_word_bits") {
             s.metadata_word_bits = word_bits(r, v, "metadata_word_bits");
           } else if (k == "payload_word_bits") {
             s.payload_word_bits = word_bits(r, v, "payload_word_bits");
           } else if (k == "flattened_rankIDs" || k == "flattened_rank_ids") {
             if (!v.IsSequence()) r.fail(v, "expected flattened_rankIDs: a list of lists of ranks");
             for (const auto& ids : v) s.flattened_rank_ids.push_back(r.names(ids, "rank IDs"));
           } else {
             r.fail(kn, "unknown key '" + k +
                            "' in a rank: expected format, metadata_word_bits, payload_word_bits "
                            "or flattened_rankIDs");
           }
         });
  if (!has_format) r.fail(n, "expected a rank with a format (UOP, CP, B, UB or RLE)");
  return s;
}

arch::DataSpaceFormat data_space_format(const Reader& r, const YAML::Node& n) {
  arch::DataSpaceFormat f;
  YAML::Node ranks;
  r.each(n, "a data space's format (name, ranks, rank_application_order, compression_rate)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k == "name") {
             f.data_space = r.scalar(v, "a data space name");
           } else if (k == "ranks") {
             ranks = v;
           } else if (k == "rank_application_order") {
             const std::string o = normalise_key(r.scalar(v, "rank_application_order"));
             if (o != "inner_to_outer" && o != "outer_to_inner")
               r.fail(v, "expected rank_application_order inner_to_outer or outer_to_inner");
             f.inner_to_outer = o == "inner_to_outer";
           } else if (k == "compression_rate") {
             f.compression_rate = r.number(v, "compression_rate");
             if (!(f.compression_rate >= 0 && f.compression_rate <= 1))
               r.fail(v, "expected a compression_rate between 0 and 1");
           } else {
             r.fail(kn, "unknown key '" + k +
                            "' in a data space's format: expected name, ranks, "
                            "rank_application_order or compression_rate");
           }
         });
  if (f.data_space.empty()) r.fail(n, "expected a data space format with a name");
  if (!given(ranks) || !ranks.IsSequence() || ranks.size() == 0)
    r.fail(given(ranks) ? ranks : n, "expected ranks: a list of at least one rank format");
  for (const auto& rk : ranks) f.ranks.push_back(rank_spec(r, rk));
  // Timeloop refuses an uncompressed rank above... below a compressed one: compressed ranks must
  // sit above (outer to) every uncompressed one.
  bool inner_uncompressed = false;
  for (size_t i = f.ranks.size(); i-- > 0;) {
    const bool c = arch::rank_compressed(f.ranks[i].format);
    if (c && inner_uncompressed)
      r.fail(ranks[i], "expected no compressed rank (" +
                           std::string(arch::rank_format_name(f.ranks[i].format)) +
                           ") above an uncompressed one: Timeloop does not support it");
    if (!c) inner_uncompressed = true;
  }
  if (f.compression_rate >= 0 && !f.compressed())
    r.fail(n, "expected no compression_rate for an uncompressed format");
  return f;
}

void representation_format(const Reader& r, const YAML::Node& n,
                           arch::LevelSparseOptimizations& out) {
  r.each(n, "representation_format (data_spaces)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k != "data_spaces")
             r.fail(kn, "unknown key '" + k + "' in representation_format: expected data_spaces");
           r.each_item(v, "data_spaces", [&](const YAML::Node& d) {
             auto f = data_space_format(r, d);
             if (out.format(f.data_space))
               r.fail(d, "a second format for " + quote_input(f.data_space, 30) + " at " +
                             quote_input(out.level, 30));
             out.formats.push_back(std::move(f));
           });
         });
}

arch::ActionKind action_kind(const Reader& r, const YAML::Node& n) {
  // v3.0.3 spells it skipping-spatial: values are read with '-' as '_', as keys.
  const std::string t = normalise_key(r.scalar(n, "an optimization type"));
  if (t == "gating") return arch::ActionKind::kGating;
  if (t == "skipping") return arch::ActionKind::kSkipping;
  if (t == "skipping_spatial" || t == "spatial_skipping") return arch::ActionKind::kSpatialSkipping;
  r.fail(n, "expected an optimization type gating, skipping or skipping_spatial, found " +
                quote_input(t, 30));
}

// {target, condition_on}
arch::ActionOptimization action_option(const Reader& r, const YAML::Node& n, arch::ActionKind k,
                                       int group) {
  arch::ActionOptimization a;
  a.kind = k;
  a.group = group;
  YAML::Node cond;
  r.each(n, "an action optimization option (target, condition_on)",
         [&](const std::string& key, const YAML::Node& kn, const YAML::Node& v) {
           if (key == "target")
             a.target = r.scalar(v, "a target data space");
           else if (key == "condition_on")
             cond = v;
           else
             r.fail(kn, "unknown key '" + key + "': expected target or condition_on");
         });
  if (a.target.empty()) r.fail(n, "expected an action optimization with a target");
  if (!given(cond)) r.fail(n, "expected condition_on: the data spaces the optimization leads on");
  a.condition_on = r.names(cond, "condition_on");
  if (a.condition_on.empty()) r.fail(cond, "expected at least one data space in condition_on");
  return a;
}

void action_optimization(const Reader& r, const YAML::Node& n,
                         arch::LevelSparseOptimizations& out) {
  int group = 0;
  r.each_item(n, "action_optimization", [&](const YAML::Node& item) {
    ++group;
    YAML::Node type, options, target, cond;
    r.each(item, "an action optimization (type, options)",
           [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
             if (k == "type")
               type = v;
             else if (k == "options")
               options = v;
             else if (k == "target")
               target = v;
             else if (k == "condition_on")
               cond = v;
             else
               r.fail(kn, "unknown key '" + k + "' in an action optimization: expected type, " +
                              "options (or target and condition_on)");
           });
    if (!given(type)) r.fail(item, "expected an action optimization with a type");
    const arch::ActionKind k = action_kind(r, type);
    if (given(options)) {
      r.each_item(options, "options", [&](const YAML::Node& o) {
        out.actions.push_back(action_option(r, o, k, group));
      });
    } else {
      if (!given(target) || !given(cond))
        r.fail(item, "expected options: a list of {target, condition_on}");
      arch::ActionOptimization a;
      a.kind = k;
      a.group = group;
      a.target = r.scalar(target, "a target data space");
      a.condition_on = r.names(cond, "condition_on");
      out.actions.push_back(a);
    }
  });
}

void compute_optimization(const Reader& r, const YAML::Node& n,
                          arch::LevelSparseOptimizations& out) {
  r.each_item(n, "compute_optimization", [&](const YAML::Node& item) {
    YAML::Node type;
    r.each(item, "a compute optimization (type)",
           [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
             if (k == "type")
               type = v;
             else
               r.fail(kn, "unknown key '" + k + "' in a compute optimization: expected type");
           });
    if (!given(type)) r.fail(item, "expected a compute optimization with a type");
    const std::string t = normalise_key(r.scalar(type, "a compute optimization type"));
    if (t == "gate_on_zero_operand" || t == "gating")
      out.gate_on_zero_operand = true;
    else if (t == "skip_on_not_aligned_operands" || t == "skipping")
      out.skip_on_not_aligned_operands = true;
    else
      r.fail(type,
             "expected a compute optimization type gating (gate_on_zero_operand) or "
             "skipping (skip_on_not_aligned_operands), found " +
                 quote_input(t, 30));
  });
}

// The body of one target (or a !Component's `sparse_optimizations`). `name_allowed`: the
// top-level form names its target inside.
arch::LevelSparseOptimizations directive(const Reader& r, const YAML::Node& n,
                                         const std::string& level, bool name_allowed) {
  arch::LevelSparseOptimizations out;
  out.level = level;
  if (name_allowed && n.IsMap() && given(n["name"]))
    out.level = r.scalar(n["name"], "a level name");
  YAML::Node name;
  r.each(n, "sparse optimizations (representation_format, action_optimization, ...)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k == "name" && name_allowed)
             name = v;
           else if (k == "representation_format")
             representation_format(r, v, out);
           else if (k == "action_optimization")
             action_optimization(r, v, out);
           else if (k == "compute_optimization")
             compute_optimization(r, v, out);
           else if (k != "version")
             r.fail(kn, "unknown key '" + k + "' in sparse optimizations: expected " +
                            (name_allowed ? "name, " : "") +
                            "representation_format, action_optimization or "
                            "compute_optimization");
         });
  if (name_allowed) {
    if (!given(name)) r.fail(n, "expected a sparse optimization target with a name");
    out.level = r.scalar(name, "a level name");
  }
  return out;
}

void add_level(const Reader& r, const YAML::Node& at, arch::LevelSparseOptimizations l,
               arch::SparseOptimizations& out) {
  if (out.find(l.level))
    r.fail(at, "a second sparse optimization for " + quote_input(l.level, 30) +
                   ": expected one per component");
  out.levels.push_back(std::move(l));
}

void walk_tag_nodes(const Reader& r, const YAML::Node& list, arch::SparseOptimizations& out) {
  if (!list.IsSequence()) return;  // the architecture reader reports it
  for (const auto& n : list) {
    if (!n.IsMap()) continue;
    if (n["nodes"]) walk_tag_nodes(r, n["nodes"], out);
    const YAML::Node so = n["sparse_optimizations"];
    if (!given(so)) continue;
    const YAML::Node name = n["name"];
    if (!given(name)) r.fail(n, "expected a component with a name");
    add_level(r, so, directive(r, so, r.scalar(name, "a component's name"), false), out);
  }
}

}  // namespace

arch::SparseOptimizations parse_sparse_optimizations(const Reader& r, const YAML::Node& n) {
  arch::SparseOptimizations out;
  if (n.IsNull()) return out;
  r.each(n, "sparse_optimizations (targets)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k == "targets") {
             r.each_item(v, "targets", [&](const YAML::Node& t) {
               add_level(r, t, directive(r, t, "", true), out);
             });
           } else if (k != "version") {
             r.fail(kn, "unknown key '" + k + "' in sparse_optimizations: expected targets");
           }
         });
  return out;
}

arch::SparseOptimizations tag_sparse_optimizations(const Reader& r, const YAML::Node& arch_node) {
  arch::SparseOptimizations out;
  if (arch_node.IsMap() && arch_node["nodes"]) walk_tag_nodes(r, arch_node["nodes"], out);
  return out;
}

// `file:` of an actual density: relative to the YAML file's folder.
std::string beside(const Reader& r, const std::string& file) {
  const std::filesystem::path f(file);
  if (f.is_absolute()) return file;
  return (std::filesystem::path(r.file()).parent_path() / f).string();
}

std::map<std::string, workload::DensityModel> parse_densities(const Reader& r, const YAML::Node& n,
                                                              const workload::Einsum& problem) {
  std::map<std::string, workload::DensityModel> out;
  if (!given(n)) return out;
  r.each(n, "densities (a data space name -> a density or {distribution, density})",
         [&](const std::string&, const YAML::Node& kn, const YAML::Node& v) {
           const std::string ds = kn.Scalar();
           workload::DensityModel m;
           auto density = [&](const YAML::Node& d) {
             const double x = r.number(d, "a density");
             if (!(x >= 0 && x <= 1)) r.fail(d, "expected a density between 0 and 1");
             return x;
           };
           if (v.IsScalar()) {
             m.density = density(v);
             out[ds] = m;
             return;
           }
           bool has_density = false;
           YAML::Node file;
           bool has_file = false;
           r.each(v,
                  "a density model (distribution, density, band_width, workload_tensor_size, "
                  "file)",
                  [&](const std::string& k, const YAML::Node& mkn, const YAML::Node& mv) {
                    if (k == "distribution") {
                      // fixed-structured: v3.0.3's spelling.
                      const std::string t = normalise_key(r.scalar(mv, "a distribution"));
                      if (t == "fixed_structured" || t == "fixed")
                        m.distribution = workload::DensityDistribution::kFixedStructured;
                      else if (t == "hypergeometric" || t == "uniform")
                        m.distribution = workload::DensityDistribution::kHypergeometric;
                      else if (t == "banded" || t == "diagonal")
                        m.distribution = workload::DensityDistribution::kBanded;
                      else if (t == "actual")
                        m.distribution = workload::DensityDistribution::kActual;
                      else
                        r.fail(mv,
                               "expected a distribution fixed_structured, hypergeometric, "
                               "banded or actual, found " +
                                   quote_input(t, 30));
                    } else if (k == "density") {
                      m.density = density(mv);
                      has_density = true;
                    } else if (k == "band_width") {
                      m.band_width = r.integer(mv, "band_width");
                      if (m.band_width < 0) r.fail(mv, "expected a band_width >= 0");
                    } else if (k == "workload_tensor_size") {
                      m.workload_tensor_size = r.integer(mv, "workload_tensor_size");
                      if (m.workload_tensor_size < 0 || m.workload_tensor_size > (int64_t{1} << 50))
                        r.fail(mv, "expected a workload_tensor_size between 0 and 2^50");
                    } else if (k == "file") {
                      (void)r.scalar(mv, "a file name");
                      file = mv;
                      has_file = true;
                    } else {
                      r.fail(mkn, "unknown key '" + k +
                                      "' in a density model: expected distribution, density, "
                                      "band_width, workload_tensor_size or file");
                    }
                  });
           if (m.distribution == workload::DensityDistribution::kActual) {
             // The tensor gives the density: {distribution: actual, file: F.npy}, nothing else.
             if (!has_file) r.fail(v, "expected a file (.npy) for the actual density of " + ds);
             if (has_density || m.band_width || m.workload_tensor_size)
               r.fail(v,
                      "expected only a file with distribution actual (the tensor gives the "
                      "density)");
             out[ds] =
                 io::read_actual_density(beside(r, file.Scalar()), problem, ds, r.where(file));
             return;
           }
           if (has_file) r.fail(file, "expected a file only with distribution actual");
           if (!has_density && m.distribution != workload::DensityDistribution::kBanded)
             r.fail(v, "expected a density for " + quote_input(ds, 30));
           out[ds] = m;
         });
  return out;
}

}  // namespace sparsemap::io::timeloop_detail
