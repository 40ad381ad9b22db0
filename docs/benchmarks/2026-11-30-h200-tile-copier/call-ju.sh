#!/usr/bin/env bash
# Call JU: call BG's Nsight Compute comparison (docs/benchmarks/2026-11-27-h100-seed-profile/,
# then on the H100 with build 12d5a33) again on the H200 with the copier's pack (e415cda): our
# kernel and cuDNN's, one launch each as the graph replay sees them, on f16 S512 D64 B4 H16, B8 H16
# and B4 H8 (and our 128-row two-consumer ws tile forced on the first two). Results in
# $OUT/call-bg/summary.txt (call-bf.sh's layout; this page keeps them as call-ju/).
PROFILE_AS=graph exec bash docs/benchmarks/2026-11-27-h100-seed-profile/call-bf.sh
