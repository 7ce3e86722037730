//! Result columns in words: the one place that turns a column name (`ld_per_request`,
//! `stride`) into an axis label with its unit, and a parameter's value into a phrase
//! (`width 4 B`, `warp 32`).

/// The axis label, with its unit, of result column `column`; unknown columns come back
/// as they are.
pub fn column_label(column: &str) -> String {
    let s = match column {
        "degree" => "conflict degree (wavefronts ÷ conflict-free wavefronts)",
        "ld_degree" => "load conflict degree (wavefronts ÷ conflict-free)",
        "st_degree" => "store conflict degree (wavefronts ÷ conflict-free)",
        "per_request" => "wavefronts per warp request",
        "ld_per_request" => "wavefronts per load request",
        "st_per_request" => "wavefronts per store request",
        "wavefronts" => "wavefronts (count)",
        "ld_wavefronts" => "load wavefronts (count)",
        "st_wavefronts" => "store wavefronts (count)",
        "ideal" => "conflict-free wavefronts (count)",
        "conflicts" => "bank conflicts (extra wavefronts)",
        "requests" => "warp requests (count)",
        "lanes" => "active lanes (count)",
        "cycles" => "simulated cycles (whole kernel, cycle engine)",
        "blocks_per_sm" => "blocks per SM",
        "stride" => "stride (elements)",
        "width" => "element width (bytes)",
        "pad" => "row padding (elements)",
        "skew" => "skew (elements)",
        "k" => "struct size k (4-byte words)",
        "soa" => "layout (0 = array of structs, 1 = struct of arrays)",
        "threads" => "threads per block",
        "warp" => "warp size (lanes)",
        "banks" => "banks",
        "rows" => "tile rows",
        "cols" => "tile columns (elements)",
        "crossbar.width" => "crossbar width (bytes per wavefront)",
        "crossbar.ports" => "bank ports (words per bank per wavefront)",
        other => other,
    };
    s.to_string()
}

/// A short name of result column `column` for titles (`conflict degree`, `stride`).
pub fn column_short(column: &str) -> String {
    let s = match column {
        "degree" => "conflict degree",
        "ld_degree" => "load conflict degree",
        "st_degree" => "store conflict degree",
        "per_request" => "wavefronts per request",
        "ld_per_request" => "wavefronts per load",
        "cycles" => "simulated kernel cycles",
        "st_per_request" => "wavefronts per store",
        "blocks_per_sm" => "blocks per SM",
        "pad" => "padding",
        "k" => "struct size",
        "soa" => "layout",
        "crossbar.width" => "crossbar width",
        other => other,
    };
    s.to_string()
}

/// Parameter `column` at `value` in words: `width 4 B`, `warp 32`, `16 banks`, `SoA`,
/// `g80` (presets and workloads by name).
pub fn describe(column: &str, value: &str) -> String {
    match column {
        "preset" | "workload" => value.to_string(),
        "width" => format!("width {value} B"),
        "warp" => format!("warp {value}"),
        "banks" => format!("{value} banks"),
        "threads" => format!("{value} threads"),
        "soa" => match value {
            "0" | "false" => "array of structs".into(),
            "1" | "true" => "struct of arrays".into(),
            v => format!("soa {v}"),
        },
        "stride" => format!("stride {value}"),
        "pad" => format!("padding {value}"),
        "skew" => format!("skew {value}"),
        "k" => format!("k = {value} words"),
        "rows" => format!("{value} rows"),
        "cols" => format!("{value} columns"),
        "crossbar.width" => format!("crossbar {value} B"),
        "crossbar.ports" => format!("{value} port{}", if value == "1" { "" } else { "s" }),
        other => format!("{other} {value}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_in_words() {
        assert_eq!(column_label("ld_per_request"), "wavefronts per load request");
        assert_eq!(column_label("stride"), "stride (elements)");
        assert_eq!(column_label("mystery"), "mystery");
        assert_eq!(describe("width", "4"), "width 4 B");
        assert_eq!(describe("soa", "1"), "struct of arrays");
    }
}
