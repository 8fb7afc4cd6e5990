package dev.rmq.payload;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A container that records what its handler got, by key; the caller stops it. */
final class Handled {

    private Handled() {
    }

    static <T> Map<String, T> consume(RmqClient client, String topic, Class<T> type,
                                      List<RmqConsumerContainer<?>> started) {
        Map<String, T> handled = new ConcurrentHashMap<>();
        RmqConsumerContainer<T> container = client.container(topic, type, message -> {
            handled.put(message.key(), message.payload());
            return ConsumeResult.success();
        }).settings(ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(50))).build();
        started.add(container);
        container.start();
        return handled;
    }
}
