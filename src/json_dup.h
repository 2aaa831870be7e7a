/*
 * json_dup.h — internal: find a repeated key in a cJSON object.  cJSON keeps
 * every member of a key given twice as its own item and its lookups return
 * the first, so a reader that takes values by key must look for repeats
 * itself.  Base layer: the Mooncake trace reader (trace_mooncake.c) and the
 * capacity trace reader (capacity_load.c) use it.  Borrows the tree; allocates only
 * for objects of many members and frees before returning.
 */
#ifndef FLEETSIM_JSON_DUP_H
#define FLEETSIM_JSON_DUP_H

#include <cjson/cJSON.h>

/*
 * The first member of `obj` (in file order) whose key an earlier member of
 * obj already has, with *first set to that earlier member; NULL when every
 * key is given once (or obj is not an object).  Keys compare case-sensitively
 * and byte for byte.  Only obj's own members are compared, not those of
 * nested objects.  O(n^2) string compares up to 16 members, O(n log n) above.
 */
const cJSON *fs__json_dup_key(const cJSON *obj, const cJSON **first);

#endif
