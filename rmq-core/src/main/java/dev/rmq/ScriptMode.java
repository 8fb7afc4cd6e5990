package dev.rmq;

/**
 * How rmq runs its Lua scripts in Redis. Each of rmq's Redis operations (a send, a poll, an acknowledgement) is
 * one call of a script.
 */
public enum ScriptMode {

    /**
     * Redis Functions where every master can load them (Redis 7 and later, and a user allowed {@code FUNCTION
     * LOAD}), else EVALSHA, decided at the first load and kept for the client's life. A Function's library is
     * defined once per load instead of once per call, which makes a call that handles one message several
     * microseconds cheaper. The default.
     */
    FUNCTIONS,

    /**
     * EVALSHA always, even where Redis has Functions: for a proxy or a managed Redis that passes EVALSHA but not
     * FCALL, or for a Redis whose functions another tool replaces.
     */
    EVALSHA
}
