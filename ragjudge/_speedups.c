/* Compiled kernels for the hot loops of the heuristic path; each has a pure-Python twin with the same results.
 *
 * 1. fractions() -- word-overlap fractions for the ``overlap`` judge, without a Python object per word.
 *
 * fractions(targets, premises, offsets, members, out, lowercase, strip) fills ``out[i]`` with
 *
 *     max over p in premises[members[offsets[i]:offsets[i + 1]]] of |W(targets[i]) & W(p)| / |W(targets[i])|
 *
 * (0.0 when the group is empty, -1.0 when the target has no words), where W(text) is exactly the word set the
 * pure-Python path builds: ``frozenset(text.lower().translate(punctuation -> space).split())`` with the
 * ``.lower()`` only when ``lowercase`` and the translation only when ``strip``. Words are split on
 * ``Py_UNICODE_ISSPACE`` (what ``str.split()`` uses) and, with ``strip``, on ASCII punctuation
 * (``string.punctuation``). ASCII texts are case-folded inline; any other text goes through ``str.lower()``,
 * so full Unicode case mapping is Python's own.
 *
 * Each target's distinct words are hashed once (a 64-bit hash of the code points). Then, premise by premise,
 * the premise's words go into one scratch open-addressing table, probed by every target that premise serves
 * (the table stays in cache; a premise no target uses is never read). A hit compares the code points, so a
 * hash collision can never count a word that is not there.
 *
 * 2. split_sentences() -- the claim splitter's ``re.split(r"(?<=[.!?])\s+", text)`` + ``strip`` + length rule
 *    (ragjudge.metrics.claims.SentenceSplitter.split_flat), over a whole batch of texts.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t length;
    int fold;                  /* ASCII text to case-fold inline */
    const unsigned char *map;  /* one-byte text: FOLD or SAME; NULL for wider kinds */
    PyObject *owned;           /* a lowered copy (non-ASCII text), or NULL */
} Text;

static unsigned char FOLD[256], SAME[256];
static unsigned char SPACE[256], SPACE_OR_PUNCT[256]; /* separators among the first 256 code points */

#define INLINE static inline __attribute__((always_inline))

typedef struct {
    uint64_t hash; /* 0: empty slot */
    Py_ssize_t start;
    Py_ssize_t len;
} Word;

