package dev.rmq.internal.redis;

import dev.rmq.topic.Names;

/**
 * Builds every Redis key and channel name rmq uses; no other class concatenates key names.
 *
 * <p>With namespace {@code ns}, slot 3 of topic {@code orders} is {@code ns:orders_3},
 * {@code prepare{ns:orders_3}} and so on; with no namespace it is {@code orders_3}, {@code prepare{orders_3}}.
 */
public final class KeyLayout {

    private final String prefix;

    /** @param namespace a name prefixed to every key, or empty for none */
    public KeyLayout(String namespace) {
        if (namespace == null) {
            throw new IllegalArgumentException("namespace must not be null; use \"\" for none");
        }
        this.prefix = namespace.isEmpty() ? "" : Names.check("namespace", namespace) + ":";
    }

    public SlotKeys slot(String topic, int slot) {
        String tag = prefix + topic + "_" + slot;
        return new SlotKeys(topic, slot, tag, tagged("body", tag), tagged("prepare", tag), tagged("inflight", tag),
                tagged("delayed", tag), tagged("dead", tag), tagged("deadbody", tag), tagged("wake", tag),
                tagged("owner", tag), tagged("parked", tag), tagged("expiry", tag), tagged("paused", tag),
                tagged("hold", tag), tagged("retry", tag), tagged("cancelled", tag),
                tagged("throttled", tag), tagged("schedules", tag));
    }

    /**
     * The token bucket of a topic's rate limit, shared by all its consumers: {@code rate{t}} (with a namespace
     * {@code rate{ns:t}}). Its hash tag differs from every slot's, so it lives on one Cluster node of its own.
     */
    public String rateBucket(String topic) {
        return tagged("rate", prefix + topic);
    }

    /** The pub/sub channel on which sends wake idle consumers of a topic; the message is the slot index. */
    public String wakeChannel(String topic) {
        return "rmq:wake:" + prefix + topic;
    }

    private static String tagged(String name, String tag) {
        return name + "{" + tag + "}";
    }
}
