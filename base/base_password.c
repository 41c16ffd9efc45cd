/*
 * base_password.c — people's passwords, hashed with Argon2id (libargon2,
 * RFC 9106) at OWASP's recommended cost: 19 MiB of memory, 2 passes, one
 * lane.  The encoded hash carries its parameters and salt, so a later
 * change of cost still verifies old hashes.
 */
#include "base.h"

#include <argon2.h>
#include <openssl/rand.h>
#include <string.h>

#define PASSES 2
#define MEMORY_KIB (19 * 1024)
#define LANES 1
#define SALT_BYTES 16
#define HASH_BYTES 32

bool base_password_hash(const char *password, char *out, size_t size)
{
    unsigned char salt[SALT_BYTES];
    if (RAND_bytes(salt, sizeof salt) != 1)
        return false;
    return argon2id_hash_encoded(PASSES, MEMORY_KIB, LANES, password, strlen(password), salt,
                                 sizeof salt, HASH_BYTES, out, size) == ARGON2_OK;
}

bool base_password_verify(const char *encoded, const char *password)
{
    return encoded != NULL && encoded[0] != '\0' &&
           argon2id_verify(encoded, password, strlen(password)) == ARGON2_OK;
}