typedef struct {
    Word *items;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Words;

static const unsigned char PUNCT[128] = {
    ['!'] = 1, ['"'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['('] = 1, [')'] = 1,
    ['*'] = 1, ['+'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1, ['/'] = 1, [':'] = 1, [';'] = 1, ['<'] = 1,
    ['='] = 1, ['>'] = 1, ['?'] = 1, ['@'] = 1, ['['] = 1, ['\\'] = 1, [']'] = 1, ['^'] = 1, ['_'] = 1,
    ['`'] = 1, ['{'] = 1, ['|'] = 1, ['}'] = 1, ['~'] = 1,
};

static void init_tables(void) {
    for (int c = 0; c < 256; c++) {
        SAME[c] = (unsigned char)c;
        FOLD[c] = (unsigned char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
        SPACE[c] = Py_UNICODE_ISSPACE((Py_UCS4)c) ? 1 : 0;
        SPACE_OR_PUNCT[c] = SPACE[c] || (c < 128 && PUNCT[c]);
    }
}

static inline Py_UCS4 char_at(const Text *t, Py_ssize_t i) {
    Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i);
    return (t->fold && c >= 'A' && c <= 'Z') ? c + 32 : c;
}

static inline int is_separator(Py_UCS4 c, int strip) {
    return Py_UNICODE_ISSPACE(c) || (strip && c < 128 && PUNCT[c]);
}

static int text_open(Text *t, PyObject *obj, int lowercase) {
    t->owned = NULL;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "expected str, got %.100s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    t->fold = 0;
    if (lowercase) {
        if (PyUnicode_IS_ASCII(obj)) {
            t->fold = 1;
        } else {
            t->owned = PyObject_CallMethod(obj, "lower", NULL);
            if (t->owned == NULL) return -1;
            obj = t->owned;
        }
    }
    t->kind = PyUnicode_KIND(obj);
    t->data = PyUnicode_DATA(obj);
    t->length = PyUnicode_GET_LENGTH(obj);
    t->map = t->kind == PyUnicode_1BYTE_KIND ? (t->fold ? FOLD : SAME) : NULL;
    return 0;
}

static void text_close(Text *t) { Py_CLEAR(t->owned); }

/* Make room for one more item in a growable array (doubling); -1 with MemoryError set on failure. */
static int reserve(void **items, Py_ssize_t *capacity, Py_ssize_t size, size_t item_size) {
    if (size < *capacity) return 0;
    Py_ssize_t grown = *capacity ? 2 * *capacity : 32;
    void *moved = PyMem_Realloc(*items, (size_t)grown * item_size);
    if (moved == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *items = moved;
    *capacity = grown;
    return 0;
}

static int words_push(Words *w, uint64_t hash, Py_ssize_t start, Py_ssize_t len) {
    if (reserve((void **)&w->items, &w->capacity, w->size, sizeof(Word)) < 0) return -1;
    w->items[w->size].hash = hash;
    w->items[w->size].start = start;
    w->items[w->size].len = len;
    w->size++;
    return 0;
}

/* A word's hash is a function of its code points alone (so a word hashes alike in a one-byte and in a wider
 * string): code points below 256 are packed eight to a 64-bit lane and mixed a lane at a time; a wider one
 * flushes the lane and is mixed on its own; the length is mixed in last. */
INLINE uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
    return x;
}

typedef struct {
    uint64_t hash, lane;
    int shift;
} Hasher;

INLINE void hash_narrow(Hasher *h, uint64_t c) {
    h->lane |= c << h->shift;
    h->shift += 8;
    if (h->shift == 64) {
        h->hash = mix(h->hash ^ h->lane);
        h->lane = 0;
        h->shift = 0;
    }
}

INLINE void hash_wide(Hasher *h, uint64_t c) {
    h->hash = mix(mix(h->hash ^ h->lane) ^ (c | (1ULL << 63)));
    h->lane = 0;
    h->shift = 0;
}

INLINE uint64_t hash_end(const Hasher *h, Py_ssize_t len) { return (mix(h->hash ^ h->lane) + (uint64_t)len) | 1; }

/* Append the words of ``t`` (in order, with repeats) to ``out``. */
static int tokenise(const Text *t, int strip, Words *out) {
    Py_ssize_t i = 0, n = t->length;
    if (t->map != NULL) { /* one byte per code point: table lookups, no kind dispatch */
        const Py_UCS1 *s = t->data;
        const unsigned char *map = t->map, *sep = strip ? SPACE_OR_PUNCT : SPACE;
        while (i < n) {
            while (i < n && sep[s[i]]) i++;
            if (i >= n) break;
            Py_ssize_t start = i;
            Hasher h = {0, 0, 0};
            for (; i < n && !sep[s[i]]; i++) hash_narrow(&h, map[s[i]]);
            if (words_push(out, hash_end(&h, i - start), start, i - start) < 0) return -1;
        }
        return 0;
    }
    while (i < n) {
        while (i < n && is_separator(char_at(t, i), strip)) i++;
        if (i >= n) break;
        Py_ssize_t start = i;
        Hasher h = {0, 0, 0};
        for (; i < n; i++) {
            Py_UCS4 c = char_at(t, i);
            if (is_separator(c, strip)) break;
            if (c < 256) {
                hash_narrow(&h, c);
            } else {
                hash_wide(&h, c);
            }
        }
        if (words_push(out, hash_end(&h, i - start), start, i - start) < 0) return -1;
    }
    return 0;
}

INLINE int same_word(const Text *a, const Word *x, const Text *b, const Word *y) {
    if (x->hash != y->hash || x->len != y->len) return 0;
    if (a->map != NULL && b->map != NULL) {
        const Py_UCS1 *s = (const Py_UCS1 *)a->data + x->start, *r = (const Py_UCS1 *)b->data + y->start;
        for (Py_ssize_t k = 0; k < x->len; k++) {
            if (a->map[s[k]] != b->map[r[k]]) return 0;
        }
        return 1;
    }
    for (Py_ssize_t k = 0; k < x->len; k++) {
        if (char_at(a, x->start + k) != char_at(b, y->start + k)) return 0;
    }
    return 1;
}

static Py_ssize_t table_capacity(Py_ssize_t words) {
    Py_ssize_t capacity = 4;
    while (capacity < 2 * words) capacity *= 2;
    return capacity;
}

/* Open addressing with linear probing; a slot holds 1 + the index of its word in ``base`` (0: empty).
 * Returns the slot holding a word equal to ``word`` (``*found`` = 1) or the empty slot where it would go. */
INLINE Py_ssize_t table_find(const uint32_t *slots, Py_ssize_t capacity, const Word *base, const Text *owner,
                             const Text *text, const Word *word, int *found) {
    Py_ssize_t mask = capacity - 1, j = (Py_ssize_t)(word->hash & (uint64_t)mask);
    while (slots[j]) {
        if (same_word(owner, &base[slots[j] - 1], text, word)) {
            *found = 1;
            return j;
        }
        j = (j + 1) & mask;
    }
    *found = 0;
    return j;
}

/* Grow a scratch table to at least ``capacity`` slots and clear it. */
static uint32_t *scratch_table(uint32_t **slots, Py_ssize_t *have, Py_ssize_t capacity) {
    if (capacity > *have) {
        PyMem_Free(*slots);
        *slots = PyMem_Malloc((size_t)capacity * sizeof(uint32_t));
        if (*slots == NULL) {
            *have = 0;
            PyErr_NoMemory();
            return NULL;
        }
        *have = capacity;
    }
    memset(*slots, 0, (size_t)capacity * sizeof(uint32_t));
    return *slots;
}

static PyObject *fractions(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *targets, *premises;
    Py_buffer offsets_view = {0}, members_view = {0}, out_view = {0};
    int lowercase, strip;
    if (!PyArg_ParseTuple(args, "O!O!y*y*w*pp", &PyList_Type, &targets, &PyList_Type, &premises, &offsets_view,
                          &members_view, &out_view, &lowercase, &strip)) {
        return NULL;
    }
    /* The buffers come from ragjudge.judges.overlap: int64 offsets and members, a float64 out. */
    PyObject *result = NULL;
    Py_ssize_t n = PyList_GET_SIZE(targets), m = PyList_GET_SIZE(premises), opened = 0, have = 0;
    Py_ssize_t n_members = members_view.len / 8;
    const int64_t *offsets = offsets_view.buf, *members = members_view.buf;
    double *out = out_view.buf;
    Text *texts = NULL;
    Py_ssize_t *first = NULL, *distinct = NULL, *best = NULL, *start = NULL, *users = NULL;
    uint32_t *slots = NULL;
    Words words = {0}, premise = {0};

    if (offsets_view.len != 8 * (n + 1) || out_view.len != 8 * n || members_view.len % 8) {
        PyErr_SetString(PyExc_ValueError, "offsets must hold len(targets) + 1 int64, out len(targets) float64");
        goto done;
    }
    texts = PyMem_Calloc((size_t)(n + 1), sizeof(Text));
    first = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    distinct = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    best = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    start = PyMem_Calloc((size_t)(m + 2), sizeof(Py_ssize_t));
    users = PyMem_Calloc((size_t)(n_members + 1), sizeof(Py_ssize_t));
    if (!texts || !first || !distinct || !best || !start || !users) {
        PyErr_NoMemory();
        goto done;
    }

    /* 1. Each target's distinct words, compacted into ``words`` (its slice: first[i], distinct[i]). */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (text_open(&texts[i], PyList_GET_ITEM(targets, i), lowercase) < 0) goto done;
        opened = i + 1;
        first[i] = words.size;
        if (tokenise(&texts[i], strip, &words) < 0) goto done;
        Py_ssize_t size = words.size - first[i], capacity = table_capacity(size), count = 0;
        if (words.size >= (Py_ssize_t)UINT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "too many words for one batch");
            goto done;
        }
        Word *mine = words.items + first[i];
        if (size <= 24) { /* a short text: a linear scan beats clearing a table */
            for (Py_ssize_t k = 0; k < size; k++) {
                Py_ssize_t q = 0;
                while (q < count && !same_word(&texts[i], &mine[q], &texts[i], &mine[k])) q++;
                if (q == count) mine[count++] = mine[k];
            }
        } else {
            if (scratch_table(&slots, &have, capacity) == NULL) goto done;
            for (Py_ssize_t k = 0; k < size; k++) {
                int found;
                Py_ssize_t j = table_find(slots, capacity, mine, &texts[i], &texts[i], &mine[k], &found);
                if (!found) {
                    mine[count] = mine[k];
                    slots[j] = (uint32_t)(++count);
                }
            }
        }
        distinct[i] = count;
        words.size = first[i] + count;
    }

    /* 2. Which targets each premise serves (counting sort of the members). */
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t lo = offsets[i], hi = offsets[i + 1];
        if (lo < 0 || hi < lo || hi > n_members) {
            PyErr_Format(PyExc_IndexError, "offsets[%zd:%zd] out of range", i, i + 2);
            goto done;
        }
        for (int64_t g = lo; g < hi; g++) {
            if (members[g] < 0 || members[g] >= m) {
                PyErr_Format(PyExc_IndexError, "members[%lld] = %lld is not a premise index", (long long)g,
                             (long long)members[g]);
                goto done;
            }
            start[members[g] + 2]++;
        }
    }
    for (Py_ssize_t p = 0; p < m; p++) start[p + 2] += start[p + 1];
    for (Py_ssize_t i = 0; i < n; i++) {
        for (int64_t g = offsets[i]; g < offsets[i + 1]; g++) users[start[members[g] + 1]++] = i;
    }

    /* 3. Premise by premise: its word table (scratch, hot in cache), probed by every target it serves. */
    for (Py_ssize_t p = 0; p < m; p++) {
        if (start[p] == start[p + 1]) continue;
        Text text;
        if (text_open(&text, PyList_GET_ITEM(premises, p), lowercase) < 0) goto done;
        premise.size = 0;
        if (tokenise(&text, strip, &premise) < 0 || premise.size >= (Py_ssize_t)UINT32_MAX) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_OverflowError, "premise too long");
            text_close(&text);
            goto done;
        }
        Py_ssize_t capacity = table_capacity(premise.size);
        if (scratch_table(&slots, &have, capacity) == NULL) {
            text_close(&text);
            goto done;
        }
        for (Py_ssize_t k = 0; k < premise.size; k++) {
            int found;
            Py_ssize_t j = table_find(slots, capacity, premise.items, &text, &text, &premise.items[k], &found);
            if (!found) slots[j] = (uint32_t)(k + 1);
        }
        for (Py_ssize_t u = start[p]; u < start[p + 1]; u++) {
            Py_ssize_t i = users[u], hits = 0;
            if (best[i] == distinct[i]) continue; /* already all found, or no words */
            const Word *mine = words.items + first[i];
            for (Py_ssize_t k = 0; k < distinct[i]; k++) {
                int found;
                table_find(slots, capacity, premise.items, &text, &texts[i], &mine[k], &found);
                hits += found;
            }
            if (hits > best[i]) best[i] = hits;
        }
        text_close(&text);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = distinct[i] ? (double)best[i] / (double)distinct[i] : -1.0;
    }
    result = Py_NewRef(Py_None);

