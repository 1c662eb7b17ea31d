// Trampolines of the NATS C client's functions that ViewLogReplication calls (see include/CNATS.h): each finds the
// library's function by dlsym on its first call and calls it. A new call from Swift needs its trampoline here (the
// link then fails without it: nothing links libnats).
#include "CNATS.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CNATS_STRING2(x) #x
#define CNATS_STRING(x) CNATS_STRING2(x)
#define CNATS_LIBRARY "libnats.so." CNATS_STRING(NATS_VERSION_MAJOR) "." CNATS_STRING(NATS_VERSION_MINOR)

static pthread_once_t cnats_once = PTHREAD_ONCE_INIT;
static void *cnats_handle;
static char cnats_reason[512];

static void cnats_open(void) {
    cnats_handle = dlopen(CNATS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (cnats_handle == NULL) {
        const char *error = dlerror();
        snprintf(cnats_reason, sizeof cnats_reason, "%s", error != NULL ? error : "cannot load " CNATS_LIBRARY);
    }
}

int cnats_load(const char **reason) {
    pthread_once(&cnats_once, cnats_open);
    if (cnats_handle != NULL) return 0;
    if (reason != NULL) *reason = cnats_reason;
    return -1;
}

/// The library's function `name`; a call before a successful cnats_load, or a library without the function, is a
/// programming or installation error that stops the process with a message naming it.
static void *cnats_symbol(const char *name) {
    if (cnats_load(NULL) != 0) {
        fprintf(stderr, "fatal error: %s called, but the NATS client library is not loaded: %s\n", name, cnats_reason);
        abort();
    }
    void *function = dlsym(cnats_handle, name);
    if (function == NULL) {
        fprintf(stderr, "fatal error: %s has no function %s\n", CNATS_LIBRARY, name);
        abort();
    }
    return function;
}

#define CNATS_RESOLVE(name) \
    (__extension__({ \
        static __typeof__(&name) resolved; \
        __typeof__(&name) function = __atomic_load_n(&resolved, __ATOMIC_ACQUIRE); \
        if (function == NULL) { \
            function = (__typeof__(&name))cnats_symbol(#name); \
            __atomic_store_n(&resolved, function, __ATOMIC_RELEASE); \
        } \
        function; \
    }))

void jsCtx_Destroy(jsCtx *js) {
    CNATS_RESOLVE(jsCtx_Destroy)(js);
}

void jsMsgMetaData_Destroy(jsMsgMetaData *meta) {
    CNATS_RESOLVE(jsMsgMetaData_Destroy)(meta);
}

natsStatus jsOptions_Init(jsOptions *opts) {
    return CNATS_RESOLVE(jsOptions_Init)(opts);
}

void jsPubAck_Destroy(jsPubAck *pubAck) {
    CNATS_RESOLVE(jsPubAck_Destroy)(pubAck);
}

natsStatus jsPubOptions_Init(jsPubOptions *opts) {
    return CNATS_RESOLVE(jsPubOptions_Init)(opts);
}

natsStatus jsStreamConfig_Init(jsStreamConfig *cfg) {
    return CNATS_RESOLVE(jsStreamConfig_Init)(cfg);
}

void jsStreamInfo_Destroy(jsStreamInfo *si) {
    CNATS_RESOLVE(jsStreamInfo_Destroy)(si);
}

natsStatus jsSubOptions_Init(jsSubOptions *opts) {
    return CNATS_RESOLVE(jsSubOptions_Init)(opts);
}

natsStatus js_AddStream(jsStreamInfo **si, jsCtx *js, jsStreamConfig *cfg, jsOptions *opts, jsErrCode *errCode) {
    return CNATS_RESOLVE(js_AddStream)(si, js, cfg, opts, errCode);
}

natsStatus js_GetMsg(natsMsg **msg, jsCtx *js, const char *stream, uint64_t seq, jsOptions *opts, jsErrCode *errCode) {
    return CNATS_RESOLVE(js_GetMsg)(msg, js, stream, seq, opts, errCode);
}

natsStatus js_GetStreamInfo(jsStreamInfo **si, jsCtx *js, const char *stream, jsOptions *opts, jsErrCode *errCode) {
    return CNATS_RESOLVE(js_GetStreamInfo)(si, js, stream, opts, errCode);
}

natsStatus js_Publish(jsPubAck **pubAck, jsCtx *js, const char *subj, const void *data, int dataLen, jsPubOptions *opts, jsErrCode *errCode) {
    return CNATS_RESOLVE(js_Publish)(pubAck, js, subj, data, dataLen, opts, errCode);
}

natsStatus js_PublishMsg(jsPubAck **pubAck, jsCtx *js, natsMsg *msg, jsPubOptions *opts, jsErrCode *errCode) {
    return CNATS_RESOLVE(js_PublishMsg)(pubAck, js, msg, opts, errCode);
}

natsStatus js_SubscribeSync(natsSubscription **sub, jsCtx *js, const char *subject, jsOptions *opts, jsSubOptions *subOpts, jsErrCode *errCode) {
    return CNATS_RESOLVE(js_SubscribeSync)(sub, js, subject, opts, subOpts, errCode);
}

void natsConnection_Close(natsConnection *nc) {
    CNATS_RESOLVE(natsConnection_Close)(nc);
}

natsStatus natsConnection_Connect(natsConnection **nc, natsOptions *options) {
    return CNATS_RESOLVE(natsConnection_Connect)(nc, options);
}

void natsConnection_Destroy(natsConnection *nc) {
    CNATS_RESOLVE(natsConnection_Destroy)(nc);
}

natsStatus natsConnection_GetConnectedUrl(natsConnection *nc, char *buffer, size_t bufferSize) {
    return CNATS_RESOLVE(natsConnection_GetConnectedUrl)(nc, buffer, bufferSize);
}

natsStatus natsConnection_GetStats(natsConnection *nc, natsStatistics *stats) {
    return CNATS_RESOLVE(natsConnection_GetStats)(nc, stats);
}

natsStatus natsConnection_JetStream(jsCtx **js, natsConnection *nc, jsOptions *opts) {
    return CNATS_RESOLVE(natsConnection_JetStream)(js, nc, opts);
}

natsStatus natsMsgHeader_Get(natsMsg *msg, const char *key, const char **value) {
    return CNATS_RESOLVE(natsMsgHeader_Get)(msg, key, value);
}

natsStatus natsMsgHeader_Set(natsMsg *msg, const char *key, const char *value) {
    return CNATS_RESOLVE(natsMsgHeader_Set)(msg, key, value);
}

natsStatus natsMsg_Create(natsMsg **newMsg, const char *subj, const char *reply, const char *data, int dataLen) {
    return CNATS_RESOLVE(natsMsg_Create)(newMsg, subj, reply, data, dataLen);
}

void natsMsg_Destroy(natsMsg *msg) {
    CNATS_RESOLVE(natsMsg_Destroy)(msg);
}

const char* natsMsg_GetData(const natsMsg *msg) {
    return CNATS_RESOLVE(natsMsg_GetData)(msg);
}

int natsMsg_GetDataLength(const natsMsg *msg) {
    return CNATS_RESOLVE(natsMsg_GetDataLength)(msg);
}

natsStatus natsMsg_GetMetaData(jsMsgMetaData **new_meta, natsMsg *msg) {
    return CNATS_RESOLVE(natsMsg_GetMetaData)(new_meta, msg);
}

uint64_t natsMsg_GetSequence(natsMsg *msg) {
    return CNATS_RESOLVE(natsMsg_GetSequence)(msg);
}

natsStatus natsOptions_Create(natsOptions **newOpts) {
    return CNATS_RESOLVE(natsOptions_Create)(newOpts);
}

void natsOptions_Destroy(natsOptions *opts) {
    CNATS_RESOLVE(natsOptions_Destroy)(opts);
}

natsStatus natsOptions_SetAllowReconnect(natsOptions *opts, bool allow) {
    return CNATS_RESOLVE(natsOptions_SetAllowReconnect)(opts, allow);
}

natsStatus natsOptions_SetMaxPingsOut(natsOptions *opts, int maxPingsOut) {
    return CNATS_RESOLVE(natsOptions_SetMaxPingsOut)(opts, maxPingsOut);
}

natsStatus natsOptions_SetMaxReconnect(natsOptions *opts, int maxReconnect) {
    return CNATS_RESOLVE(natsOptions_SetMaxReconnect)(opts, maxReconnect);
}

natsStatus natsOptions_SetNoRandomize(natsOptions *opts, bool noRandomize) {
    return CNATS_RESOLVE(natsOptions_SetNoRandomize)(opts, noRandomize);
}

natsStatus natsOptions_SetPingInterval(natsOptions *opts, int64_t interval) {
    return CNATS_RESOLVE(natsOptions_SetPingInterval)(opts, interval);
}

natsStatus natsOptions_SetReconnectWait(natsOptions *opts, int64_t reconnectWait) {
    return CNATS_RESOLVE(natsOptions_SetReconnectWait)(opts, reconnectWait);
}

natsStatus natsOptions_SetServers(natsOptions *opts, const char** servers, int serversCount) {
    return CNATS_RESOLVE(natsOptions_SetServers)(opts, servers, serversCount);
}

natsStatus natsOptions_SetTimeout(natsOptions *opts, int64_t timeout) {
    return CNATS_RESOLVE(natsOptions_SetTimeout)(opts, timeout);
}

natsStatus natsStatistics_Create(natsStatistics **newStats) {
    return CNATS_RESOLVE(natsStatistics_Create)(newStats);
}

void natsStatistics_Destroy(natsStatistics *stats) {
    CNATS_RESOLVE(natsStatistics_Destroy)(stats);
}

natsStatus natsStatistics_GetCounts(const natsStatistics *stats, uint64_t *inMsgs, uint64_t *inBytes, uint64_t *outMsgs, uint64_t *outBytes, uint64_t *reconnects) {
    return CNATS_RESOLVE(natsStatistics_GetCounts)(stats, inMsgs, inBytes, outMsgs, outBytes, reconnects);
}

const char* natsStatus_GetText(natsStatus s) {
    return CNATS_RESOLVE(natsStatus_GetText)(s);
}

void natsSubscription_Destroy(natsSubscription *sub) {
    CNATS_RESOLVE(natsSubscription_Destroy)(sub);
}

natsStatus natsSubscription_NextMsg(natsMsg **nextMsg, natsSubscription *sub, int64_t timeout) {
    return CNATS_RESOLVE(natsSubscription_NextMsg)(nextMsg, sub, timeout);
}

natsStatus natsSubscription_Unsubscribe(natsSubscription *sub) {
    return CNATS_RESOLVE(natsSubscription_Unsubscribe)(sub);
}

const char* nats_GetLastError(natsStatus *status) {
    return CNATS_RESOLVE(nats_GetLastError)(status);
}
