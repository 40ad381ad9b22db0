#!/usr/bin/env bash
# Call KK: the same pack as call KH (0587210), the fuzzer's whole space, 500 cases on a new seed (the general
# variants' key loop changed for packed varlen; call KF fuzzed 97ac5ad). Results in $OUT/call-kk/.
OUT=${OUT:-gpu-out}/call-kk FUZZ_ARGS='--cases 500 --seed 25' exec scripts/gpu-run.sh fuzz
