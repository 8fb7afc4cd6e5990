package dev.rmq.controls;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.embedded.RedisServer;
import dev.rmq.topic.TopicDefinition;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Separate applications on one topic, as separate processes would be: each with a Redis connection of its own
 * and a container whose handler records when it starts. For the controls that must hold across applications.
 */
final class Applications implements AutoCloseable {

    /** Every handler start, in this JVM's nano clock. */
    final ConcurrentLinkedQueue<Long> starts = new ConcurrentLinkedQueue<>();
    private final RedisServer redis;
    private final TopicDefinition topic;
    private final ConsumerSettings settings;
    private final List<RedissonClient> connections = new ArrayList<>();
    private final List<RmqConsumerContainer<?>> containers = new ArrayList<>();

    Applications(RedisServer redis, TopicDefinition topic, ConsumerSettings settings) {
        this.redis = redis;
        this.topic = topic;
        this.settings = settings;
    }

    /** A new application; its container is built, and started by {@link #startAll()} or {@code start}. */
    RmqClient add(boolean start) {
        RedissonClient connection = Fixtures.redisson(redis);
        connections.add(connection);
        RmqClient rmq = RmqClient.builder(connection).topic(topic).build();
        RmqConsumerContainer<String> container = rmq.container(topic.name(), String.class, m -> {
            starts.add(System.nanoTime());
            return ConsumeResult.success();
        }).settings(settings).build();
        containers.add(container);
        if (start) {
            container.start();
        }
        return rmq;
    }

    void startAll() {
        containers.forEach(RmqConsumerContainer::start);
    }

    /** Stops every application, as their processes ending would; new ones may be added after. */
    @Override
    public void close() {
        containers.forEach(c -> c.stop(Duration.ofSeconds(5)));
        connections.forEach(RedissonClient::shutdown);
        containers.clear();
        connections.clear();
    }
}
