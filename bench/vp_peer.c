/* The benchmark's peer: Jacks or Better 9/6's exact return under optimal play in plain C, by
 * the same method as services/videopoker_analysis (subset sums over every hand, then
 * inclusion-exclusion over the 32 subsets of each deal), over all 2,598,960 deals without
 * suit symmetry. bench/bench_videopoker.py compiles it with `cc -O2` and times it beside the
 * numpy analysis in the same run. Prints the return per coin at 5 coins. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int64_t binom[53][6];
static const int pays[10] = {800, 50, 25, 9, 6, 4, 3, 2, 1, 0};

static int classify(const int *cards) {
    int counts[13] = {0}, suit = cards[0] / 13, flush = 1, mask = 0;
    for (int i = 0; i < 5; i++) {
        counts[cards[i] % 13]++;
        mask |= 1 << (cards[i] % 13);
        if (cards[i] / 13 != suit) flush = 0;
    }
    int pairs = 0, trips = 0, quads = 0, high = 0;
    for (int r = 0; r < 13; r++) {
        if (counts[r] == 2) { pairs++; if (r >= 9) high = 1; }
        if (counts[r] == 3) trips++;
        if (counts[r] == 4) quads++;
    }
    int straight = 0;
    if (__builtin_popcount(mask) == 5) {
        int low = __builtin_ctz(mask);
        if (mask == (0x1F << low) || mask == 0x100F) straight = 1;
    }
    if (straight && flush) return mask == 0x1F00 ? 0 : 1;
    if (quads) return 2;
    if (trips && pairs) return 3;
    if (flush) return 4;
    if (straight) return 5;
    if (trips) return 6;
    if (pairs == 2) return 7;
    if (pairs == 1 && high) return 8;
    return 9;
}

static int64_t rank_of(const int *sorted, int k) {
    int64_t r = 0;
    for (int j = 0; j < k; j++) r += binom[sorted[j]][j + 1];
    return r;
}

int main(void) {
    for (int n = 0; n <= 52; n++)
        for (int k = 0; k <= 5; k++)
            binom[n][k] = k == 0 ? 1 : (n == 0 ? 0 : binom[n - 1][k - 1] + binom[n - 1][k]);
    int64_t *sums[5];
    for (int k = 0; k < 5; k++) sums[k] = calloc((size_t)binom[52][k], sizeof(int64_t));
    int16_t *own = malloc((size_t)binom[52][5] * sizeof(int16_t));
    int c[5], sub[5];
    for (c[4] = 4; c[4] < 52; c[4]++) for (c[3] = 3; c[3] < c[4]; c[3]++)
    for (c[2] = 2; c[2] < c[3]; c[2]++) for (c[1] = 1; c[1] < c[2]; c[1]++)
    for (c[0] = 0; c[0] < c[1]; c[0]++) {
        int pay = pays[classify(c)];
        own[rank_of(c, 5)] = (int16_t)pay;
        for (int mask = 0; mask < 31; mask++) {
            int k = 0;
            for (int i = 0; i < 5; i++) if (mask >> i & 1) sub[k++] = c[i];
            sums[k][rank_of(sub, k)] += pay;
        }
    }
    int64_t draws[6] = {1, 47, 1081, 16215, 178365, 1533939}, scale[6], total = 0;
    for (int m = 0; m < 6; m++) scale[m] = 7669695 / draws[m];
    for (c[4] = 4; c[4] < 52; c[4]++) for (c[3] = 3; c[3] < c[4]; c[3]++)
    for (c[2] = 2; c[2] < c[3]; c[2]++) for (c[1] = 1; c[1] < c[2]; c[1]++)
    for (c[0] = 0; c[0] < c[1]; c[0]++) {
        int64_t value[32];
        for (int mask = 0; mask < 32; mask++) {
            int k = 0;
            for (int i = 0; i < 5; i++) if (mask >> i & 1) sub[k++] = c[i];
            value[mask] = k == 5 ? own[rank_of(sub, 5)] : sums[k][rank_of(sub, k)];
        }
        int64_t best = -1;
        for (int hold = 0; hold < 32; hold++) {
            int64_t t = 0;
            for (int x = hold;; x = (x + 1) | hold) {  /* every superset of hold */
                t += (__builtin_popcount(x ^ hold) & 1) ? -value[x] : value[x];
                if (x == 31) break;
            }
            t *= scale[5 - __builtin_popcount(hold)];
            if (t > best) best = t;
        }
        total += best;
    }
    printf("%.10f\n", (double)total / 7669695.0 / (double)binom[52][5]);
    return 0;
}
