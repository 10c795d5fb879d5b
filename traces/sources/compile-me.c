/* compile-me.c - a small C file for `mmtrace record` to watch gcc's cc1 compile
 * (rec-gcc).  Enough functions, types and inlining to make the compiler work. */
#include <stddef.h>
#include <string.h>

typedef struct node {
    struct node *left, *right;
    int key;
    int height;
} node_t;

static inline int height(const node_t *n) { return n ? n->height : 0; }
static inline int max_int(int a, int b) { return a > b ? a : b; }

static void fix(node_t *n) { n->height = 1 + max_int(height(n->left), height(n->right)); }

static node_t *rotate_right(node_t *n)
{
    node_t *l = n->left;
    n->left = l->right;
    l->right = n;
    fix(n);
    fix(l);
    return l;
}

static node_t *rotate_left(node_t *n)
{
    node_t *r = n->right;
    n->right = r->left;
    r->left = n;
    fix(n);
    fix(r);
    return r;
}

node_t *balance(node_t *n)
{
    fix(n);
    int b = height(n->left) - height(n->right);
    if (b > 1) {
        if (height(n->left->left) < height(n->left->right))
            n->left = rotate_left(n->left);
        return rotate_right(n);
    }
    if (b < -1) {
        if (height(n->right->right) < height(n->right->left))
            n->right = rotate_right(n->right);
        return rotate_left(n);
    }
    return n;
}

node_t *insert(node_t *root, node_t *fresh)
{
    if (!root)
        return fresh;
    if (fresh->key < root->key)
        root->left = insert(root->left, fresh);
    else
        root->right = insert(root->right, fresh);
    return balance(root);
}

size_t count_words(const char *s)
{
    size_t n = 0;
    int in = 0;
    for (; *s; s++) {
        int sp = *s == ' ' || *s == '\t' || *s == '\n';
        n += !sp && !in;
        in = !sp;
    }
    return n;
}

unsigned hash(const char *s, size_t len)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

void matmul(int n, const double *a, const double *b, double *c)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}

int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}
