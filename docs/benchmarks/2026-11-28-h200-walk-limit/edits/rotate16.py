# Short query tiles dealt by rotation (ShortTileDeal::kRotate) up to 16 query tiles a sequence
# (was 8): bf16 B8 H16 S2048 on the 192-row tile (11 query tiles, the last of 128 rows) then
# rotates instead of dealing its short tiles after all full ones.
p = 'cuda-src/common/tile_work.cuh'; s = open(p).read()
old = "const bool rotate = tiles.x <= 8 &&"
assert old in s
open(p, 'w').write(s.replace(old, "const bool rotate = tiles.x <= 16 &&"))
