package dev.rmq.faults;

import dev.rmq.codec.Compression;
import dev.rmq.codec.PayloadForm;
import dev.rmq.codec.PayloadKeyRing;
import dev.rmq.dead.DeadMessage;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.ExpiryAction;
import dev.rmq.topic.TopicBuilder;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What every process of a run agrees on: the topics, the payload format and the clock.
 *
 * <p>Each Redis deployment has its own topics: one of each type, named {@code faults-<type>-s} on standalone
 * Redis and {@code faults-<type>-c} on the Cluster, and two with job controls: {@code faults-ttl-*} (priority,
 * a time to live of {@value #TTL_SECONDS} s that outages outlast, expired messages to dead) and
 * {@code faults-amo-*} (range-merge, at most once); and {@code faults-sealed-*} (priority), whose payloads are
 * compressed and encrypted, so that the invariants are checked on messages that travel that way too. A run uses the
 * topics of the deployments it starts, so with {@code --redis both} every topic lives on both and the producer
 * spreads its bursts evenly. The recovery probes go to the topics without job controls only: a probe may expire or,
 * at most once, be lost.
 *
 * <p>Short leases and few retries, so that a run of minutes sees many recoveries and some dead messages:
 * the lease (3 s) is shorter than the ZooKeeper session (4 s), and a pause fault lasts longer than both.
 */
final class Workload {

    static final Duration LEASE = Duration.ofSeconds(3);
    static final int SESSION_TIMEOUT_MS = 4000;
    static final int MAX_RETRIES = 2;
    static final Duration BACKOFF = Duration.ofMillis(200);
    static final int SLOTS = 8;
    static final int TTL_SECONDS = 8;

    /**
     * The form of the sealed topics: payloads encrypted, and those of messages compressed (they are padded past
     * 64 bytes; a probe's is not).
     */
    static final PayloadForm SEALED = PayloadForm.PLAIN.withCompression(Compression.DEFLATE, 64).withEncryption(true);
    /** The key of the sealed topics, the same in every process of a run: the harness's own, never a secret. */
    static final PayloadKeyRing KEY_RING = PayloadKeyRing.builder()
            .key("harness", "rmq-fault-harness-sealed-topics!".getBytes(StandardCharsets.US_ASCII)).build();

    private static final Map<Deployment, List<TopicDefinition>> TOPICS = new EnumMap<>(Deployment.class);

    static {
        for (Deployment deployment : Deployment.values()) {
            TOPICS.put(deployment, List.of(topic("faults-merge-" + deployment.suffix(), TopicType.RANGE_MERGE).build(),
                    topic("faults-priority-" + deployment.suffix(), TopicType.PRIORITY).build(),
                    topic("faults-fixed-" + deployment.suffix(), TopicType.FIXED_TIME).build(),
                    topic("faults-ttl-" + deployment.suffix(), TopicType.PRIORITY)
                            .ttl(Duration.ofSeconds(TTL_SECONDS)).expiry(ExpiryAction.DEAD).build(),
                    topic("faults-amo-" + deployment.suffix(), TopicType.RANGE_MERGE)
                            .delivery(DeliveryGuarantee.AT_MOST_ONCE).build(),
                    topic("faults-sealed-" + deployment.suffix(), TopicType.PRIORITY).payloadForm(SEALED).build()));
        }
    }

    /** Key prefix of messages sent through the durable producer, and of the rest. */
    static final String DURABLE_PREFIX = "d.";
    static final String PLAIN_PREFIX = "n.";
    static final String PROBE_PREFIX = "probe.";

    private Workload() {
    }

    private static TopicBuilder topic(String name, TopicType type) {
        return TopicDefinition.builder(name, type).slotAmount(SLOTS).leaseTimeout(LEASE).maxRetries(MAX_RETRIES)
                .backoff(BackoffPolicy.fixed(BACKOFF));
    }

    /** The topics of one deployment: range-merge, priority, fixed-time, the two with job controls, the sealed one. */
    static List<TopicDefinition> topics(Deployment deployment) {
        return Objects.requireNonNull(TOPICS.get(deployment), "every deployment has its topics");
    }

    /** The topics of one deployment without job controls, where every message must come through. */
    static List<TopicDefinition> plainTopics(Deployment deployment) {
        return topics(deployment).stream().filter(t -> t.ttl().isZero() && t.delivery() == DeliveryGuarantee.AT_LEAST_ONCE)
                .toList();
    }

    /** The plain topic of one type on one deployment. */
    static TopicDefinition topic(Deployment deployment, TopicType type) {
        return plainTopics(deployment).stream().filter(t -> t.type() == type).findFirst().orElseThrow();
    }

    /** The letter of a topic in the keys of its messages. */
    static String abbreviation(TopicDefinition topic) {
        if (topic.delivery() == DeliveryGuarantee.AT_MOST_ONCE) {
            return "a";
        }
        if (!topic.ttl().isZero()) {
            return "t";
        }
        if (!topic.payloadForm().isPlain()) {
            return "s";
        }
        return switch (topic.type()) {
            case RANGE_MERGE -> "m";
            case PRIORITY -> "p";
            case FIXED_TIME -> "f";
        };
    }

    static TopicDefinition topic(String name) {
        for (List<TopicDefinition> topics : TOPICS.values()) {
            for (TopicDefinition topic : topics) {
                if (topic.name().equals(name)) {
                    return topic;
                }
            }
        }
        throw new IllegalArgumentException("not a harness topic: " + name);
    }

    /** The deployment that holds a topic. */
    static Deployment deploymentOf(String topicName) {
        for (Map.Entry<Deployment, List<TopicDefinition>> entry : TOPICS.entrySet()) {
            if (entry.getValue().stream().anyMatch(t -> t.name().equals(topicName))) {
                return entry.getKey();
            }
        }
        throw new IllegalArgumentException("not a harness topic: " + topicName);
    }

    /**
     * The header that carries a sealed topic's payload text in clear: the dead queue never shows an encrypted payload,
     * and the check needs to know which send a dead message was. A merge replaces it with the payload.
     */
    static final String PAYLOAD_HEADER = "harness-payload";

    /** {@code message}, whose payload is {@code payload}, with the header the check reads it by on a sealed topic. */
    static OutgoingMessage labelled(OutgoingMessage message, String payload) {
        return topic(message.topic()).payloadForm().encrypted() ? message.withHeader(PAYLOAD_HEADER, payload) : message;
    }

    /** The payload text of a dead message: its own, or its header's when the dead queue cannot show it. */
    static String deadPayload(DeadMessage message) {
        return message.encrypted() ? message.headers().getOrDefault(PAYLOAD_HEADER, "") : message.payloadText();
    }

    static boolean isDurableKey(String key) {
        return key.startsWith(DURABLE_PREFIX);
    }

    static boolean isProbeKey(String key) {
        return key.startsWith(PROBE_PREFIX);
    }

    /**
     * A message's payload: {@code seq=<n>;work=<ms>;poison=<0|1>;fixed=<epoch ms or 0>}, or for a probe
     * {@code probe=<fault id>}. The seq identifies the send whose payload a delivery carries (a merge keeps
     * the latest send's payload).
     */
    record Payload(long seq, int workMs, boolean poison, long fixedMs, boolean probe) {

        private static final String PAD = "-".repeat(48);

        static Payload message(long seq, int workMs, boolean poison, long fixedMs) {
            return new Payload(seq, workMs, poison, fixedMs, false);
        }

        static Payload probe(long faultId) {
            return new Payload(faultId, 0, false, 0, true);
        }

        String encode() {
            if (probe) {
                return "probe=" + seq;
            }
            // padded past the sealed topics' compression threshold, so that their messages are all compressed
            return "seq=" + seq + ";work=" + workMs + ";poison=" + (poison ? 1 : 0) + ";fixed=" + fixedMs + ";pad="
                    + PAD;
        }

        static Payload decode(String text) {
            Map<String, String> fields = new LinkedHashMap<>();
            for (String part : text.split(";")) {
                int eq = part.indexOf('=');
                if (eq > 0) {
                    fields.put(part.substring(0, eq), part.substring(eq + 1));
                }
            }
            if (fields.containsKey("probe")) {
                return probe(Long.parseLong(fields.get("probe")));
            }
            return message(Long.parseLong(fields.get("seq")), Integer.parseInt(fields.getOrDefault("work", "0")),
                    "1".equals(fields.get("poison")), Long.parseLong(fields.getOrDefault("fixed", "0")));
        }
    }
}
