package dev.rmq.internal.redis;

import dev.rmq.topic.Names;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Builds every Redis key and channel name rmq uses; no other class concatenates key names.
 *
 * <p>Every key starts with the key prefix, {@code rmq} by default, so that rmq's keys never meet an application's
 * and {@code SCAN rmq:*} finds them all. Slot 3 of topic {@code orders} is {@code rmq:{orders_3}} (the store),
 * {@code rmq:prepare{orders_3}} and so on; with namespace {@code ns}, {@code rmq:{ns:orders_3}},
 * {@code rmq:prepare{ns:orders_3}}. The empty prefix gives the names of rmq before the prefix
 * ({@link #LEGACY_PREFIX}): {@code orders_3}, {@code prepare{orders_3}}. The hash tag is the same in both, so a key
 * keeps its Redis Cluster slot when it is renamed from one to the other.
 */
public final class KeyLayout {

    /** The prefix of every key unless the client is told otherwise. */
    public static final String DEFAULT_PREFIX = "rmq";
    /** The prefix that gives the key names of rmq before it prefixed its keys: none. */
    public static final String LEGACY_PREFIX = "";

    private final String prefix;
    private final String namespace;
    /** Each topic's slot keys made so far, by slot index (see {@link #slot}). */
    private final Map<String, SlotKeys[]> made = new ConcurrentHashMap<>();

    /** The default prefix, with {@code namespace} (empty for none). */
    public KeyLayout(String namespace) {
        this(DEFAULT_PREFIX, namespace);
    }

    /**
     * @param prefix    what every key starts with, before a {@code :}; empty for the names of rmq before the prefix
     * @param namespace a name that keeps one application's topics apart from another's; empty for none
     */
    public KeyLayout(String prefix, String namespace) {
        if (prefix == null) {
            throw new IllegalArgumentException("key prefix must not be null; use \"\" for the names without one");
        }
        if (namespace == null) {
            throw new IllegalArgumentException("namespace must not be null; use \"\" for none");
        }
        this.prefix = prefix.isEmpty() ? "" : Names.check("key prefix", prefix) + ":";
        this.namespace = namespace.isEmpty() ? "" : Names.check("namespace", namespace) + ":";
    }

    /** The prefix every key starts with, with its {@code :}; empty for the names of rmq before the prefix. */
    public String prefix() {
        return prefix;
    }

    /** The same namespace without a prefix: the key names of rmq before the prefix. */
    public KeyLayout withoutPrefix() {
        return new KeyLayout(LEGACY_PREFIX, namespace.isEmpty() ? "" : namespace.substring(0, namespace.length() - 1));
    }

    /**
     * The keys of slot {@code slot} of {@code topic}, made once and kept: every single send asks for its slot's, and
     * a lane of sends is found by them, so new strings each time would be made, hashed and compared again. A topic
     * keeps an entry for each slot asked for, up to its highest.
     */
    public SlotKeys slot(String topic, int slot) {
        if (slot < 0) {
            throw new IllegalArgumentException("slot must be 0 or more, was " + slot + " (topic " + topic + ")");
        }
        SlotKeys[] known = made.get(topic);
        SlotKeys keys = known != null && slot < known.length ? known[slot] : null;
        if (keys == null) {
            SlotKeys fresh = make(topic, slot);
            // a slot made twice at once keeps either: the two are equal. Its keys are final fields, so a reader that
            // finds the entry without the map's lock sees them whole.
            made.compute(topic, (name, all) -> {
                SlotKeys[] grown = all == null ? new SlotKeys[slot + 1]
                        : all.length > slot ? all : Arrays.copyOf(all, Math.max(slot + 1, 2 * all.length));
                grown[slot] = fresh;
                return grown;
            });
            keys = fresh;
        }
        return keys;
    }

    private SlotKeys make(String topic, int slot) {
        String tag = namespace + topic + "_" + slot;
        String store = prefix.isEmpty() ? tag : prefix + "{" + tag + "}";
        return new SlotKeys(topic, slot, tag, prefix, store, tagged("body", tag), tagged("prepare", tag),
                tagged("inflight", tag), tagged("delayed", tag), tagged("dead", tag), tagged("deadbody", tag),
                tagged("wake", tag), tagged("owner", tag), tagged("parked", tag), tagged("expiry", tag),
                tagged("paused", tag), tagged("hold", tag), tagged("retry", tag), tagged("cancelled", tag),
                tagged("throttled", tag), tagged("schedules", tag), tagged("progress", tag));
    }

    /**
     * The token bucket of a topic's rate limit, shared by all its consumers: {@code rmq:rate{t}} (with a namespace
     * {@code rmq:rate{ns:t}}). Its hash tag differs from every slot's, so it lives on one Cluster node of its own.
     */
    public String rateBucket(String topic) {
        return tagged("rate", namespace + topic);
    }

    /**
     * The keys of the question whether a call may carry several slots, one for each of {@code tags} hash tags:
     * {@code rmq:slot-sharing{0}} and on (with a namespace {@code rmq:slot-sharing{ns:0}}). Named as the client's own
     * keys are, so that an ACL that lets the client reach its keys lets it ask; no call writes them.
     */
    public List<String> slotSharingProbe(int tags) {
        List<String> keys = new ArrayList<>(tags);
        for (int tag = 0; tag < tags; tag++) {
            keys.add(tagged("slot-sharing", namespace + tag));
        }
        return keys;
    }

    /**
     * The pub/sub channel on which sends wake idle consumers of a topic; the message is the slot index. It is not a
     * key, and keeps its name whatever the prefix, so that clients on either side of the prefix wake each other.
     */
    public String wakeChannel(String topic) {
        return "rmq:wake:" + namespace + topic;
    }

    private String tagged(String name, String tag) {
        return prefix + name + "{" + tag + "}";
    }
}
