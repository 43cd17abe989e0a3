// Resolves libpq at run time (see CPostgres.h).
#include "CPostgres.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define RESOLVE(field, symbol)                                                                   \
    do {                                                                                         \
        *(void **)(&library->field) = dlsym(handle, symbol);                                     \
        if (library->field == NULL) {                                                            \
            snprintf(error, errorSize, "libpq has no %s; install a current libpq5", symbol);      \
            return -1;                                                                           \
        }                                                                                        \
    } while (0)

int kw_pq_load(const char *path, kw_libpq *library, char *error, size_t errorSize) {
    // The handle stays open for the life of the process: libpq is needed as long as the store is.
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(error, errorSize,
                 "the PostgreSQL store needs libpq (Debian package libpq5: apt-get install libpq5): %s",
                 reason ? reason : path);
        return -1;
    }
    memset(library, 0, sizeof *library);
    RESOLVE(connectdb, "PQconnectdb");
    RESOLVE(status, "PQstatus");
    RESOLVE(errorMessage, "PQerrorMessage");
    RESOLVE(finish, "PQfinish");
    RESOLVE(execParams, "PQexecParams");
    RESOLVE(resultStatus, "PQresultStatus");
    RESOLVE(resultErrorMessage, "PQresultErrorMessage");
    RESOLVE(resultErrorField, "PQresultErrorField");
    RESOLVE(ntuples, "PQntuples");
    RESOLVE(nfields, "PQnfields");
    RESOLVE(getvalue, "PQgetvalue");
    RESOLVE(getisnull, "PQgetisnull");
    RESOLVE(clear, "PQclear");
    RESOLVE(socket, "PQsocket");
    RESOLVE(consumeInput, "PQconsumeInput");
    RESOLVE(notifies, "PQnotifies");
    RESOLVE(freemem, "PQfreemem");
    RESOLVE(libVersion, "PQlibVersion");
    return 0;
}
