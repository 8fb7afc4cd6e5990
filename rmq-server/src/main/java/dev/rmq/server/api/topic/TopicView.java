package dev.rmq.server.api.topic;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicDescription;

/**
 * A configured topic: its {@link TopicDescription}, as the actuator endpoint shows it too, and how many of its slots
 * this server's puller holds.
 *
 * @param pulledSlots the slots this server pulls from; with ZooKeeper, those assigned to it among every consumer of
 *                    the topic
 */
public record TopicView(@JsonUnwrapped TopicDescription definition, int pulledSlots) {

    static TopicView of(TopicDefinition topic, int pulledSlots) {
        return new TopicView(TopicDescription.of(topic), pulledSlots);
    }
}
