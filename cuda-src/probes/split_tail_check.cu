// The split tail's deal on the host (common/walk_deal.cuh, SplitTail and split_tail_deal), checked
// without a GPU over random launches and CTA counts: every tile's keys dealt exactly once, each
// to one CTA (the rounds' whole tiles, the stretches' pieces, the short tiles after them); no
// piece empty; every piece's merge (ws_consumer.cuh, merge_split_tail) finding each piece of its tile in
// the stretches' order and the slot its writer chose; and refusals where the kernel's 32-bit
// deal or 16-bit piece announcement could not hold a launch. Built and run by
// scripts/probes-check.sh (part of scripts/test.sh); exits 1 on the first broken deal.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "common/tile_work.cuh"
#include "common/walk_deal.cuh"

namespace {
using namespace flashattn;

struct Launch {
    int batch, heads, seqlen_q, seqlen_k, block_m, block_n, ctas;
};

FlashAttnFwdParams params_of(const Launch &l, float *workspace) {
    FlashAttnFwdParams p{};
    p.batch = l.batch;
    p.heads_q = p.heads_kv = l.heads;
    p.seqlen_q = l.seqlen_q;
    p.seqlen_k = l.seqlen_k;
    p.head_dim = 128;
    p.window_left = p.window_right = -1;
    p.workspace = workspace;
    p.workspace_floats = 1ll << 40;
    return p;
}

// Where the deal breaks, or an empty string.
std::string check(const Launch &l, const SplitTail &t) {
    const int ctas = l.ctas;
    char why[256];
    // (tile) -> its pieces' key tiles, from every CTA's steps as TileSchedule takes them.
    std::map<int, std::vector<std::pair<int, int>>> dealt;
    for (int c = 0; c < ctas; ++c) {
        for (int round = 0;; ++round) {
            long long i;
            int lo = 0, hi = t.key_tiles;
            if (round < t.rounds) {
                i = c + static_cast<long long>(round) * ctas;
            } else {
                const int step = round - t.rounds;
                const int3 piece = t.piece(c, ctas, step);
                const int stretch = SplitTail::stretch_tiles(t.start(c, ctas), t.start(c + 1, ctas));
                if (piece.x >= 0) {
                    i = piece.x;
                    lo = piece.y;
                    hi = piece.z;
                } else {
                    i = t.full + c + static_cast<long long>(step - stretch) * ctas;
                }
            }
            if (i >= t.count) break;
            if (hi <= lo) {
                std::snprintf(why, sizeof why, "CTA %d round %d: an empty piece of tile %lld", c, round, i);
                return why;
            }
            dealt[static_cast<int>(i)].push_back({lo, hi});
        }
    }
    if (static_cast<int>(dealt.size()) != t.count) return "some tile never dealt";
    for (auto &[tile, pieces] : dealt) {
        std::sort(pieces.begin(), pieces.end());
        int next = 0;
        for (auto [lo, hi] : pieces) {
            if (lo != next) {
                std::snprintf(why, sizeof why, "tile %d: keys from %d dealt twice or missed", tile, next);
                return why;
            }
            next = hi;
        }
        if (next != t.key_tiles) {
            std::snprintf(why, sizeof why, "tile %d: keys past %d never dealt", tile, next);
            return why;
        }
    }
    // Each split piece's merge as merge_split_tail walks it: from the first CTA holding part of the
    // tile (SplitTail::first_cta) forward while a stretch ends inside the tile, each CTA's slot as
    // its writer chose it (its stretch's last piece: ends inside the tile).
    for (int c = 0; c < ctas; ++c) {
        const TailPoint from = t.start(c, ctas), to = t.start(c + 1, ctas);
        for (int step = 0; step < SplitTail::stretch_tiles(from, to); ++step) {
            const int3 piece = t.piece(c, ctas, step);
            if (piece.z - piece.y == t.key_tiles) continue;
            const int i = piece.x;
            const int first = t.first_cta(i, c, ctas);
            int keys = 0;
            bool found_own = false;
            for (int cta = first;; ++cta) {
                const TailPoint a = t.start(cta, ctas), b = t.start(cta + 1, ctas);
                const bool inside = b.tile == i;
                const int lo = a.tile == i ? a.key_tile : 0, hi = inside ? b.key_tile : t.key_tiles;
                if (a.tile > i || hi <= lo) return "a merge walks onto a CTA with no piece of its tile";
                if (cta == c) found_own = inside == (piece.z < t.key_tiles);
                keys += hi - lo;
                if (!inside) break;
            }
            if (keys != t.key_tiles || !found_own) {
                std::snprintf(why, sizeof why, "tile %d: its merge from CTA %d misses pieces or slots", i, c);
                return why;
            }
        }
    }
    return "";
}
}  // namespace

int main() {
    float workspace;
    std::srand(7);
    int launches = 0, splits = 0;
    for (int n = 0; n < 20000; ++n) {
        const int block_m = std::rand() % 2 ? 192 : 128;
        const int block_ns[] = {80, 128, 176, 64};
        const int ctas_of[] = {132, 78, 16, 114, 1, 2};
        const Launch l{1 + std::rand() % 16, 1 + std::rand() % 40, 1 + std::rand() % 6000, 1 + std::rand() % 6000,
                       block_m,           block_ns[std::rand() % 4], ctas_of[n % 6]};
        FlashAttnFwdParams p = params_of(l, &workspace);
        WalkDeal deal{};
        ++launches;
        if (!split_tail_deal(p, l.block_m, l.block_n, tile_grid(p, l.block_m), l.ctas, &deal)) continue;
        ++splits;
        const std::string why = check(l, deal.tail);
        if (!why.empty()) {
            std::printf("split tail: B%d H%d S%d/%d, %d-row %d-key tiles on %d CTAs: %s\n", l.batch, l.heads,
                        l.seqlen_q, l.seqlen_k, l.block_m, l.block_n, l.ctas, why.c_str());
            return 1;
        }
    }
    // Refused: a piece's key tiles past 16 bits, a launch past 32 bits, no workspace.
    const Launch refused[] = {{1, 3, 192 * 47, 1 << 24, 192, 80, 132}, {1, 70, 484, 2000000000, 192, 80, 132}};
    for (const Launch &l : refused) {
        FlashAttnFwdParams p = params_of(l, &workspace);
        WalkDeal deal{};
        if (split_tail_deal(p, l.block_m, l.block_n, tile_grid(p, l.block_m), l.ctas, &deal)) {
            std::printf("split tail: S%d keys on %d-key tiles split, past the announcement's 16 bits\n", l.seqlen_k,
                        l.block_n);
            return 1;
        }
    }
    {
        FlashAttnFwdParams p = params_of({1, 70, 484, 4096, 192, 80, 132}, nullptr);
        WalkDeal deal{};
        if (split_tail_deal(p, 192, 80, tile_grid(p, 192), 132, &deal)) {
            std::printf("split tail: split without a workspace\n");
            return 1;
        }
    }
    std::printf("split tail: %d launches, %d split, every deal whole and every merge complete\n", launches, splits);
    return splits > 0 ? 0 : 1;
}
