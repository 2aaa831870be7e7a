/*
 * sha256.h — SHA-256 (FIPS 180-4) of a byte buffer, for the scenario hash
 * recorded in every output's provenance.  The only hand-written cryptographic
 * code in fleetsim; pure functions, no state between calls.
 */
#ifndef FLEETSIM_SHA256_H
#define FLEETSIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* Digest of data[0..len) into out (32 bytes).  O(len). */
void fs__sha256(const void *data, size_t len, uint8_t out[32]);

/* Same, as 64 lowercase hex digits plus NUL into hex (65 bytes). */
void fs__sha256_hex(const void *data, size_t len, char hex[65]);

#endif
