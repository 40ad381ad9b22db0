#!/usr/bin/env bash
# Call KM: the variant probe prepared last session for the f16 B2 H8 S512 slowdown after 97ac5ad, as written there
# (docs/benchmarks/2026-11-30-h200-o-store/probe-b2h8.sh; dist/b2h8.txz built then). Output in call-km/.
exec bash docs/benchmarks/2026-11-30-h200-o-store/probe-b2h8.sh
