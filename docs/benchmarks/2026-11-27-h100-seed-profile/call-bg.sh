#!/usr/bin/env bash
# Call BG (issue 12 groundwork, no kernel change): call BF again as the graph replay sees the
# kernels (inputs hot in L2, clocks not locked, stall reasons printed), with our 128-row
# two-consumer ws tile, cuDNN's shape, forced on B4 H16 and B8 H16. See call-bf.sh.
PROFILE_AS=graph exec bash "$(dirname "$0")/call-bf.sh"
