package dev.rmq.topic;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The topics an application knows, by name. Immutable; conflicting definitions are refused. */
public final class TopicRegistry {

    private final Map<String, TopicDefinition> topics;

    private TopicRegistry(Map<String, TopicDefinition> topics) {
        this.topics = Collections.unmodifiableMap(topics);
    }

    /**
     * @throws IllegalArgumentException when two definitions share a name but differ
     */
    public static TopicRegistry of(Collection<TopicDefinition> definitions) {
        Map<String, TopicDefinition> byName = new LinkedHashMap<>();
        for (TopicDefinition definition : definitions) {
            if (definition == null) {
                throw new IllegalArgumentException("topic definitions must not contain null");
            }
            TopicDefinition previous = byName.putIfAbsent(definition.name(), definition);
            if (previous != null && !previous.equals(definition)) {
                throw new IllegalArgumentException("topic '" + definition.name() + "' is defined twice, differently: "
                        + previous + " and " + definition);
            }
        }
        return new TopicRegistry(byName);
    }

    public static TopicRegistry of(TopicDefinition... definitions) {
        return of(List.of(definitions));
    }

    /**
     * @throws UnknownTopicException when no topic has this name
     */
    public TopicDefinition require(String name) {
        if (name == null) {
            throw new IllegalArgumentException("topic name must not be null");
        }
        TopicDefinition definition = topics.get(name);
        if (definition == null) {
            throw new UnknownTopicException(name, topics.keySet());
        }
        return definition;
    }

    /**
     * @throws UnknownTopicException when no topic has this name
     * @throws IllegalArgumentException when the topic has another type
     */
    public TopicDefinition require(String name, TopicType type) {
        TopicDefinition definition = require(name);
        if (definition.type() != type) {
            throw new IllegalArgumentException("topic '" + name + "' is a " + definition.type()
                    + " topic; a " + type + " message cannot be sent to it");
        }
        return definition;
    }

    public Collection<TopicDefinition> all() {
        return topics.values();
    }

    public boolean contains(String name) {
        return topics.containsKey(name);
    }
}
