package dev.rmq.internal.payload;

import dev.rmq.codec.PayloadCodecException;
import dev.rmq.codec.PayloadUpcaster;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A client's upcasters, by topic and by the version each reads, and the JSON they work on. */
final class Upcasts {

    /** Topic, then the version a step reads. */
    private final Map<String, TreeMap<Integer, PayloadUpcaster>> steps;
    // decimals stay BigDecimal in the tree, so that a step leaves an amount it does not touch as it was written
    private final JsonMapper mapper = JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    private Upcasts(Map<String, TreeMap<Integer, PayloadUpcaster>> steps) {
        this.steps = steps;
    }

    /**
     * @throws IllegalArgumentException when an upcaster names a topic the client does not know, a version not below
     *                                  its topic's current one, or a version another upcaster already takes
     */
    static Upcasts of(TopicRegistry topics, Collection<PayloadUpcaster> upcasters) {
        Map<String, TreeMap<Integer, PayloadUpcaster>> steps = new HashMap<>();
        for (PayloadUpcaster upcaster : upcasters) {
            if (!topics.contains(upcaster.topic())) {
                throw new IllegalArgumentException(upcaster + " names a topic the client does not know; known: "
                        + topics.all().stream().map(TopicDefinition::name).toList());
            }
            int current = topics.require(upcaster.topic()).payloadForm().version();
            if (upcaster.fromVersion() < 0 || upcaster.fromVersion() >= current) {
                throw new IllegalArgumentException(upcaster + " must start from a version below the topic's current"
                        + " version " + current + ", was " + upcaster.fromVersion());
            }
            PayloadUpcaster before = steps.computeIfAbsent(upcaster.topic(), t -> new TreeMap<>())
                    .putIfAbsent(upcaster.fromVersion(), upcaster);
            if (before != null) {
                throw new IllegalArgumentException("two upcasters of topic '" + upcaster.topic() + "' start from"
                        + " version " + upcaster.fromVersion() + ": " + before + " and " + upcaster);
            }
        }
        return new Upcasts(steps);
    }

    boolean has(String topic) {
        return steps.containsKey(topic);
    }

    /** The versions a topic's upcasters start from, in order; empty when it has none. */
    List<Integer> from(String topic) {
        TreeMap<Integer, PayloadUpcaster> of = steps.get(topic);
        return of == null ? List.of() : List.copyOf(of.keySet());
    }

    /**
     * {@code bytes}, a JSON payload at version {@code from}, brought up to {@code current} step by step.
     *
     * @throws PayloadCodecException when it is not JSON, a step is missing, or a step fails
     */
    byte[] upcast(String topic, int from, int current, byte[] bytes) {
        TreeMap<Integer, PayloadUpcaster> of = steps.getOrDefault(topic, new TreeMap<>());
        JsonNode node;
        try {
            node = mapper.readTree(bytes);
        } catch (JacksonException e) {
            throw new PayloadCodecException("payload at version " + from + " is not JSON, so it cannot be upcast to "
                    + current + ": " + e.getOriginalMessage(), e);
        }
        for (int version = from; version < current; version++) {
            PayloadUpcaster step = of.get(version);
            if (step == null) {
                throw new PayloadCodecException("payload at version " + from + " needs an upcaster from version "
                        + version + " of topic '" + topic + "' to reach version " + current + "; the client has "
                        + (of.isEmpty() ? "none" : "those from " + of.keySet()), null);
            }
            try {
                node = step.upcast(node);
            } catch (RuntimeException | StackOverflowError e) {
                throw new PayloadCodecException(step + " failed: " + e, e);
            }
            if (node == null) {
                throw new PayloadCodecException(step + " returned null", null);
            }
        }
        try {
            return mapper.writeValueAsBytes(node);
        } catch (JacksonException e) {
            throw new PayloadCodecException("the payload upcast to version " + current + " cannot be written as JSON: "
                    + e.getOriginalMessage(), e);
        }
    }
}
