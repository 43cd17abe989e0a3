// libpq, the PostgreSQL client library, loaded at run time with dlopen: the build never links it, so the
// default service needs nothing beyond the toolchain. Only the calls kwsuggest makes are declared; their
// signatures are libpq's (libpq-fe.h), which has kept them stable since PostgreSQL 9.
#ifndef KWSUGGEST_CPOSTGRES_H
#define KWSUGGEST_CPOSTGRES_H

#include <stddef.h>

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

/// libpq's notification record (struct pgNotify).
typedef struct kw_pg_notify {
    char *relname;
    int be_pid;
    char *extra;
    struct kw_pg_notify *next;
} kw_pg_notify;

/// ConnStatusType CONNECTION_OK, ExecStatusType PGRES_COMMAND_OK / PGRES_TUPLES_OK, PG_DIAG_SQLSTATE.
enum { KW_CONNECTION_OK = 0, KW_PGRES_COMMAND_OK = 1, KW_PGRES_TUPLES_OK = 2, KW_PG_DIAG_SQLSTATE = 'C' };

/// The libpq functions kwsuggest calls, resolved by kw_pq_load.
typedef struct kw_libpq {
    PGconn *(*connectdb)(const char *conninfo);
    int (*status)(const PGconn *conn);
    char *(*errorMessage)(const PGconn *conn);
    void (*finish)(PGconn *conn);
    PGresult *(*execParams)(PGconn *conn, const char *command, int nParams, const unsigned int *paramTypes,
                            const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                            int resultFormat);
    int (*resultStatus)(const PGresult *res);
    char *(*resultErrorMessage)(const PGresult *res);
    char *(*resultErrorField)(const PGresult *res, int fieldcode);
    int (*ntuples)(const PGresult *res);
    int (*nfields)(const PGresult *res);
    char *(*getvalue)(const PGresult *res, int row, int column);
    int (*getisnull)(const PGresult *res, int row, int column);
    void (*clear)(PGresult *res);
    int (*socket)(const PGconn *conn);
    int (*consumeInput)(PGconn *conn);
    kw_pg_notify *(*notifies)(PGconn *conn);
    void (*freemem)(void *ptr);
    int (*libVersion)(void);
} kw_libpq;

/// Loads libpq from `path` (normally "libpq.so.5") and resolves every function. Returns 0 on success;
/// otherwise -1 with a one-line reason in `error`.
int kw_pq_load(const char *path, kw_libpq *library, char *error, size_t errorSize);

#endif
