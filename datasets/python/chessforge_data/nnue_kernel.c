/* The CPU trainer's compiled network: the forward and backward of
 * chessforge's float NNUE straight from compact rows, both with the loss
 * in one call (cf_train), and its Adam step.
 * nnue_kernel.py builds this file into a shared library on first use and
 * calls it through ctypes; it falls back to nnue_sparse.py's torch path
 * where no C compiler is found.
 *
 * Every value is computed by one thread in a fixed order, whatever the
 * number of threads: the forward splits the rows among threads to find
 * their features, then the columns; the backward and the Adam step split
 * the columns (or elements). Built with
 * -ffp-contract=off, each product and sum is rounded as written, so the
 * same inputs give the same bits on every x86-64 machine and thread count.
 *
 * Rows: the first 96 bytes of a row are the side to move's 12 piece planes,
 * a byte a rank (rank 1 first), file a the high bit; feature plane*64 +
 * rank*8 + file. The other side sees each piece colour-swapped and
 * rank-mirrored; with mirror, a perspective whose own king stands on files
 * e-h sees every square file-mirrored. */

#include <stdint.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#else /* one thread */
static int omp_get_thread_num(void) { return 0; }
static int omp_get_num_threads(void) { return 1; }
#endif

#define INPUTS 768
#define MAX_PIECES 32

/* the same feature seen from the other side */
static inline int them_of(int f) {
    return (((f >> 6) + 6) % 12) * 64 + ((f & 63) ^ 56);
}

/* The features of one row: us[0..k) the side to move's in the order of
 * its bits, them[0..k) the other side's in the same order; returns k, or
 * -1 for a row with more than MAX_PIECES pieces. */
static int row_features(const uint8_t *row, int mirror, int16_t *us, int16_t *them) {
    int k = 0, flip_us = 0, flip_them = 0;
    for (int byte = 0; byte < 96; byte++) {
        unsigned v = row[byte];
        while (v) {
            int file = __builtin_clz(v) - 24; /* high bit first: file a */
            v &= ~(0x80u >> file);
            if (k == MAX_PIECES)
                return -1;
            int f = byte * 8 + file;
            if (f >> 6 == 5)
                flip_us = (f & 7) >= 4 ? 7 : 0;
            else if (f >> 6 == 11)
                flip_them = (f & 7) >= 4 ? 7 : 0;
            us[k++] = (int16_t)f;
        }
    }
    for (int i = 0; i < k; i++)
        them[i] = (int16_t)them_of(us[i]);
    if (mirror)
        for (int i = 0; i < k; i++) {
            us[i] ^= (int16_t)flip_us;
            them[i] ^= (int16_t)flip_them;
        }
    return k;
}

static inline int bucket_of(int pieces, int buckets) {
    int b = (pieces > 2 ? pieces - 2 : 0) / (32 / buckets);
    return b < buckets - 1 ? b : buckets - 1;
}

/* The chunk [*lo, *hi) of 0..n that thread t of nt takes, in steps of step. */
static void share(int n, int step, int t, int nt, int *lo, int *hi) {
    int chunks = (n + step - 1) / step;
    *lo = (int)((long)chunks * t / nt) * step;
    *hi = (int)((long)chunks * (t + 1) / nt) * step;
    if (*hi > n)
        *hi = n;
}

/* Eight floats in one vector (GCC's and Clang's vector extensions: a
 * 256-bit register with AVX, two 128-bit ones without). */
typedef float v8 __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
#define BLOCK 8 /* vectors of columns that a loop keeps in registers */

