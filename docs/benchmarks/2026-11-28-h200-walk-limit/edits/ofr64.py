# The head-dim-64 walks store O from registers (WarpgroupTile::finish_to_global) as head dim 128's
# do, instead of staging it in an O tile of its own and sending it by TMA store. With argument
# "qin", Q's buffer is still released inside the key loop at head dim 64 (main's place there).
import sys
p = 'cuda-src/sm90/traits.cuh'; s = open(p).read()
old = """    static constexpr bool kSeparateO = kSmemLaunchBytes + kOBytes <= 227 * 1024;
    static constexpr bool kOFromRegisters = !kSeparateO && kHeadDim == 128;"""
new = """    static constexpr bool kSeparateO = kHeadDim != 64 && kSmemLaunchBytes + kOBytes <= 227 * 1024;
    static constexpr bool kOFromRegisters = !kSeparateO && (kHeadDim == 128 || kHeadDim == 64);"""
assert old in s
open(p, 'w').write(s.replace(old, new))
if len(sys.argv) > 1 and sys.argv[1] == "qin":
    p = 'cuda-src/sm90/ws_kernel.cuh'; s = open(p).read()
    old = "constexpr bool kReleaseQAfterLoop = kOFromRegisters;"
    assert old in s
    open(p, 'w').write(s.replace(old, "constexpr bool kReleaseQAfterLoop = kOFromRegisters && Traits::kHeadDim == 128;"))
