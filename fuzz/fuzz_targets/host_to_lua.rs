#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| karmada_interpreter_fuzz::host_to_lua(data));
