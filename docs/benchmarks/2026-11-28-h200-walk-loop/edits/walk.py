p='cuda-src/sm90/traits.cuh'; s=open(p).read()
import re; a=re.search(r"static constexpr int kWalkMaxKeyTiles = \d+;", s).group(0)
open(p,'w').write(s.replace(a,"static constexpr int kWalkMaxKeyTiles = 1000;"))
