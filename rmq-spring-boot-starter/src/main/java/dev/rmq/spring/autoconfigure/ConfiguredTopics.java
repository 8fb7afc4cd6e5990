package dev.rmq.spring.autoconfigure;

import dev.rmq.topic.TopicDefinition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gathers the topic definitions of {@code rmq.topics} and of {@code TopicDefinition} beans. Two definitions
 * of one name must be identical; a conflict stops start-up with both definitions and where each came from.
 */
final class ConfiguredTopics {

    private ConfiguredTopics() {
    }

    /**
     * @param properties the configured topics, by map key
     * @param beans      TopicDefinition beans, by bean name
     * @throws IllegalStateException naming both sides of a conflict
     */
    static List<TopicDefinition> collect(Map<String, RmqProperties.Topic> properties, Map<String, TopicDefinition> beans) {
        Map<String, Sourced> byName = new LinkedHashMap<>();
        properties.forEach((key, topic) -> add(byName, new Sourced(topic.toDefinition(key), "rmq.topics." + key)));
        beans.forEach((name, definition) -> add(byName, new Sourced(definition, "bean '" + name + "'")));
        List<TopicDefinition> definitions = new ArrayList<>();
        byName.values().forEach(s -> definitions.add(s.definition()));
        return definitions;
    }

    private static void add(Map<String, Sourced> byName, Sourced candidate) {
        Sourced existing = byName.putIfAbsent(candidate.definition().name(), candidate);
        if (existing != null && !existing.definition().equals(candidate.definition())) {
            throw new IllegalStateException("topic '" + candidate.definition().name() + "' is defined twice, differently: "
                    + existing.source() + " = " + existing.definition() + " and " + candidate.source() + " = "
                    + candidate.definition() + "; every definition of a topic must agree");
        }
    }

    private record Sourced(TopicDefinition definition, String source) {
    }
}
