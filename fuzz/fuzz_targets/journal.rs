//! The sweep journal parser (`cells.jsonl`): any bytes, torn lines included, parse to
//! the finished cells of the whole lines, and never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = pipeline::study::journal::parse(data);
    // whole lines end at a newline, and a torn tail is never read
    assert!(parsed.whole <= data.len());
    assert!(parsed.whole == 0 || data[parsed.whole - 1] == b'\n');
    assert!(data[parsed.whole..].iter().all(|&b| b != b'\n'));
    let again = pipeline::study::journal::parse(&data[..parsed.whole]);
    assert_eq!(again.cells, parsed.cells);
    assert_eq!(again.hash, parsed.hash);
});
