package dev.rmq.internal.redis;

import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * The keys of one slot of one topic (see {@link KeyLayout}). They all hash to the same Redis Cluster slot: every
 * key carries the tag {@code <topic>_<index>} (after the namespace) in braces, {@code rmq:name{<topic>_<index>}},
 * and the store is {@code rmq:{<topic>_<index>}}. Without a key prefix the store key is the tag itself, which Redis
 * hashes whole.
 *
 * @param tag    the hash tag: {@code <topic>_<index>}, after the namespace
 * @param prefix what every key of the slot starts with, with its {@code :}; empty without a key prefix
 */
public record SlotKeys(String topic, int slot, String tag, String prefix, String store, String body, String prepare, String inflight,
                       String delayed, String dead, String deadBody, String wake, String owner, String parked,
                       String expiry, String paused, String hold, String retry, String cancelled,
                       String throttled, String schedules, String progress) {

    /** The keys' names in the order every script receives them as KEYS, as lib.lua's KEYS block lists them. */
    public static final List<String> NAMES = List.of("store", "body", "prepare", "inflight", "delayed", "dead",
            "deadbody", "wake", "owner", "parked", "expiry", "paused", "hold", "retry", "cancelled", "throttled",
            "schedules", "progress");

    /** Every key, in the order of {@link #NAMES}. */
    public List<Object> asScriptKeys() {
        return List.of(store, body, prepare, inflight, delayed, dead, deadBody, wake, owner, parked, expiry, paused,
                hold, retry, cancelled, throttled, schedules, progress);
    }

    /** The keys a script uses: {@code indexes} into {@link #NAMES}, in that order. */
    public List<Object> asScriptKeys(int[] indexes) {
        return select(indexes, null);
    }

    /** The keys a script uses, plus a call key, for a pipelined call that may have to be repeated (see replay.lua). */
    public List<Object> asScriptKeys(int[] indexes, String callId) {
        return select(indexes, callKey(callId));
    }

    /**
     * The keys a script uses of each of several slots, for a call of several slots on a Redis that is not a Cluster:
     * a block per slot, in their order, then a call key when {@code callId} is not null (on the first slot's tag).
     */
    public static List<Object> asScriptKeys(List<SlotKeys> slots, int[] indexes, @Nullable String callId) {
        if (slots.size() == 1) {
            return callId == null ? slots.get(0).asScriptKeys(indexes) : slots.get(0).asScriptKeys(indexes, callId);
        }
        Object[] chosen = new Object[slots.size() * indexes.length + (callId == null ? 0 : 1)];
        int at = 0;
        for (SlotKeys slot : slots) {
            for (int index : indexes) {
                chosen[at++] = slot.key(index);
            }
        }
        if (callId != null) {
            chosen[at] = slots.get(0).callKey(callId);
        }
        return List.of(chosen);
    }

    private String callKey(String callId) {
        return prefix + "call{" + tag + "}:" + callId;
    }

    private List<Object> select(int[] indexes, @Nullable String callKey) {
        Object[] chosen = new Object[indexes.length + (callKey == null ? 0 : 1)];
        for (int i = 0; i < indexes.length; i++) {
            chosen[i] = key(indexes[i]);
        }
        if (callKey != null) {
            chosen[indexes.length] = callKey;
        }
        return List.of(chosen);
    }

    /** One key, by its index into {@link #NAMES}: every script call picks its keys, so no list is built for it. */
    private String key(int index) {
        return switch (index) {
            case 0 -> store;
            case 1 -> body;
            case 2 -> prepare;
            case 3 -> inflight;
            case 4 -> delayed;
            case 5 -> dead;
            case 6 -> deadBody;
            case 7 -> wake;
            case 8 -> owner;
            case 9 -> parked;
            case 10 -> expiry;
            case 11 -> paused;
            case 12 -> hold;
            case 13 -> retry;
            case 14 -> cancelled;
            case 15 -> throttled;
            case 16 -> schedules;
            case 17 -> progress;
            default -> throw new IllegalArgumentException("no slot key at index " + index + " of " + NAMES);
        };
    }

    /** The hash tag shared by all the keys, {@code <topic>_<index>}: how logs and errors name the slot. */
    public String hashTag() {
        return tag;
    }
}
