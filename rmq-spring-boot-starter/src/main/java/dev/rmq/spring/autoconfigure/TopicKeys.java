package dev.rmq.spring.autoconfigure;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Checks the keys under {@code rmq.topics.<topic>}: binding ignores a key it does not know, so a misspelt setting
 * would silently keep its default. A key that is not a topic setting fails start-up with the key, the topic and the
 * nearest valid name.
 */
final class TopicKeys {

    private static final ConfigurationPropertyName TOPICS = ConfigurationPropertyName.of("rmq.topics");
    /** The settings of a topic, as they are written: the components of {@link RmqProperties.Topic}. */
    static final List<String> SETTINGS = dashed(RmqProperties.Topic.class);
    /** The settings under a topic's {@code backoff}. */
    static final List<String> BACKOFF = dashed(RmqProperties.Backoff.class);
    /** The settings under a topic's {@code payload}. */
    static final List<String> PAYLOAD = dashed(RmqPayloadProperties.TopicPayload.class);
    /** The settings that hold settings of their own, and theirs. */
    static final Map<String, List<String>> NESTED = Map.of("backoff", BACKOFF, "payload", PAYLOAD);

    private TopicKeys() {
    }

    /** @throws IllegalArgumentException naming the first key under {@code rmq.topics} that is not a setting */
    static void check(Environment environment) {
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            for (ConfigurationPropertyName name : iterable) {
                if (TOPICS.isAncestorOf(name) && name.getNumberOfElements() > 3) {
                    check(name);
                }
            }
        }
    }

    private static void check(ConfigurationPropertyName name) {
        String topic = name.getElement(2, Form.ORIGINAL);
        String key = name.getElement(3, Form.DASHED);
        if (!SETTINGS.contains(key)) {
            throw unknown(name, topic, key, SETTINGS, "");
        }
        List<String> parts = NESTED.get(key);
        if (parts != null && name.getNumberOfElements() > 4) {
            String part = name.getElement(4, Form.DASHED);
            if (!parts.contains(part)) {
                throw unknown(name, topic, part, parts, key + ".");
            }
        }
    }

    private static IllegalArgumentException unknown(ConfigurationPropertyName name, String topic, String key,
                                                    List<String> valid, String prefix) {
        String nearest = valid.stream().min(Comparator.comparingInt(candidate -> distance(key, candidate))).orElseThrow();
        return new IllegalArgumentException(name + " is not a setting of topic '" + topic + "': did you mean "
                + prefix + nearest + "? The settings of a topic are " + String.join(", ", valid)
                + (prefix.isEmpty() ? ", backoff." + String.join(", backoff.", BACKOFF) + " and payload."
                + String.join(", payload.", PAYLOAD) : ""));
    }

    private static List<String> dashed(Class<? extends Record> type) {
        List<String> names = new ArrayList<>();
        for (RecordComponent component : type.getRecordComponents()) {
            names.add(component.getName().replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase());
        }
        return List.copyOf(names);
    }

    /** Levenshtein distance: the fewest one-character edits from {@code a} to {@code b}. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        Arrays.setAll(previous, i -> i);
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