static inline v8 load8(const float *p) {
    v8 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store8(float *p, v8 v) { memcpy(p, &v, sizeof v); }

/* where(m, x) is x where m is set, else 0 */
static inline v8 where(v8i m, v8 x) { return (v8)(m & (v8i)x); }

/* clamp(x, 0, 1), exactly as written in scalars */
static inline v8 clamp01(v8 x) {
    const v8 one = {1, 1, 1, 1, 1, 1, 1, 1}, zero = {0};
    v8 c = where(x > zero, x);
    v8i above = c > one;
    return (v8)(((v8i)c & ~above) | ((v8i)one & above));
}

/* forward_block: columns j0 to j0 + 8 nq of one perspective's accumulator
 * a (the rows of features fs[0..k), then + b1); returns w . screlu(a) over
 * them, by lane. nq is at most BLOCK. */
static inline v8 forward_block(int nq, int j0, int h, int k, const int16_t *fs, const float *w1,
                               const float *b1, const float *w, float *a) {
    v8 r[BLOCK] = {{0}}, dot = {0};
    for (int i = 0; i < k; i++) {
        const float *row = w1 + (long)fs[i] * h + j0;
        for (int q = 0; q < nq; q++)
            r[q] = i ? r[q] + load8(row + 8 * q) : load8(row + 8 * q);
    }
    for (int q = 0; q < nq; q++) {
        v8 x = r[q] + load8(b1 + j0 + 8 * q);
        store8(a + j0 + 8 * q, x);
        v8 c = clamp01(x);
        dot += c * c * load8(w + j0 + 8 * q);
    }
    return dot;
}

/* backward_block: columns j0 to j0 + 8 nq of one perspective of one
 * position (accumulator a, output weights w, the loss's gradient gp):
 * adds its share to the gradients of W2 (gw), b1 and the rows of W1 of
 * its features fs[0..k). */
static inline void backward_block(int nq, int j0, int h, int k, const int16_t *fs, const float *a,
                                  const float *w, float gp, float *gw1, float *gb1, float *gw) {
    const v8 one = {1, 1, 1, 1, 1, 1, 1, 1};
    v8 g8 = {gp, gp, gp, gp, gp, gp, gp, gp}, ga[BLOCK];
    for (int q = 0; q < nq; q++) {
        int j = j0 + 8 * q;
        v8 x = load8(a + j), c = clamp01(x);
        store8(gw + j, load8(gw + j) + g8 * (c * c));
        v8 t = g8 * (2 * load8(w + j));
        ga[q] = where(x <= one, t * c);
        store8(gb1 + j, load8(gb1 + j) + ga[q]);
    }
    for (int i = 0; i < k; i++) {
        float *row = gw1 + (long)fs[i] * h + j0;
        for (int q = 0; q < nq; q++)
            store8(row + 8 * q, load8(row + 8 * q) + ga[q]);
    }
}

/* The features, counts and buckets of rows [lo, hi) of packed (feats
 * [., 2, 32], count and bkt indexed as the rows); returns 0, or 1 + the
 * index of the first of them with too many pieces (which is given none). */
static int find_features(int lo, int hi, const uint8_t *packed, int stride, int mirror, int buckets,
                         int16_t *feats, int32_t *count, int32_t *bkt) {
    int bad = 0;
    for (int p = lo; p < hi; p++) {
        int16_t *us = feats + (long)p * 2 * MAX_PIECES, *them = us + MAX_PIECES;
        int k = row_features(packed + (long)p * stride, mirror, us, them);
        if (k < 0) {
            if (!bad)
                bad = p + 1;
            k = 0;
        }
        count[p] = k;
        bkt[p] = bucket_of(k, buckets);
    }
    return bad;
}

/* forward_columns: columns [lo, hi) (whole blocks of 8 BLOCK, the last
 * possibly part of one) of the accumulators of rows [0, n), and their
 * blocks' partial dot products in part [n, 2 blocks]. */
static void forward_columns(int n, int lo, int hi, int h, int blocks, const int16_t *feats,
                            const int32_t *count, const int32_t *bkt, const float *w1, const float *b1,
                            const float *w2, float *acc, float *part) {
    for (int p = 0; p < n; p++) {
        int k = count[p];
        for (int s = 0; s < 2; s++) {
            const int16_t *fs = feats + (long)p * 2 * MAX_PIECES + s * MAX_PIECES;
            float *a = acc + (long)p * 2 * h + (long)s * h;
            const float *w = w2 + (long)bkt[p] * 2 * h + (long)s * h;
            for (int j0 = lo; j0 < hi; j0 += 8 * BLOCK) {
                int nq = hi - j0 >= 8 * BLOCK ? BLOCK : (hi - j0) / 8;
                v8 dot = nq == BLOCK ? forward_block(BLOCK, j0, h, k, fs, w1, b1, w, a)
                                     : forward_block(nq, j0, h, k, fs, w1, b1, w, a);
                float sum = 0;
                for (int l = 0; l < 8; l++)
                    sum += dot[l];
                part[(long)p * 2 * blocks + s * blocks + j0 / (8 * BLOCK)] = sum;
            }
        }
    }
}

/* out [n]: each row's partial dot products, added in their order, + b2 */
static void sum_parts(int n, int blocks, const float *part, const int32_t *bkt, const float *b2, float *out) {
    for (int p = 0; p < n; p++) {
        float sum = 0;
        for (int i = 0; i < 2 * blocks; i++)
            sum += part[(long)p * 2 * blocks + i];
        out[p] = sum + b2[bkt[p]];
    }
}

/* zero_columns: columns [lo, hi) of the gradients of W1, b1 and W2 */
static void zero_columns(int lo, int hi, int h, int buckets, float *gw1, float *gb1, float *gw2) {
    int w = hi - lo;
    if (w <= 0)
        return;
    for (int f = 0; f < INPUTS; f++)
        memset(gw1 + (long)f * h + lo, 0, sizeof(float) * w);
    for (int b = 0; b < 2 * buckets; b++)
        memset(gw2 + (long)b * h + lo, 0, sizeof(float) * w);
    memset(gb1 + lo, 0, sizeof(float) * w);
}

/* backward_columns: adds the share of rows [0, n) (the gradient g of
 * their outputs) to columns [lo, hi) of the gradients of W1, b1 and W2,
 * the rows in their order. */
static void backward_columns(int n, int lo, int hi, int h, const float *acc, const int16_t *feats,
                             const int32_t *count, const int32_t *bkt, const float *w2, const float *g,
                             float *gw1, float *gb1, float *gw2) {
    for (int p = 0; p < n; p++) {
        int k = count[p];
        float gp = g[p];
        for (int s = 0; s < 2; s++) {
            const int16_t *fs = feats + (long)p * 2 * MAX_PIECES + s * MAX_PIECES;
            long at = (long)p * 2 * h + (long)s * h, wat = (long)bkt[p] * 2 * h + (long)s * h;
            int j0 = lo;
            for (; j0 + 8 * BLOCK <= hi; j0 += 8 * BLOCK)
                backward_block(BLOCK, j0, h, k, fs, acc + at, w2 + wat, gp, gw1, gb1, gw2 + wat);
            if (j0 < hi)
                backward_block((hi - j0) / 8, j0, h, k, fs, acc + at, w2 + wat, gp, gw1, gb1, gw2 + wat);
        }
    }
}

/* cf_forward: for n rows of `stride` bytes, the accumulators acc [n, 2h]
 * (before SCReLU: the side to move's then the other side's, the sum of
 * W1's rows of its features in their order, then + b1), the output out [n]
 * = w2[b] . screlu(acc) + b2[b], each row's features feats [n, 2, 32]
 * (int16) and count [n], and its bucket [n]; part [n, 2 ceil(h / 64)] is
 * room for the dot product's partial sums, one a block of 64 columns (added
 * in their order, so that the sum does not depend on the threads). h is a
 * multiple of 8. The threads share the rows for the features, then the
 * columns, so that each reads its own part of W1 (which stays in its
 * cache). Returns 0, or 1 + the index of a row with too many pieces. */
int cf_forward(int n, const uint8_t *packed, int stride, int mirror, int buckets, int h,
               const float *w1, const float *b1, const float *w2, const float *b2,
               float *acc, float *out, int16_t *feats, int32_t *count, int32_t *bkt, float *part,
               int threads) {
    int bad = 0, blocks = (h + 8 * BLOCK - 1) / (8 * BLOCK);
#pragma omp parallel num_threads(threads)
    {
        int lo, hi, t = omp_get_thread_num(), nt = omp_get_num_threads();
        share(n, 1, t, nt, &lo, &hi);
        int b = find_features(lo, hi, packed, stride, mirror, buckets, feats, count, bkt);
        if (b) {
#pragma omp critical
            if (!bad || b < bad)
                bad = b;
        }
#pragma omp barrier
        share(h, 8 * BLOCK, t, nt, &lo, &hi);
        forward_columns(n, lo, hi, h, blocks, feats, count, bkt, w1, b1, w2, acc, part);
    }
    sum_parts(n, blocks, part, bkt, b2, out);
    return bad;
}

/* cf_backward: from cf_forward's acc, feats, count and bkt and the loss's
 * gradient g [n] of out, the gradients of W1 [768, h], b1 [h], W2
 * [buckets, 2h] and b2 [buckets] (written, not added to). SCReLU's
 * derivative is 2 clamp(x, 0, 1) where x <= 1 and 0 beyond, as autograd's
 * clamp gives it. */
void cf_backward(int n, int buckets, int h, const float *acc, const int16_t *feats, const int32_t *count,
                 const int32_t *bkt, const float *w2, const float *g,
                 float *gw1, float *gb1, float *gw2, float *gb2, int threads) {
    for (int b = 0; b < buckets; b++)
        gb2[b] = 0;
    for (int p = 0; p < n; p++)
        gb2[bkt[p]] += g[p];
#pragma omp parallel num_threads(threads)
    {
        int lo, hi;
        share(h, 8 * BLOCK, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        zero_columns(lo, hi, h, buckets, gw1, gb1, gw2);
        backward_columns(n, lo, hi, h, acc, feats, count, bkt, w2, g, gw1, gb1, gw2);
    }
}

/* cf_train: one training step's forward, loss and backward of n rows,
 * fused: loss[0] = the mean of (sigmoid(out * scale) - value)^2 (added in
 * double, the rows in their order), and the gradients of W1, b1, W2 and b2
 * (written, not added to), each value the sum of the same terms in the
 * same order as cf_forward's then cf_backward's, whatever the threads and
 * the tile. The rows go through in tiles of `tile`, so that a tile's
 * accumulators stay in the cache between its forward and its backward;
 * the scratch is a tile's: acc [tile, 2h], feats [tile, 2, 32], count,
 * bkt, out and g [tile], part [tile, 2 ceil(h / 64)]. Returns 0, or 1 +
 * the index of a row with too many pieces. */
int cf_train(int n, const uint8_t *packed, int stride, int mirror, int buckets, int h,
             const float *w1, const float *b1, const float *w2, const float *b2, const float *value,
             float scale, int tile, float *acc, int16_t *feats, int32_t *count, int32_t *bkt, float *part,
             float *out, float *g, float *gw1, float *gb1, float *gw2, float *gb2, double *loss, int threads) {
    int bad = 0, blocks = (h + 8 * BLOCK - 1) / (8 * BLOCK);
    double sum = 0;
    for (int b = 0; b < buckets; b++)
        gb2[b] = 0;
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads(), clo, chi, lo, hi;
        share(h, 8 * BLOCK, t, nt, &clo, &chi);
        zero_columns(clo, chi, h, buckets, gw1, gb1, gw2);
        for (int base = 0; base < n; base += tile) {
            int m = n - base < tile ? n - base : tile;
            const uint8_t *rows = packed + (long)base * stride;
            share(m, 1, t, nt, &lo, &hi);
            int b = find_features(lo, hi, rows, stride, mirror, buckets, feats, count, bkt);
            if (b) {
#pragma omp critical
                if (!bad || base + b < bad)
                    bad = base + b;
            }
#pragma omp barrier
            forward_columns(m, clo, chi, h, blocks, feats, count, bkt, w1, b1, w2, acc, part);
#pragma omp barrier
#pragma omp single
            {
                sum_parts(m, blocks, part, bkt, b2, out);
                for (int p = 0; p < m; p++) {
                    float z = out[p] * scale, s = 1.0f / (1.0f + __builtin_expf(-z));
                    float d = s - value[base + p];
                    sum += (double)d * d;
                    g[p] = 2.0f * d / (float)n * (s * (1.0f - s)) * scale;
                    gb2[bkt[p]] += g[p];
                }
            } /* its barrier: g is whole */
            backward_columns(m, clo, chi, h, acc, feats, count, bkt, w2, g, gw1, gb1, gw2);
#pragma omp barrier
        }
    }
    loss[0] = n ? sum / n : 0;
    return bad;
}

/* cf_adam: one Adam step of n parameters p with gradient g and moments m
 * and v, torch.optim.Adam's arithmetic (AdamW's with decoupled), its
 * scalars as torch rounds them to float: one_b1 = 1 - beta1, one_b2 = 1 -
 * beta2, decay = 1 - lr * wd, step_size = lr / (1 - beta1^step) and
 * bias2_sqrt = sqrt(1 - beta2^step). */
void cf_adam(long n, float *p, const float *g, float *m, float *v, float beta1, float one_b1, float beta2,
             float one_b2, float eps, float wd, int decoupled, float decay, float step_size, float bias2_sqrt,
             int threads) {
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        long chunks = (n + 63) / 64;
        long lo = chunks * t / nt * 64, hi = chunks * (t + 1) / nt * 64;
        if (hi > n)
            hi = n;
        for (long i = lo; i < hi; i++) {
            float x = p[i], gi = g[i];
            if (wd != 0) {
                if (decoupled)
                    x = x * decay;
                else
                    gi = gi + wd * x;
            }
            float mi = m[i] * beta1 + one_b1 * gi;
            float vi = v[i] * beta2 + one_b2 * gi * gi;
            m[i] = mi;
            v[i] = vi;
            float denom = __builtin_sqrtf(vi) / bias2_sqrt + eps;
            x = x - step_size * (mi / denom);
            p[i] = x;
        }
    }
}
