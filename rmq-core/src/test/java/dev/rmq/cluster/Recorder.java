package dev.rmq.cluster;

import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The handler: fails the first attempt of {@link #failFirst}, sends {@link #poison} to dead, always fails
 * {@link #doomed}, succeeds on {@link #healed}; records every delivery and collects anything unexpected
 * it sees (wrong payload, slot, priority, due time, a lease it cannot extend) in {@link #problems}.
 */
final class Recorder implements RmqHandler<String> {

    /** One successful delivery as the handler saw it. */
    record Delivered(int attempt, String lastError, Optional<Instant> dueTime, OptionalLong priority) {
    }

    final TopicDefinition topic;
    final Map<String, String> payloads = new ConcurrentHashMap<>();
    final Map<String, Long> priorities = new ConcurrentHashMap<>();
    final Map<String, Long> dueTimes = new ConcurrentHashMap<>();
    final Set<String> failFirst = ConcurrentHashMap.newKeySet();
    final Set<String> extendLease = ConcurrentHashMap.newKeySet();
    final Set<String> extended = ConcurrentHashMap.newKeySet();
    final Set<String> poison = ConcurrentHashMap.newKeySet();
    final Set<String> doomed = ConcurrentHashMap.newKeySet();
    final Set<String> healed = ConcurrentHashMap.newKeySet();
    final Set<String> cancelled = ConcurrentHashMap.newKeySet();
    final Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
    final Map<String, List<Delivered>> succeeded = new ConcurrentHashMap<>();
    final Queue<Throwable> problems = new ConcurrentLinkedQueue<>();

    Recorder(TopicDefinition topic) {
        this.topic = topic;
    }

    void expect(String key, String payload) {
        payloads.put(key, payload);
    }

    @Override
    public ConsumeResult handle(RmqMessage<String> message) {
        String key = message.key();
        delivered.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        try {
            check(message);
        } catch (Throwable t) {
            problems.add(t);
        }
        if (!healed.contains(key)) {
            if (poison.contains(key)) {
                return ConsumeResult.dead("poison");
            }
            if (doomed.contains(key)) {
                throw new IllegalStateException(key + " always fails");
            }
            if (failFirst.contains(key) && message.attempt() == 1) {
                throw new IllegalStateException("first attempt of " + key + " fails");
            }
        }
        if (extendLease.contains(key)) {
            try {
                Instant before = message.leaseDeadline();
                message.extendLease(Duration.ofSeconds(5));
                assertThat(message.leaseDeadline()).isAfter(before);
                extended.add(key);
            } catch (Throwable t) {
                problems.add(t);
            }
        }
        succeeded.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>())
                .add(new Delivered(message.attempt(), message.lastError(), message.dueTime(), message.priority()));
        return ConsumeResult.success();
    }

    private void check(RmqMessage<String> message) {
        String key = message.key();
        assertThat(message.topic()).isEqualTo(topic.name());
        assertThat(message.slot()).as("slot of %s", key).isEqualTo(topic.slotOf(key));
        assertThat(payloads).as("sent keys").containsKey(key);
        assertThat(cancelled).as("cancelled keys").doesNotContain(key);
        assertThat(message.payload()).as("payload of %s", key).isEqualTo(payloads.get(key));
        assertThat(message.headers()).as("headers of %s", key).containsExactlyEntriesOf(Map.of("key", key));
        assertThat(message.attempt()).as("attempt of %s", key).isBetween(1, topic.maxRetries() + 1);
        if (topic.type() == TopicType.PRIORITY) {
            assertThat(message.priority()).as("priority of %s", key).hasValue(priorities.get(key));
            assertThat(message.dueTime()).isEmpty();
        } else {
            assertThat(message.priority()).isEmpty();
            assertThat(message.dueTime()).isPresent();
            if (message.attempt() == 1 && message.lastError().isEmpty() && dueTimes.containsKey(key)
                    && !poison.contains(key) && !doomed.contains(key)) {
                assertThat(message.dueTime()).as("due time of %s", key)
                        .hasValue(Instant.ofEpochMilli(dueTimes.get(key)));
            }
        }
        if (message.attempt() > 1) {
            assertThat(message.lastError()).as("last error of %s", key)
                    .startsWith("java.lang.IllegalStateException: ").contains(key).endsWith(" fails");
        }
    }

    Set<String> succeededKeys() {
        return Set.copyOf(succeeded.keySet());
    }

    int successes(String key) {
        List<Delivered> list = succeeded.get(key);
        return list == null ? 0 : list.size();
    }

    int invocations(String key) {
        AtomicInteger count = delivered.get(key);
        return count == null ? 0 : count.get();
    }

    int totalInvocations() {
        return delivered.values().stream().mapToInt(AtomicInteger::get).sum();
    }
}
