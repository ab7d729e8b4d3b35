/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for lib/hashmap.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"
#include "lib/macro.h"
#include "tests/unit/test-util.h"

int main(void)
{
        Hashmap *h = NULL;
        char key[32];
        size_t state = 0, seen = 0;
        const char *k;
        void *v;

        check(hashmap_get(NULL, "x") == NULL);
        check(hashmap_size(NULL) == 0);
        check(hashmap_free(NULL) == NULL);
        check(hashmap_new(&h) == 0);
        check(hashmap_get(h, "missing") == NULL);
        check(hashmap_put(h, "a", NULL) == -EINVAL);
        check(hashmap_put(h, NULL, (void *)1) == -EINVAL);

        /* many keys: growth keeps every entry reachable */
        for (uintptr_t i = 1; i <= 20000; i++) {
                snprintf(key, sizeof(key), "key-%zu", (size_t)i);
                check(hashmap_put(h, key, (void *)i) == 0);
        }
        check(hashmap_size(h) == 20000);
        for (uintptr_t i = 1; i <= 20000; i++) {
                snprintf(key, sizeof(key), "key-%zu", (size_t)i);
                check(hashmap_get(h, key) == (void *)i);
        }
        check(hashmap_get(h, "key-0") == NULL);
        check(hashmap_get(h, "key-20001") == NULL);
        check(hashmap_get(h, "") == NULL);

        /* duplicates refused, replace replaces; the key is copied */
        strcpy(key, "key-7");
        check(hashmap_put(h, key, (void *)99) == -EEXIST);
        check(hashmap_get(h, "key-7") == (void *)7);
        check(hashmap_replace(h, key, (void *)99) == 1);
        key[0] = 'X';
        check(hashmap_get(h, "key-7") == (void *)99);
        check(hashmap_replace(h, "", (void *)5) == 0);
        check(hashmap_get(h, "") == (void *)5);
        check(hashmap_size(h) == 20001);

        while (hashmap_iterate(h, &state, &k, &v)) {
                check(hashmap_get(h, k) == v);
                seen++;
        }
        check(seen == 20001);

        /* the hash spreads similar keys */
        check(hashmap_hash_string("a") != hashmap_hash_string("b"));
        check(hashmap_hash_string("ab") != hashmap_hash_string("ba"));

        hashmap_free(h);
        return test_result();
}
