"""Timeloop v3.0.3's spelling of its inputs, for the scripts that run it (never a test).

v3.0.3 reads these keys only hyphenated (later Timeloop versions translate '_' to '-'), and
these values only in their hyphenated form (it stops on `fixed_structured`).
"""

HYPHENATED = {"action_optimization",
              "cluster_size",
              "compression_rate",
              "compute_optimization",
              "condition_on",
              "data_spaces",
              "diagnostics",
              "emit_whoop_nest",
              "flattened_rankIDs",
              "live_status",
              "log_all",
              "log_oaves",
              "log_oaves_mappings",
              "log_stats",
              "log_suboptimal",
              "max_permutations_per_if_visit",
              "metadata_word_bits",
              "min_utilization",
              "multiple_buffering",
              "num_ports",
              "num_threads",
              "optimization_metrics",
              "payload_word_bits",
              "penalize_consecutive_bypass_fails",
              "rank_application_order",
              "read_write",
              "representation_format",
              "search_size",
              "sync_interval",
              "victory_condition"}

VALUES = {"fixed_structured": "fixed-structured", "inner_to_outer": "inner-to-outer",
          "outer_to_inner": "outer-to-inner", "skipping_spatial": "skipping-spatial"}


def respell(node):
    """`node` (parsed YAML) with the keys and values above spelled the way v3.0.3 reads them."""
    if isinstance(node, dict):
        return {(k.replace("_", "-") if k in HYPHENATED else k): respell(v)
                for k, v in node.items()}
    if isinstance(node, list):
        return [respell(v) for v in node]
    if isinstance(node, str):
        return VALUES.get(node, node)
    return node
