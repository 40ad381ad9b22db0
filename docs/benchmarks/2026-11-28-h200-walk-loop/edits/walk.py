# Every head-dim-128 walk up to LIMIT key tiles (default 1000: every length).
import re, sys
limit = sys.argv[1] if len(sys.argv) > 1 else "1000"
p = 'cuda-src/sm90/traits.cuh'; s = open(p).read()
a = re.search(r"static constexpr int kWalkMaxKeyTiles = \d+;", s).group(0)
open(p, 'w').write(s.replace(a, f"static constexpr int kWalkMaxKeyTiles = {limit};"))
