package dev.rmq.internal.redis;

import java.util.List;

/**
 * The keys of one slot of one topic. They all hash to the same Redis Cluster slot: the store key
 * {@code <topic>_<index>} has no braces, so Redis hashes all of it, and every other key carries it as
 * its hash tag, {@code name{<topic>_<index>}}.
 */
public record SlotKeys(String topic, int slot, String store, String body, String prepare, String inflight,
                       String delayed, String dead, String deadBody, String wake, String owner, String parked,
                       String expiry, String paused) {

    /** The keys' names in the order every script receives them as KEYS, as lib.lua's KEYS block lists them. */
    public static final List<String> NAMES = List.of("store", "body", "prepare", "inflight", "delayed", "dead",
            "deadbody", "wake", "owner", "parked", "expiry", "paused");

    /** The keys in the order of {@link #NAMES}. */
    public List<Object> asScriptKeys() {
        return List.of(store, body, prepare, inflight, delayed, dead, deadBody, wake, owner, parked, expiry, paused);
    }

    /** The keys plus a call key, for a pipelined call that may have to be repeated (see replay.lua). */
    public List<Object> asScriptKeys(String callId) {
        return List.of(store, body, prepare, inflight, delayed, dead, deadBody, wake, owner, parked, expiry, paused,
                "call{" + store + "}:" + callId);
    }

    /** The hash tag shared by all the keys: the store key's name. */
    public String hashTag() {
        return store;
    }
}
