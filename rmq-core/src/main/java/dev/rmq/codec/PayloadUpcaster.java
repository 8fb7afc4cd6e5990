package dev.rmq.codec;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * One step of a topic's payload history: it brings a JSON payload of version {@code fromVersion} up to
 * {@code fromVersion + 1}. A read applies the steps in turn, from the version a message was sent at up to its
 * topic's current version, and decodes the result with the listener's type. A message for which a step is missing
 * goes to the dead queue as {@code undecodable}, with its bytes, and comes back once requeued after the step is
 * deployed.
 */
public interface PayloadUpcaster {

    /** The topic whose payloads this step upcasts. */
    String topic();

    /** The version this step reads; it writes the next one. */
    int fromVersion();

    /** The payload at {@code fromVersion() + 1}. It may change {@code payload} in place and return it. */
    JsonNode upcast(JsonNode payload);

    /** A step on the JSON tree. */
    static PayloadUpcaster of(String topic, int fromVersion, UnaryOperator<JsonNode> step) {
        if (topic == null || topic.isEmpty()) {
            throw new IllegalArgumentException("an upcaster needs the name of its topic, was " + topic);
        }
        if (fromVersion < 0 || fromVersion >= PayloadForm.MAX_VERSION) {
            throw new IllegalArgumentException("an upcaster of topic '" + topic + "' must start from a version in 0.."
                    + (PayloadForm.MAX_VERSION - 1) + ", was " + fromVersion);
        }
        if (step == null) {
            throw new IllegalArgumentException("the step of upcaster " + fromVersion + " of topic '" + topic
                    + "' must not be null");
        }
        return new PayloadUpcaster() {
            @Override
            public String topic() {
                return topic;
            }

            @Override
            public int fromVersion() {
                return fromVersion;
            }

            @Override
            public JsonNode upcast(JsonNode payload) {
                return step.apply(payload);
            }

            @Override
            public String toString() {
                return "upcaster of topic '" + topic + "' from version " + fromVersion + " to " + (fromVersion + 1);
            }
        };
    }

    /**
     * A step between two classes: the old payload read as {@code oldType}, turned into the new one by {@code step},
     * and written back as JSON, all with a plain Jackson mapper.
     */
    static <A, B> PayloadUpcaster typed(String topic, int fromVersion, Class<A> oldType, Function<A, B> step) {
        if (oldType == null || step == null) {
            throw new IllegalArgumentException("a typed upcaster of topic '" + topic + "' needs its old type and its"
                    + " step");
        }
        JsonMapper mapper = JsonMapper.builder().build();
        return of(topic, fromVersion, node -> mapper.valueToTree(step.apply(mapper.treeToValue(node, oldType))));
    }
}