done:
    for (Py_ssize_t i = 0; i < opened; i++) text_close(&texts[i]);
    PyMem_Free(texts);
    PyMem_Free(first);
    PyMem_Free(distinct);
    PyMem_Free(best);
    PyMem_Free(start);
    PyMem_Free(users);
    PyMem_Free(slots);
    PyMem_Free(words.items);
    PyMem_Free(premise.items);
    PyBuffer_Release(&offsets_view);
    PyBuffer_Release(&members_view);
    PyBuffer_Release(&out_view);
    return result;
}

static inline int is_space_at(const Text *t, Py_ssize_t i) {
    Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i);
    return Py_UNICODE_ISSPACE(c);
}

static inline int ends_sentence(const Text *t, Py_ssize_t i) {
    Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i);
    return c == '.' || c == '!' || c == '?';
}

typedef struct {
    int64_t *items;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Owners;

/* Append text[lo:hi].strip() to ``claims`` (owner ``j``) when it is longer than ``min_chars``. */
static int keep_piece(PyObject *text, const Text *t, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t min_chars,
                      Py_ssize_t j, PyObject *claims, Owners *owners) {
    while (lo < hi && is_space_at(t, lo)) lo++;
    while (hi > lo && is_space_at(t, hi - 1)) hi--;
    if (hi - lo <= min_chars) return 0;
    if (reserve((void **)&owners->items, &owners->capacity, owners->size, sizeof(int64_t)) < 0) return -1;
    PyObject *piece = PyUnicode_Substring(text, lo, hi);
    if (piece == NULL) return -1;
    int failed = PyList_Append(claims, piece);
    Py_DECREF(piece);
    if (failed) return -1;
    owners->items[owners->size++] = (int64_t)j;
    return 0;
}

static PyObject *split_sentences(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *texts, *result = NULL, *owner_bytes = NULL;
    Py_ssize_t min_chars;
    int keep_short;
    Owners owners = {0};
    if (!PyArg_ParseTuple(args, "O!np", &PyList_Type, &texts, &min_chars, &keep_short)) return NULL;
    PyObject *claims = PyList_New(0);
    if (claims == NULL) return NULL;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(texts); j++) {
        PyObject *text = PyList_GET_ITEM(texts, j);
        Text t;
        if (text_open(&t, text, 0) < 0) goto done;
        Py_ssize_t n = t.length, start = 0, i = 1, before = owners.size;
        /* re.split(r"(?<=[.!?])\s+"): cut where a whitespace run follows . ! or ?, dropping the run. */
        while (i < n) {
            if (ends_sentence(&t, i - 1) && is_space_at(&t, i)) {
                if (keep_piece(text, &t, start, i, min_chars, j, claims, &owners) < 0) goto done;
                while (i < n && is_space_at(&t, i)) i++;
                start = i;
                i = start + 1;
            } else {
                i++;
            }
        }
        if (keep_piece(text, &t, start, n, min_chars, j, claims, &owners) < 0) goto done;
        /* A non-blank text with no sentence long enough is one claim: the whole text, stripped. */
        if (owners.size == before && keep_short && keep_piece(text, &t, 0, n, 0, j, claims, &owners) < 0) goto done;
    }
    owner_bytes = PyBytes_FromStringAndSize((const char *)owners.items, owners.size * (Py_ssize_t)sizeof(int64_t));
    if (owner_bytes != NULL) result = PyTuple_Pack(2, claims, owner_bytes);
done:
    Py_DECREF(claims);
    Py_XDECREF(owner_bytes);
    PyMem_Free(owners.items);
    return result;
}

static PyMethodDef methods[] = {
    {"split_sentences", split_sentences, METH_VARARGS,
     "split_sentences(texts, min_chars, keep_short): (claims, owners as int64 bytes): each text's sentences "
     "longer than min_chars, stripped; with keep_short a non-blank text without one is its own claim."},
    {"fractions", fractions, METH_VARARGS,
     "fractions(targets, premises, offsets, members, out, lowercase, strip): fill out[i] with the largest "
     "share of targets[i]'s distinct words found in one of its premises (-1.0: no words)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_speedups", "Compiled kernels of ragjudge's heuristic path.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    init_tables();
    return PyModule_Create(&module);
}
